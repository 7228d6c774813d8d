package scan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAutomaton: every occurrence of every word, overlapping ones
// included, against strings.Index at each position.
func TestAutomaton(t *testing.T) {
	words := []string{"he", "she", "his", "hers", "é", "s"}
	a, ok := NewAutomaton(words, 0)
	require.True(t, ok)
	for _, text := range []string{"ushers", "his hershey", "", "xyz", "café shé"} {
		var got, want []string
		st := int32(0)
		for i := 0; i < len(text); i++ {
			st = a.Delta[int(st)*a.Cols+int(a.Class[text[i]])]
			for _, w := range a.Out[st] {
				got = append(got, words[w]+"@"+string(rune('0'+i+1-len(words[w]))))
			}
		}
		for i := range len(text) {
			for _, w := range words {
				if strings.HasPrefix(text[i:], w) {
					want = append(want, w+"@"+string(rune('0'+i)))
				}
			}
		}
		require.ElementsMatch(t, want, got, text)
	}
	_, ok = NewAutomaton([]string{"abcdef"}, 10)
	require.False(t, ok, "over maxCells")
}
