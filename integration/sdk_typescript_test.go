package integration

import (
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

// TestTypeScriptSDK runs the TypeScript SDK's tests (node --test on its ESM
// build) against a real gateway process with a fake OpenAI-format upstream.
// Skipped without a build, except in the real lane (GATEWAY_REQUIRE_REAL=1),
// where .ci/run runs npm ci and the build.
func TestTypeScriptSDK(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "sdk", "typescript"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "dist", "esm", "index.js")); err != nil {
		requireOrSkip(t, "the TypeScript SDK is not built (npm ci --prefix sdk/typescript && npm run build --prefix sdk/typescript)")
	}
	env := harness.Environment(t)
	if env.KafkaBrokers != "" {
		harness.FreshGroup(t, env.KafkaBrokers)
	}
	up := httptest.NewServer(&llmfake.Server{})
	defer up.Close()
	gw := harness.Gateway(t, "all", "GATEWAY_PROVIDER_OPENAI_BASE_URL="+up.URL+"/v1", "GATEWAY_PROVIDER_OPENAI_API_KEY=sk-test")
	c := harness.NewClient(gw.URL)
	org, events := c.SignupAndApp(t, "tssdk-"+time.Now().Format("150405.000000")+"@example.com", "events")
	keys := map[string]string{}
	for mode, body := range map[string]map[string]any{
		"verify":       {"name": "v", "mode": "verify"},
		"full_control": {"name": "f", "mode": "full_control", "provider": "openai", "model": "gpt-4o-mini"},
	} {
		var app struct {
			APIKey string `json:"api_key"`
		}
		require.Equal(t, http.StatusCreated, c.Do(t, "POST", "/api/console/apps", body, &app, "Authorization", "Bearer "+org.Token))
		keys[mode] = app.APIKey
	}
	cmd := exec.Command("node", "--test", "test/")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GATEWAY_URL="+gw.URL, "GATEWAY_EVENTS_KEY="+events.APIKey,
		"GATEWAY_VERIFY_KEY="+keys["verify"], "GATEWAY_FULL_KEY="+keys["full_control"])
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	require.NoError(t, err, "the TypeScript SDK tests failed")
	require.NotContains(t, string(out), "# skipped 1", "no SDK test may skip against a running gateway")
}
