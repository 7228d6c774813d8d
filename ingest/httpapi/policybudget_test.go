package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStoredPolicyOverBudget: a policy stored before the regexp budget
// (governance.MaxRegexpCost) that exceeds it keeps applying, with a
// warning logged once per version; a PUT of the same document is a 400
// naming the budget; a PUT that fits replaces it and the warning stops.
func TestStoredPolicyOverBudget(t *testing.T) {
	var logs bytes.Buffer
	e := newEnv(t, func(_ *Config, d *Deps) { d.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	a := e.signup("budget@example.com")
	app := e.verifyApp(a)
	path := "/api/console/apps/" + app.ID + "/policy"
	// Five ordinary patterns and a costly one, 942 instructions (cost
	// 1086): valid under the per-pattern limits this document was saved
	// under.
	over := []byte(`{"rules": [{"match": "custom", "action": "block"}], "custom": [{"name": "ids", "kind": "regex", "patterns": ["EMP-[0-9]{6}", "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "(?i)\\b(?:internal only|do not distribute|strictly confidential)\\b", "\\b4[0-9]{12}(?:[0-9]{3})?\\b", "INC[0-9]{6}", "\\pL{0,400}0"]}], "grounding": {"enabled": false}}`)
	_, err := e.store.SetAppPolicy(context.Background(), a.org, app.ID, over)
	require.NoError(t, err)

	tests := []struct {
		name, answer, governance string
	}{
		{"the stored rules apply", "badge EMP-123456", "block"},
		{"and only them", "nothing to see", "allow"},
		{"cached: no second warning", "ticket INC000042", "block"},
	}
	for _, tt := range tests {
		r := e.postVerify(app.Key, map[string]any{"answer": tt.answer})
		require.Equal(t, http.StatusOK, r.Code, "%s: %s", tt.name, r.Body)
		require.Equal(t, tt.governance, r.JSON(t)["governance"], tt.name)
	}
	require.Equal(t, 1, bytes.Count(logs.Bytes(), []byte("over the custom rules' budget")), "%s", logs.String())
	require.Contains(t, logs.String(), "cost=1086 budget=1000")

	m := requireError(t, e.do("PUT", path, over, bearer(a.token)...), http.StatusBadRequest)
	require.Contains(t, m["error"], "cost 1086 (942 instructions, plus 24 for each of 6 patterns), over the budget of 1000 per policy")
	require.Equal(t, false, e.do("GET", path, nil, bearer(a.token)...).JSON(t)["default"], "the console still shows the stored policy")

	fits := `{"rules": [{"match": "custom", "action": "block"}], "custom": [{"name": "ids", "kind": "regex", "patterns": ["EMP-[0-9]{6}"]}, {"name": "words", "kind": "keyword", "patterns": ["internal only", "do not distribute", "strictly confidential"]}], "grounding": {"enabled": false}}`
	r := e.do("PUT", path, fits, bearer(a.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	require.Equal(t, "block", e.postVerify(app.Key, map[string]any{"answer": "Strictly confidential"}).JSON(t)["governance"])
	require.Equal(t, 1, bytes.Count(logs.Bytes(), []byte("over the custom rules' budget")))
}
