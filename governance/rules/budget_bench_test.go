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

// BenchmarkScanKeywordsAtLimits is one Scan of a 256 KiB field by the
// largest keyword policy: 100 rules of 200 keywords, 64 KiB of distinct
// phrases over enough letters that the one-pass automaton would exceed
// maxAutomatonCells, so each keyword is searched on its own. The text
// holds the first letter of every keyword everywhere and none of them.
func BenchmarkScanKeywordsAtLimits(b *testing.B) {
	specs := make([]Spec, 100)
	const alpha = "abcdefghijklmnopqrstuvwxyz0123456789"
	k := 0
	for i := range specs {
		specs[i] = Spec{Name: fmt.Sprint("k", i), Kind: "keyword"}
		for range 200 {
			// 3 bytes each: 20,000 keywords, 60,000 bytes.
			specs[i].Patterns = append(specs[i].Patterns, string([]byte{'q', alpha[k/len(alpha)%len(alpha)], alpha[k%len(alpha)]}))
			k++
		}
	}
	set, err := Compile(specs)
	require.NoError(b, err)
	text := strings.Repeat("qq ", len(worstText)/3)
	b.Logf("automaton built: %v", set.ac != nil)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		set.Scan(text, nil)
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

// atBudget are the worst policies governance.MaxRegexpInsts (128) admits:
// worstPattern cut to 127 instructions, once; and 32 short patterns of 4
// instructions (a pass over the text each).
var atBudget = map[string][]string{
	"one-long":   {`\pL{0,62}0`},
	"many-short": slicesRepeat(`\pL0`, 32),
}

// BenchmarkScanAtBudget is one Scan of a 256 KiB field by each of atBudget.
func BenchmarkScanAtBudget(b *testing.B) {
	for _, name := range []string{"one-long", "many-short"} {
		b.Run(name, func(b *testing.B) {
			set, err := Compile([]Spec{{Name: "w", Kind: "regex", Patterns: atBudget[name]}})
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
