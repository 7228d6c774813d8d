package schemas

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// benchCanonical is a realistic canonical-form trace envelope (about 520
// bytes encoded): every common field set, a three-key metadata object and an
// analysed-clean policy_hits ([]).
func benchCanonical() Envelope {
	started := time.Date(2026, 11, 22, 8, 15, 30, 123456789, time.UTC)
	return Envelope{
		SchemaVersion: EnvelopeVersion, Kind: KindTrace, OrgID: "org_7Hq2", AppID: "app_c91",
		ReceivedAt: started.Add(900 * time.Millisecond),
		Trace: Trace{
			RequestID: "01JD7Q7C3E4F5G6H7J8K9M0N1P", Mode: ModeIngest,
			StartedAt: started,
			Provider:  "openai", Model: "gpt-4o-mini",
			PromptTokens: 412, CompletionTokens: 187, TotalTokens: 599,
			CostUSD: ptr(0.000174), LatencyMs: ptr(int64(842)), Status: StatusOK,
			RiskScore:  ptr(0.12),
			PolicyHits: []PolicyHit{},
			Metadata:   json.RawMessage(`{"region":"eu","tier":"gold","retry":0}`),
			ReceivedAt: started.Add(900 * time.Millisecond),
		},
	}
}

// benchSimple is a simple-form event envelope: prompt and answer of about 200
// bytes each (with the quotes and newlines real text has), not yet analysed.
func benchSimple() Envelope {
	received := time.Date(2026, 11, 22, 8, 15, 31, 987654321, time.UTC)
	prompt := strings.Repeat("How do I reset my \"account\" password?\n", 6)[:200]
	answer := strings.Repeat("Open Settings > Security, choose Reset & follow the email link.\n", 4)[:200]
	return Envelope{
		SchemaVersion: EnvelopeVersion, Kind: KindSimpleEvent, OrgID: "org_01JD7Q5X2M3N4P5R6S7T8V9W0X", AppID: "app_01JD7Q6A1B2C3D4E5F6G7H8J9K",
		ReceivedAt: received,
		Trace: Trace{
			RequestID: "01JD7Q7C3E4F5G6H7J8K9M0N1P", Mode: ModeIngest, StartedAt: received, Status: StatusOK, FinalDecision: "pass",
			Prompt: prompt, Answer: answer, ReceivedAt: received,
		},
	}
}

var benchSink []byte

func BenchmarkEnvelopeMarshal(b *testing.B) {
	for _, c := range []struct {
		name string
		env  Envelope
	}{{"canonical", benchCanonical()}, {"simple", benchSimple()}} {
		b.Run(c.name, func(b *testing.B) {
			v, _ := c.env.Marshal()
			b.SetBytes(int64(len(v)))
			b.ReportAllocs()
			for b.Loop() {
				v, err := c.env.Marshal()
				if err != nil {
					b.Fatal(err)
				}
				benchSink = v
			}
		})
	}
}

var benchEnvSink Envelope

func BenchmarkDecodeEnvelope(b *testing.B) {
	for _, c := range []struct {
		name string
		env  Envelope
	}{{"canonical", benchCanonical()}, {"simple", benchSimple()}} {
		b.Run(c.name, func(b *testing.B) {
			v, err := json.Marshal(&c.env)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(v)))
			b.ReportAllocs()
			for b.Loop() {
				e, err := DecodeEnvelope(v)
				if err != nil {
					b.Fatal(err)
				}
				benchEnvSink = e
			}
		})
	}
}

func TestBenchFixtureSizes(t *testing.T) {
	for _, e := range []Envelope{benchCanonical(), benchSimple()} {
		v, err := json.Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d bytes: %s", len(v), v)
	}
}
