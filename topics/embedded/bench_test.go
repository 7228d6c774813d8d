package embedded_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
	"github.com/governance-gateway/gateway/topics/embedded"
)

// BenchmarkProduceBatch500 measures acknowledged records/s through the
// embedded broker (default fsync policy: background), batches of 500
// envelopes of about 400 bytes, produced concurrently like HTTP handlers do.
//
//	txn:        Producer.Produce, the Events path: group commit, concurrent
//	            batches share transactions (pool = transactions in flight)
//	idempotent: the same batches through the shared idempotent client, no
//	            atomicity (ProduceRecords), for comparison
//
// callers is the number of concurrent Produce calls, parts the partitions
// of the traces topic (the embedded default is 6).
//
// Run: go test ./topics/embedded -run '^$' -bench ProduceBatch500 -benchtime 200x
func BenchmarkProduceBatch500(b *testing.B) {
	const batch = 500
	for _, tc := range []struct {
		name    string
		txn     bool
		linger  time.Duration
		pool    int
		callers int
		parts   int32
	}{
		{"txn/callers=16/pool=8/parts=6", true, 0, 8, 16, 6},
		{"txn/callers=16/pool=4/parts=6", true, 0, 4, 16, 6},
		{"txn/callers=16/pool=2/parts=6", true, 0, 2, 16, 6},
		{"txn/callers=32/pool=1/parts=6", true, 0, 1, 32, 6},
		{"txn/callers=32/pool=2/parts=6", true, 0, 2, 32, 6},
		{"txn/callers=32/pool=4/parts=6", true, 0, 4, 32, 6},
		{"txn/callers=32/pool=8/parts=6", true, 0, 8, 32, 6},
		{"txn/callers=32/pool=2/parts=3", true, 0, 2, 32, 3},
		{"txn/callers=32/pool=2/parts=1", true, 0, 2, 32, 1},
		{"idempotent/callers=16/linger=0/parts=6", false, 0, 8, 16, 6},
		{"idempotent/callers=16/linger=5ms/parts=6", false, 5 * time.Millisecond, 8, 16, 6},
	} {
		b.Run(tc.name, func(b *testing.B) {
			br, err := embedded.Start(embedded.Config{Dir: b.TempDir(), Addr: "127.0.0.1:0", Partitions: tc.parts})
			require.NoError(b, err)
			defer br.Close()
			cfg := topics.Config{Brokers: br.Addrs(), Partitions: tc.parts, Linger: tc.linger, TxnPool: tc.pool, ProduceTimeout: 30 * time.Second}
			require.NoError(b, topics.EnsureTopics(context.Background(), cfg))
			p, err := topics.NewProducer(context.Background(), cfg, nil)
			require.NoError(b, err)
			defer p.Close()

			v, err := func() ([]byte, error) { e := benchEnvelope("probe"); return e.Marshal() }()
			require.NoError(b, err)
			b.Logf("envelope size %d bytes", len(v))

			var seq atomic.Int64
			b.SetParallelism(max(1, tc.callers/runtime.GOMAXPROCS(0))) // concurrent "handlers"
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
			b.StopTimer()
			// The log really holds them: end offsets count every record
			// (plus transaction markers), so at least b.N batches.
			adm, err := kgo.NewClient(topics.ClientOpts(cfg)...)
			require.NoError(b, err)
			defer adm.Close()
			ends, err := kadm.NewClient(adm).ListEndOffsets(context.Background(), topics.Traces)
			require.NoError(b, err)
			var total int64
			ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
			require.GreaterOrEqual(b, total, int64(b.N)*batch)
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

// BenchmarkProduceLatency is the wait of one request handler for its single
// record's acknowledgement (the Full Control and verify path) at a fixed
// offered rate, open loop, by fsync policy of the embedded broker and by
// transport: conn=tcp over loopback, conn=inproc through Broker.Dial (what
// serve uses).
//
// Run: go test ./topics/embedded -run '^$' -bench ProduceLatency -benchtime 3s
func BenchmarkProduceLatency(b *testing.B) {
	const rate = 1000 // records/s
	for _, tc := range []struct {
		name   string
		fsync  time.Duration
		inproc bool
	}{
		{"fsync=batch/conn=tcp", embedded.FsyncEveryBatch, false},
		{"fsync=batch/conn=inproc", embedded.FsyncEveryBatch, true},
		{"fsync=100ms/conn=tcp", 100 * time.Millisecond, false},
		{"fsync=100ms/conn=inproc", 100 * time.Millisecond, true},
		{"fsync=none/conn=tcp", time.Hour, false}, // the floor: no fsync while measuring
		{"fsync=none/conn=inproc", time.Hour, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := benchProducer(b, tc.fsync, tc.inproc)
			var (
				mu  sync.Mutex
				lat []time.Duration
				wg  sync.WaitGroup
				i   int
			)
			start := time.Now()
			for b.Loop() {
				time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / rate)))
				env := benchEnvelope(fmt.Sprintf("lat-%d", i))
				i++
				wg.Add(1)
				go func() {
					defer wg.Done()
					t0 := time.Now()
					err := p.Produce(context.Background(), []schemas.Envelope{env})
					d := time.Since(t0)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						b.Error(err)
						return
					}
					lat = append(lat, d)
				}()
			}
			wg.Wait()
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			}
		})
	}
}

// benchProducer starts a broker with the fsync policy and returns a
// producer that reaches it in process (inproc) or over loopback TCP; both
// close when the benchmark ends.
func benchProducer(b *testing.B, fsync time.Duration, inproc bool) *topics.Producer {
	br := startFsync(b, b.TempDir(), "127.0.0.1:0", fsync)
	b.Cleanup(func() { br.Close() })
	cfg := topicsConfig(br)
	if !inproc {
		cfg.Dial = nil
	}
	require.NoError(b, topics.EnsureTopics(context.Background(), cfg))
	p := newProducer(b, cfg)
	b.Cleanup(func() { p.Close() })
	return p
}

// BenchmarkProduceSingleParallel is single-record produces from concurrent
// callers, closed loop (each waits for its ack, then sends the next): the
// verify and Full Control path at saturation, by transport. ns/op is the
// cost of one acknowledged record with every caller busy.
//
// Run: go test ./topics/embedded -run '^$' -bench ProduceSingleParallel -benchtime 5000x
func BenchmarkProduceSingleParallel(b *testing.B) {
	for _, tc := range []struct {
		name   string
		inproc bool
	}{
		{"conn=tcp", false},
		{"conn=inproc", true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := benchProducer(b, 0, tc.inproc)
			var seq atomic.Int64
			b.SetParallelism(8) // 16 callers on 2 CPUs, as bench verify's closed loop
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					env := benchEnvelope(fmt.Sprintf("par-%d", seq.Add(1)))
					if err := p.Produce(context.Background(), []schemas.Envelope{env}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkProduceConsume is BenchmarkProduceSingleParallel with a reader of
// the traces topic in the same process (the processors' consumer in serve,
// read_committed, in memory), by the reader's fetch options: ns/op is one
// record produced, acknowledged and read. fetch=first is kgo's default (the
// broker answers a fetch at its first new record: a fetch per produce);
// fetch=256KiB-50ms is the processors' (the broker holds a fetch up to
// 50 ms for 256 KiB).
//
// Run: go test ./topics/embedded -run '^$' -bench ProduceConsume -benchtime 5000x
func BenchmarkProduceConsume(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []kgo.Opt
	}{
		{"fetch=first", nil},
		{"fetch=256KiB-50ms", []kgo.Opt{kgo.FetchMinBytes(256 << 10), kgo.FetchMaxWait(50 * time.Millisecond)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			br := startFsync(b, b.TempDir(), "127.0.0.1:0", 0)
			b.Cleanup(func() { br.Close() })
			cfg := topicsConfig(br)
			require.NoError(b, topics.EnsureTopics(context.Background(), cfg))
			p := newProducer(b, cfg)
			b.Cleanup(func() { p.Close() })
			cl, err := kgo.NewClient(append(topics.ConsumerOpts(cfg), append([]kgo.Opt{
				kgo.ConsumeTopics(topics.Traces), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			}, tc.opts...)...)...)
			require.NoError(b, err)
			defer cl.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var read atomic.Int64
			done := make(chan struct{})
			go func() {
				defer close(done)
				for ctx.Err() == nil {
					fs := cl.PollFetches(ctx)
					fs.EachRecord(func(*kgo.Record) { read.Add(1) })
				}
			}()
			var seq atomic.Int64
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					env := benchEnvelope(fmt.Sprintf("pc-%d", seq.Add(1)))
					if err := p.Produce(context.Background(), []schemas.Envelope{env}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			for read.Load() < seq.Load() {
				time.Sleep(time.Millisecond)
			}
			b.StopTimer()
			cancel()
			<-done
		})
	}
}
