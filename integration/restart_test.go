package integration

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/integration/harness"
)

// TestEmbeddedRestart: `serve` on the embedded defaults, events acknowledged
// with 2xx, SIGKILL while batches are in flight, restart on the same data
// dir: every acknowledged event is visible exactly once, and nothing that
// was never sent appears.
func TestEmbeddedRestart(t *testing.T) {
	dir := t.TempDir()
	fixed := []string{
		"KAFKA_BROKERS=", "DATABASE_URL=", // embedded broker and SQLite, whatever the lane
		"GATEWAY_DATA_DIR=" + dir,
		"GATEWAY_ADDR=" + harness.FreeAddr(t),
		"GATEWAY_EMBEDDED_KAFKA_ADDR=" + harness.FreeAddr(t),
	}
	gw := harness.Gateway(t, "all", fixed...)
	c := harness.NewClient(gw.URL)
	org, app := c.SignupAndApp(t, "restart-"+time.Now().Format("150405.000000")+"@example.com", "events")

	const size, killAfter = 50, 400
	var (
		mu      sync.Mutex
		acked   []string
		sentAll = map[string]bool{}
		wg      sync.WaitGroup
		stop    = make(chan struct{})
	)
	// Two senders keep batches in flight when the process dies.
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			for b := 0; ; b++ {
				select {
				case <-stop:
					return
				default:
				}
				evs := events("restart", (s*100000)+b*size, size)
				mu.Lock()
				for _, id := range ids(evs) {
					sentAll[id] = true
				}
				mu.Unlock()
				st, res, err := sendBatch(c, app.APIKey, evs)
				if err != nil || st >= 300 {
					return // the process is gone: unacknowledged, may or may not be stored
				}
				if st != http.StatusOK || res.Accepted != size {
					t.Errorf("batch answered %d %+v before the kill", st, res)
					return
				}
				mu.Lock()
				acked = append(acked, ids(evs)...)
				mu.Unlock()
			}
		}(s)
	}
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= killAfter
	}, 2*time.Minute, 10*time.Millisecond, "events were not acknowledged")
	gw.Kill()
	close(stop)
	wg.Wait()
	t.Logf("acknowledged before SIGKILL: %d events", len(acked))

	gw2 := harness.Gateway(t, "all", fixed...)
	c2 := harness.NewClient(gw2.URL)
	var rows []harness.RequestRow
	require.Eventually(t, func() bool {
		var ok bool
		if rows, ok = listed(t, c2, org.Token); !ok {
			return false
		}
		got := countByID(rows)
		for _, id := range acked {
			if got[id] == 0 {
				return false
			}
		}
		return true
	}, 2*time.Minute, 250*time.Millisecond, "acknowledged events missing after the restart")

	got := countByID(rows)
	for id, n := range got {
		require.Equal(t, 1, n, "request %s stored %d times", id, n)
		require.True(t, sentAll[id], "request %s was never sent", id)
	}
	t.Logf("visible after restart: %d (acknowledged %d; the rest were in flight at the kill)", len(rows), len(acked))
}
