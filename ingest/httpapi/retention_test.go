package httpapi

import (
	"context"
	"fmt"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/query"
)

func (e *env) addTurn(app, id string, created time.Time) {
	e.t.Helper()
	require.NoError(e.t, e.store.AddSessionTurn(context.Background(), query.SessionTurn{OrgID: "o", AppID: app,
		SessionID: "s", RequestID: id, CreatedAt: created, Messages: []byte(`[{"role":"user","content":"hi"}]`)}))
}

func (e *env) turnIDs(app string) []string {
	e.t.Helper()
	turns, err := e.store.SessionTurns(context.Background(), "o", app, "s", 100)
	require.NoError(e.t, err)
	var ids []string
	for _, tr := range turns {
		ids = append(ids, tr.RequestID)
	}
	return ids
}

func TestSessionRetentionSweep(t *testing.T) {
	e := newEnv(t, func(c *Config, _ *Deps) {
		c.SessionRetention, c.SessionSweepInterval = time.Hour, 5*time.Millisecond
	})
	now := e.clock.Now()
	e.addTurn("a", "old", now.Add(-2*time.Hour))
	e.addTurn("a", "recent", now.Add(-30*time.Minute))
	deleted := func() float64 {
		var m dto.Metric
		require.NoError(t, e.srv.metrics.turnsDeleted.Write(&m))
		return m.GetCounter().GetValue()
	}
	require.Eventually(t, func() bool { return deleted() == 1 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, []string{"recent"}, e.turnIDs("a"))

	// The cutoff follows the clock: the recent turn ages out too.
	e.clock.Advance(time.Hour)
	require.Eventually(t, func() bool { return len(e.turnIDs("a")) == 0 }, 10*time.Second, 5*time.Millisecond)
}

func TestSessionRetentionOff(t *testing.T) {
	e := newEnv(t, func(c *Config, _ *Deps) { c.SessionRetention = -1 })
	<-e.srv.sweepDone // a negative retention starts no sweep
	now := e.clock.Now()
	e.addTurn("a", "ancient", now.Add(-10*365*24*time.Hour))

	// deleteOldTurns repeats full batches until one comes back short.
	e.srv.cfg.SessionRetention, e.srv.sweepBatch = time.Hour, 2
	for i := range 4 {
		e.addTurn("b", fmt.Sprintf("old%d", i), now.Add(-2*time.Hour))
	}
	n, err := e.srv.deleteOldTurns(context.Background())
	require.NoError(t, err)
	require.Equal(t, 5, n)
	require.Empty(t, e.turnIDs("a"))
	require.Empty(t, e.turnIDs("b"))
}
