package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/schemas"
)

// benchEvent is a typical canonical event of about 400 bytes (no prompt or
// answer: the Events integration usually sends only dimensions and counts).
func benchEvent(i int) string {
	return fmt.Sprintf(`{"request_id":"req-%06d-5f3c9a1e","mode":"proxy","started_at":"2025-01-02T03:04:05.123Z",`+
		`"finished_at":"2025-01-02T03:04:06.456Z","provider":"openai","model":"gpt-4o-mini",`+
		`"team_id":"team-7","session_id":"sess-9","prompt_tokens":812,"completion_tokens":143,`+
		`"cost_usd":0.00042,"status":"ok","final_decision":"allow","risk_score":0.12,`+
		`"policy_hits":[{"policy":"pii.email","severity":"medium"}],"metadata":{"region":"eu-west-1"}}`, i)
}

func benchBody(b *testing.B) []byte {
	body := batchOf(MaxEvents, benchEvent)
	b.Logf("batch of %d events, %d bytes (%d bytes per event)", MaxEvents, len(body), len(body)/MaxEvents)
	return []byte(body)
}

func reportPerEvent(b *testing.B) {
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*MaxEvents)
	b.ReportMetric(ns, "ns/event")
	b.ReportMetric(1e9/ns, "events/s")
}

// BenchmarkDecodeBatch500 measures Decode on a batch of 500 canonical events.
func BenchmarkDecodeBatch500(b *testing.B) {
	body := benchBody(b)
	d, err := Decode(body, testNow, fixedID)
	require.NoError(b, err)
	for _, it := range d.Items {
		require.NoError(b, it.Err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(body, testNow, fixedID); err != nil {
			b.Fatal(err)
		}
	}
	reportPerEvent(b)
}

// BenchmarkStdlibUnmarshalBatch500 is the reference point: encoding/json
// into []schemas.Trace, without any of Decode's validation.
func BenchmarkStdlibUnmarshalBatch500(b *testing.B) {
	body := benchBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var batch struct {
			Events []schemas.Trace `json:"events"`
		}
		if err := json.Unmarshal(body, &batch); err != nil {
			b.Fatal(err)
		}
	}
	reportPerEvent(b)
}

// BenchmarkDecodeSimpleLargePrompt measures a simple-form event carrying
// prompt and answer text of 8 KiB each.
func BenchmarkDecodeSimpleLargePrompt(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 8<<10/45)
	body := []byte(`{"prompt":"` + text + `","answer":"` + text + `","model":"m","prompt_tokens":2000,"completion_tokens":2000,"metadata":{"k":"v"}}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(body, testNow, fixedID); err != nil {
			b.Fatal(err)
		}
	}
}
