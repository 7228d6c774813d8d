package scan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMayHide: the eight-bytes-at-a-time test agrees with a byte-by-byte
// look for hideByte, for every byte value at every position of texts of
// every length up to 24 around printable ASCII.
func TestMayHide(t *testing.T) {
	ref := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if hideByte[s[i]] {
				return true
			}
		}
		return false
	}
	for n := 1; n <= 24; n++ {
		base := []byte(strings.Repeat("a~ Z0\t\n}", 3)[:n])
		for pos := range n {
			for c := range 256 {
				b := append([]byte(nil), base...)
				b[pos] = byte(c)
				require.Equal(t, ref(string(b)), mayHide(string(b)), "byte %#x at %d of %q", c, pos, b)
			}
		}
	}
	require.False(t, mayHide("plain ASCII prose,\twith tabs\r\nand line ends, and ~{}|."))
	require.True(t, mayHide("zero\u200bwidth"))
	require.True(t, mayHide("nul\x00"))
	require.True(t, mayHide("\uff21PI key"), "fullwidth forms")
	require.False(t, mayHide("café"), "other non-ASCII letters are no lead bytes")
}
