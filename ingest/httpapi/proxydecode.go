package httpapi

import (
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Fast paths for the two JSON decodes of every proxied chat completion: the
// client's request (decodeProxyRequest, then contentText per message) and
// the upstream's answer (completionText). encoding/json validates the whole
// document, then decodes it by reflection; together that was about a third
// of the proxy handler's CPU in BenchmarkProxyOverhead/observe. The decoders
// here walk the bytes once and handle the shapes OpenAI-format clients and
// upstreams send: the named members spelled exactly, each at most once,
// unknown members of any (valid) JSON value, strings with any escapes. For
// anything they are not certain encoding/json decodes the same way they
// report false, and the caller runs the encoding/json code, which also
// produces its error:
//
//   - a member name with an escape or a non-ASCII byte, or one that equals a
//     wanted name only without case (encoding/json matches "Model" and
//     "MODEL" to model, and folds some non-ASCII letters to ASCII ones);
//   - a wanted member twice (encoding/json keeps the last value, merging
//     objects);
//   - a wanted member of another type (encoding/json's error), a usage count
//     that is not a non-negative integer of at most 18 digits;
//   - a decoded string with invalid UTF-8 or a lone surrogate (encoding/json
//     writes U+FFFD for those);
//   - a JSON syntax error anywhere, nesting deeper than maxSkipDepth in an
//     ignored value, a top level that is not an object, trailing data.
//
// FuzzDecodeProxyRequest and FuzzCompletionText hold each to encoding/json's
// result on every input it accepts.

// jscan is a cursor over one JSON document. Every method returns false when
// the input is anything but the plain form it understands; none returns
// errors. It is schemas' envelope decoder (schemas.DecodeStringMembers) cut
// down to what the proxy needs.
type jscan struct {
	b []byte
	i int
}

func (d *jscan) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// consume skips whitespace and then the byte c.
func (d *jscan) consume(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// peekNull skips whitespace and consumes a null literal if one is next.
func (d *jscan) peekNull() bool {
	d.ws()
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (d *jscan) end() bool {
	d.ws()
	return d.i == len(d.b)
}

// key reads the next member name of an object after n members, and its
// colon, or reports done at the closing brace. Names with escapes or
// non-ASCII bytes are refused.
func (d *jscan) key(n int) (key []byte, done, ok bool) {
	d.ws()
	if d.i >= len(d.b) {
		return nil, false, false
	}
	if d.b[d.i] == '}' {
		d.i++
		return nil, true, true
	}
	if n > 0 {
		if d.b[d.i] != ',' {
			return nil, false, false
		}
		d.i++
		d.ws()
	}
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false, false
	}
	start := d.i + 1
	j := start
	for ; j < len(d.b) && d.b[j] != '"'; j++ {
		if c := d.b[j]; c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return nil, false, false
		}
	}
	if j >= len(d.b) {
		return nil, false, false
	}
	key = d.b[start:j]
	d.i = j + 1
	if !d.consume(':') {
		return nil, false, false
	}
	return key, false, true
}

// other steps over the value of a member that is none of names (which the
// caller matched exactly): false when the name equals one of them without
// case, since encoding/json would decode it into that field.
func (d *jscan) other(key []byte, names ...string) bool {
	for _, n := range names {
		if foldEqual(key, n) {
			return false
		}
	}
	return d.skip(0)
}

// foldEqual is bytes.EqualFold for an ASCII name.
func foldEqual(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range len(key) {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// once marks bit in *mask; a second occurrence of a member is refused.
func once(mask *uint8, bit uint) bool {
	if *mask&(1<<bit) != 0 {
		return false
	}
	*mask |= 1 << bit
	return true
}

// elem starts the next element of an array after n elements, or reports done
// at its closing bracket.
func (d *jscan) elem(n int) (done, ok bool) {
	if d.consume(']') {
		return true, true
	}
	return false, n == 0 || d.consume(',')
}

// optStr decodes a string, or null, which leaves *dst as it is (as
// encoding/json does).
func (d *jscan) optStr(dst *string) bool {
	return d.peekNull() || d.str(dst)
}

// str decodes a JSON string. Escapes are decoded as encoding/json does;
// invalid UTF-8 and lone surrogates (which it replaces by U+FFFD) are
// refused.
func (d *jscan) str(dst *string) bool {
	if !d.consume('"') {
		return false
	}
	start := d.i
	ascii := true
	for ; d.i < len(d.b); d.i++ {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			if !ascii && !utf8.Valid(s) {
				return false
			}
			d.i++
			*dst = internRole(s)
			return true
		case c == '\\':
			return d.strEscaped(dst, start, ascii)
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return false
}

// strEscaped finishes str for a string with escapes; d.i is at the first
// backslash.
func (d *jscan) strEscaped(dst *string, start int, ascii bool) bool {
	if !ascii && !utf8.Valid(d.b[start:d.i]) {
		return false
	}
	out := make([]byte, 0, d.i-start+64)
	out = append(out, d.b[start:d.i]...)
	plain := d.i // start of the current run of unescaped bytes
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			run := d.b[plain:d.i]
			if !utf8.Valid(run) {
				return false
			}
			out = append(out, run...)
			d.i++
			*dst = string(out)
			return true
		case c == '\\':
			run := d.b[plain:d.i]
			if !utf8.Valid(run) {
				return false
			}
			out = append(out, run...)
			if d.i+1 >= len(d.b) {
				return false
			}
			switch e := d.b[d.i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d.b[d.i+2:])
				if !ok {
					return false
				}
				if utf16.IsSurrogate(r) {
					if len(d.b)-d.i < 12 || d.b[d.i+6] != '\\' || d.b[d.i+7] != 'u' {
						return false
					}
					r2, ok := hex4(d.b[d.i+8:])
					if !ok {
						return false
					}
					if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
						return false
					}
					d.i += 6
				}
				out = utf8.AppendRune(out, r)
				d.i += 4
			default:
				return false
			}
			d.i += 2
			plain = d.i
		case c < 0x20:
			return false
		default:
			d.i++
		}
	}
	return false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// internRole returns the message roles (and the empty string) without
// allocating.
func internRole(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "system":
		return "system"
	case "tool":
		return "tool"
	case "developer":
		return "developer"
	}
	return string(b)
}

// number steps over the next JSON number token, checked against the JSON
// grammar, and returns it.
func (d *jscan) number() (tok []byte, integer bool) {
	d.ws()
	start, i := d.i, d.i
	b := d.b
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		j := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == j {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == j {
			return nil, false
		}
	}
	d.i = i
	return b[start:i], integer
}

// count decodes a token count: null (which leaves *dst as it is) or a
// non-negative integer of at most 18 digits, which fits an int64.
func (d *jscan) count(dst *int64) bool {
	if d.peekNull() {
		return true
	}
	tok, integer := d.number()
	if !integer || tok[0] == '-' || len(tok) > 18 {
		return false
	}
	var n int64
	for _, c := range tok {
		n = n*10 + int64(c-'0')
	}
	*dst = n
	return true
}

// maxSkipDepth bounds the nesting skip follows; deeper values go to
// encoding/json (whose own limit is 10000).
const maxSkipDepth = 64

// skip steps over one JSON value, checking the JSON grammar as encoding/json's
// scanner does (string contents only for escapes and control bytes: the
// scanner accepts any other byte, invalid UTF-8 included).
func (d *jscan) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	d.ws()
	if d.i >= len(d.b) {
		return false
	}
	switch d.b[d.i] {
	case '{':
		d.i++
		for n := 0; ; n++ {
			if d.consume('}') {
				return true
			}
			if n > 0 && !d.consume(',') {
				return false
			}
			d.ws()
			if d.i >= len(d.b) || d.b[d.i] != '"' || !d.skipString() || !d.consume(':') || !d.skip(depth+1) {
				return false
			}
		}
	case '[':
		d.i++
		for n := 0; ; n++ {
			done, ok := d.elem(n)
			if done || !ok {
				return ok
			}
			if !d.skip(depth + 1) {
				return false
			}
		}
	case '"':
		return d.skipString()
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		tok, _ := d.number()
		return tok != nil
	}
}

func (d *jscan) literal(lit string) bool {
	if len(d.b)-d.i >= len(lit) && string(d.b[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// skipString steps over a string token; d.i is at its opening quote.
func (d *jscan) skipString() bool {
	for d.i++; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			return true
		case c == '\\':
			if d.i+1 >= len(d.b) {
				return false
			}
			switch d.b[d.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i++
			case 'u':
				if _, ok := hex4(d.b[d.i+2:]); !ok {
					return false
				}
				d.i += 5
			default:
				return false
			}
		case c < 0x20:
			return false
		}
	}
	return false
}

// decodeProxyRequest is json.Unmarshal(body, pr) for the usual
// chat-completions request, into the zero *pr; false (and *pr untouched) for
// anything else, which the caller then decodes with encoding/json. Each
// message's content is the bytes of its value in body, as json.RawMessage
// would copy them (body is not written to afterwards).
func decodeProxyRequest(body []byte, pr *proxyRequest) bool {
	var r proxyRequest
	d := jscan{b: body}
	if !d.consume('{') {
		return false
	}
	var mask uint8
	for n := 0; ; n++ {
		key, done, ok := d.key(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(key) {
		case "model":
			ok = once(&mask, 0) && d.optStr(&r.Model)
		case "stream":
			ok = once(&mask, 1) && d.optBool(&r.Stream)
		case "messages":
			ok = once(&mask, 2) && d.messages(&r)
		default:
			ok = d.other(key, "model", "stream", "messages")
		}
		if !ok {
			return false
		}
	}
	if !d.end() {
		return false
	}
	*pr = r
	return true
}

func (d *jscan) optBool(dst *bool) bool {
	d.ws()
	switch {
	case d.literal("true"):
		*dst = true
	case d.literal("false"):
		*dst = false
	default:
		return d.literal("null")
	}
	return true
}

func (d *jscan) messages(r *proxyRequest) bool {
	if d.peekNull() {
		return true
	}
	if !d.consume('[') {
		return false
	}
	r.Messages = slices.Grow(r.Messages, 4) // [] is an empty, non-nil slice
	for n := 0; ; n++ {
		done, ok := d.elem(n)
		if done || !ok {
			return ok
		}
		msgs, m := grow(r.Messages)
		r.Messages = msgs
		if d.peekNull() { // a null element is a zero message
			continue
		}
		if !d.consume('{') {
			return false
		}
		var mask uint8
		for k := 0; ; k++ {
			key, done, ok := d.key(k)
			if !ok {
				return false
			}
			if done {
				break
			}
			switch string(key) {
			case "role":
				ok = once(&mask, 0) && d.optStr(&m.Role)
			case "content":
				ok = once(&mask, 1)
				if ok {
					d.ws()
					start := d.i
					ok = d.skip(0)
					m.Content = d.b[start:d.i:d.i]
				}
			default:
				ok = d.other(key, "role", "content")
			}
			if !ok {
				return false
			}
		}
	}
}

// grow appends a zero element to s and returns a pointer to it.
func grow[T any](s []T) ([]T, *T) {
	var zero T
	s = append(s, zero)
	return s, &s[len(s)-1]
}

// contentTextFast is contentText for content that is a string, null, or an
// array of part objects (null parts included) whose type and text are
// strings or null; false for anything else.
func contentTextFast(raw []byte) (string, bool) {
	d := jscan{b: raw}
	d.ws()
	if d.i >= len(raw) {
		return "", false
	}
	switch raw[d.i] {
	case '"':
		var s string
		return s, d.str(&s) && d.end()
	case 'n':
		return "", d.literal("null") && d.end()
	case '[':
	default:
		return "", false
	}
	d.i++
	var text string
	var b *strings.Builder // from the second text part on
	for n := 0; ; n++ {
		done, ok := d.elem(n)
		if !ok {
			return "", false
		}
		if done {
			break
		}
		if d.peekNull() {
			continue
		}
		if !d.consume('{') {
			return "", false
		}
		var typ, txt string
		var mask uint8
		for k := 0; ; k++ {
			key, done, ok := d.key(k)
			if !ok {
				return "", false
			}
			if done {
				break
			}
			switch string(key) {
			case "type":
				ok = once(&mask, 0) && d.optStr(&typ)
			case "text":
				ok = once(&mask, 1) && d.optStr(&txt)
			default:
				ok = d.other(key, "type", "text")
			}
			if !ok {
				return "", false
			}
		}
		switch {
		case typ != "text":
		case b != nil:
			b.WriteString(txt)
		case text == "":
			text = txt
		default:
			b = &strings.Builder{}
			b.WriteString(text)
			b.WriteString(txt)
		}
	}
	if !d.end() {
		return "", false
	}
	if b != nil {
		return b.String(), true
	}
	return text, true
}

// completionTextFast is completionText for the usual chat.completion; false
// for anything it is not certain encoding/json reads the same way.
func completionTextFast(raw []byte) (contents []string, usage *proxyUsage, model string, ok bool) {
	d := jscan{b: raw}
	if !d.consume('{') {
		return nil, nil, "", false
	}
	contents = []string{} // never nil, as completionText's make
	var mask uint8
	for n := 0; ; n++ {
		key, done, ok := d.key(n)
		if !ok {
			return nil, nil, "", false
		}
		if done {
			break
		}
		switch string(key) {
		case "model":
			ok = once(&mask, 0) && d.optStr(&model)
		case "choices":
			ok = once(&mask, 1) && d.choices(&contents)
		case "usage":
			ok = once(&mask, 2) && d.usage(&usage)
		default:
			ok = d.other(key, "model", "choices", "usage")
		}
		if !ok {
			return nil, nil, "", false
		}
	}
	if !d.end() {
		return nil, nil, "", false
	}
	return contents, usage, model, true
}

// choices appends the message content of each choice ("" for none or null).
func (d *jscan) choices(contents *[]string) bool {
	if d.peekNull() {
		return true
	}
	if !d.consume('[') {
		return false
	}
	for n := 0; ; n++ {
		done, ok := d.elem(n)
		if done || !ok {
			return ok
		}
		var content string
		if !d.peekNull() && !d.choice(&content) {
			return false
		}
		*contents = append(*contents, content)
	}
}

func (d *jscan) choice(content *string) bool {
	if !d.consume('{') {
		return false
	}
	var mask uint8
	for n := 0; ; n++ {
		key, done, ok := d.key(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		if string(key) == "message" {
			ok = once(&mask, 0) && (d.peekNull() || d.message(content))
		} else {
			ok = d.other(key, "message")
		}
		if !ok {
			return false
		}
	}
}

func (d *jscan) message(content *string) bool {
	if !d.consume('{') {
		return false
	}
	var mask uint8
	for n := 0; ; n++ {
		key, done, ok := d.key(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		if string(key) == "content" {
			ok = once(&mask, 0) && d.optStr(content)
		} else {
			ok = d.other(key, "content")
		}
		if !ok {
			return false
		}
	}
}

func (d *jscan) usage(dst **proxyUsage) bool {
	if d.peekNull() {
		return true
	}
	if !d.consume('{') {
		return false
	}
	u := &proxyUsage{}
	var mask uint8
	for n := 0; ; n++ {
		key, done, ok := d.key(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(key) {
		case "prompt_tokens":
			ok = once(&mask, 0) && d.count(&u.PromptTokens)
		case "completion_tokens":
			ok = once(&mask, 1) && d.count(&u.CompletionTokens)
		default:
			ok = d.other(key, "prompt_tokens", "completion_tokens")
		}
		if !ok {
			return false
		}
	}
	*dst = u
	return true
}
