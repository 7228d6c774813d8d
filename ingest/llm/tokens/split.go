package tokens

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Character classes of the split regexps. The codec compiles them with
// github.com/dlclark/regexp2, whose \p{..} are Go's unicode tables and whose
// \s is unicode.IsSpace, so the same tables classify runes here.
const (
	clsL     = 1 << iota // \p{L}
	clsN                 // \p{N}
	clsSpace             // \s
	clsUpper             // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clsLower             // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	clsPre               // [^\r\n\p{L}\p{N}], the optional character before a word
	clsPunct             // [^\s\p{L}\p{N}]
)

// tabled runes, planes 0 and 1 (with the emoji), are classified by table.
const tabled = 0x20000

// classTable is built on first use, by walking the unicode range tables
// rather than testing each rune against each of them.
var classTable = sync.OnceValue(func() *[tabled]uint8 {
	t := new([tabled]uint8)
	set := func(flag uint8, tabs ...*unicode.RangeTable) {
		for _, tab := range tabs {
			for _, r := range tab.R16 {
				for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
					t[c] |= flag
				}
			}
			for _, r := range tab.R32 {
				for c := rune(r.Lo); c <= rune(r.Hi) && c < tabled; c += rune(r.Stride) {
					t[c] |= flag
				}
			}
		}
	}
	set(clsL, unicode.L)
	set(clsN, unicode.N)
	set(clsSpace, unicode.White_Space) // what unicode.IsSpace tests
	set(clsUpper, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
	set(clsLower, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
	for c := range t {
		t[c] |= derivedClasses(rune(c), t[c])
	}
	return t
})

// derivedClasses adds clsPre and clsPunct to the classes from the tables.
func derivedClasses(r rune, cls uint8) uint8 {
	// The compiled regexps test ASCII against bitmaps that leave out DEL
	// (bit 127), so DEL matches no alternative: the codec skips it and
	// counts no token for it.
	if r == 0x7f {
		return cls
	}
	if cls&(clsL|clsN) == 0 {
		if r != '\r' && r != '\n' {
			cls |= clsPre
		}
		if cls&clsSpace == 0 {
			cls |= clsPunct
		}
	}
	return cls
}

// runeClass classifies a rune outside the table.
func runeClass(r rune) uint8 {
	var cls uint8
	if unicode.Is(unicode.L, r) {
		cls |= clsL
	}
	if unicode.Is(unicode.N, r) {
		cls |= clsN
	}
	if unicode.IsSpace(r) {
		cls |= clsSpace
	}
	if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
		cls |= clsUpper
	}
	if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
		cls |= clsLower
	}
	return derivedClasses(r, cls)
}

// splitter finds the pieces the split regexps match in valid UTF-8. Each
// method mirrors the backtracking of the codec's compiled regexp (regexp2cg
// output in the codec's regexp.gen.go), quirks included, so that every piece
// is the same.
type splitter struct{ cls *[tabled]uint8 }

// at returns the classes of the rune at s[i] and its length in bytes.
func (sp splitter) at(s string, i int) (uint8, int) {
	if s[i] >= utf8.RuneSelf {
		return sp.decode(s, i)
	}
	return sp.cls[s[i]], 1
}

func (sp splitter) decode(s string, i int) (uint8, int) {
	r, w := utf8.DecodeRuneInString(s[i:])
	if r < tabled {
		return sp.cls[r], w
	}
	return runeClass(r), w
}

// class returns the classes of the rune at s[i].
func (sp splitter) class(s string, i int) uint8 {
	c, _ := sp.at(s, i)
	return c
}

// run returns the end of the run of runes in any of classes from s[i].
func (sp splitter) run(s string, i int, classes uint8) int {
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if sp.cls[b]&classes == 0 {
				break
			}
			i++
			continue
		}
		c, w := sp.decode(s, i)
		if c&classes == 0 {
			break
		}
		i += w
	}
	return i
}

// o200k returns the end of the piece that starts at s[i], or -1 where no
// alternative matches (DEL), for o200k_base's
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func (sp splitter) o200k(s string, i int) int {
	c, w := sp.cls[s[i]], 1 // at(s, i), inlined by hand
	if s[i] >= utf8.RuneSelf {
		c, w = sp.decode(s, i)
	}
	const letter = clsUpper | clsLower
	if w == 1 && c&(clsPre|letter) != 0 {
		// ASCII all through: [A-Z]*[a-z]* after the optional character is
		// what both word alternatives match, backtracking or not.
		j := i
		if c&clsPre != 0 {
			j++
		}
		if j < len(s) && s[j]|0x20 >= 'a' && s[j]|0x20 <= 'z' {
			k := j
			for k < len(s) && s[k] >= 'A' && s[k] <= 'Z' {
				k++
			}
			for k < len(s) && s[k] >= 'a' && s[k] <= 'z' {
				k++
			}
			if k == len(s) || s[k] < utf8.RuneSelf {
				return contraction(s, k)
			}
		}
	}
	if c&letter != 0 || c&clsPre != 0 && i+w < len(s) && sp.class(s, i+w)&letter != 0 {
		// The optional leading character is tried taken, then not.
		starts, n := [2]int{i + w, i}, 2
		if c&clsPre == 0 {
			starts[0], n = i, 1
		}
		for _, p := range starts[:n] {
			// [Upper]* gives back one rune at a time until [Lower]+ matches.
			for q := sp.run(s, p, clsUpper); ; {
				if e := sp.run(s, q, clsLower); e > q {
					return contraction(s, e)
				}
				if q == p {
					break
				}
				_, lw := utf8.DecodeLastRuneInString(s[p:q])
				q -= lw
			}
		}
		for _, p := range starts[:n] {
			if e := sp.run(s, p, clsUpper); e > p {
				return contraction(s, sp.run(s, e, clsLower))
			}
		}
	}
	if c&clsN != 0 {
		return sp.digits(s, i)
	}
	if e := sp.punct(s, i); e >= 0 {
		return e + lineEndsOrSlashes(s[e:])
	}
	return sp.spaces(s, i)
}

// cl100k returns the end of the piece that starts at s[i], or -1, for
// cl100k_base's
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func (sp splitter) cl100k(s string, i int) int {
	if e := contraction(s, i); e > i {
		return e
	}
	c, w := sp.cls[s[i]], 1 // at(s, i), inlined by hand
	if s[i] >= utf8.RuneSelf {
		c, w = sp.decode(s, i)
	}
	if c&clsL != 0 {
		return sp.run(s, i, clsL)
	}
	if c&clsPre != 0 && i+w < len(s) {
		if e := sp.run(s, i+w, clsL); e > i+w {
			return e
		}
	}
	if c&clsN != 0 {
		return sp.digits(s, i)
	}
	if e := sp.punct(s, i); e >= 0 {
		return e + lineEnds(s[e:])
	}
	return sp.spaces(s, i)
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i], or i.
// Case folding is .NET's, so 's also matches 'ſ (U+017F, "\xc5\xbf").
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch s[i+1] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return i + 2
	case 'r', 'R', 'v', 'V':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l', 'L':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	case 0xc5:
		if i+2 < len(s) && s[i+2] == 0xbf {
			return i + 3
		}
	}
	return i
}

// digits matches \p{N}{1,3} at s[i], which is a number.
func (sp splitter) digits(s string, i int) int {
	_, w := sp.at(s, i)
	i += w
	for range 2 {
		if i == len(s) {
			break
		}
		c, w := sp.at(s, i)
		if c&clsN == 0 {
			break
		}
		i += w
	}
	return i
}

// punct matches " ?[^\s\p{L}\p{N}]+" at s[i] and returns its end, or -1.
// The space is atomic: it is never given back.
func (sp splitter) punct(s string, i int) int {
	j := i
	if s[j] == ' ' {
		j++
	}
	if e := sp.run(s, j, clsPunct); e > j {
		return e
	}
	return -1
}

// lineEnds is the length of the run of \r and \n that starts s.
func lineEnds(s string) int {
	n := 0
	for n < len(s) && (s[n] == '\r' || s[n] == '\n') {
		n++
	}
	return n
}

// lineEndsOrSlashes is the length of the run of \r, \n and / that starts s.
func lineEndsOrSlashes(s string) int {
	n := 0
	for n < len(s) && (s[n] == '\r' || s[n] == '\n' || s[n] == '/') {
		n++
	}
	return n
}

// spaces matches \s*[\r\n]+|\s+(?!\S)|\s+ at s[i], or returns -1.
func (sp splitter) spaces(s string, i int) int {
	// \s*[\r\n]+: the compiled regexp backtracks \s* to the first \r or \n
	// of the run, not to the last as a backtracking engine would, so
	// "\n \n" is two pieces, "\n" and " \n". The scan stops there too: the
	// regexp reads to the end of the run for every piece, quadratic in a
	// run of " \n".
	e := i
	for e < len(s) {
		if s[e] == '\r' || s[e] == '\n' {
			return e + lineEnds(s[e:])
		}
		c, w := sp.at(s, e)
		if c&clsSpace == 0 {
			break
		}
		e += w
	}
	if e == i {
		return -1
	}
	if e == len(s) {
		return e
	}
	// \s+(?!\S) leaves the last space to the piece after it, if it can.
	if _, lw := utf8.DecodeLastRuneInString(s[i:e]); e-lw > i {
		return e - lw
	}
	return e
}
