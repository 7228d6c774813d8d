package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Byte-preserving edits of a JSON document, for the answers the gateway
// changes: the proxy's upstream body and Full Control's tool_calls.

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
