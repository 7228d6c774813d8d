package secrets

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func requireOpenGatesMatchesGated(t *testing.T, x string) {
	t.Helper()
	open := openGates(x)
	var lower string
	for i := range rules {
		require.Equal(t, gated(x, &lower, &rules[i]), open[i], "%q rule %s", x, rules[i].id)
	}
	require.Equal(t, gated(x, &lower, &highEntropyGate), open[len(rules)], "%q high entropy", x)
}

// TestOpenGatesMatchesGated: the one-pass gate scan agrees with checking
// each rule's gates by substring search, ASCII or not.
func TestOpenGatesMatchesGated(t *testing.T) {
	texts := []string{"", "s", "SK", "AKIA", "my Api_Key is", "aws AWS aWs", "ToKeN", "\u212Aey here", "p\u0130ss", "İpass",
		"-----BEGIN RSA", "hooks.slack.com", "sk-ant- sk_live_ xoxb ghp_ eyJ npm_ hf_ SG. AIza glpat-", "bearer\xff", "é credential", "Authorization",
		"\u201cToKeN\u201d and DataDog", "\xffpass\xfe", "caf\u00e9 ATATT3 K\u212A"}
	for _, x := range texts {
		requireOpenGatesMatchesGated(t, x)
	}
}

// TestOpenGatesRandom: the same on random texts of gate fragments (whole,
// cut, case-flipped) and filler, at every offset of the eight-byte blocks.
func TestOpenGatesRandom(t *testing.T) {
	var frags []string
	for _, refs := range gateTable {
		for _, g := range refs {
			frags = append(frags, g.gate, strings.ToUpper(g.gate), g.gate[:len(g.gate)-1], g.gate[1:])
		}
	}
	frags = append(frags, "S", "K", "A", "C", "k", "s", " ", "\n", "é", "\u212A", "İ", "\xff", "_", "-", "the ", "ng ")
	r := rand.New(rand.NewSource(3))
	var b strings.Builder
	for range 20000 {
		b.Reset()
		for range r.Intn(12) {
			if r.Intn(3) == 0 {
				b.WriteByte(byte(32 + r.Intn(95)))
				continue
			}
			f := []byte(frags[r.Intn(len(frags))])
			for i, c := range f {
				if r.Intn(4) == 0 && c >= 'a' && c <= 'z' {
					f[i] = c - 'a' + 'A'
				}
			}
			b.Write(f)
		}
		requireOpenGatesMatchesGated(t, b.String())
	}
}
