package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm/llmfake"
)

// TestChatUpstreamErrorHidesKey: an upstream that echoes the key it was
// sent in its error message ("Incorrect API key provided: sk-...") must not
// hand the Managed pool's key (or a BYOK key) to the caller, nor put it on
// the log, on a plain answer or on a stream.
func TestChatUpstreamErrorHidesKey(t *testing.T) {
	ce := newChatEnv(t)
	echo := llmfake.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: Bearer sk-managed-test.","type":"invalid_request_error"}}`}
	for _, stream := range []bool{false, true} {
		ce.log.reset()
		ce.fake.Push(echo)
		r := ce.chat(map[string]any{"prompt": "x", "stream": stream})
		require.NotContains(t, string(r.Body), "sk-managed-test", "stream=%v", stream)
		require.Contains(t, string(r.Body), "Incorrect API key provided", "the rest of the message is kept")
		envs := ce.log.all()
		require.Len(t, envs, 1)
		raw, err := envs[0].Marshal()
		require.NoError(t, err)
		require.NotContains(t, string(raw), "sk-managed-test", "stream=%v", stream)
	}
}

// TestChatTraceFitsTheLog: a Full Control request the body limit (4 MiB)
// accepts must still leave its one trace: a huge user message is kept cut,
// as on the proxy, and a metadata object too large for a trace is refused
// before the LLM is called (it would be paid and then lost).
func TestChatTraceFitsTheLog(t *testing.T) {
	ce := newChatEnv(t)

	big := "hello " + strings.Repeat("word ", 400<<10) // 2 MiB
	ce.fake.Push(llmfake.Reply{Content: "fine"})
	r := ce.chat(map[string]any{"messages": []map[string]any{{"role": "user", "content": big}}})
	require.Equal(t, 200, r.Code, "%s", r.Body)
	envs := ce.log.all()
	require.Len(t, envs, 1)
	tr := envs[0].Trace
	require.Less(t, len(tr.Prompt), len(big))
	var meta map[string]any
	require.NoError(t, json.Unmarshal(tr.Metadata, &meta))
	require.Equal(t, true, meta["trace_truncated"])

	ce.log.reset()
	calls := len(ce.fake.Received())
	r = ce.chat(map[string]any{"prompt": "hi", "metadata": map[string]any{"a": strings.Repeat("x", 2<<20)}})
	body := requireError(t, r, 400)
	require.Contains(t, body["error"], "metadata")
	require.Equal(t, calls, len(ce.fake.Received()), "the LLM is not called")
	require.Eventually(t, func() bool { return len(ce.log.all()) == 1 }, 5*time.Second, 5*time.Millisecond, "the refusal is traced")
}
