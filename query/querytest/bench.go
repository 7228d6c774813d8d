package querytest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// BenchChunkRows is the chunk size BenchWriteTraces writes per operation.
const BenchChunkRows = 5000

// BenchRows returns n fresh traces of about 400 bytes (as JSON) at offsets
// first.. of partition 0, spread over three organisations.
func BenchRows(n int, first int64) []query.TraceRow {
	rows := make([]query.TraceRow, n)
	for i := range rows {
		off := first + int64(i)
		received := base.Add(time.Duration(off) * time.Millisecond)
		rows[i] = query.TraceRow{
			OrgID: fmt.Sprintf("org-%d", off%3), AppID: "app-1", Partition: 0, Offset: off,
			Trace: schemas.Trace{
				RequestID: fmt.Sprintf("bench-%012d", off), Mode: schemas.ModeIngest,
				StartedAt: received.Add(-800 * time.Millisecond),
				Model:     "gpt-4o-mini", SessionID: fmt.Sprintf("s-%d", off/4),
				PromptTokens: 42, CompletionTokens: 17, TotalTokens: 59, CostUSD: ptr(0.00042), LatencyMs: ptr(int64(790)),
				Status: schemas.StatusOK, FinalDecision: "pass", RiskScore: ptr(0.1),
				PolicyHits: []schemas.PolicyHit{},
				Prompt:     "What is the refund policy?",
				Answer:     "Refunds within 30 days.",
				Metadata:   json.RawMessage(`{"tier":"gold"}`),
				ReceivedAt: received,
			},
		}
	}
	return rows
}

// BenchWriteTraces measures WriteTraces with chunks of BenchChunkRows fresh
// rows and reports rows/s and process CPU time per row.
func BenchWriteTraces(b *testing.B, s query.Store) {
	ctx := context.Background()
	chunks := make([][]query.TraceRow, b.N)
	for i := range chunks {
		chunks[i] = BenchRows(BenchChunkRows, int64(i)*BenchChunkRows)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := CPUTime()
	for i := 0; i < b.N; i++ {
		rows := chunks[i]
		chunk := query.Chunk{Topic: Topic, Partition: 0, FirstOffset: rows[0].Offset, LastOffset: rows[len(rows)-1].Offset}
		owner, err := s.WriteTraces(ctx, chunk, rows)
		if err != nil {
			b.Fatal(err)
		}
		if len(owner) != len(rows) || !owner[0] {
			b.Fatal("fresh rows must be owners")
		}
	}
	b.StopTimer()
	rows := float64(b.N * BenchChunkRows)
	b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
	// Client-side CPU per row (includes an embedded engine such as SQLite,
	// not a PostgreSQL server): steadier than rows/s on a busy machine.
	if cpu := CPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/rows, "cpu-ns/row")
	}
}

// BenchWriteTracesVaried measures WriteTraces with chunks whose sizes vary
// (20 to 219 rows), as a long-running processor cuts them (idle cuts take
// whatever arrived): every size is written once before the timer starts,
// then sizes cycle. It reports process CPU time per row. A store whose
// statement texts depend on the row count parses statements its cache no
// longer holds here.
func BenchWriteTracesVaried(b *testing.B, s query.Store) {
	ctx := context.Background()
	next := int64(0)
	write := func(n int) {
		rows := BenchRows(n, next)
		next += int64(n)
		chunk := query.Chunk{Topic: Topic, Partition: 0, FirstOffset: rows[0].Offset, LastOffset: rows[n-1].Offset}
		if _, err := s.WriteTraces(ctx, chunk, rows); err != nil {
			b.Fatal(err)
		}
	}
	for n := 20; n < 220; n++ {
		write(n)
	}
	total := 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := CPUTime()
	for i := 0; i < b.N; i++ {
		n := 20 + (i*37)%200
		total += n
		write(n)
	}
	b.StopTimer()
	if cpu := CPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(total), "cpu-ns/row")
	}
}

// BenchExistingRequestIDs measures ExistingRequestIDs with 500 ids of which
// half are stored, the shape of one full POST /v1/events batch.
func BenchExistingRequestIDs(b *testing.B, s query.Store) {
	ctx := context.Background()
	const n = 500
	stored := BenchRows(20*n, 0)
	for i := 0; i < len(stored); i += BenchChunkRows {
		rows := stored[i:min(i+BenchChunkRows, len(stored))]
		chunk := query.Chunk{Topic: Topic, FirstOffset: rows[0].Offset, LastOffset: rows[len(rows)-1].Offset}
		if _, err := s.WriteTraces(ctx, chunk, rows); err != nil {
			b.Fatal(err)
		}
	}
	org := stored[0].OrgID
	ids := make([]string, 0, n)
	for i := 0; len(ids) < n/2; i++ { // stored ids of org, spread over the table
		if r := stored[i*7%len(stored)]; r.OrgID == org {
			ids = append(ids, r.Trace.RequestID)
		}
	}
	want := len(ids)
	for i := 0; len(ids) < n; i++ {
		ids = append(ids, fmt.Sprintf("absent-%06d", i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := s.ExistingRequestIDs(ctx, org, ids)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != want {
			b.Fatalf("found %d stored ids, want %d", len(got), want)
		}
	}
}
