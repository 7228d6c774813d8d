package embedded_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
	"github.com/governance-gateway/gateway/topics/embedded"
)

// BenchmarkProduceBatch500 measures acknowledged records/s through the
// embedded broker with SyncWrites (every ack fsynced), batches of 500
// envelopes of about 400 bytes, produced concurrently like HTTP handlers do.
//
//	txn:        Producer.Produce, one transaction per batch (the Events path)
//	idempotent: the same batches through the shared idempotent client, no
//	            atomicity (ProduceRecords), for comparison
//
// Run: go test ./topics/embedded -run '^$' -bench ProduceBatch500 -benchtime 20x
func BenchmarkProduceBatch500(b *testing.B) {
	const batch = 500
	for _, tc := range []struct {
		name   string
		txn    bool
		linger time.Duration
		pool   int
	}{
		{"txn/linger=0/pool=8", true, 0, 8},
		{"txn/linger=0/pool=16", true, 0, 16},
		{"idempotent/linger=0", false, 0, 8},
		{"idempotent/linger=5ms", false, 5 * time.Millisecond, 8},
	} {
		b.Run(tc.name, func(b *testing.B) {
			br, err := embedded.Start(embedded.Config{Dir: b.TempDir(), Addr: "127.0.0.1:0"}) // 6 partitions
			require.NoError(b, err)
			defer br.Close()
			cfg := topics.Config{Brokers: br.Addrs(), Linger: tc.linger, TxnPool: tc.pool, ProduceTimeout: 30 * time.Second}
			require.NoError(b, topics.EnsureTopics(context.Background(), cfg))
			p, err := topics.NewProducer(context.Background(), cfg, nil)
			require.NoError(b, err)
			defer p.Close()

			v, err := func() ([]byte, error) { e := benchEnvelope("probe"); return e.Marshal() }()
			require.NoError(b, err)
			b.Logf("envelope size %d bytes", len(v))

			var seq atomic.Int64
			b.SetParallelism(8) // 8 x GOMAXPROCS concurrent "handlers"
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				envs := make([]schemas.Envelope, batch)
				for pb.Next() {
					n := seq.Add(1)
					for i := range envs {
						envs[i] = benchEnvelope(fmt.Sprintf("req-%d-%d", n, i))
					}
					if tc.txn {
						if err := p.Produce(context.Background(), envs); err != nil {
							b.Error(err)
							return
						}
						continue
					}
					recs := make([]*kgo.Record, batch)
					for i := range envs {
						v, err := envs[i].Marshal()
						if err != nil {
							b.Error(err)
							return
						}
						recs[i] = &kgo.Record{Topic: topics.Traces, Key: schemas.Key(envs[i].OrgID, envs[i].Trace.RequestID), Value: v}
					}
					if err := p.ProduceRecords(context.Background(), recs...); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)*batch/b.Elapsed().Seconds(), "records/s")
		})
	}
}

func benchEnvelope(id string) schemas.Envelope {
	e := envelope("org-bench", id)
	e.Trace.Prompt = "Capital of France?"
	e.Trace.Answer = "Paris."
	e.Trace.Provider = ""
	return e
}
