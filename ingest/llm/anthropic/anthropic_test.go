package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/llmtest"
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

// docStream is the event stream of the Messages API's streaming reference,
// byte for byte in its framing (event line, data line, blank line).
const docStream = `event: message_start
data: {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}

event: content_block_start
data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "!"}}

event: content_block_stop
data: {"type": "content_block_stop", "index": 0}

event: message_delta
data: {"type": "message_delta", "delta": {"stop_reason": "%s", "stop_sequence":null}, "usage": {"output_tokens": 15}}

event: message_stop
data: {"type": "message_stop"}

`

func TestStream(t *testing.T) {
	cut := strings.Index(docStream, "event: content_block_stop")
	tests := []struct {
		name       string
		status     int // answered instead of the stream when set
		body       string
		delay      time.Duration
		text       string
		finish     string
		usage      *llm.Usage
		errStatus  int
		errType    string
		errMessage string
	}{
		{name: "answer", body: fmt.Sprintf(docStream, "end_turn"), text: "Hello!", finish: "stop", usage: &llm.Usage{PromptTokens: 25, CompletionTokens: 15}},
		{name: "max tokens", body: fmt.Sprintf(docStream, "max_tokens"), text: "Hello!", finish: "length", usage: &llm.Usage{PromptTokens: 25, CompletionTokens: 15}},
		{name: "CRLF framing", body: strings.ReplaceAll(fmt.Sprintf(docStream, "tool_use"), "\n", "\r\n"), text: "Hello!", finish: "tool_calls", usage: &llm.Usage{PromptTokens: 25, CompletionTokens: 15}},
		{name: "upstream status", status: http.StatusTooManyRequests, body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`,
			errStatus: 429, errType: llm.ErrStatus, errMessage: "rate limit"},
		{name: "truncated", body: docStream[:cut], text: "Hello!", errStatus: 502, errType: llm.ErrBadResponse, errMessage: "truncated"},
		{name: "error event", body: docStream[:cut] + "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n",
			text: "Hello!", errStatus: 529, errType: llm.ErrStatus, errMessage: "Overloaded"},
		{name: "unreadable event", body: "event: message_start\ndata: {not json\n\n", errStatus: 502, errType: llm.ErrBadResponse},
		{name: "headers too late", body: fmt.Sprintf(docStream, "end_turn"), delay: 300 * time.Millisecond, errStatus: 504, errType: llm.ErrTimeout},
	}
	type received struct {
		path, key, version, accept string
		body                       []byte
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan received, 2)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got <- received{r.URL.Path, r.Header.Get("x-api-key"), r.Header.Get("anthropic-version"), r.Header.Get("Accept"), b}
				time.Sleep(tt.delay)
				if tt.status != 0 {
					w.WriteHeader(tt.status)
					_, _ = io.WriteString(w, tt.body)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			a := New(llm.Config{BaseURL: srv.URL, Timeout: 100 * time.Millisecond, RetryDelay: time.Millisecond})
			if tt.delay == 0 {
				a.cfg.Timeout = 5 * time.Second
			}
			st, err := a.Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-5",
				Messages: []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hello"}}}, llm.Credentials{APIKey: "secret-ak"})
			var text, fin string
			var usage *llm.Usage
			if err == nil {
				var d llmtest.Drained
				d, err = llmtest.Drain(t, st)
				text, fin, usage = d.Text, d.Finish, d.Usage
				require.NoError(t, st.Close())
			}

			r := <-got
			require.Equal(t, "/v1/messages", r.path)
			require.Equal(t, "secret-ak", r.key)
			require.Equal(t, Version, r.version)
			require.Equal(t, "text/event-stream", r.accept)
			require.JSONEq(t, `{"model":"claude-sonnet-4-5","system":"Be brief.","max_tokens":1024,"stream":true,
				"messages":[{"role":"user","content":[{"type":"text","text":"Hello"}]}]}`, string(r.body))
			require.Equal(t, tt.text, text)
			if tt.errType != "" {
				var le *llm.Error
				require.True(t, errors.As(err, &le), "want *llm.Error, got %v", err)
				require.Equal(t, tt.errStatus, le.Status)
				require.Equal(t, tt.errType, le.Type)
				require.Contains(t, le.Message, tt.errMessage)
				require.NotContains(t, le.Error(), "secret-ak")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.finish, fin)
			require.Equal(t, tt.usage, usage)
		})
	}
}

// toolStream is the tool use stream of the Messages API's streaming
// reference (a text block, then a tool_use block whose input arrives as
// input_json_delta fragments split mid-token), plus a second tool_use
// block without input.
const toolStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2},"content":[],"stop_reason":null}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Okay, let's check the weather."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \"San"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" Francisc"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"o,"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" CA\", "}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"unit\": \"fah"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"renheit\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_02","name":"get_time","input":{}}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}

`

// TestStreamToolUse: tool_use blocks become OpenAI-style tool call pieces,
// indexed among the tool calls (not the content blocks), the first with the
// id and name, then the input JSON fragments as they arrive.
func TestStreamToolUse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, toolStream)
	}))
	defer srv.Close()
	a := New(llm.Config{BaseURL: srv.URL, RetryDelay: time.Millisecond})
	st, err := a.Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-5",
		Messages: []llm.Message{{Role: "user", Content: "Weather in San Francisco?"}}}, llm.Credentials{APIKey: "secret-ak"})
	require.NoError(t, err)
	defer st.Close()
	d, err := llmtest.Drain(t, st)
	require.NoError(t, err)
	text, finish, pieces := d.Text, d.Finish, d.ToolCalls
	require.Equal(t, "Okay, let's check the weather.", text)
	require.Equal(t, "tool_calls", finish)
	require.Equal(t, []llm.ToolCallDelta{
		{Index: 0, ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Name: "get_weather"},
		{Index: 0, Arguments: `{"location":`}, {Index: 0, Arguments: ` "San`}, {Index: 0, Arguments: ` Francisc`},
		{Index: 0, Arguments: `o,`}, {Index: 0, Arguments: ` CA", `}, {Index: 0, Arguments: `"unit": "fah`}, {Index: 0, Arguments: `renheit"}`},
		{Index: 1, ID: "toolu_02", Name: "get_time"},
		{Index: 1, Arguments: `{}`},
	}, pieces)
	var args string
	for _, p := range pieces[1:8] {
		args += p.Arguments
	}
	require.JSONEq(t, `{"location": "San Francisco, CA", "unit": "fahrenheit"}`, args)
}
