package httpapi

import "github.com/governance-gateway/gateway/schemas"

// decodeVerifyBody is json.Unmarshal(body, vb) for the shape nearly every
// verify request has: one object whose members are verifyBody's names,
// spelled exactly, each a string or null, decoded in one pass by the log's
// own fast decoder (schemas.DecodeStringMembers). It reports false for
// anything else (another name, since encoding/json also matches other cases
// of these; another value type; bad JSON), and the caller then runs
// json.Unmarshal for its exact result and error. encoding/json validates the
// whole body and then decodes it, about 0.1 ms for the benchmark's 10 KB on
// this machine; one pass costs a fraction of that.
func decodeVerifyBody(body []byte, vb *verifyBody) bool {
	return schemas.DecodeStringMembers(body, func(name []byte, v *string) bool {
		switch string(name) {
		case "prompt":
			vb.Prompt = v
		case "answer":
			vb.Answer = v
		case "tool_result":
			vb.ToolResult = v
		case "model":
			vb.Model = v
		case "provider":
			vb.Provider = v
		default:
			return false
		}
		return true
	})
}
