package lake

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// benchRows builds n traces of roughly 400 bytes each (as trace JSON), shaped like real gateway traffic: few orgs, apps and
// models, distinct ids, prompt and answer text, one policy hit in four.
func benchRows(n int, partition int32, firstOffset int64) []query.TraceRow {
	rows := make([]query.TraceRow, n)
	base := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	for i := range rows {
		started := base.Add(time.Duration(i) * time.Millisecond)
		t := schemas.Trace{
			RequestID:    fmt.Sprintf("req-%08d-%04d", firstOffset+int64(i), i%7919),
			Mode:         schemas.ModeProxy,
			StartedAt:    started,
			FinishedAt:   ptr(started.Add(850 * time.Millisecond)),
			Provider:     "openai",
			Model:        []string{"gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet"}[i%3],
			UseCase:      "support",
			SessionID:    fmt.Sprintf("sess-%d", i/8),
			PromptTokens: int64(40 + i%50), CompletionTokens: int64(60 + i%70),
			CostUSD:   ptr(0.00012 * float64(i%13)),
			LatencyMs: ptr(int64(850)),
			Status:    schemas.StatusOK, FinalDecision: "pass",
			RiskScore:  ptr(float64(i%100) / 100),
			Prompt:     "Summarise ticket " + strings.Repeat("x", i%20),
			Answer:     "Duplicate charge; refund issued. " + strings.Repeat("y", i%30),
			Metadata:   json.RawMessage(fmt.Sprintf(`{"tenant":"t%d","region":"eu"}`, i%5)),
			ReceivedAt: started.Add(900 * time.Millisecond),
		}
		t.TotalTokens = t.PromptTokens + t.CompletionTokens
		if i%4 == 0 {
			t.PolicyHits = []schemas.PolicyHit{{Policy: "pii.email", Severity: "medium", Confidence: 0.8, Stage: "output"}}
		}
		rows[i] = query.TraceRow{OrgID: fmt.Sprintf("org-%d", i%3), AppID: "app-1", Trace: t, Partition: partition, Offset: firstOffset + int64(i)}
	}
	return rows
}

// BenchmarkWriteChunk writes chunks of 5,000 ~400-byte traces (one file each, fsync
// included); rows/s is the figure to compare with the 200,000 target.
func BenchmarkWriteChunk(b *testing.B) {
	for _, codec := range []string{CompressionZstd, CompressionSnappy} {
		b.Run(codec, func(b *testing.B) {
			w, err := NewWriter(Config{Dir: b.TempDir(), Compression: codec})
			if err != nil {
				b.Fatal(err)
			}
			const n = 5000
			rows := benchRows(n, 0, 0)
			raw := 0
			for i := range rows {
				e, _ := json.Marshal(rows[i].Trace)
				raw += len(e)
			}
			b.SetBytes(int64(raw))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				chunk := query.Chunk{Partition: 0, FirstOffset: int64(i) * n, LastOffset: int64(i)*n + n - 1}
				for j := range rows { // a new file each time, as a live partition makes
					rows[j].Offset = chunk.FirstOffset + int64(j)
				}
				if err := w.WriteChunk(context.Background(), chunk, rows); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(raw)/n, "json-bytes/row")
		})
	}
}
