package rules

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOnePassMatchesPerKeyword: the automaton finds the same spans, in the
// same order, as one search per keyword, on generated keyword sets (shared
// prefixes and suffixes, keywords inside others, duplicates, non-ASCII) and
// texts.
func TestOnePassMatchesPerKeyword(t *testing.T) {
	atoms := []string{"a", "b", "ab", "aa", "ba", " ", "İ", "ß", "é", "x_", "1", "-", "A", "É", "\u00a0", "\u200b", "\n\t"}
	r := rand.New(rand.NewSource(3))
	word := func(n int) string {
		var b strings.Builder
		for range 1 + r.Intn(n) {
			b.WriteString(atoms[r.Intn(len(atoms))])
		}
		return b.String()
	}
	for iter := range 3000 {
		var specs []Spec
		for ri := range 1 + r.Intn(3) {
			var pats []string
			for range 1 + r.Intn(5) {
				p := word(4)
				if strings.TrimSpace(normalize(p)) == "" { // only joiners: an empty pattern
					p = "ab"
				}
				pats = append(pats, p)
			}
			kind := "keyword"
			if ri == 1 {
				kind = "topic"
			}
			specs = append(specs, Spec{Name: string(rune('a' + ri)), Kind: kind, Patterns: pats})
		}
		set, err := Compile(specs)
		require.NoError(t, err)
		require.Len(t, set.acs, 1)
		slow := &Set{rules: set.rules, keywords: set.keywords, ruleKw: set.ruleKw, needFold: set.needFold}
		for range 5 {
			text := word(40)
			hits := set.Scan(text, nil)
			require.Equal(t, slow.Scan(text, nil), hits, "iter %d specs %+v text %q", iter, specs, text)
			// Each span covers original bytes that normalise to a keyword.
			phrases := map[string]bool{}
			for _, k := range set.keywords {
				phrases[k] = true
			}
			for _, h := range hits {
				for _, sp := range h.Spans {
					require.True(t, phrases[normalize(text[sp.Start:sp.End])], "iter %d text %q span %q", iter, text, text[sp.Start:sp.End])
				}
			}
		}
	}
}

func TestOnePassBenchmarkSet(t *testing.T) {
	var kws []string
	for i := range 50 {
		kws = append(kws, "codename"+strings.Repeat("x", i%3)+string(rune('0'+i%10)))
	}
	set, err := Compile([]Spec{{Name: "kw", Kind: "keyword", Patterns: kws}, {Name: "re", Kind: "regex", Patterns: []string{`(?i)codename\d`}}})
	require.NoError(t, err)
	slow := &Set{rules: set.rules, keywords: set.keywords, ruleKw: set.ruleKw, needFold: set.needFold}
	text := strings.Repeat("Codename1 and CODENAMEXX2, codename3x codenamex4-codename5_ codename9. ", 20)
	require.Equal(t, slow.Scan(text, nil), set.Scan(text, nil))
}
