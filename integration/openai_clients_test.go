package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm/llmfake"
	"github.com/governance-gateway/gateway/integration/harness"
)

// TestOpenAIPythonClient drives the Full Control chat-completions entry with
// the official OpenAI Python library (integration/openai_clients). The
// upstream LLM is a fake speaking OpenAI's wire format (vendors are not
// reachable here). Skipped when the package is not installed, except in the
// real lane (GATEWAY_REQUIRE_REAL=1), where .ci/run installs it.
func TestOpenAIPythonClient(t *testing.T) {
	if err := exec.Command("python3", "-c", "import openai").Run(); err != nil {
		requireOrSkip(t, "the openai Python package is not installed (pip install -r integration/openai_clients/requirements.txt)")
	}
	runClientScript(t, "python3", filepath.Join("openai_clients", "fullcontrol.py"))
}

// TestOpenAINodeClient: the same checks with the official OpenAI Node
// library (npm ci --prefix integration/openai_clients).
func TestOpenAINodeClient(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		requireOrSkip(t, "node is not installed")
	}
	if _, err := os.Stat(filepath.Join("openai_clients", "node_modules", "openai")); err != nil {
		requireOrSkip(t, "the openai npm package is not installed (npm ci --prefix integration/openai_clients)")
	}
	runClientScript(t, "node", filepath.Join("openai_clients", "fullcontrol.mjs"))
}

func requireOrSkip(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("GATEWAY_REQUIRE_REAL") == "1" {
		t.Fatalf("GATEWAY_REQUIRE_REAL=1 but %s", why)
	}
	t.Skipf("%s; the real lane (.ci/run) installs it and runs this", why)
}

// Models the scripts name to make the upstream fail (proxyFailures).
const (
	modelRateLimited = "fake-rate-limited" // 429 with the vendor's body and Retry-After
	modelHang        = "fake-hang"         // no answer until the caller leaves
	modelTruncated   = "fake-truncated"    // a stream broken before [DONE]
	// upstreamTimeout is GATEWAY_UPSTREAM_TIMEOUT: short, so the hang is a quick 504.
	upstreamTimeout = 2 * time.Second
)

// proxyFailures is the scripts' upstream: llmfake, except for the failure
// models above (llmfake answers a model name like any other).
func proxyFailures(fake *llmfake.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &req)
		switch req.Model {
		case modelRateLimited:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"error":{"message":"Rate limit reached for requests (fake upstream)","type":"requests","code":"rate_limit_exceeded"}}`)
			return
		case modelHang:
			select { // the gateway gives up after upstreamTimeout and cancels
			case <-r.Context().Done():
			case <-time.After(10 * upstreamTimeout):
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if req.Model == modelTruncated {
			fake.Push(llmfake.Reply{Content: "one two three four", Truncate: true})
			fake.ServeHTTP(w, r)
			panic(http.ErrAbortHandler) // the connection breaks: no last chunk, as a failing vendor
		}
		fake.ServeHTTP(w, r)
	})
}

// runClientScript starts a gateway whose OpenAI provider is a fake upstream,
// creates a Full Control application and runs the client script against it.
func runClientScript(t *testing.T, interpreter, script string) {
	env := harness.Environment(t)
	if env.KafkaBrokers != "" {
		harness.FreshGroup(t, env.KafkaBrokers)
	}
	fake := &llmfake.Server{}
	up := httptest.NewServer(proxyFailures(fake))
	defer up.Close()
	gw := harness.Gateway(t, "all", "GATEWAY_PROVIDER_OPENAI_BASE_URL="+up.URL+"/v1", "GATEWAY_PROVIDER_OPENAI_API_KEY=sk-test-managed",
		"GATEWAY_UPSTREAM_URL="+up.URL+"/v1", "GATEWAY_UPSTREAM_TIMEOUT="+upstreamTimeout.String())
	c := harness.NewClient(gw.URL)
	org, events := c.SignupAndApp(t, "py-"+time.Now().Format("150405.000000")+"@example.com", "events")
	var app struct {
		APIKey string `json:"api_key"`
	}
	require.Equal(t, http.StatusCreated, c.Do(t, "POST", "/api/console/apps",
		map[string]any{"name": "fc", "mode": "full_control", "provider": "openai", "model": "gpt-4o-mini"}, &app,
		"Authorization", "Bearer "+org.Token))

	cmd := exec.Command(interpreter, script)
	cmd.Env = append(os.Environ(), "GATEWAY_URL="+gw.URL, "GATEWAY_KEY="+app.APIKey, "GATEWAY_PROXY_KEY="+events.APIKey)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	require.NoError(t, err, "the OpenAI client checks failed (%s)", script)

	// The proxy's upstream key ("sk-upstream-test" in the scripts) is never
	// kept: not in the traces the console serves, not in any file of the
	// data directory (SQLite store, Parquet lake, embedded broker log), not
	// in the gateway's stdout / stderr.
	require.Eventually(t, func() bool {
		rows, err := c.TryListRequests(org.Token, nil)
		return err == nil && len(rows) > 0
	}, 2*time.Minute, 200*time.Millisecond)
	for _, r := range c.ListRequests(t, org.Token, nil) {
		_, body, err := c.Try("GET", "/api/console/requests/"+r.RequestID, nil, "Authorization", "Bearer "+org.Token)
		require.NoError(t, err)
		require.NotContains(t, string(body), "sk-upstream-test")
	}
	require.NoError(t, gw.Stop())
	// Nor in the gateway's own log (its stdout and stderr).
	logs, err := os.ReadFile(gw.LogPath)
	require.NoError(t, err)
	require.Contains(t, string(logs), "/v1/chat/completions", "the search must see the request log")
	require.NotContains(t, string(logs), "sk-upstream-test", "upstream key found in the gateway's log")
	require.NoError(t, filepath.WalkDir(gw.DataDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		require.NotContains(t, string(b), "sk-upstream-test", "upstream key found in %s", path)
		return nil
	}))
}
