package events

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxNesting bounds the recursion of the scanner. Deeper bodies are rejected
// as a whole (encoding/json stops at 10000; a trace never needs more than a
// handful of levels, and metadata is limited to maxMetadataDepth anyway).
const maxNesting = 1000

// scanner is a single-pass JSON reader over the whole request body. It checks
// the JSON grammar of RFC 8259 as it goes; the first syntax error is sticky (it
// moves pos to the end so every loop stops) and rejects the whole body.
// Semantic problems are reported by the callers per event.
//
// The body's UTF-8 is validated once up front by Decode, so the scanner only
// needs to look at ASCII structure.
type scanner struct {
	b      []byte
	pos    int
	err    error
	spaced bool   // whitespace was skipped since last reset (metadata compaction)
	buf    []byte // scratch for unescaping strings
	// arena holds the decoded strings that end up in traces, so that a batch
	// costs one allocation for all of them instead of one per string. Its
	// capacity is len(b) and decoded strings are never longer than their
	// raw form, so it never reallocates and the strings made over it stay
	// valid; bytes are never written twice once a string covers them.
	arena []byte
}

func (s *scanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("invalid JSON at byte %d: %s", s.pos, fmt.Sprintf(format, args...))
	}
	s.pos = len(s.b)
}

// found describes the byte at pos for syntax error messages.
func (s *scanner) found() string {
	if s.pos >= len(s.b) {
		return "end of input"
	}
	c := s.b[s.pos]
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (s *scanner) ws() {
	start := s.pos
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			if s.pos > start {
				s.spaced = true
			}
			return
		}
	}
	if s.pos > start {
		s.spaced = true
	}
}

// peek skips whitespace and returns the next byte without consuming it; 0 at
// the end of input (0 is never valid JSON outside strings).
func (s *scanner) peek() byte {
	s.ws()
	if s.pos < len(s.b) {
		return s.b[s.pos]
	}
	return 0
}

// more is called after an element of an object or array: it consumes ',' and
// reports true, or consumes the closing byte and reports false.
func (s *scanner) more(closing byte) bool {
	switch s.peek() {
	case ',':
		s.pos++
		return true
	case closing:
		s.pos++
		return false
	default:
		if closing == '}' {
			s.fail("expected ',' or '}' after object member, found %s", s.found())
		} else {
			s.fail("expected ',' or ']' after array element, found %s", s.found())
		}
		return false
	}
}

// openObject consumes '{' (the caller has peeked it) and reports whether the
// object has members.
func (s *scanner) openObject() bool {
	s.pos++
	if s.peek() == '}' {
		s.pos++
		return false
	}
	return true
}

// openArray consumes '[' (the caller has peeked it) and reports whether the
// array has elements.
func (s *scanner) openArray() bool {
	s.pos++
	if s.peek() == ']' {
		s.pos++
		return false
	}
	return true
}

// key reads an object member name and the ':' after it.
func (s *scanner) key() (raw []byte, esc bool) {
	if s.peek() != '"' {
		s.fail("expected a string object key, found %s", s.found())
		return nil, false
	}
	raw, esc = s.readString()
	if s.peek() != ':' {
		s.fail("expected ':' after object key, found %s", s.found())
		return nil, false
	}
	s.pos++
	return raw, esc
}

// readString reads a string token at pos (which holds '"') and returns its
// raw contents between the quotes, and whether it contains escapes.
func (s *scanner) readString() (raw []byte, esc bool) {
	b := s.b
	start := s.pos + 1
	i := start
	for i < len(b) {
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return b[start:i], esc
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				s.pos = i
				s.fail("unterminated string")
				return nil, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
					s.pos = i
					s.fail(`invalid \u escape in string`)
					return nil, false
				}
				i += 6
			default:
				s.pos = i
				s.fail("invalid escape '\\%c' in string", b[i+1])
				return nil, false
			}
		case c < 0x20:
			s.pos = i
			s.fail("unescaped control character 0x%02x in string", c)
			return nil, false
		default:
			i++
		}
	}
	s.pos = start - 1
	s.fail("unterminated string")
	return nil, false
}

// plain marks the bytes that need no attention inside a string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex4(b []byte) bool {
	for _, c := range b {
		if !isHex(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// String problems that are valid JSON but not storable: encoding/json would
// silently turn an unpaired surrogate into U+FFFD, and PostgreSQL text and
// jsonb cannot hold U+0000.
const (
	problemSurrogate = "contains an unpaired UTF-16 surrogate escape"
	problemNUL       = `must not contain U+0000 (\u0000)`
)

// unescape appends the decoded form of a raw string (already grammar-checked
// by readString) to dst. It reports a problem for unpaired surrogates and NUL.
func unescape(dst, raw []byte) ([]byte, string) {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			dst = append(dst, raw[i+1])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hexVal(raw[i+2 : i+6])
			i += 6
			if r == 0 {
				return dst, problemNUL
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
					return dst, problemSurrogate
				}
				r2 := hexVal(raw[i+2 : i+6])
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return dst, problemSurrogate
				}
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			continue
		}
		i += 2
	}
	return dst, ""
}

// decodeString turns a raw string token into a Go string.
func (s *scanner) decodeString(raw []byte, esc bool) (string, string) {
	if !esc {
		return string(raw), ""
	}
	var problem string
	s.buf, problem = unescape(s.buf[:0], raw)
	if problem != "" {
		return "", problem
	}
	return string(s.buf), ""
}

// keep decodes a raw string token into a string backed by the arena.
func (s *scanner) keep(raw []byte, esc bool) (string, string) {
	if len(s.arena)+len(raw) > cap(s.arena) {
		// Unreachable while the arena is sized to the body; never grow
		// it, since that would move bytes under existing strings.
		return s.decodeString(raw, esc)
	}
	start := len(s.arena)
	var problem string
	if esc {
		s.arena, problem = unescape(s.arena, raw)
	} else {
		s.arena = append(s.arena, raw...)
	}
	if problem != "" {
		s.arena = s.arena[:start] // never exposed: safe to overwrite
		return "", problem
	}
	if len(s.arena) == start {
		return "", ""
	}
	return unsafe.String(&s.arena[start], len(s.arena)-start), ""
}

// stringProblem checks the escapes of a string that is not kept as a Go
// string (metadata, keys).
func (s *scanner) stringProblem(raw []byte, esc bool) string {
	if !esc {
		return ""
	}
	var problem string
	s.buf, problem = unescape(s.buf[:0], raw)
	return problem
}

// number is a JSON number token.
type number struct {
	raw           []byte
	neg, frac, ex bool
}

// readNumber reads a number at pos, checking the RFC 8259 grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) readNumber() number {
	b := s.b
	start := s.pos
	i := start
	var n number
	if i < len(b) && b[i] == '-' {
		n.neg = true
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		s.fail("invalid number: expected a digit, found %s", s.found())
		return number{}
	}
	if i < len(b) && b[i] == '.' {
		n.frac = true
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			s.pos = i
			s.fail("invalid number: expected a digit after '.', found %s", s.found())
			return number{}
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		n.ex = true
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			s.pos = i
			s.fail("invalid number: expected a digit in the exponent, found %s", s.found())
			return number{}
		}
	}
	n.raw = b[start:i]
	s.pos = i
	return n
}

// literal consumes one of true, false, null at pos.
func (s *scanner) literal() {
	b := s.b[s.pos:]
	for _, w := range [...]string{"true", "false", "null"} {
		if len(b) >= len(w) && string(b[:len(w)]) == w {
			s.pos += len(w)
			return
		}
	}
	s.fail("invalid literal, found %s", s.found())
}

// valueStats collects what metadata validation needs while skipping a value.
type valueStats struct {
	maxDepth int
	problem  string // first string problem (surrogate, NUL)
}

// skipValue consumes one value of any type, checking its grammar. depth is
// the nesting level this value has if it is an object or array.
func (s *scanner) skipValue(depth int, st *valueStats) {
	if depth > maxNesting {
		s.fail("JSON nested deeper than %d levels", maxNesting)
		return
	}
	switch c := s.peek(); c {
	case '"':
		raw, esc := s.readString()
		if esc && st != nil && st.problem == "" {
			st.problem = s.stringProblem(raw, esc)
		}
	case '{':
		if st != nil && depth > st.maxDepth {
			st.maxDepth = depth
		}
		if !s.openObject() {
			return
		}
		for s.err == nil {
			raw, esc := s.key()
			if esc && st != nil && st.problem == "" {
				st.problem = s.stringProblem(raw, esc)
			}
			s.skipValue(depth+1, st)
			if !s.more('}') {
				return
			}
		}
	case '[':
		if st != nil && depth > st.maxDepth {
			st.maxDepth = depth
		}
		if !s.openArray() {
			return
		}
		for s.err == nil {
			s.skipValue(depth+1, st)
			if !s.more(']') {
				return
			}
		}
	case 't', 'f', 'n':
		s.literal()
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		s.readNumber()
	default:
		s.fail("expected a JSON value, found %s", s.found())
	}
}
