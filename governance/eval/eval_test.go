package eval

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/governance/injection"
)

// datasets is ../shared/datasets beside the checkout (as in CI). The
// tables are measurements, not assertions of the targets: the test checks
// that every category runs and counts something, and logs the tables.
const datasets = "../../../shared/datasets"

func TestCategories(t *testing.T) {
	if _, err := os.Stat(datasets); err != nil {
		t.Skip("datasets not present beside the checkout (../shared/datasets); make eval needs them")
	}
	for name, run := range map[string]func() ([]Table, error){
		"pii":       func() ([]Table, error) { return PII(datasets) },
		"secrets":   Secrets,
		"injection": func() ([]Table, error) { return Injection(datasets) },
		"grounding": func() ([]Table, error) { return Grounding(datasets) },
	} {
		t.Run(name, func(t *testing.T) {
			tables, err := run()
			require.NoError(t, err)
			require.NotEmpty(t, tables)
			var b strings.Builder
			for _, tab := range tables {
				require.NotEmpty(t, tab.Rows)
				for _, r := range tab.Rows {
					require.Positive(t, r.TP+r.FP+r.FN+r.TN, "row %s counted nothing", r.Label)
				}
				tab.Write(&b)
			}
			t.Log(b.String())
		})
	}
}

func TestEvalMissingDir(t *testing.T) {
	_, err := PII(t.TempDir())
	require.Error(t, err)
	_, err = Grounding(t.TempDir())
	require.Error(t, err)
}

// TestFakerTables: the embedded Faker benchmark decodes and both splits
// count positives and negative texts (it needs no datasets directory).
func TestFakerTables(t *testing.T) {
	tabs, err := fakerTables()
	require.NoError(t, err)
	require.Len(t, tabs, 2)
	for _, tab := range tabs {
		for _, r := range tab.Rows {
			require.Positive(t, r.TP+r.FN+r.TN, "row %s of %s counted nothing", r.Label, tab.Category)
		}
	}
}

// TestWriteUndefinedRatios: a ratio without a denominator prints as "—",
// never as a 0 or 1 that reads like a measurement.
func TestWriteUndefinedRatios(t *testing.T) {
	tests := []struct {
		row  Row
		want string
	}{
		{Row{Label: "attacks", TP: 9, FN: 1}, "| attacks | 9 | 0 | 1 | 0 | 1.000 | 0.900 | — | — |"},
		{Row{Label: "benign", FP: 1, TN: 9}, "| benign | 0 | 1 | 0 | 9 | 0.000 | — | 0.100 | — |"},
		{Row{Label: "mixed", TP: 8, FN: 2, FP: 1, TN: 9}, "| mixed | 8 | 1 | 2 | 9 | 0.889 | 0.800 | 0.100 | 0.850 |"},
		{Row{Label: "spans", TP: 9, FP: 1, FN: 1, Spans: true}, "| spans | 9 | 1 | 1 | 0 | 0.900 | 0.900 | — | — |"},
	}
	for _, tt := range tests {
		var b strings.Builder
		Table{Rows: []Row{tt.row}}.Write(&b)
		require.Contains(t, b.String(), tt.want)
	}
}

// TestEverydayQuestions pins the shipped model's false positives on the
// project-written everyday questions (passwords, system prompts, "forget
// the last recipe"): before stop 20's corpus/security.jsonl it flagged 19
// of the development file (10 after it, 5 after FeatureVersion 15) and 3
// of the held-out one; before FeatureVersion
// 11, 5 of the trigger-word requests (3 before FeatureVersion 14). Before
// FeatureVersion 17 (stop 21: product copy's credentials, "your
// instructions for making ...") 14 of the product-copy development file
// and 5 of the everyday development file. The documents development file
// (stop 21, second round) flagged 1 before FeatureVersion 19 and after.
func TestEverydayQuestions(t *testing.T) {
	sc := injection.New()
	for _, tc := range []struct {
		name       string
		text       string
		maxFlagged int
	}{
		{"development", questionsDev, 4},
		{"held out", questionsHeldOut, 1},
		{"trigger words", questionsTriggerWords, 2},
		{"product copy, development", benignDev, 10},
		{"documents that mention assistants and notes, development", benignDocsDev, 1},
		{"documents in other languages and instructions to people, development", benignDocsDev2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var flagged []string
			lines := strings.Split(strings.TrimSpace(tc.text), "\n")
			require.GreaterOrEqual(t, len(lines), 40)
			for _, q := range lines {
				if p, _ := sc.Score(q); p >= injection.Threshold {
					flagged = append(flagged, fmt.Sprintf("%.2f %s", p, q))
				}
			}
			require.LessOrEqual(t, len(flagged), tc.maxFlagged, "flagged:\n%s", strings.Join(flagged, "\n"))
		})
	}
}

// TestProjectAttacks pins the shipped model's recall on the project-written
// attacks beyond the development sets: before FeatureVersion 13 it flagged
// 35 of the 50 development attacks and 30 of the 40 held out; before
// FeatureVersion 19 (instructions addressed to the AI reader) 11 of the
// third set's 30; before FeatureVersion 20 (other languages, no AI noun)
// 8 of the fourth set's 30.
func TestProjectAttacks(t *testing.T) {
	sc := injection.New()
	for _, tc := range []struct {
		name       string
		text       string
		minFlagged int
	}{
		{"development", attacksDev, 46},
		{"held out", attacksHeldOut, 31},
		{"second held-out set", attacksHeldOut2, 20},
		{"third set, development since stop 21's second round", attacksHeldOut3, 27},
		{"fourth set, development since stop 21's third round", attacksHeldOut4, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var missed []string
			all := lines(tc.text)
			for _, a := range all {
				if p, _ := sc.Score(a); p < injection.Threshold {
					missed = append(missed, fmt.Sprintf("%.2f %s", p, a))
				}
			}
			require.GreaterOrEqual(t, len(all)-len(missed), tc.minFlagged, "missed:\n%s", strings.Join(missed, "\n"))
		})
	}
}
