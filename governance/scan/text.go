package scan

import "unicode/utf8"

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

// Invisible reports the characters that render as nothing: Unicode's
// Default_Ignorable_Code_Point set (the soft hyphen, the combining grapheme
// joiner, the Arabic letter mark, Hangul fillers, Khmer inherent vowels,
// Mongolian free variation selectors and vowel separator, zero-width
// spaces, joiners and direction marks, bidi embeddings, overrides and
// isolates, the word joiner and invisible operators, variation selectors,
// the BOM, shorthand and musical format controls, the tag characters).
// The scanners read through them, so none can split a word, a keyword or
// an entity.
func Invisible(r rune) bool {
	switch {
	case r < 0x00AD:
		return false
	case r < 0x2000:
		return r == 0x00AD || r == 0x034F || r == 0x061C || r == 0x115F || r == 0x1160 ||
			r == 0x17B4 || r == 0x17B5 || r >= 0x180B && r <= 0x180F
	case r < 0x3000:
		return r >= 0x200B && r <= 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2060 && r <= 0x206F
	}
	return r == 0x3164 || r >= 0xFE00 && r <= 0xFE0F || r == 0xFEFF || r == 0xFFA0 ||
		r >= 0x1BCA0 && r <= 0x1BCA3 || r >= 0x1D173 && r <= 0x1D17A || r >= 0xE0000 && r <= 0xE0FFF
}

// Control reports the control characters other than white space (C0, DEL,
// C1 but tab, line feed, vertical tab, form feed, carriage return and
// NEL): they render as nothing too (a browser drops NUL).
func Control(r rune) bool {
	return r < 0x20 && (r < '\t' || r > '\r') || r >= 0x7F && r <= 0x9F && r != 0x85
}

// mayHide reports whether text may hold a character Unhide acts on: a lead
// byte of Invisible's characters (U+00AD, U+034F, U+061C, U+115F to
// U+180F, U+200B to U+206F, U+3164, U+FE00 to U+FFA0, U+1BCA0, U+1D173,
// U+E0000 up), of C1 controls or of the fullwidth forms, or an ASCII
// control byte other than white space. Eight bytes at a time: printable
// ASCII (nearly every byte of nearly every text) is skipped in one test.
func mayHide(text string) bool {
	i := 0
	for ; i+8 <= len(text); i += 8 {
		x := Load8(text, i)
		// A byte under 0x20 or over 0x7E sets its high bit in one of the
		// two (Hacker's Delight's hasless / hasmore).
		if ((x-0x20*SWARLo)&^x|(x+(0x7F-0x7E)*SWARLo|x))&SWARHi == 0 {
			continue
		}
		for _, c := range []byte(text[i : i+8]) {
			if hideByte[c] {
				return true
			}
		}
	}
	for ; i < len(text); i++ {
		if hideByte[text[i]] {
			return true
		}
	}
	return false
}

// hideByte marks the bytes mayHide looks for.
var hideByte = func() (t [256]bool) {
	for _, lead := range []byte{0xC2, 0xCD, 0xD8, 0xE1, 0xE2, 0xE3, 0xEF, 0xF0, 0xF3} {
		t[lead] = true
	}
	for c := range 0x20 {
		t[c] = c < '\t' || c > '\r'
	}
	t[0x7F] = true
	return t
}()

// Unhide returns text without the characters a reader does not see and a
// pattern would (Invisible and Control ones, dropped; fullwidth ASCII forms,
// replaced by their ASCII twins), and for each byte of the result the
// offsets in text of the character it comes from and of the end of that
// character; false when text has none of them (nearly always: a byte search
// for their lead bytes decides). A scanner runs on the result and maps its
// spans back: start from[start], end to[end-1].
func Unhide(text string) (plain string, from, to []int, ok bool) {
	if !mayHide(text) {
		return "", nil, nil, false
	}
	var b []byte
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		var c byte // the ASCII replacement; 0: dropped
		switch {
		case Invisible(r), Control(r):
		case r >= '\uFF01' && r <= '\uFF5E': // fullwidth ASCII
			c = byte(r - 0xFF01 + '!')
		default:
			if b != nil {
				for k := range size {
					b, from, to = append(b, text[i+k]), append(from, i), append(to, i+size)
				}
			}
			i += size
			continue
		}
		if b == nil { // the first hidden character: take what came before
			b, from, to = make([]byte, 0, len(text)), make([]int, 0, len(text)), make([]int, 0, len(text))
			for k := 0; k < i; {
				_, n := utf8.DecodeRuneInString(text[k:])
				for m := range n {
					b, from, to = append(b, text[k+m]), append(from, k), append(to, k+n)
				}
				k += n
			}
		}
		if c != 0 {
			b, from, to = append(b, c), append(from, i), append(to, i+size)
		}
		i += size
	}
	if b == nil {
		return "", nil, nil, false
	}
	return string(b), from, to, true
}

// ReadThroughHidden runs scanText on text with the characters Unhide
// removes or replaces read through, and maps the spans of the hits it
// appends back to text (hidden characters inside a hit included).
func ReadThroughHidden(text string, dst []Hit, scanText func(string, []Hit) []Hit) []Hit {
	plain, from, to, ok := Unhide(text)
	if !ok {
		return scanText(text, dst)
	}
	n := len(dst)
	dst = scanText(plain, dst)
	for i := n; i < len(dst); i++ {
		for k := range dst[i].Spans {
			sp := &dst[i].Spans[k]
			sp.Start, sp.End = from[sp.Start], to[sp.End-1]
		}
	}
	return dst
}
