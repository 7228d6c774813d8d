package httpapi

import (
	"unicode/utf16"
	"unicode/utf8"
)

// decodeVerifyBody is json.Unmarshal(body, vb) for the shape nearly every
// verify request has: one object whose members are verifyBody's names,
// spelled exactly, each a string or null. It reports false for anything
// else (another key or value type, a surrogate escape, bad JSON), and the
// caller then runs json.Unmarshal for its exact result and error. body must
// be valid UTF-8 (postVerify checks it first). encoding/json validates the
// whole body and then decodes it, about 0.1 ms for the benchmark's 10 KB on
// this machine; one pass here costs a fraction of that.
func decodeVerifyBody(body []byte, vb *verifyBody) bool {
	i := skipJSONSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return false
	}
	i = skipJSONSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return skipJSONSpace(body, i+1) == len(body)
	}
	for {
		if i == len(body) || body[i] != '"' {
			return false
		}
		end := i + 1
		for end < len(body) && body[end] != '"' && body[end] != '\\' {
			end++
		}
		if end == len(body) || body[end] != '"' {
			return false // an escaped key: encoding/json decides
		}
		var field **string
		switch string(body[i+1 : end]) {
		case "prompt":
			field = &vb.Prompt
		case "answer":
			field = &vb.Answer
		case "tool_result":
			field = &vb.ToolResult
		case "model":
			field = &vb.Model
		case "provider":
			field = &vb.Provider
		default:
			return false // encoding/json also matches other cases of these names
		}
		i = skipJSONSpace(body, end+1)
		if i == len(body) || body[i] != ':' {
			return false
		}
		i = skipJSONSpace(body, i+1)
		switch {
		case i+4 <= len(body) && string(body[i:i+4]) == "null":
			*field, i = nil, i+4
		case i < len(body) && body[i] == '"':
			s, next, ok := jsonStringValue(body, i)
			if !ok {
				return false
			}
			*field, i = &s, next
		default:
			return false
		}
		i = skipJSONSpace(body, i)
		if i == len(body) {
			return false
		}
		switch body[i] {
		case ',':
			i = skipJSONSpace(body, i+1)
		case '}':
			return skipJSONSpace(body, i+1) == len(body)
		default:
			return false
		}
	}
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// jsonStringValue decodes the JSON string starting at the quote b[i]: its
// value and the index after its closing quote.
func jsonStringValue(b []byte, i int) (string, int, bool) {
	start := i + 1
	j := start
	for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
		j++
	}
	if j < len(b) && b[j] == '"' {
		return string(b[start:j]), j + 1, true
	}
	out := make([]byte, j-start, j-start+64)
	copy(out, b[start:j])
	for j < len(b) {
		c := b[j]
		switch {
		case c == '"':
			return string(out), j + 1, true
		case c < 0x20:
			return "", 0, false // a raw control character is not JSON
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		if j+1 == len(b) {
			return "", 0, false
		}
		switch e := b[j+1]; e {
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
			r, ok := hex4(b, j+2)
			if !ok || utf16.IsSurrogate(r) {
				return "", 0, false // pairs and lone halves: encoding/json's rules
			}
			out = utf8.AppendRune(out, r)
			j += 4
		default:
			return "", 0, false
		}
		j += 2
	}
	return "", 0, false
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
