package scan

import "unicode/utf8"

// IsASCII reports whether s holds only ASCII bytes (the scanners' fast
// paths).
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
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
