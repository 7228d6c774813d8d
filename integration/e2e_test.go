package integration

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/integration/harness"
)

// TestEndToEnd: sign-up, an Events application, batches through POST
// /v1/events, the traces in the console listing with exact counts, a resent
// batch counted as skipped, and the lake read back by independent readers.
func TestEndToEnd(t *testing.T) {
	env := harness.Environment(t)
	t.Logf("environment: %s", env)
	if env.KafkaBrokers != "" {
		harness.FreshGroup(t, env.KafkaBrokers)
	}
	gw := harness.Gateway(t, "all")
	c := harness.NewClient(gw.URL)
	org, app := c.SignupAndApp(t, "e2e-"+time.Now().Format("150405.000000")+"@example.com", "events")

	const batches, size = 3, 200
	var sent []string
	for b := 0; b < batches; b++ {
		evs := events("e2e", b*size, size)
		requireBatch(t, c, app.APIKey, evs, size, 0)
		sent = append(sent, ids(evs)...)
	}

	// Duplicates inside one batch: the second copy is skipped.
	dupes := events("e2e-dupe", 0, 2)
	dupes = append(dupes, dupes[0])
	requireBatch(t, c, app.APIKey, dupes, 2, 1)
	sent = append(sent, ids(dupes[:2])...)

	require.Eventually(t, func() bool {
		rows, ok := listed(t, c, org.Token)
		return ok && len(rows) >= len(sent)
	}, 2*time.Minute, 250*time.Millisecond, "traces never became visible in the console")

	// A resent batch, once its ids are written, is skipped entirely.
	requireBatch(t, c, app.APIKey, events("e2e", 0, size), 0, size)
	// A last fresh event: once it is visible, the resend has been through
	// the pipeline too (or was never produced) and must not have added rows.
	marker := events("e2e-marker", 0, 1)
	requireBatch(t, c, app.APIKey, marker, 1, 0)
	sent = append(sent, ids(marker)...)
	require.Eventually(t, func() bool {
		rows, ok := listed(t, c, org.Token)
		return ok && countByID(rows)[ids(marker)[0]] == 1
	}, 2*time.Minute, 250*time.Millisecond, "marker trace never became visible")
	rows := c.ListRequests(t, org.Token, nil)
	requireExactlyOnce(t, rows, sent)
	for _, r := range rows {
		require.Equal(t, app.ID, r.AppID, "trace %s", r.RequestID)
		require.Equal(t, testModel, r.Model, "trace %s", r.RequestID)
	}

	// Another organisation sees none of these traces.
	other, _ := c.SignupAndApp(t, "e2e-other-"+time.Now().Format("150405.000000")+"@example.com", "events")
	require.Empty(t, c.ListRequests(t, other.Token, nil))

	t.Run("lake independent readers", func(t *testing.T) {
		// A clean stop flushes the lake writer; the readers then see every row.
		require.NoError(t, gw.Stop(), "gateway did not stop cleanly")
		harness.CheckLake(t, filepath.Join(gw.DataDir, "lake"), lakeRows(org.OrgID, sent))
	})
}
