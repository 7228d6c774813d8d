package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/anthropic"
	"github.com/governance-gateway/gateway/ingest/llm/azure"
	"github.com/governance-gateway/gateway/ingest/llm/bedrock"
	"github.com/governance-gateway/gateway/ingest/llm/openai"
	"github.com/governance-gateway/gateway/ingest/llm/vertex"
)

// adapter is one vendor adapter under test, with a credential it accepts.
type adapter struct {
	name string
	new  func(llm.Config) llm.Provider
	cred string
}

var adapters = []adapter{
	{llm.OpenAI, func(c llm.Config) llm.Provider { return openai.New(c) }, "sk-test"},
	{llm.AzureOpenAI, func(c llm.Config) llm.Provider { return azure.New(c) }, "azure-key"},
	{llm.Anthropic, func(c llm.Config) llm.Provider { return anthropic.New(c) }, "sk-ant-test"},
	{llm.Bedrock, func(c llm.Config) llm.Provider { return bedrock.New(c) }, "AKIDTEST:secret"},
	{llm.Vertex, func(c llm.Config) llm.Provider { c.Project = "proj"; return vertex.New(c) }, "ya29.token"},
}

// call runs Complete, or opens a stream, with a one-message request.
func call(ctx context.Context, p llm.Provider, stream bool, cred string) error {
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "hi"}}}
	if !stream {
		_, err := p.Complete(ctx, req, llm.Credentials{APIKey: cred})
		return err
	}
	st, err := p.(llm.Streamer).Stream(ctx, req, llm.Credentials{APIKey: cred})
	if err == nil {
		st.Close()
	}
	return err
}

// TestRetryPolicy: every adapter, answering and streaming, repeats a
// request once after any 5xx before anything reached the caller, and never
// a 4xx.
func TestRetryPolicy(t *testing.T) {
	for _, tt := range []struct {
		status int
		calls  int32
	}{
		{500, 2}, {502, 2}, {503, 2}, {529, 2}, {400, 1}, {429, 1},
	} {
		for _, ad := range adapters {
			for _, stream := range []bool{false, true} {
				t.Run(ad.name+"/"+strconv.Itoa(tt.status)+"/stream="+strconv.FormatBool(stream), func(t *testing.T) {
					var calls atomic.Int32
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						calls.Add(1)
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(tt.status)
						_, _ = w.Write([]byte(`{"error":{"message":"upstream says no"},"message":"upstream says no"}`))
					}))
					defer srv.Close()
					p := ad.new(llm.Config{BaseURL: srv.URL, RetryDelay: time.Millisecond})
					err := call(context.Background(), p, stream, ad.cred)
					var le *llm.Error
					require.True(t, errors.As(err, &le), "%v", err)
					require.Equal(t, tt.status, le.Status)
					require.Equal(t, llm.ErrStatus, le.Type)
					require.Equal(t, tt.calls, calls.Load())
				})
			}
		}
	}
}
