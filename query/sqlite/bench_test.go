package sqlite_test

import (
	"encoding/json"
	"testing"

	"github.com/governance-gateway/gateway/query/querytest"
	"github.com/governance-gateway/gateway/schemas"
)

// BenchmarkWriteTraces reports rows/s for chunks of 5,000 ~400-byte traces
// into a durable (WAL, synchronous=FULL) database file.
func BenchmarkWriteTraces(b *testing.B) {
	env := schemas.Envelope{SchemaVersion: 1, Kind: schemas.KindTrace, Trace: querytest.BenchRows(1, 0)[0].Trace}
	if raw, err := json.Marshal(env); err == nil {
		b.Logf("trace size as a log record: %d bytes", len(raw))
	}
	s := open(b)
	defer s.Close()
	querytest.BenchWriteTraces(b, s)
}

// BenchmarkWriteTracesVaried: chunks of 20 to 219 rows, sizes cycling.
func BenchmarkWriteTracesVaried(b *testing.B) {
	s := open(b)
	defer s.Close()
	querytest.BenchWriteTracesVaried(b, s)
}

// BenchmarkExistingRequestIDs: one POST /v1/events resend check (500 ids, half stored).
func BenchmarkExistingRequestIDs(b *testing.B) {
	s := open(b)
	defer s.Close()
	querytest.BenchExistingRequestIDs(b, s)
}
