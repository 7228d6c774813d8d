package azure

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// TestWire checks the request Azure documents (path with deployment and
// api-version, api-key header, Chat Completions body) and parses the
// documented response shape.
func TestWire(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/openai/deployments/gpt-4o-prod/chat/completions", r.URL.Path)
		require.Equal(t, APIVersion, r.URL.Query().Get("api-version"))
		require.Equal(t, "azure-key", r.Header.Get("api-key"))
		require.Empty(t, r.Header.Get("Authorization"))
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		require.NoError(t, json.Unmarshal(b, &body))
		require.Equal(t, "Hi", body["messages"].([]any)[0].(map[string]any)["content"])
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"chatcmpl-A","object":"chat.completion","created":1,"model":"gpt-4o-2024-08-06",
			"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Hello!"},
			"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}],
			"usage":{"completion_tokens":2,"prompt_tokens":9,"total_tokens":11}}`)
	}))
	defer srv.Close()
	a := New(llm.Config{BaseURL: srv.URL})
	require.Equal(t, llm.AzureOpenAI, a.Name())
	resp, err := a.Complete(context.Background(), llm.Request{Model: "gpt-4o-prod", Messages: []llm.Message{{Role: "user", Content: "Hi"}}}, llm.Credentials{APIKey: "azure-key"})
	require.NoError(t, err)
	require.Equal(t, "Hello!", resp.Content)
	require.Equal(t, llm.Usage{PromptTokens: 9, CompletionTokens: 2}, resp.Usage)
}
