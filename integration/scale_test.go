package integration

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/integration/harness"
)

// TestScaleOutProcessorKill: one `serve --role=api`, three `serve
// --role=processor` in one consumer group, a stream of events, one processor
// SIGKILLed mid-stream: every acknowledged event is in the store exactly once
// and in the lake exactly once, and nothing else is.
//
// Real lane: Kafka and PostgreSQL from the environment. Embedded lane: the
// embedded broker as its own process (`gateway broker`) and one SQLite file
// shared by the four processes (WAL mode), with one shared lake directory.
func TestScaleOutProcessorKill(t *testing.T) {
	total := 20000
	if testing.Short() {
		total = 2000
	}
	if v := os.Getenv("GATEWAY_IT_EVENTS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "GATEWAY_IT_EVENTS")
		total = n
	}
	const size = 500
	require.Zero(t, total%size, "event count must be a multiple of %d", size)

	env := harness.Environment(t)
	t.Logf("environment: %s", env)
	brokers := env.KafkaBrokers
	if brokers == "" {
		b := harness.Broker(t, harness.FreeAddr(t), t.TempDir())
		brokers = b.Addr
	}
	harness.FreshGroup(t, brokers)

	shared := t.TempDir()
	lakeDir := filepath.Join(shared, "lake")
	common := []string{
		"KAFKA_BROKERS=" + brokers,
		"GATEWAY_LAKE_DIR=" + lakeDir,
	}
	if env.DatabaseURL == "" {
		// One SQLite file for every process: they share the data dir.
		common = append(common, "GATEWAY_DATA_DIR="+shared)
	}
	procs := make([]*harness.Process, 3)
	for i := range procs {
		procs[i] = harness.Gateway(t, "processor", common...)
	}
	api := harness.Gateway(t, "api", common...)
	c := harness.NewClient(api.URL)
	org, app := c.SignupAndApp(t, "scale-"+time.Now().Format("150405.000000")+"@example.com", "events")

	var (
		next   atomic.Int64 // next batch number to send
		acked  atomic.Int64 // events acknowledged so far
		mu     sync.Mutex
		sentOK []string
		wg     sync.WaitGroup
	)
	batches := int64(total / size)
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := next.Add(1) - 1
				if b >= batches {
					return
				}
				evs := events("scale", int(b)*size, size)
				st, res, err := sendBatch(c, app.APIKey, evs)
				if err != nil || st != 200 || res.Accepted != size {
					// The api process is never killed: every batch must be accepted.
					t.Errorf("batch %d: status %d, answer %+v, err %v", b, st, res, err)
					return
				}
				mu.Lock()
				sentOK = append(sentOK, ids(evs)...)
				mu.Unlock()
				acked.Add(size)
			}
		}()
	}
	// Kill one processor once about 40% of the stream is acknowledged.
	require.Eventually(t, func() bool { return acked.Load() >= int64(total*2/5) || t.Failed() },
		5*time.Minute, 10*time.Millisecond, "stream did not progress")
	procs[1].Kill()
	t.Logf("SIGKILLed processor 1 after %d acknowledged events", acked.Load())
	wg.Wait()
	require.False(t, t.Failed(), "sending failed")
	require.Len(t, sentOK, total)

	var rows []harness.RequestRow
	require.Eventually(t, func() bool {
		var ok bool
		rows, ok = listed(t, c, org.Token)
		return ok && len(rows) >= total
	}, 5*time.Minute, time.Second, "the store did not catch up")
	requireExactlyOnce(t, rows, sentOK)

	// Clean stops flush the surviving processors' lake writers.
	for i, p := range procs {
		if i != 1 {
			require.NoError(t, p.Stop(), "processor %d did not stop cleanly", i)
		}
	}
	harness.CheckLake(t, lakeDir, lakeRows(org.OrgID, sentOK))
}
