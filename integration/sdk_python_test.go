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

// TestPythonSDK runs the Python SDK's pytest suite (sdk/python/tests)
// against a real gateway process with a fake OpenAI-format upstream.
// Skipped without httpx and pytest, except in the real lane
// (GATEWAY_REQUIRE_REAL=1), where .ci/run installs them.
func TestPythonSDK(t *testing.T) {
	if err := exec.Command("python3", "-c", "import httpx, pytest").Run(); err != nil {
		requireOrSkip(t, "httpx and pytest are not installed (pip install -r sdk/python/requirements-test.txt)")
	}
	env := harness.Environment(t)
	if env.KafkaBrokers != "" {
		harness.FreshGroup(t, env.KafkaBrokers)
	}
	up := httptest.NewServer(&llmfake.Server{})
	defer up.Close()
	gw := harness.Gateway(t, "all", "GATEWAY_PROVIDER_OPENAI_BASE_URL="+up.URL+"/v1", "GATEWAY_PROVIDER_OPENAI_API_KEY=sk-test")
	c := harness.NewClient(gw.URL)
	org, events := c.SignupAndApp(t, "pysdk-"+time.Now().Format("150405.000000")+"@example.com", "events")
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
	sdk, err := filepath.Abs(filepath.Join("..", "sdk", "python"))
	require.NoError(t, err)
	cmd := exec.Command("python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", filepath.Join(sdk, "tests"))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+sdk, "PYTHONDONTWRITEBYTECODE=1", "GATEWAY_URL="+gw.URL,
		"GATEWAY_EVENTS_KEY="+events.APIKey, "GATEWAY_VERIFY_KEY="+keys["verify"], "GATEWAY_FULL_KEY="+keys["full_control"])
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	require.NoError(t, err, "the Python SDK tests failed")
}
