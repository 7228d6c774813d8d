package bedrock

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
)

func TestBodyGolden(t *testing.T) {
	mt, temp := 256, 0.3
	b, err := Body(llm.Request{Model: "anthropic.claude-3-haiku-20240307-v1:0", MaxTokens: &mt, Temperature: &temp,
		Messages: []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hello"}}})
	require.NoError(t, err)
	require.JSONEq(t, `{"messages":[{"role":"user","content":[{"text":"Hello"}]}],"system":[{"text":"Be brief."}],
		"inferenceConfig":{"maxTokens":256,"temperature":0.3}}`, string(b))
}

func TestComplete(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/model/anthropic.claude-3-haiku-20240307-v1:0/converse", r.URL.Path)
		auth := r.Header.Get("Authorization")
		require.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/"), auth)
		require.Contains(t, auth, "/eu-west-1/bedrock/aws4_request")
		require.Contains(t, auth, "SignedHeaders=content-type;host;x-amz-date")
		require.NotEmpty(t, r.Header.Get("X-Amz-Date"))
		w.Header().Set("Content-Type", "application/json")
		// The documented Converse response shape.
		_, _ = io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[{"text":"Hello! How can I help?"}]}},
			"stopReason":"end_turn","usage":{"inputTokens":12,"outputTokens":7,"totalTokens":19},"metrics":{"latencyMs":300}}`)
	}))
	defer srv.Close()
	a := New(llm.Config{BaseURL: srv.URL, Region: "eu-west-1"})
	resp, err := a.Complete(context.Background(), llm.Request{Model: "anthropic.claude-3-haiku-20240307-v1:0",
		Messages: []llm.Message{{Role: "user", Content: "Hello"}}}, llm.Credentials{APIKey: "AKIDTEST:secretkey"})
	require.NoError(t, err)
	require.Equal(t, "Hello! How can I help?", resp.Content)
	require.Equal(t, "stop", resp.FinishReason)
	require.Equal(t, llm.Usage{PromptTokens: 12, CompletionTokens: 7}, resp.Usage)

	_, err = a.Complete(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "x"}}}, llm.Credentials{APIKey: "not-aws"})
	require.ErrorContains(t, err, "ACCESS_KEY_ID")
}
