package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/governance-gateway/gateway/governance"
)

// Post-flight governance of the tool calls a proxied upstream answers with
// (verify and full, not streamed; docs/api.md): the arguments of every
// choice's message.tool_calls (and of the legacy function_call) get the
// answer's post-flight rules through checkToolCalls / VerifyArguments, as in
// Full Control. The proxy cannot regenerate.

// proxyToolReview is the verdict on the tool calls of one proxied answer.
type proxyToolReview struct {
	toolCheck
	// edits write the redacted arguments back into the upstream body.
	edits []jsonEdit
}

// choicePath is the JSON path of elems in the message of choices[i].
func choicePath(i int, elems ...string) []string {
	return append([]string{"choices", strconv.Itoa(i), "message"}, elems...)
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
func reviewProxyToolCalls(pol judge, raw []byte) proxyToolReview {
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
	if json.Unmarshal(raw, &r) != nil {
		return proxyToolReview{}
	}
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
	// Every choice: a request with "n": 2 must not get an unchecked call in
	// its second choice.
	for ci, ch := range r.Choices {
		msg := ch.Message
		if present(msg.ToolCalls) {
			var elems []json.RawMessage
			if json.Unmarshal(msg.ToolCalls, &elems) != nil {
				add("", "", string(msg.ToolCalls), choicePath(ci, "tool_calls"), true)
			}
			for i, e := range elems {
				var c callShape
				err := json.Unmarshal(e, &c)
				switch {
				case err == nil && c.Function != nil && c.Function.Arguments != nil:
					add(c.ID, c.Function.Name, *c.Function.Arguments, choicePath(ci, "tool_calls", strconv.Itoa(i), "function", "arguments"), false)
				default:
					name := ""
					if c.Function != nil {
						name = c.Function.Name
					} else if c.Custom != nil {
						name = c.Custom.Name
					}
					add(c.ID, name, string(e), choicePath(ci, "tool_calls", strconv.Itoa(i)), true)
				}
			}
		}
		if present(msg.FunctionCall) {
			var fc struct {
				Name      string  `json:"name"`
				Arguments *string `json:"arguments"`
			}
			if json.Unmarshal(msg.FunctionCall, &fc) == nil && fc.Arguments != nil {
				add("", fc.Name, *fc.Arguments, choicePath(ci, "function_call", "arguments"), false)
			} else {
				add("", fc.Name, string(msg.FunctionCall), choicePath(ci, "function_call"), true)
			}
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
