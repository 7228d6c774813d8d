package rules

import (
	"bytes"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/governance/scan"
)

// referenceScan is Scan as the package documents it, written the plain
// way: per rule, per pattern in order, every non-overlapping whole-word
// occurrence of the normalised phrase (a phrase the rule already gave is
// not searched again: its spans would be the same), then every non-empty
// match of each regexp. No automaton, no literal gate, nothing shared
// between rules.
func referenceScan(specs []Spec, text string) []scan.Hit {
	f, offs, shift := appendNorm(nil, nil, text)
	var out []scan.Hit
	for _, sp := range specs {
		var spans []scan.Span
		seen := map[string]bool{}
		for _, p := range sp.Patterns {
			if sp.Kind == "regex" {
				for _, m := range regexp.MustCompile(p).FindAllStringIndex(text, -1) {
					switch n := len(spans); {
					case m[1] <= m[0]:
					case n > 0 && spans[n-1].End == m[0]: // touching: one span
						spans[n-1].End = m[1]
					default:
						spans = append(spans, scan.Span{Start: m[0], End: m[1]})
					}
				}
				continue
			}
			ph := strings.TrimSpace(normalize(p))
			if seen[ph] {
				continue
			}
			seen[ph] = true
			for i := 0; i < len(f); {
				j := bytes.Index(f[i:], []byte(ph))
				if j < 0 {
					break
				}
				st, en := i+j, i+j+len(ph)
				if wholeWord(f, st, en) {
					spans = append(spans, origin(st, en, shift, offs))
				}
				i = en
			}
		}
		if len(spans) == 0 {
			continue
		}
		sev := sp.Severity
		if sev == "" {
			sev = scan.SeverityMedium
		}
		h := scan.Hit{Policy: "custom." + sp.Name, Severity: sev, Confidence: 1, Spans: spans, Placeholder: "[REDACTED]"}
		if sp.Kind == "topic" {
			h.Policy, h.Placeholder = "topic."+sp.Name, ""
		}
		out = append(out, h)
	}
	return out
}

// TestScanMatchesReference: on generated policies (keywords repeated
// within and across rules, differing in case or separators, regexps with
// and without a required literal) and texts, Scan finds exactly what
// referenceScan does, with one automaton, with the keywords split over
// many small ones, and searched one at a time. Without duplicate phrases
// in a rule, referenceScan is the code before phrases were shared, so
// those policies' hits are unchanged.
func TestScanMatchesReference(t *testing.T) {
	atoms := []string{"a", "b", "ab", "aa", " ", "A", "é", "É", "ß", "-", "_", "\u200b", "\n", "1", "x"}
	regexps := []string{`a+b`, `(?i)ab`, `[0-9]+`, `b\b`, `x_?1`, `(?i)aab`, `é+`, `a|b`, `\bab\b`, `aa?`}
	r := rand.New(rand.NewSource(18))
	word := func(n int) string {
		var b strings.Builder
		for range 1 + r.Intn(n) {
			b.WriteString(atoms[r.Intn(len(atoms))])
		}
		return b.String()
	}
	var pool []string // phrases reused across rules, as given or in upper case
	for iter := range 2000 {
		var specs []Spec
		for ri := range 1 + r.Intn(4) {
			sp := Spec{Name: string(rune('a' + ri)), Kind: []string{"keyword", "topic", "regex"}[r.Intn(3)]}
			for range 1 + r.Intn(6) {
				var p string
				switch {
				case sp.Kind == "regex":
					p = regexps[r.Intn(len(regexps))]
				case len(pool) > 0 && r.Intn(3) == 0:
					p = pool[r.Intn(len(pool))]
					if r.Intn(2) == 0 {
						p = strings.ToUpper(p)
					}
				default:
					p = word(3)
					if strings.TrimSpace(normalize(p)) == "" {
						p = "ab"
					}
					pool = append(pool, p)
				}
				sp.Patterns = append(sp.Patterns, p)
			}
			specs = append(specs, sp)
		}
		set, err := Compile(specs)
		require.NoError(t, err)
		split := &Set{rules: set.rules, keywords: set.keywords, ruleKw: set.ruleKw, needFold: set.needFold, acs: buildAutomata(set.keywords, 8+r.Intn(40))}
		alone := &Set{rules: set.rules, keywords: set.keywords, ruleKw: set.ruleKw, needFold: set.needFold}
		for range 4 {
			text := word(40)
			want := referenceScan(specs, text)
			require.Equal(t, want, set.Scan(text, nil), "iter %d specs %q text %q", iter, specs, text)
			require.Equal(t, want, split.Scan(text, nil), "split over %d automata: iter %d specs %q text %q", len(split.acs), iter, specs, text)
			require.Equal(t, want, alone.Scan(text, nil), "iter %d specs %q text %q", iter, specs, text)
		}
	}
}

// TestDuplicateKeywordsBounded: a phrase given many times, in one rule and
// across rules, is searched once: each rule's hit holds each occurrence
// once (before, every copy added them all again: 20,000 copies of "a" on
// "a a a ..." were 2.6 billion spans per 256 KiB).
func TestDuplicateKeywordsBounded(t *testing.T) {
	tests := []struct {
		name      string
		rules     int
		patterns  []string
		wantSpans int // per rule, on 1,000 × "a "
	}{
		{"one rule, one copy", 1, []string{"a"}, 1000},
		{"one rule, 200 copies", 1, slicesRepeat("a", 200), 1000},
		{"100 rules, 5 variants each", 100, []string{"a", "A", " a", "a\u200b", "a "}, 1000},
		{"two phrases", 3, []string{"a", "a a", "A", "A  A"}, 1000 + 500},
	}
	text := strings.Repeat("a ", 1000)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var specs []Spec
			for i := range tt.rules {
				specs = append(specs, Spec{Name: string(rune('a'+i%26)) + strings.Repeat("x", i/26), Kind: "keyword", Patterns: tt.patterns})
			}
			set, err := Compile(specs)
			require.NoError(t, err)
			hs := set.Scan(text, nil)
			require.Len(t, hs, tt.rules)
			for _, h := range hs {
				require.Equal(t, tt.wantSpans, len(h.Spans), h.Policy)
			}
		})
	}
}
