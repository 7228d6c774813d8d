package integration

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/integration/harness"
)

// TestVerifyEndToEnd: a Verify application's decision is produced to the
// log before the answer and then appears in the console with its status,
// final decision and policy hits, and an application policy edited through
// the console changes the next decision.
func TestVerifyEndToEnd(t *testing.T) {
	env := harness.Environment(t)
	if env.KafkaBrokers != "" {
		harness.FreshGroup(t, env.KafkaBrokers)
	}
	gw := harness.Gateway(t, "all")
	c := harness.NewClient(gw.URL)
	org, app := c.SignupAndApp(t, "verify-"+time.Now().Format("150405.000000")+"@example.com", "verify")

	var out struct {
		RequestID  string `json:"request_id"`
		Governance string `json:"governance"`
		Answer     string `json:"answer"`
	}
	code := c.Do(t, "POST", "/v1/verify", map[string]any{"prompt": "contact?", "answer": "Mail jane.doe@example.com"}, &out, "X-API-Key", app.APIKey)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "rewrite", out.Governance)
	require.Equal(t, "Mail [EMAIL]", out.Answer)

	var tr struct {
		Mode          string `json:"mode"`
		Status        string `json:"status"`
		FinalDecision string `json:"final_decision"`
		UseCase       string `json:"use_case"`
		IntegrationID string `json:"integration_id"`
		Answer        string `json:"answer"`
		PolicyHits    []struct {
			Policy string `json:"policy"`
		} `json:"policy_hits"`
	}
	c.AwaitRequest(t, org.Token, out.RequestID, &tr)
	require.Equal(t, "sdk", tr.Mode)
	require.Equal(t, "rewritten", tr.Status)
	require.Equal(t, "rewrite", tr.FinalDecision)
	require.Equal(t, "default", tr.UseCase)
	require.Equal(t, "api:v1_verify", tr.IntegrationID)
	require.Equal(t, "Mail [EMAIL]", tr.Answer, "the stored answer is the redacted one")
	require.Len(t, tr.PolicyHits, 1)
	require.Equal(t, "pii.email", tr.PolicyHits[0].Policy)

	// Edit the policy: PII now blocks.
	require.Equal(t, http.StatusOK, c.Do(t, "PUT", "/api/console/apps/"+app.ID+"/policy",
		map[string]any{"rules": []any{map[string]any{"match": "pii", "action": "block"}}}, nil, "Authorization", "Bearer "+org.Token))
	require.Equal(t, http.StatusOK, c.Do(t, "POST", "/v1/verify", map[string]any{"answer": "Mail jane.doe@example.com"}, &out, "X-API-Key", app.APIKey))
	require.Equal(t, "block", out.Governance)
}
