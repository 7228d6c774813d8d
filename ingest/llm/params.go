package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
)

// ErrInvalidRequest is the type of a request an adapter refuses before
// calling the vendor: a parameter the vendor cannot honour (400).
const ErrInvalidRequest = "invalid_request"

// Unsupported is the 400 of a parameter the provider cannot honour. The
// adapters refuse such a parameter rather than drop it: an answer that
// silently ignores, say, a JSON mode or a seed would look like a success.
func Unsupported(provider, param, detail string) *Error {
	msg := fmt.Sprintf("parameter %q is not supported by provider %s", param, provider)
	if detail != "" {
		msg += ": " + detail
	}
	return &Error{Status: http.StatusBadRequest, Type: ErrInvalidRequest, Message: msg}
}

// Ignored are the parameters no vendor adapter needs to honour, because
// they do not change the answer (end-user tags, storage and billing hints,
// the stream options the adapters set themselves).
var Ignored = map[string]bool{"user": true, "store": true, "service_tier": true, "stream_options": true, "metadata": true}

// defaults are the OpenAI values of parameters that, sent as such, ask for
// nothing: any vendor honours them.
var defaults = map[string][]string{
	"n": {"1"}, "frequency_penalty": {"0", "0.0"}, "presence_penalty": {"0", "0.0"}, "logprobs": {"false"},
	"top_logprobs": {"0"}, "logit_bias": {"{}"}, "parallel_tool_calls": {"true"}, "response_format": {`{"type":"text"}`},
}

// IsDefault reports whether param's value v asks for nothing: null, or the
// parameter's OpenAI default.
func IsDefault(param string, v json.RawMessage) bool {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return false
	}
	c := buf.String()
	if c == "null" {
		return true
	}
	for _, d := range defaults[param] {
		if c == d {
			return true
		}
		// Numbers by value: 0.00, -0 and 0e0 ask for the default 0 too.
		if x, err := strconv.ParseFloat(c, 64); err == nil {
			if y, err := strconv.ParseFloat(d, 64); err == nil && x == y {
				return true
			}
		}
	}
	return false
}

// EachParam calls f with each parameter of extra, in name order, but for
// those sent at their OpenAI default and the Ignored ones (unless keep
// names them). An error of f that is not already an *Error (an
// Unsupported parameter) becomes provider's 400 naming the parameter.
func EachParam(provider string, extra map[string]json.RawMessage, keep map[string]bool, f func(k string, v json.RawMessage) error) error {
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		v := extra[k]
		if IsDefault(k, v) || Ignored[k] && !keep[k] {
			continue
		}
		if err := f(k, v); err != nil {
			var le *Error
			if errors.As(err, &le) {
				return le
			}
			return Invalid(provider, fmt.Errorf("%s: %w", k, err))
		}
	}
	return nil
}

// RefuseResponseFormat is the error of a response_format for a provider
// without a JSON mode (detail says so): nil when it is absent or "text",
// an Invalid error when it cannot be read, else Unsupported.
func RefuseResponseFormat(provider string, rf json.RawMessage, detail string) error {
	if len(rf) == 0 || IsDefault("response_format", rf) {
		return nil
	}
	if _, _, err := ResponseFormat(rf); err != nil {
		return Invalid(provider, err)
	}
	return Unsupported(provider, "response_format", detail)
}

// Stop reads OpenAI's stop: one string or an array of them.
func Stop(v json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(v, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(v, &many); err != nil {
		return nil, fmt.Errorf("stop must be a string or an array of strings: %w", err)
	}
	return many, nil
}

// ToolChoice reads OpenAI's tool_choice: mode is auto, none or required,
// or "function" with the function's name.
func ToolChoice(v json.RawMessage) (mode, name string, err error) {
	if json.Unmarshal(v, &mode) == nil {
		if mode != "auto" && mode != "none" && mode != "required" {
			return "", "", fmt.Errorf("tool_choice %q is not auto, none or required", mode)
		}
		return mode, "", nil
	}
	var o struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(v, &o); err != nil || o.Type != "function" || o.Function.Name == "" {
		return "", "", fmt.Errorf("tool_choice must be auto, none, required or {type: function, function: {name}}")
	}
	return "function", o.Function.Name, nil
}

// ResponseFormat reads OpenAI's response_format: typ is text, json_object
// or json_schema, with the JSON schema of the last.
func ResponseFormat(v json.RawMessage) (typ string, schema json.RawMessage, err error) {
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(v, &rf); err != nil {
		return "", nil, fmt.Errorf("response_format must be an object: %w", err)
	}
	switch rf.Type {
	case "text", "json_object":
	case "json_schema":
		if len(rf.JSONSchema.Schema) == 0 {
			return "", nil, fmt.Errorf("response_format json_schema needs json_schema.schema")
		}
	default:
		return "", nil, fmt.Errorf("response_format type %q is not text, json_object or json_schema", rf.Type)
	}
	return rf.Type, rf.JSONSchema.Schema, nil
}

// Invalid is the 400 of a parameter whose value cannot be read.
func Invalid(provider string, err error) *Error {
	return &Error{Status: http.StatusBadRequest, Type: ErrInvalidRequest, Message: provider + ": " + err.Error()}
}

// NeedsTools is the error of a tool_choice that forces a call when the
// request has no tools.
func NeedsTools(provider string) *Error {
	return Invalid(provider, fmt.Errorf("tool_choice required or a named function needs tools"))
}
