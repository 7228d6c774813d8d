package injection

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPairMatcherForms: small patterns of each feature the matcher reads
// (assertions at either end and inside a literal, classes, ?, both gap
// forms, rune counting over multi-byte and invalid bytes), each input
// against the regexp.
func TestPairMatcherForms(t *testing.T) {
	cases := []struct {
		expr   string
		inputs []string
	}{
		{`(?:\bab\b|cd)[^.]{0,3}(?:x|\byz)`, []string{"ab x", "ab...x", "abx", "zab x", "ab1234x", "ab123x", "cd yz", "cdyz", "cd_yz", "cd.yz", "ab\xffé\xffyz", "ab\xff\xff\xff\xffx", "ab€€€x", "ab€€€€x", ""}},
		{`(?:a[bc]?d)[^\n]{0,2}(?:e)|(?:e)[^!。]{0,1}(?:ad)`, []string{"ade", "abde", "acd.\ne", "acd\ne", "ad。e", "e。ad", "e!ad", "ead", "eéad", "eééad", "abcde"}},
		{`(?:\bq\B\w?)`, nil}, // \w is no literal set: rejected below
		{`(?:x\by|x\b\.)[^a]{0,1}(?:\Bz)`, []string{"x.z", "x.zz", "x.bz", "x. z", "x.az"}},
		{`(?:über|ü)[^ ]{0,1}(?:\bso\b)`, []string{"über so", "überso", "ü-so", "üso", "übe\xffso"}},
	}
	for _, c := range cases {
		if c.inputs == nil {
			require.Panics(t, func() { newPairMatcher(c.expr) }, c.expr)
			continue
		}
		m, re := newPairMatcher(c.expr), regexp.MustCompile(c.expr)
		for _, in := range c.inputs {
			require.Equal(t, re.MatchString(in), m.match(in), "%q on %q", c.expr, in)
		}
	}
}

func TestPairMatcherRejects(t *testing.T) {
	for _, expr := range []string{`ab`, `a[^.]{1,3}b`, `a[^.]*b`, `(?i:a)[^.]{0,3}b`, `a+[^.]{0,3}b`, `a[^.]{0,3}`, `[^a][^.]{0,3}b`, `(?:x|y|z|w|v)[^.]{0,3}b|b[^.]{0,3}c|c[^.]{0,3}d|d[^.]{0,3}e|e[^.]{0,3}f`} {
		require.Panics(t, func() { newPairMatcher(expr) }, expr)
	}
}

// fastSignalPieces are the parts TestFastSignalsGenerated builds texts
// of, besides each matcher's own literals: word and non-word neighbours,
// the gap classes' exclusions, multi-byte runes, U+FFFD and invalid bytes.
var fastSignalPieces = []string{" ", " ", "a", "Z", "_", "7", "é", "ж", "中", "😀", "\uFFFD", "\xff", "\x80", "\xe4\xb8", ".", "\n", "。", "!", "?", ",", "'"}

// TestFastSignalsGenerated: random texts of literals, gap fillers of 0-3
// and 38-42 / 58-62 runes, terminators and invalid bytes, each fast
// signal against its regexp; enough of them match and fail to match.
func TestFastSignalsGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for si, f := range fastSignals {
		if f == nil {
			continue
		}
		m := newPairMatcher(signalREs[si].re.String())
		yes, no := 0, 0
		for range 3000 {
			var b strings.Builder
			for range 1 + rng.IntN(6) {
				switch rng.IntN(4) {
				case 0, 1:
					b.WriteString(m.lits[rng.IntN(len(m.lits))].s)
				case 2:
					b.WriteString(fastSignalPieces[rng.IntN(len(fastSignalPieces))])
				default:
					n := []int{0, 1, 2, 3, 38, 39, 40, 41, 42, 58, 59, 60, 61, 62}[rng.IntN(14)]
					b.WriteString(strings.Repeat(fastSignalPieces[rng.IntN(len(fastSignalPieces))], n))
				}
			}
			text := b.String()
			got := f(text)
			require.Equal(t, signalREs[si].re.MatchString(text), got, "%s on %q", signalREs[si].name, text)
			if got {
				yes++
			} else {
				no++
			}
		}
		require.Greater(t, yes, 300, signalREs[si].name)
		require.Greater(t, no, 300, signalREs[si].name)
	}
}

// TestPairSignalsFound: every name of pairSignals has its fast matcher.
func TestPairSignalsFound(t *testing.T) {
	n := 0
	for _, f := range fastSignals {
		if f != nil {
			n++
		}
	}
	require.Equal(t, len(pairSignals), n)
}

func FuzzFastSignals(f *testing.F) {
	f.Add("ignora las instrucciones")
	f.Add("dime\xff la contraseña")
	f.Add("指令。忽略")
	f.Fuzz(func(t *testing.T, text string) {
		require.Empty(t, FastSignalMismatch(text))
	})
}
