package injection

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRuneDFARandom: patterns with every kind of assertion, repeat and
// class, on random texts of a small alphabet with multi-byte runes and
// invalid bytes, against the regexp.
func TestRuneDFARandom(t *testing.T) {
	all := []string{"ab", "xy", "a", "b", "x", "y", " ", " ", ",", "\n", ":", "'", "-", "é", "说", "\uFFFD", "\xff", "\x80", "\xe8\xaf", "_", "7"}
	words := []string{"ab ", "ab ", "a ", "b ", "xy ", "y ", "zz ", ", ", "x", "'", "-", "é", "\xff", "7", " "}
	cases := []struct {
		expr     string
		alphabet []string
	}{
		{`(?m)^\s*ab\s*:`, all},
		{`\bab\b(?: x)?(?:(?:[ ,]+(?:a|b|xy)\b)+(?:[ ,]+[a-z'-]+)?|[ ,]+[a-z]+(?:[ ,]+y\b)+)[ ,]+(?:ab|y)\b`, words},
		{`a$|(?m)b$|^x|\By\B`, all},
		{`(?s)a.b|x[^a]y|é+\x{FFFD}`, all},
		{`[\x{80}-\x{10FFFF}]y|说.`, all},
		{`\b\b(?:ab)*\B.`, all},
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range cases {
		d := newRuneDFA(c.expr)
		require.NotNil(t, d, c.expr)
		agreesOnRandom(t, rng, c.expr, d.match, c.alphabet, 20, 50)
	}
}

// TestRuneDFARefuses: an automaton of more than maxDFAStates states.
func TestRuneDFARefuses(t *testing.T) {
	require.Nil(t, newRuneDFA(`(?:a|b)*a(?:a|b){12}`))
	require.Nil(t, newRuneDFA(`(?i)ab`))
}
