package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/llmfake"
)

func TestBodyGolden(t *testing.T) {
	temp, maxTok := 0.2, 50
	b, err := Body(llm.Request{
		Model: "gpt-4o-mini", Messages: []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}},
		Temperature: &temp, MaxTokens: &maxTok,
		Tools: json.RawMessage(`[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`),
		Extra: map[string]json.RawMessage{"top_p": json.RawMessage(`0.9`), "seed": json.RawMessage(`7`), "model": json.RawMessage(`"ignored"`)},
	})
	require.NoError(t, err)
	require.JSONEq(t, `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}],
		"temperature":0.2,"max_tokens":50,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],
		"top_p":0.9,"seed":7}`, string(b))
}

func TestComplete(t *testing.T) {
	fake := &llmfake.Server{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	a := New(llm.Config{BaseURL: srv.URL})
	resp, err := a.Complete(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "hello there"}}}, llm.Credentials{APIKey: "sk-test"})
	require.NoError(t, err)
	require.Equal(t, "You said: hello there", resp.Content)
	require.Equal(t, "stop", resp.FinishReason)
	require.Positive(t, resp.Usage.PromptTokens)
	require.Positive(t, resp.Usage.CompletionTokens)
}

func TestErrors(t *testing.T) {
	var calls atomic.Int32
	handler := func(status int, body string, delay time.Duration) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			time.Sleep(delay)
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}
	}
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedURL := "http://" + closed.Addr().String()
	closed.Close()
	tests := []struct {
		name    string
		h       http.HandlerFunc
		url     string
		timeout time.Duration
		status  int
		typ     string
		calls   int32
	}{
		{"rate limited is surfaced", handler(429, `{"error":{"message":"Rate limit reached"}}`, 0), "", 0, 429, llm.ErrStatus, 1},
		{"503 is retried once", handler(503, `{}`, 0), "", 0, 503, llm.ErrStatus, 2},
		{"garbage", handler(200, `<html>`, 0), "", 0, 502, llm.ErrBadResponse, 1},
		{"timeout", handler(200, `{}`, 300*time.Millisecond), "", 100 * time.Millisecond, 504, llm.ErrTimeout, 1},
		{"refused", nil, closedURL, 0, 502, llm.ErrNetwork, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls.Store(0)
			url := tt.url
			if tt.h != nil {
				srv := httptest.NewServer(tt.h)
				defer srv.Close()
				url = srv.URL
			}
			a := New(llm.Config{BaseURL: url, Timeout: tt.timeout, RetryDelay: time.Millisecond})
			_, err := a.Complete(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "x"}}}, llm.Credentials{APIKey: "sk-secret-key"})
			var le *llm.Error
			require.True(t, errors.As(err, &le), "%v", err)
			require.Equal(t, tt.status, le.Status)
			require.Equal(t, tt.typ, le.Type)
			require.NotContains(t, le.Error(), "sk-secret-key")
			if tt.h != nil {
				require.Equal(t, tt.calls, calls.Load())
			}
		})
	}
}

func TestStream(t *testing.T) {
	fake := &llmfake.Server{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	a := New(llm.Config{BaseURL: srv.URL})
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "one two three"}}}

	st, err := a.Stream(context.Background(), req, llm.Credentials{APIKey: "k"})
	require.NoError(t, err)
	var text string
	var usage *llm.Usage
	for {
		c, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		require.NotEmpty(t, c.Raw)
		text += c.Delta
		if c.Usage != nil {
			usage = c.Usage
		}
	}
	require.NoError(t, st.Close())
	require.Equal(t, "You said: one two three", text)
	require.NotNil(t, usage, "stream_options.include_usage asked for the usage chunk")
	require.Contains(t, string(fake.Received()[0]), `"include_usage":true`)

	// A stream cut off before [DONE] is an error, never a silent end.
	fake.Push(llmfake.Reply{Content: "a b c d e f", Truncate: true})
	st, err = a.Stream(context.Background(), req, llm.Credentials{APIKey: "k"})
	require.NoError(t, err)
	defer st.Close()
	for {
		_, err = st.Next()
		if err != nil {
			break
		}
	}
	var le *llm.Error
	require.True(t, errors.As(err, &le), "%v", err)
	require.Equal(t, llm.ErrBadResponse, le.Type)
}
