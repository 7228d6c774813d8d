package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/integration/harness"
)

// TestDashboardChromium drives the dashboard in headless Chromium (Debian's
// chromium package, with playwright-core from npm): sign-up, application,
// events, traces table, metadata filter, session replay, billing against the
// tokens sent, tenant isolation. It prints where the screenshots are.
// Skipped without Chromium or the npm package, except in the real lane
// (GATEWAY_REQUIRE_REAL=1), where .ci/run installs both.
func TestDashboardChromium(t *testing.T) {
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		requireOrSkip(t, "Chromium is not installed (apt-get install chromium)")
	}
	if _, err := os.Stat(filepath.Join("dashboard", "node_modules", "playwright-core")); err != nil {
		requireOrSkip(t, "playwright-core is not installed (npm ci --prefix integration/dashboard)")
	}
	env := harness.Environment(t)
	if env.KafkaBrokers != "" {
		harness.FreshGroup(t, env.KafkaBrokers)
	}
	// A master key so the page can switch a Full Control app to BYOK; an
	// operator key so it can start as Managed (the LLM is never called).
	gw := harness.Gateway(t, "all", "GATEWAY_MASTER_KEY="+strings.Repeat("ab", 32), "GATEWAY_PROVIDER_OPENAI_API_KEY=sk-operator-test")
	shots := filepath.Join(os.TempDir(), "gateway-dashboard-screenshots")
	require.NoError(t, os.RemoveAll(shots))
	cmd := exec.Command("node", filepath.Join("dashboard", "dashboard.mjs"))
	cmd.Env = append(os.Environ(), "GATEWAY_URL="+gw.URL, "SCREENSHOT_DIR="+shots)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	require.NoError(t, err, "the dashboard checks failed")
	t.Logf("dashboard screenshots: %s", shots)
}
