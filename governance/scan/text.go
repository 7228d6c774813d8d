package scan

// Word-at-a-time (SWAR) constants: a byte of x is zero iff
// (x-SWARLo)&^x&SWARHi has its high bit.
const (
	SWARLo = 0x0101010101010101
	SWARHi = 0x8080808080808080
)

// Load8 reads s[i:i+8] little-endian (one load once compiled).
func Load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// IsASCII reports whether s holds only ASCII bytes (the scanners' fast
// paths), eight bytes at a time.
func IsASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if Load8(s, i)&SWARHi != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// HasPrefixFold reports whether s starts with the lower-case ASCII prefix
// p, ignoring the case of ASCII letters of s.
func HasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[i] {
			return false
		}
	}
	return true
}

// Invisible reports the characters that render as nothing: the soft
// hyphen, the Mongolian vowel separator, zero-width spaces, joiners and
// direction marks, bidi embeddings and overrides, the word joiner and
// invisible operators, the BOM and the tag characters. The scanners read
// through them, so none can split a word, a keyword or an entity.
func Invisible(r rune) bool {
	return r == 0x00AD || r == 0x180E || r >= 0x200B && r <= 0x200F || r >= 0x202A && r <= 0x202E ||
		r >= 0x2060 && r <= 0x2064 || r == 0xFEFF || r >= 0xE0000 && r <= 0xE007F
}
