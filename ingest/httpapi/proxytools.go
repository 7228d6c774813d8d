package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/governance-gateway/gateway/governance"
)

// Post-flight governance of the tool calls a proxied upstream answers with
// (verify and full, not streamed; docs/api.md): the arguments of
// choices[0].message.tool_calls (and of the legacy function_call) get the
// answer's post-flight rules through checkToolCalls / VerifyArguments, as in
// Full Control. The proxy cannot regenerate.

// proxyToolReview is the verdict on the tool calls of one proxied answer.
type proxyToolReview struct {
	toolCheck
	// edits write the redacted arguments back into the upstream body.
	edits []jsonEdit
}

// proxyMessagePath is the JSON path of the governed message.
var proxyMessagePath = []string{"choices", "0", "message"}

func subPath(elems ...string) []string {
	return append(slices.Clone(proxyMessagePath), elems...)
}

// present says a raw member is there and not null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// reviewProxyToolCalls judges the tool calls of a chat.completion body.
// Without a "tool_calls" or "function_call" member it costs one byte search.
// A call of type function with string arguments is judged on its
// arguments; anything else (a custom tool's input, arguments sent as an
// object, a shape the gateway does not know) is judged as the JSON text of
// the whole call, never passed unchecked.
func reviewProxyToolCalls(pol *governance.Compiled, raw []byte) proxyToolReview {
	if !bytes.Contains(raw, []byte(`"tool_calls"`)) && !bytes.Contains(raw, []byte(`"function_call"`)) {
		return proxyToolReview{}
	}
	var r struct {
		Choices []struct {
			Message struct {
				ToolCalls    json.RawMessage `json:"tool_calls"`
				FunctionCall json.RawMessage `json:"function_call"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(raw, &r) != nil || len(r.Choices) == 0 {
		return proxyToolReview{}
	}
	msg := r.Choices[0].Message
	var calls []toolCall
	var paths [][]string
	var whole []bool // the path's value is JSON text (not a string to encode)
	add := func(id, name, args string, path []string, isWhole bool) {
		c := toolCall{ID: id}
		c.Function.Name, c.Function.Arguments = name, args
		calls, paths, whole = append(calls, c), append(paths, path), append(whole, isWhole)
	}
	type callShape struct {
		ID       string `json:"id"`
		Function *struct {
			Name      string  `json:"name"`
			Arguments *string `json:"arguments"`
		} `json:"function"`
		Custom *struct {
			Name string `json:"name"`
		} `json:"custom"`
	}
	if present(msg.ToolCalls) {
		var elems []json.RawMessage
		if json.Unmarshal(msg.ToolCalls, &elems) != nil {
			add("", "", string(msg.ToolCalls), subPath("tool_calls"), true)
		}
		for i, e := range elems {
			var c callShape
			err := json.Unmarshal(e, &c)
			switch {
			case err == nil && c.Function != nil && c.Function.Arguments != nil:
				add(c.ID, c.Function.Name, *c.Function.Arguments, subPath("tool_calls", strconv.Itoa(i), "function", "arguments"), false)
			default:
				name := ""
				if c.Function != nil {
					name = c.Function.Name
				} else if c.Custom != nil {
					name = c.Custom.Name
				}
				add(c.ID, name, string(e), subPath("tool_calls", strconv.Itoa(i)), true)
			}
		}
	}
	if present(msg.FunctionCall) {
		var fc struct {
			Name      string  `json:"name"`
			Arguments *string `json:"arguments"`
		}
		if json.Unmarshal(msg.FunctionCall, &fc) == nil && fc.Arguments != nil {
			add("", fc.Name, *fc.Arguments, subPath("function_call", "arguments"), false)
		} else {
			add("", fc.Name, string(msg.FunctionCall), subPath("function_call"), true)
		}
	}
	if len(calls) == 0 {
		return proxyToolReview{}
	}
	before := make([]string, len(calls))
	for i, c := range calls {
		before[i] = c.Function.Arguments
	}
	rv := proxyToolReview{toolCheck: checkToolCalls(pol, calls, false)}
	if rv.governance != governance.ActionRewrite {
		return rv
	}
	for i, c := range rv.calls {
		if c.decision != governance.ActionRewrite || c.Function.Arguments == before[i] {
			continue
		}
		val := []byte(c.Function.Arguments)
		if !whole[i] {
			val = jsonString(c.Function.Arguments)
		} else if !json.Valid(val) { // cannot happen: VerifyArguments keeps JSON valid
			rv.governance = governance.ActionBlock
			return rv
		}
		rv.edits = append(rv.edits, jsonEdit{path: paths[i], val: val})
	}
	return rv
}

// jsonString encodes s as a JSON string without HTML escaping (the
// upstream's own encoding of <, > and & is not known; both are valid).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// jsonEdit replaces the JSON value at path (object keys and decimal array
// indexes) with val, which is JSON text.
type jsonEdit struct {
	path []string
	val  []byte
}

// applyJSONEdits replaces the values the edits name and keeps every other
// byte of raw (whitespace, key order, escapes, unknown members). Should the
// targeted replacement not apply (a path met twice, as with a duplicate
// key), it falls back to re-encoding the objects on the way (keys sorted,
// compacted; encoding/json's last-duplicate-wins, which is also what the
// policy judged). false: an edit's path is not in raw.
func applyJSONEdits(raw []byte, edits []jsonEdit) ([]byte, bool) {
	if out, err := spliceJSON(raw, edits); err == nil {
		return out, true
	}
	doc := json.RawMessage(raw)
	for _, e := range edits {
		var ok bool
		if doc, ok = setJSONPath(doc, e.path, e.val); !ok {
			return nil, false
		}
	}
	return doc, json.Valid(doc)
}

var errJSONEdit = errors.New("json edit: path missing, repeated or overlapping")

// spliceJSON walks raw once with the tokenizer, finds the byte span of each
// edit's value and splices the new values in.
func spliceJSON(raw []byte, edits []jsonEdit) ([]byte, error) {
	type span struct {
		start, end int
		val        []byte
	}
	spans := make([]span, len(edits))
	found := make([]bool, len(edits))
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var path []string
	var walk func() error
	walk = func() error {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				path = append(path, key.(string))
				if err := walk(); err != nil {
					return err
				}
				path = path[:len(path)-1]
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				path = append(path, strconv.Itoa(i))
				if err := walk(); err != nil {
					return err
				}
				path = path[:len(path)-1]
			}
		}
		if tok == json.Delim('{') || tok == json.Delim('[') {
			if _, err := dec.Token(); err != nil { // the closing delimiter
				return err
			}
		}
		for i, e := range edits {
			if !slices.Equal(e.path, path) {
				continue
			}
			if found[i] {
				return errJSONEdit
			}
			start := before // past the separators before the value
			for start < len(raw) && strings.IndexByte(" \t\r\n:,", raw[start]) >= 0 {
				start++
			}
			spans[i], found[i] = span{start, int(dec.InputOffset()), e.val}, true
		}
		return nil
	}
	if err := walk(); err != nil {
		return nil, err
	}
	if slices.Contains(found, false) {
		return nil, errJSONEdit
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := make([]byte, 0, len(raw)+64)
	at := 0
	for _, s := range spans {
		if s.start < at {
			return nil, errJSONEdit
		}
		out = append(append(out, raw[at:s.start]...), s.val...)
		at = s.end
	}
	out = append(out, raw[at:]...)
	if !json.Valid(out) {
		return nil, errJSONEdit
	}
	return out, nil
}

// setJSONPath replaces the value at path by re-encoding the containers on
// the way (the fallback of applyJSONEdits).
func setJSONPath(doc json.RawMessage, path []string, val json.RawMessage) (json.RawMessage, bool) {
	if len(path) == 0 {
		return val, true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(doc, &obj) == nil && obj != nil {
		child, ok := obj[path[0]]
		if !ok {
			return nil, false
		}
		if obj[path[0]], ok = setJSONPath(child, path[1:], val); !ok {
			return nil, false
		}
		out, err := json.Marshal(obj)
		return out, err == nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(doc, &arr) == nil {
		i, err := strconv.Atoi(path[0])
		if err != nil || i < 0 || i >= len(arr) {
			return nil, false
		}
		var ok bool
		if arr[i], ok = setJSONPath(arr[i], path[1:], val); !ok {
			return nil, false
		}
		out, err := json.Marshal(arr)
		return out, err == nil
	}
	return nil, false
}
