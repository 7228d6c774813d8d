package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/governance/scan"
)

// worstPattern keeps a thread alive per repetition count on every letter
// and never matches text without a '0': Go's regexp (a Pike VM on texts
// this long) then steps through nearly every one of its 1,999 instructions
// per byte. \pL is the costliest class found (a range table per step); the
// pattern has no literal prefix to skip ahead to and no required literal
// of 3 bytes to gate it. 11 bytes: MaxTotalPatternBytes holds 5,957.
const worstPattern = `\pL{0,998}0`

// worstText is one 256 KiB field (prompt or answer; tool_result is two of
// them) on which worstPattern finds nothing.
var worstText = strings.Repeat("a", 256<<10)

// BenchmarkScanWorstPattern is one Scan of a 256 KiB field by n copies of
// worstPattern in one rule. The copies run one after the other, so a
// policy's cost is linear in their number: the policy at the old limits
// (5,957 copies, 64 KiB of patterns) costs 5,957 times the n=1 op.
func BenchmarkScanWorstPattern(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			set, err := Compile([]Spec{{Name: "w", Kind: "regex", Patterns: slicesRepeat(worstPattern, n)}})
			require.NoError(b, err)
			b.SetBytes(int64(len(worstText)))
			for b.Loop() {
				if hs := set.Scan(worstText, nil); len(hs) != 0 {
					b.Fatal(hs)
				}
			}
		})
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// kwAlphabet are the letters of BenchmarkScanKeywordsAtLimits' keywords:
// ASCII, Greek and Cyrillic, 119 distinct bytes in UTF-8.
var kwAlphabet = []rune("abcdefghijklmnopqrstuvwxyz0123456789αβγδεζηθικλμνξοπρστυφχψωабвгдежзийклмнопрстуфхцчшщъыьэюя")

// BenchmarkScanKeywordsAtLimits is one Scan of a 256 KiB field by the
// largest keyword policy: 64 KiB of distinct three-letter keywords (about
// 13,000, in rules of 200) over enough bytes that one automaton would
// exceed maxAutomatonCells (each keyword was then searched on its own).
// The text is every letter of the alphabet as a word of its own: the
// first letter of every keyword, everywhere, and no keyword.
func BenchmarkScanKeywordsAtLimits(b *testing.B) {
	var specs []Spec
	total := 0
	for k := 0; ; k++ {
		n := len(kwAlphabet)
		p := string([]rune{kwAlphabet[k/n/n%n], kwAlphabet[k/n%n], kwAlphabet[k%n]})
		if total+len(p) > MaxTotalPatternBytes {
			break
		}
		total += len(p)
		if k%200 == 0 {
			specs = append(specs, Spec{Name: fmt.Sprint("k", k/200), Kind: "keyword"})
		}
		specs[len(specs)-1].Patterns = append(specs[len(specs)-1].Patterns, p)
	}
	set, err := Compile(specs)
	require.NoError(b, err)
	var words strings.Builder
	for _, r := range kwAlphabet {
		words.WriteRune(r)
		words.WriteByte(' ')
	}
	text := strings.Repeat(words.String(), len(worstText)/words.Len())
	b.Logf("%d rules, %d keywords, %d bytes; automata: %d", len(specs), len(set.keywords), total, len(set.acs))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if hs := set.Scan(text, nil); len(hs) != 0 {
			b.Fatal(hs)
		}
	}
}

// BenchmarkScanSmall is the ordinary case: a handful of rules on a 2 KB
// answer that triggers none of them.
func BenchmarkScanSmall(b *testing.B) {
	set, err := Compile([]Spec{
		{Name: "codename", Kind: "keyword", Patterns: []string{"project falcon", "blue harbor"}},
		{Name: "tickets", Kind: "regex", Patterns: []string{`JIRA-[0-9]+`, `\b[A-Z]{2,5}-\d{3,8}\b`}},
		{Name: "keys", Kind: "regex", Patterns: []string{`[a-f0-9]{32}`, `(?i)confidential`}},
		{Name: "weapons", Kind: "topic", Patterns: []string{"build a bomb"}},
	})
	require.NoError(b, err)
	text := strings.Repeat("We shipped the new billing flow today and nobody mentioned anything secret. ", 27)[:2000]
	var dst []scan.Hit
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		dst = set.Scan(text, dst[:0])
	}
}

// BenchmarkScanAtBudget is one Scan of a 256 KiB field of "aaa..." by the
// worst policies governance.MaxRegexpCost (1,000: instructions plus 24
// per pattern) admits: worstPattern cut to 975 instructions, once; 35
// short patterns of 4 instructions (a pass over the text each) matching
// nothing; 37 copies of \pL (3 instructions) each matching every byte.
// The -200 rows are the first budget's (200), measured first.
func BenchmarkScanAtBudget(b *testing.B) {
	for _, tt := range []struct {
		name     string
		patterns []string
		spans    int
	}{
		{"one-long", []string{`\pL{0,486}0`}, 0},
		{"many-short", slicesRepeat(`\pL0`, 35), 0},
		{"many-matching", slicesRepeat(`\pL`, 37), 37},
		{"one-long-200", []string{`\pL{0,86}0`}, 0},
		{"many-matching-200", slicesRepeat(`\pL`, 7), 7},
	} {
		b.Run(tt.name, func(b *testing.B) {
			set, err := Compile([]Spec{{Name: "w", Kind: "regex", Patterns: tt.patterns}})
			require.NoError(b, err)
			b.ReportAllocs()
			b.SetBytes(int64(len(worstText)))
			for b.Loop() {
				n := 0
				for _, h := range set.Scan(worstText, nil) {
					n += len(h.Spans)
				}
				if n != tt.spans {
					b.Fatal(n)
				}
			}
		})
	}
}

// BenchmarkScanDuplicateKeywords is one Scan of a 64 KiB field of "a a a
// ..." by 10 rules of 200 copies of "a": each copy added every span again
// before phrases were shared (65.5M spans, 9 GB allocated; the old limits'
// 20,000 copies on 256 KiB would have been 2.6 billion).
func BenchmarkScanDuplicateKeywords(b *testing.B) {
	specs := make([]Spec, 10)
	for i := range specs {
		specs[i] = Spec{Name: fmt.Sprint("k", i), Kind: "keyword", Patterns: slicesRepeat("a", 200)}
	}
	set, err := Compile(specs)
	require.NoError(b, err)
	text := strings.Repeat("a ", 32<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		set.Scan(text, nil)
	}
}
