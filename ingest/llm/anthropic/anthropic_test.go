package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
)

func TestBodyGolden(t *testing.T) {
	temp := 0.5
	b, err := Body(llm.Request{
		Model: "claude-sonnet-4-5", Temperature: &temp,
		Messages: []llm.Message{
			{Role: "system", Content: "You are terse."},
			{Role: "user", Content: "Weather in Paris?"},
			{Role: "assistant", ToolCalls: json.RawMessage(`[{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]`)},
			{Role: "tool", ToolCallID: "toolu_1", Content: "18C, sunny"},
		},
		Tools: json.RawMessage(`[{"type":"function","function":{"name":"get_weather","description":"Current weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`),
		Extra: map[string]json.RawMessage{"stop": json.RawMessage(`"END"`)},
	})
	require.NoError(t, err)
	require.JSONEq(t, `{
		"model":"claude-sonnet-4-5","system":"You are terse.","max_tokens":1024,"temperature":0.5,
		"messages":[
			{"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18C, sunny"}]}
		],
		"tools":[{"name":"get_weather","description":"Current weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],
		"stop_sequences":["END"]}`, string(b))
}

func TestComplete(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/v1/messages", r.URL.Path)
		require.Equal(t, "ak", r.Header.Get("x-api-key"))
		require.Equal(t, Version, r.Header.Get("anthropic-version"))
		w.Header().Set("Content-Type", "application/json")
		// The documented response shape (Messages API reference).
		_, _ = io.WriteString(w, `{"id":"msg_013Zva2CMHLNnXjNJJKqJ2EF","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"text","text":"Hi! My name is Claude."},{"type":"tool_use","id":"toolu_9","name":"lookup","input":{"q":"x"}}],
			"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":2095,"output_tokens":503}}`)
	}))
	defer srv.Close()
	resp, err := New(llm.Config{BaseURL: srv.URL}).Complete(context.Background(),
		llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{{Role: "user", Content: "Hello"}}}, llm.Credentials{APIKey: "ak"})
	require.NoError(t, err)
	require.Equal(t, "Hi! My name is Claude.", resp.Content)
	require.Equal(t, "tool_calls", resp.FinishReason)
	require.Equal(t, llm.Usage{PromptTokens: 2095, CompletionTokens: 503}, resp.Usage)
	require.JSONEq(t, `[{"id":"toolu_9","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"x\"}"}}]`, string(resp.ToolCalls))
}

func TestErrorBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`)
	}))
	defer srv.Close()
	_, err := New(llm.Config{BaseURL: srv.URL}).Complete(context.Background(),
		llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "x"}}}, llm.Credentials{APIKey: "secret-ak"})
	var le *llm.Error
	require.True(t, errors.As(err, &le))
	require.Equal(t, 429, le.Status)
	require.Contains(t, le.Message, "rate limit")
	require.NotContains(t, le.Error(), "secret-ak")
}
