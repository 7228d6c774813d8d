package httpapi

import (
	"slices"
	"strings"

	"github.com/governance-gateway/gateway/schemas"
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
//   - a JSON syntax error anywhere, nesting deeper than 64 (schemas.JSONReader) in an
//     ignored value, a top level that is not an object, trailing data.
//
// FuzzDecodeProxyRequest and FuzzCompletionText hold each to encoding/json's
// result on every input it accepts.

// jscan reads one JSON document with schemas' fast decoder
// (schemas.JSONReader), plus what the proxy's shapes need on top.
type jscan struct{ schemas.JSONReader }

func newScan(b []byte) jscan { return jscan{schemas.NewJSONReader(b)} }

// other steps over the value of a member that is none of names (which the
// caller matched exactly): false when the name equals one of them without
// case, since encoding/json would decode it into that field.
func (d *jscan) other(key []byte, names ...string) bool {
	for _, n := range names {
		if foldEqual(key, n) {
			return false
		}
	}
	_, ok := d.Value()
	return ok
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
	if d.Consume(']') {
		return true, true
	}
	return false, n == 0 || d.Consume(',')
}

// optStr decodes a string, or null, which leaves *dst as it is (as
// encoding/json does).
func (d *jscan) optStr(dst *string) bool {
	return d.PeekNull() || d.Str(dst)
}

// count decodes a token count: null (which leaves *dst as it is) or a
// non-negative integer of at most 18 digits, which fits an int64.
func (d *jscan) count(dst *int64) bool {
	if d.PeekNull() {
		return true
	}
	tok, integer := d.Number()
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

// decodeProxyRequest is json.Unmarshal(body, pr) for the usual
// chat-completions request, into the zero *pr; false (and *pr untouched) for
// anything else, which the caller then decodes with encoding/json. Each
// message's content is the bytes of its value in body, as json.RawMessage
// would copy them (body is not written to afterwards).
func decodeProxyRequest(body []byte, pr *proxyRequest) bool {
	var r proxyRequest
	d := newScan(body)
	var mask uint8
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			return once(&mask, 0) && d.optStr(&r.Model)
		case "stream":
			return once(&mask, 1) && d.optBool(&r.Stream)
		case "messages":
			return once(&mask, 2) && d.messages(&r)
		}
		return d.other(key, "model", "stream", "messages")
	})
	if !ok || !d.End() {
		return false
	}
	*pr = r
	return true
}

func (d *jscan) optBool(dst *bool) bool {
	switch {
	case d.Literal("true"):
		*dst = true
	case d.Literal("false"):
		*dst = false
	default:
		return d.Literal("null")
	}
	return true
}

func (d *jscan) messages(r *proxyRequest) bool {
	if d.PeekNull() {
		return true
	}
	if !d.Consume('[') {
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
		if d.PeekNull() { // a null element is a zero message
			continue
		}
		var mask uint8
		ok = d.object(func(key []byte) bool {
			switch string(key) {
			case "role":
				return once(&mask, 0) && d.optStr(&m.Role)
			case "content":
				if !once(&mask, 1) {
					return false
				}
				var ok bool
				m.Content, ok = d.Value()
				return ok
			}
			return d.other(key, "role", "content")
		})
		if !ok {
			return false
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
	d := newScan(raw)
	c, ok := d.Next()
	switch {
	case !ok:
		return "", false
	case c == '"':
		var s string
		return s, d.Str(&s) && d.End()
	case c == 'n':
		return "", d.Literal("null") && d.End()
	case !d.Consume('['):
		return "", false
	}
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
		if d.PeekNull() {
			continue
		}
		var typ, txt string
		var mask uint8
		ok = d.object(func(key []byte) bool {
			switch string(key) {
			case "type":
				return once(&mask, 0) && d.optStr(&typ)
			case "text":
				return once(&mask, 1) && d.optStr(&txt)
			}
			return d.other(key, "type", "text")
		})
		if !ok {
			return "", false
		}
		switch {
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
	if !d.End() {
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
	d := newScan(raw)
	contents = []string{} // never nil, as completionText's make
	var mask uint8
	ok = d.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			return once(&mask, 0) && d.optStr(&model)
		case "choices":
			return once(&mask, 1) && d.choices(&contents)
		case "usage":
			return once(&mask, 2) && d.usage(&usage)
		}
		return d.other(key, "model", "choices", "usage")
	})
	if !ok || !d.End() {
		return nil, nil, "", false
	}
	return contents, usage, model, true
}

// choices appends the message content of each choice ("" for none or null).
func (d *jscan) choices(contents *[]string) bool {
	if d.PeekNull() {
		return true
	}
	if !d.Consume('[') {
		return false
	}
	for n := 0; ; n++ {
		done, ok := d.elem(n)
		if done || !ok {
			return ok
		}
		var content string
		if !d.PeekNull() && !d.choice(&content) {
			return false
		}
		*contents = append(*contents, content)
	}
}

// object reads an object, calling member with each name while the reader
// is at its value; member's false ends the read with false.
func (d *jscan) object(member func(key []byte) bool) bool {
	if !d.Consume('{') {
		return false
	}
	for n := 0; ; n++ {
		key, done, ok := d.Key(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		if !member(key) {
			return false
		}
	}
}

// choice reads a choice object: only its message matters.
func (d *jscan) choice(content *string) bool {
	return d.oneMember("message", func() bool { return d.PeekNull() || d.message(content) })
}

// message reads a message object: only its content matters.
func (d *jscan) message(content *string) bool {
	return d.oneMember("content", func() bool { return d.optStr(content) })
}

// oneMember reads an object of which only the member name matters: read
// decodes its value (once); every other member is stepped over.
func (d *jscan) oneMember(name string, read func() bool) bool {
	var mask uint8
	return d.object(func(key []byte) bool {
		if string(key) == name {
			return once(&mask, 0) && read()
		}
		return d.other(key, name)
	})
}

func (d *jscan) usage(dst **proxyUsage) bool {
	if d.PeekNull() {
		return true
	}
	u := &proxyUsage{}
	var mask uint8
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return once(&mask, 0) && d.count(&u.PromptTokens)
		case "completion_tokens":
			return once(&mask, 1) && d.count(&u.CompletionTokens)
		}
		return d.other(key, "prompt_tokens", "completion_tokens")
	})
	if !ok {
		return false
	}
	*dst = u
	return true
}
