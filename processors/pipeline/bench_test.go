package pipeline_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/processors/analyse"
	"github.com/governance-gateway/gateway/processors/lake"
	"github.com/governance-gateway/gateway/processors/pipeline"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/querytest"
	"github.com/governance-gateway/gateway/query/sqlite"
	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

// proxyRecords returns n traces-topic records shaped like the proxy's
// observe traces under `gateway bench proxy` (kind decision, a one-turn
// prompt, llmfake's answer, usage, cost, latency, the service mode in
// metadata), for one partition from offset first, ids unique per position.
func proxyRecords(tb testing.TB, partition int32, first int64, n int) []*kgo.Record {
	tb.Helper()
	recs := make([]*kgo.Record, n)
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	const prompt = "Summarise the quarterly numbers for the board in three sentences."
	for i := range recs {
		off := first + int64(i)
		started := at.Add(time.Duration(off) * 500 * time.Microsecond)
		finished := started.Add(1200 * time.Microsecond)
		org := fmt.Sprintf("org-%d", off%2)
		cost := 0.0000231
		env := schemas.Envelope{
			SchemaVersion: schemas.EnvelopeVersion, Kind: schemas.KindDecision, OrgID: org, AppID: "app-proxy",
			ReceivedAt: finished.Add(300 * time.Microsecond),
			Trace: schemas.Trace{
				RequestID: fmt.Sprintf("01JD%02d%020d", partition, off), Mode: schemas.ModeProxy,
				StartedAt: started, FinishedAt: &finished, Provider: "openai", Model: "gpt-4o-mini",
				PromptTokens: 21, CompletionTokens: 24, CostUSD: &cost,
				Status: schemas.StatusOK, FinalDecision: "pass",
				Prompt: prompt, Answer: "You said: " + prompt,
				Metadata: []byte(`{"service_mode":"observe"}`),
			},
		}
		v, err := env.Marshal()
		if err != nil {
			tb.Fatal(err)
		}
		recs[i] = &kgo.Record{Topic: topics.Traces, Partition: partition, Offset: off,
			Key: schemas.Key(org, env.Trace.RequestID), Value: v}
	}
	return recs
}

// newBenchFlusher is the embedded service's flusher: the SQLite store and the
// local lake (zstd) in a temporary directory, the default dedupe cache.
func newBenchFlusher(b *testing.B) *pipeline.Flusher {
	dir := b.TempDir()
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "gateway.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	lw, err := lake.NewWriter(lake.Config{Dir: filepath.Join(dir, "lake")})
	if err != nil {
		b.Fatal(err)
	}
	an, err := analyse.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	m, err := pipeline.NewMetrics(nil)
	if err != nil {
		b.Fatal(err)
	}
	f, err := pipeline.NewFlusher(pipeline.FlusherConfig{DedupeCacheEntries: 1 << 18}, store, lw, an, nil, m)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(f.Close)
	return f
}

// flushShapes are the chunk layouts of one flush cycle BenchmarkFlush writes.
var flushShapes = []struct {
	name   string
	chunks int
	size   func(i, p int) int // rows of partition p's chunk in cycle i
}{
	{"1x500", 1, func(int, int) int { return 500 }},
	// Six partitions, each cut idle after 200 ms: the sizes vary.
	{"6x84", 6, sixPartitions},
}

func sixPartitions(i, p int) int { return 60 + (i*7+p*13)%49 }

// flushWork makes the chunks of n flush cycles, fresh records for each (new
// ids, later offsets), and returns them with their total row count.
func flushWork(b *testing.B, n, chunks int, size func(i, p int) int) ([][]pipeline.Pending, int) {
	work := make([][]pipeline.Pending, n)
	next := make([]int64, chunks)
	total := 0
	for i := range work {
		for p := range chunks {
			k := size(i, p)
			first := next[p]
			next[p] += int64(k)
			total += k
			work[i] = append(work[i], pipeline.Pending{
				Chunk:   query.Chunk{Topic: topics.Traces, Partition: int32(p), FirstOffset: first, LastOffset: first + int64(k) - 1},
				Records: proxyRecords(b, int32(p), first, k),
			})
		}
	}
	return work, total
}

// flushCycle prepares and writes the chunks of one cycle, as
// tracewriter's flushPartition does.
func flushCycle(b *testing.B, f *pipeline.Flusher, cycle []pipeline.Pending) {
	for _, p := range cycle {
		batch := f.Prepare(p)
		if err := f.Write(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
		if len(batch.Owned()) != len(p.Records) {
			b.Fatalf("owned %d of %d fresh rows", len(batch.Owned()), len(p.Records))
		}
	}
}

// BenchmarkFlush is one flush cycle of the embedded service at 2,000 proxied
// requests a second: ~500 proxy traces, Prepare (decode, derive) and Write
// (one SQLite transaction, one Parquet file, both fsynced, per chunk),
// either as one chunk or spread over the six partitions of gateway.traces.v1
// (what the 200 ms flush interval cuts). cpu-ns/row is the process's CPU
// time per trace (fsync waits excluded, GC and the dedupe cache's goroutines
// included): the figure the HTTP goroutines compete with.
func BenchmarkFlush(b *testing.B) {
	for _, tc := range flushShapes {
		b.Run(tc.name, func(b *testing.B) {
			f := newBenchFlusher(b)
			work, total := flushWork(b, b.N, tc.chunks, tc.size)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := querytest.CPUTime()
			for i := 0; i < b.N; i++ {
				flushCycle(b, f, work[i])
				work[i] = nil
			}
			b.StopTimer()
			if cpu := querytest.CPUTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(total), "cpu-ns/row")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(total), "ns/row")
		})
	}
}
