package eval

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/governance/grounding"
)

type summEdit struct {
	Doc             string   `json:"doc"`
	Summary         string   `json:"summary"`
	OriginalSummary string   `json:"original_summary"`
	Label           int      `json:"label"`
	EditTypes       []string `json:"edit_types"`
}

var digitsRE = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// numericEdit: the edit changed a number versus the original summary.
func numericEdit(r summEdit) bool {
	return !slices.Equal(digitsRE.FindAllString(r.Summary, -1), digitsRE.FindAllString(r.OriginalSummary, -1))
}

// expectedType maps SummEdits edit types to a mismatch type (datasets README).
func expectedType(r summEdit) string {
	switch {
	case numericEdit(r):
		return grounding.Numeric
	case slices.Contains(r.EditTypes, "negation_insertion_removal") || slices.Contains(r.EditTypes, "antonym_swap"):
		return grounding.Contradiction
	case slices.Contains(r.EditTypes, "hallucinated_fact_insertion"):
		return grounding.Unsupported
	}
	return ""
}

// Grounding measures the checker on SummEdits (summary vs document) and
// HaluEval QA (answer vs knowledge). Positive = inconsistent / hallucinated;
// flagged = any mismatch type other than none.
func Grounding(datasetsDir string) ([]Table, error) {
	c := grounding.New()
	tab := Table{Category: "Grounding (answer vs source)"}
	overall := Row{Label: "SummEdits all files (consistent vs inconsistent)", Target: "bal.acc>=0.70"}
	numeric := Row{Label: "SummEdits numeric-edit rows vs consistent rows", Target: "bal.acc>=0.90"}
	// What the default policy acts on (blocks, rewrites or regenerates):
	// verdicts at or over its min_confidence. Verify's mismatch_type reports
	// every verdict, as the rows above count them.
	var acted, haluActed Row
	typeOK, typeAll := 0, 0
	var perFile []Row
	// Held out by document: the documents numbered from 1 across the three
	// files in this order; thresholds are chosen on the even ones
	// (docs/governance.md, Quality).
	var half [2]Row
	halfFile := map[string]*[2]Row{}
	docNo := 0
	for _, f := range []string{"sales_email", "samsum", "scitldr"} {
		rows, err := loadSummEdits(datasetsDir, f)
		if err != nil {
			return nil, err
		}
		row := Row{Label: "SummEdits " + f, Target: "bal.acc>=0.70"}
		docs := map[string]int{}
		halfFile[f] = &[2]Row{}
		for _, r := range rows {
			d, ok := docs[r.Doc]
			if !ok {
				docNo++
				d = docNo
				docs[r.Doc] = d
			}
			res := c.Check(r.Summary, r.Doc)
			flagged := res.Mismatch != grounding.None
			inconsistent := r.Label == 0
			count(&row, inconsistent, flagged)
			count(&overall, inconsistent, flagged)
			count(&acted, inconsistent, flagged && res.Confidence >= governance.DefaultMinConfidence)
			count(&half[d%2], inconsistent, flagged)
			count(&halfFile[f][d%2], inconsistent, flagged)
			if !inconsistent || numericEdit(r) {
				count(&numeric, inconsistent, flagged)
			}
			if inconsistent {
				if want := expectedType(r); want != "" {
					typeAll++
					if res.Mismatch == want {
						typeOK++
					}
				}
			}
		}
		row.Pass = row.BalancedAccuracy() >= 0.70
		perFile = append(perFile, row)
	}
	overall.Pass = overall.BalancedAccuracy() >= 0.70
	numeric.Pass = numeric.BalancedAccuracy() >= 0.90

	halu := Row{Label: "HaluEval QA (right vs hallucinated answer)", Target: "bal.acc>=0.85"}
	haluRows, err := loadHaluEval(datasetsDir)
	if err != nil {
		return nil, err
	}
	var haluHalf [2]Row
	for i, r := range haluRows {
		n := i + 1
		rr, hr := c.Check(r.Right, r.Knowledge), c.Check(r.Hallucinated, r.Knowledge)
		right, hallucinated := rr.Mismatch != grounding.None, hr.Mismatch != grounding.None
		count(&haluActed, false, right && rr.Confidence >= governance.DefaultMinConfidence)
		count(&haluActed, true, hallucinated && hr.Confidence >= governance.DefaultMinConfidence)
		count(&halu, false, right)
		count(&halu, true, hallucinated)
		count(&haluHalf[n%2], false, right)
		count(&haluHalf[n%2], true, hallucinated)
	}
	halu.Pass = halu.BalancedAccuracy() >= 0.85

	tab.Rows = append([]Row{numeric}, perFile...)
	tab.Rows = append(tab.Rows, overall, halu)
	tab.Notes = []string{
		"Positive = inconsistent summary / hallucinated answer; flagged = mismatch_type other than none, as POST /v1/verify reports it (also under the policy's min_confidence, where no policy fires). Targets are on balanced accuracy.",
		"Numeric-edit rows: inconsistent rows whose summary's numbers differ from original_summary's, against all consistent rows of the three files.",
		fmt.Sprintf("Mismatch type agreement on inconsistent SummEdits rows with a mapped edit type (numeric / negation+antonym -> contradiction / hallucinated fact -> unsupported): %d of %d (%.1f%%).", typeOK, typeAll, 100*ratio(typeOK, typeAll)),
		fmt.Sprintf("Held out by document (SummEdits documents numbered from 1 across sales_email, samsum, scitldr; HaluEval rows from 1): balanced accuracy on even / odd documents: all files %.3f / %.3f (sales_email %.3f / %.3f, samsum %.3f / %.3f, scitldr %.3f / %.3f), HaluEval %.3f / %.3f. Thresholds are chosen on the even ones.",
			half[0].BalancedAccuracy(), half[1].BalancedAccuracy(),
			halfFile["sales_email"][0].BalancedAccuracy(), halfFile["sales_email"][1].BalancedAccuracy(),
			halfFile["samsum"][0].BalancedAccuracy(), halfFile["samsum"][1].BalancedAccuracy(),
			halfFile["scitldr"][0].BalancedAccuracy(), halfFile["scitldr"][1].BalancedAccuracy(),
			haluHalf[0].BalancedAccuracy(), haluHalf[1].BalancedAccuracy()),
		fmt.Sprintf("Verdicts the default policy acts on (confidence >= %.1f; under it Verify reports mismatch_type but no policy fires and the answer passes): SummEdits all files %.3f (recall %.3f, FPR %.3f), HaluEval %.3f.",
			governance.DefaultMinConfidence, acted.BalancedAccuracy(), acted.Recall(), acted.FPR(), haluActed.BalancedAccuracy()),
		"Published balanced accuracy on SummEdits: SummaC-Conv 57.1, QAFactEval 65.5, GPT-4 82.1.",
	}
	// A target met over all rows but not on the held-out half is not met on
	// unseen text: say so beside the table's "yes".
	var heldOutMiss []string
	for i, f := range []string{"sales_email", "samsum", "scitldr"} {
		if odd := halfFile[f][1].BalancedAccuracy(); perFile[i].Pass && odd < 0.70 {
			heldOutMiss = append(heldOutMiss, fmt.Sprintf("%s (%.3f)", f, odd))
		}
	}
	if len(heldOutMiss) > 0 {
		tab.Notes = append(tab.Notes, "Met over all rows but NOT on the held-out odd documents alone: "+strings.Join(heldOutMiss, ", ")+
			". The rules were chosen on the even documents; the odd half is the better estimate for unseen text.")
	}
	other, err := otherDomains(c)
	if err != nil {
		return nil, err
	}
	return []Table{tab, other}, nil
}

// SummEdits has ten domains and the datasets hold three; these seven sets are
// the project's own, written in SummEdits' style (one consistent summary per
// document, meaning-preserving paraphrases labelled 1, minimal inconsistent
// edits labelled 0) for the seven others, so a rule chosen on the three files
// is also measured on text it was not chosen on.
var (
	//go:embed summedits_other/dev.json
	otherDev []byte
	//go:embed summedits_other/heldout.json
	otherHeldOut []byte
	//go:embed summedits_other/heldout2.json
	otherHeldOut2 []byte
	//go:embed summedits_other/heldout3.json
	otherHeldOut3 []byte
	// heldout4.json follows SummEdits' own construction more closely than
	// the earlier sets: ~35-word summaries over ~150-word sources with a few
	// numbers, faithful variants that swap words of the seed summary, and
	// edits that change one detail of it.
	//go:embed summedits_other/heldout4.json
	otherHeldOut4 []byte
	// heldout5.json, heldout6.json and heldout7.json are built as
	// heldout4.json is, each over 28 new documents.
	//go:embed summedits_other/heldout5.json
	otherHeldOut5 []byte
	//go:embed summedits_other/heldout6.json
	otherHeldOut6 []byte
	//go:embed summedits_other/heldout7.json
	otherHeldOut7 []byte
)

// otherDomains scores the checker on the project-written sets: one row per
// domain and one for all rows of each set.
func otherDomains(c *grounding.Checker) (Table, error) {
	tab := Table{Category: "Grounding (project-written, SummEdits' style, the seven domains the datasets lack)"}
	for _, set := range []struct {
		name, label string
		data        []byte
	}{
		{"dev.json", "development (stop 22's rules were chosen on it)", otherDev},
		{"heldout.json", "held out for stop 22's first round, development since its second", otherHeldOut},
		{"heldout2.json", "held out for stop 22's second round, development since stop 23", otherHeldOut2},
		{"heldout3.json", "held out (written before stop 23, scored once before and once after each of stops 23 and 24)", otherHeldOut3},
		{"heldout4.json", "SummEdits' construction, held out for stop 24, development since its second round", otherHeldOut4},
		{"heldout5.json", "SummEdits' construction, held out for stop 24's second round, development since stop 25", otherHeldOut5},
		{"heldout6.json", "SummEdits' construction, held out for stop 25, development since stop 26", otherHeldOut6},
		{"heldout7.json", "held out, SummEdits' construction (written before stop 26, scored once before and once after it)", otherHeldOut7},
	} {
		var rows []struct {
			summEdit
			ID string `json:"id"`
		}
		if err := json.Unmarshal(set.data, &rows); err != nil {
			return Table{}, fmt.Errorf("decode summedits_other/%s: %w", set.name, err)
		}
		var domains []string
		byDomain := map[string]*Row{}
		all := Row{Label: "other domains, " + set.label + ": all rows", Target: "bal.acc>=0.70"}
		for _, r := range rows {
			d := domainOf(r.ID)
			if byDomain[d] == nil {
				domains = append(domains, d)
				byDomain[d] = &Row{Label: "other domains, " + set.label + ": " + d, Target: "bal.acc>=0.70"}
			}
			flagged := c.Check(r.Summary, r.Doc).Mismatch != grounding.None
			count(byDomain[d], r.Label == 0, flagged)
			count(&all, r.Label == 0, flagged)
		}
		for _, d := range domains {
			byDomain[d].Pass = byDomain[d].BalancedAccuracy() >= 0.70
			tab.Rows = append(tab.Rows, *byDomain[d])
		}
		all.Pass = all.BalancedAccuracy() >= 0.70
		tab.Rows = append(tab.Rows, all)
	}
	tab.Notes = []string{
		"Written by the project in SummEdits' format and style (governance/eval/summedits_other/): news, podcast and meeting (qmsum) transcripts, US bill texts (billsum), Shakespeare scenes, earnings-call (ectsum) and sales-call transcripts; 4 documents per domain and set, 5-6 rows each, 33-40% consistent. heldout.json was committed before any of stop 22's first-round rule changes, heldout2.json before any of its second round's, heldout3.json before any of stop 23's, heldout4.json (36-word summaries over 150-word sources, faithful variants that swap words of the seed summary, one-detail edits, as SummEdits builds its rows) before any of stop 24's, heldout5.json, built the same way, before any of stop 24's second round's, heldout6.json, built the same way, before any of stop 25's and heldout7.json, built the same way, before any of stop 26's; the rows a held-out set gets wrong were never looked at (heldout.json, heldout2.json, heldout4.json, heldout5.json and heldout6.json are development data since the round after theirs).",
	}
	return tab, nil
}

// domainOf reads the domain from an id "<set>_<domain>_<doc>_<row>".
func domainOf(id string) string {
	parts := strings.Split(id, "_")
	if len(parts) < 4 {
		return id
	}
	return strings.Join(parts[1:len(parts)-2], "_")
}

// haluRow is one HaluEval QA row.
type haluRow struct {
	Knowledge    string `json:"knowledge"`
	Right        string `json:"right_answer"`
	Hallucinated string `json:"hallucinated_answer"`
}

// loadHaluEval reads HaluEval QA (JSON lines) under datasetsDir/grounding.
func loadHaluEval(datasetsDir string) ([]haluRow, error) {
	path := filepath.Join(datasetsDir, "grounding", "halueval_qa_one_turn.json")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	var out []haluRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r haluRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("decode %s: %w", path, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// loadSummEdits reads the SummEdits file of one domain (sales_email,
// samsum, scitldr) under datasetsDir/grounding.
func loadSummEdits(datasetsDir, domain string) ([]summEdit, error) {
	path := filepath.Join(datasetsDir, "grounding", "summedits_"+domain+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var rows []summEdit
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return rows, nil
}
