package bench

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/sqlite"
)

// TestSeedTraces: the seeder writes what it says through the store's write
// path (usage aggregate included), spreads the traces over the span with
// sessions and metadata the console can filter on, and a re-run with the
// same seed adds nothing.
func TestSeedTraces(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "seed.db"))
	require.NoError(t, err)
	defer st.Close()
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	cfg := SeedConfig{OrgID: "org-seed", Traces: 2500, Span: 10 * 24 * time.Hour, Now: now, Chunk: 700, Seed: 7}
	require.NoError(t, SeedTraces(ctx, st, cfg, nil))

	usage := func() (n int64) {
		rows, err := st.Usage(ctx, "org-seed", "2026-11-01", "2026-11-30")
		require.NoError(t, err)
		for _, r := range rows {
			n += r.Requests
		}
		return n
	}
	require.EqualValues(t, 2500, usage())
	k, err := st.KPIs(ctx, "org-seed", now.Add(-cfg.Span), now.Add(time.Second), 0)
	require.NoError(t, err)
	require.EqualValues(t, 2500, k.Requests)
	require.Len(t, k.ByMode, 4, "every mode occurs")

	all, _, err := st.ListTraces(ctx, "org-seed", query.TraceFilter{Limit: 1000, Since: ptr(now.Add(-24 * time.Hour))})
	require.NoError(t, err)
	require.InDelta(t, 250, len(all), 5, "a tenth of the traces in the last of ten days")
	var session string
	for _, r := range all {
		if r.Trace.SessionID != "" {
			session = r.Trace.SessionID
		}
	}
	turns, err := st.SessionTraces(ctx, "org-seed", session)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(turns), 1)
	big, _, err := st.ListTraces(ctx, "org-seed", query.TraceFilter{Limit: 1000, Metadata: map[string]string{"customer": "c0"}})
	require.NoError(t, err)
	require.NotEmpty(t, big)

	require.NoError(t, SeedTraces(ctx, st, cfg, nil), "re-run")
	require.EqualValues(t, 2500, usage(), "a re-run writes nothing twice")
	require.Error(t, SeedTraces(ctx, st, SeedConfig{Traces: 10}, nil), "an organisation is required")
}

func ptr[T any](v T) *T { return &v }
