package llm_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/anthropic"
	"github.com/governance-gateway/gateway/ingest/llm/bedrock"
	"github.com/governance-gateway/gateway/ingest/llm/vertex"
)

// TestBodyParams: the parameters beyond messages and tools, as each
// non-OpenAI vendor receives them (golden bodies), and the 400 of one it
// cannot honour.
func TestBodyParams(t *testing.T) {
	tools := json.RawMessage(`[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`)
	msgs := []llm.Message{{Role: "user", Content: "Hi"}}
	raw := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	bodies := map[string]func(llm.Request) ([]byte, error){llm.Anthropic: anthropic.Body, llm.Bedrock: bedrock.Body, llm.Vertex: vertex.Body}
	for _, tt := range []struct {
		vendor, name string
		req          llm.Request
		want         string // the whole body; "" when an error is wanted
		wantErr      string
	}{
		{vendor: llm.Anthropic, name: "stop, top_p, tool_choice required, no parallel calls, user",
			req: llm.Request{Model: "claude", Messages: msgs, Tools: tools, Extra: raw("stop", `["END"]`, "top_p", `0.5`,
				"tool_choice", `"required"`, "parallel_tool_calls", `false`, "user", `"u-1"`, "n", `1`, "frequency_penalty", `0`, "seed", `null`)},
			want: `{"model":"claude","messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}],"max_tokens":1024,
				"tools":[{"name":"f","input_schema":{"type":"object"}}],"top_p":0.5,"stop_sequences":["END"],
				"tool_choice":{"type":"any","disable_parallel_tool_use":true},"metadata":{"user_id":"u-1"}}`},
		{vendor: llm.Anthropic, name: "named function, max_completion_tokens",
			req: llm.Request{Model: "claude", Messages: msgs, Tools: tools, Extra: raw("tool_choice", `{"type":"function","function":{"name":"f"}}`,
				"max_completion_tokens", `64`, "stop", `"END"`)},
			want: `{"model":"claude","messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}],"max_tokens":64,
				"tools":[{"name":"f","input_schema":{"type":"object"}}],"stop_sequences":["END"],"tool_choice":{"type":"tool","name":"f"}}`},
		{vendor: llm.Anthropic, name: "tool_choice none",
			req: llm.Request{Model: "claude", Messages: msgs, Tools: tools, Extra: raw("tool_choice", `"none"`)},
			want: `{"model":"claude","messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}],"max_tokens":1024,
				"tools":[{"name":"f","input_schema":{"type":"object"}}],"tool_choice":{"type":"none"}}`},
		{vendor: llm.Anthropic, name: "json_object", req: llm.Request{Model: "claude", Messages: msgs, ResponseFormat: json.RawMessage(`{"type":"json_object"}`)},
			wantErr: `parameter "response_format" is not supported by provider anthropic`},
		{vendor: llm.Anthropic, name: "seed", req: llm.Request{Model: "claude", Messages: msgs, Extra: raw("seed", `7`)},
			wantErr: `parameter "seed" is not supported by provider anthropic`},
		{vendor: llm.Anthropic, name: "required without tools", req: llm.Request{Model: "claude", Messages: msgs, Extra: raw("tool_choice", `"required"`)},
			wantErr: "needs tools"},
		{vendor: llm.Anthropic, name: "unreadable stop", req: llm.Request{Model: "claude", Messages: msgs, Extra: raw("stop", `5`)},
			wantErr: "stop must be a string"},

		{vendor: llm.Bedrock, name: "stop, top_p, max_completion_tokens, tool_choice required",
			req: llm.Request{Model: "m", Messages: msgs, Tools: tools, Extra: raw("stop", `"END"`, "top_p", `0.5`, "max_completion_tokens", `64`,
				"tool_choice", `"required"`, "user", `"u-1"`, "response_format", `null`)},
			want: `{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"inferenceConfig":{"maxTokens":64,"topP":0.5,"stopSequences":["END"]},
				"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"any":{}}}}`},
		{vendor: llm.Bedrock, name: "named function",
			req: llm.Request{Model: "m", Messages: msgs, Tools: tools, Extra: raw("tool_choice", `{"type":"function","function":{"name":"f"}}`)},
			want: `{"messages":[{"role":"user","content":[{"text":"Hi"}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"tool":{"name":"f"}}}}`},
		{vendor: llm.Bedrock, name: "auto",
			req: llm.Request{Model: "m", Messages: msgs, Tools: tools, Extra: raw("tool_choice", `"auto"`)},
			want: `{"messages":[{"role":"user","content":[{"text":"Hi"}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"auto":{}}}}`},
		{vendor: llm.Bedrock, name: "json_object", req: llm.Request{Model: "m", Messages: msgs, ResponseFormat: json.RawMessage(`{"type":"json_object"}`)},
			wantErr: `parameter "response_format" is not supported by provider bedrock`},
		{vendor: llm.Bedrock, name: "tool_choice none", req: llm.Request{Model: "m", Messages: msgs, Tools: tools, Extra: raw("tool_choice", `"none"`)},
			wantErr: `parameter "tool_choice" is not supported by provider bedrock`},
		{vendor: llm.Bedrock, name: "tool_choice none without tools asks for nothing", req: llm.Request{Model: "m", Messages: msgs, Extra: raw("tool_choice", `"none"`)},
			want: `{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}`},
		{vendor: llm.Bedrock, name: "seed", req: llm.Request{Model: "m", Messages: msgs, Extra: raw("seed", `7`)},
			wantErr: `parameter "seed" is not supported by provider bedrock`},

		{vendor: llm.Vertex, name: "json_object, stop, seed, tool_choice required",
			req: llm.Request{Model: "gemini", Messages: msgs, Tools: tools, ResponseFormat: json.RawMessage(`{"type":"json_object"}`),
				Extra: raw("stop", `["END"]`, "seed", `7`, "tool_choice", `"required"`, "top_p", `0.5`, "presence_penalty", `0.2`, "n", `1`)},
			want: `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],
				"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object"}}]}],
				"toolConfig":{"functionCallingConfig":{"mode":"ANY"}},
				"generationConfig":{"responseMimeType":"application/json","stopSequences":["END"],"seed":7,"topP":0.5,"presencePenalty":0.2}}`},
		{vendor: llm.Vertex, name: "json_schema, named function, max_completion_tokens",
			req: llm.Request{Model: "gemini", Messages: msgs, Tools: tools,
				ResponseFormat: json.RawMessage(`{"type":"json_schema","json_schema":{"name":"a","schema":{"type":"object","properties":{"x":{"type":"string"}}}}}`),
				Extra:          raw("tool_choice", `{"type":"function","function":{"name":"f"}}`, "max_completion_tokens", `64`)},
			want: `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],
				"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object"}}]}],
				"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}},
				"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"object","properties":{"x":{"type":"string"}}},"maxOutputTokens":64}}`},
		{vendor: llm.Vertex, name: "logprobs", req: llm.Request{Model: "gemini", Messages: msgs, Extra: raw("logprobs", `true`)},
			wantErr: `parameter "logprobs" is not supported by provider vertex`},
		{vendor: llm.Vertex, name: "unknown response_format", req: llm.Request{Model: "gemini", Messages: msgs, ResponseFormat: json.RawMessage(`{"type":"xml"}`)},
			wantErr: `response_format type "xml"`},
	} {
		t.Run(tt.vendor+"/"+tt.name, func(t *testing.T) {
			b, err := bodies[tt.vendor](tt.req)
			if tt.wantErr != "" {
				var le *llm.Error
				require.True(t, errors.As(err, &le), "%v", err)
				require.Equal(t, 400, le.Status)
				require.Equal(t, llm.ErrInvalidRequest, le.Type)
				require.Contains(t, le.Message, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(b))
		})
	}
}

// TestIsDefault: a parameter at its OpenAI default asks for nothing,
// however the number is spelled.
func TestIsDefault(t *testing.T) {
	tests := []struct {
		param, v string
		want     bool
	}{
		{"frequency_penalty", "0", true},
		{"frequency_penalty", "0.00", true},
		{"frequency_penalty", "-0", true},
		{"presence_penalty", "0e0", true},
		{"n", "1.0", true},
		{"n", "2", false},
		{"frequency_penalty", "0.5", false},
		{"parallel_tool_calls", "true", true},
		{"parallel_tool_calls", "false", false},
		{"response_format", `{ "type" : "text" }`, true},
		{"seed", "null", true},
		{"seed", "0", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, llm.IsDefault(tt.param, json.RawMessage(tt.v)), "%s=%s", tt.param, tt.v)
	}
}
