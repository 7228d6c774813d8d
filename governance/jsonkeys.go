package governance

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// DuplicateKey returns the path (`rules[2].action`) of the first member
// name that an object of the JSON document doc repeats, compared under
// Unicode case folding as encoding/json matches struct fields: it keeps the
// last of {"action":"block","Action":"allow"} where another reader, or the
// author, may mean the first. found is false for a document without one,
// and for invalid JSON (whose decoding reports the error).
func DuplicateKey(doc []byte) (path string, found bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	type frame struct {
		object bool
		keys   []string // an object's member names so far
		key    bool     // the next string token is a member name
		index  int      // an array's next element
	}
	var stack []frame
	// at names the member or element that the top frame is reading.
	at := func() string {
		var b strings.Builder
		for _, f := range stack {
			switch {
			case f.object && len(f.keys) > 0:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.keys[len(f.keys)-1])
			case !f.object:
				b.WriteString("[" + strconv.Itoa(f.index-1) + "]")
			}
		}
		return b.String()
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false // io.EOF, or a syntax error the caller's decode reports
		}
		top := len(stack) - 1
		if top >= 0 && !stack[top].object {
			if d, ok := tok.(json.Delim); !ok || d == '{' || d == '[' {
				stack[top].index++ // an element starts
			}
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{object: true, key: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:top]
				if top > 0 && stack[top-1].object {
					stack[top-1].key = true
				}
			}
			continue
		}
		if top < 0 || !stack[top].object {
			continue
		}
		f := &stack[top]
		if !f.key {
			f.key = true // a scalar member value
			continue
		}
		name := tok.(string)
		for _, k := range f.keys {
			if strings.EqualFold(k, name) {
				f.keys = append(f.keys, name)
				return at(), true
			}
		}
		f.keys, f.key = append(f.keys, name), false
	}
}
