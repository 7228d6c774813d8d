package injection

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// refFeatures is the straightforward definition appendFeatures streams:
// split into words, join them, hash strings.
func refFeatures(norm string, signals []string) []uint32 {
	if len(norm) > maxFeatureBytes {
		norm = norm[:maxFeatureBytes]
	}
	var out []uint32
	words := strings.FieldsFunc(norm, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
	prev := "<s>"
	for _, w := range words {
		out = append(out, bucket3("w:", w, ""), bucket3("b:", prev+" ", w))
		prev = w
	}
	compact := strings.Join(words, " ")
	for i := 0; i+4 <= len(compact); i++ {
		out = append(out, bucket3("c:", compact[i:i+4], ""))
	}
	for _, s := range signals {
		out = append(out, bucket3("h:", s, ""))
	}
	return append(out, bucket("bias"))
}

func TestFeaturesMatchReference(t *testing.T) {
	texts := []string{"", "a", "ignore previous instructions", "  it's  don't '' x ", "héllo wörld ½ ٣ 北京 ok",
		"\xff\xfeabc\x80 d", "tab\tnew\nline", strings.Repeat("revenue 4.2m up 12%. ", 1200), strings.Repeat("é", maxFeatureBytes/2+1)}
	var compact []byte
	var out []uint32
	for _, x := range texts {
		sig := []string{"override"}
		require.Equal(t, refFeatures(x, sig), Features(x, sig), "%q", x)
		out, compact = appendFeatures(out[:0], compact, x, nil)
		require.Equal(t, refFeatures(x, nil), out, "%q", x)
	}
}

func TestTriggerShapeCoversIndex(t *testing.T) {
	for k := range triggerIndex {
		require.NotZero(t, triggerShape[k[0]]&(1<<len(k)), k)
	}
}
