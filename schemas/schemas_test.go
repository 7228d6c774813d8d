package schemas

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func validTrace() Trace {
	return Trace{RequestID: "r1", Mode: ModeIngest, Status: StatusOK,
		StartedAt: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC), ReceivedAt: time.Date(2026, 11, 22, 8, 0, 1, 0, time.UTC)}
}

func ptr[T any](v T) *T { return &v }

func TestTraceValidate(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*Trace)
		wantErr string
	}{
		{"valid", func(*Trace) {}, ""},
		{"empty id", func(tr *Trace) { tr.RequestID = "" }, "request_id is required"},
		{"64 chars ok", func(tr *Trace) { tr.RequestID = strings.Repeat("é", 64) }, ""},
		{"65 chars", func(tr *Trace) { tr.RequestID = strings.Repeat("a", 65) }, "65 characters"},
		{"control char", func(tr *Trace) { tr.RequestID = "a\nb" }, "control character"},
		{"invalid utf8", func(tr *Trace) { tr.RequestID = "a\xffb" }, "UTF-8"},
		{"mode", func(tr *Trace) { tr.Mode = "batch" }, "mode"},
		{"status", func(tr *Trace) { tr.Status = "done" }, "status"},
		{"no started_at", func(tr *Trace) { tr.StartedAt = time.Time{} }, "started_at"},
		{"finished before started", func(tr *Trace) { tr.FinishedAt = ptr(tr.StartedAt.Add(-time.Second)) }, "finished_at"},
		{"negative tokens", func(tr *Trace) { tr.PromptTokens = -1 }, "non-negative"},
		{"negative cost", func(tr *Trace) { tr.CostUSD = ptr(-0.1) }, "cost_usd"},
		{"negative latency", func(tr *Trace) { tr.LatencyMs = ptr(int64(-1)) }, "latency_ms"},
		{"risk above 1", func(tr *Trace) { tr.RiskScore = ptr(1.5) }, "risk_score"},
		{"risk 1 ok", func(tr *Trace) { tr.RiskScore = ptr(1.0) }, ""},
		{"metadata array", func(tr *Trace) { tr.Metadata = json.RawMessage(`[1]`) }, "metadata"},
		{"policy hit without policy", func(tr *Trace) { tr.PolicyHits = []PolicyHit{{Severity: "high"}} }, "policy_hits[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := validTrace()
			tt.mutate(&tr)
			err := tr.Validate()
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestTraceDerive(t *testing.T) {
	tr := Trace{PromptTokens: 3, CompletionTokens: 4, StartedAt: time.Unix(100, 0)}
	tr.FinishedAt = ptr(time.Unix(101, 250e6))
	tr.Derive()
	require.EqualValues(t, 7, tr.TotalTokens)
	require.EqualValues(t, 1250, *tr.LatencyMs)
	require.Equal(t, StatusOK, tr.Status)
	require.Equal(t, ModeIngest, tr.Mode)

	// Caller values are kept, and Derive is idempotent.
	tr2 := Trace{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 10, LatencyMs: ptr(int64(5)), Status: StatusBlocked, Mode: ModeProxy}
	tr2.Derive()
	tr2.Derive()
	require.EqualValues(t, 10, tr2.TotalTokens)
	require.EqualValues(t, 5, *tr2.LatencyMs)
	require.Equal(t, StatusBlocked, tr2.Status)
	require.Equal(t, ModeProxy, tr2.Mode)

	// No finished_at: latency stays unknown rather than zero.
	tr3 := Trace{StartedAt: time.Unix(100, 0)}
	tr3.Derive()
	require.Nil(t, tr3.LatencyMs)
}

func TestEnvelopeRoundTrip(t *testing.T) {
	env := Envelope{SchemaVersion: EnvelopeVersion, Kind: KindTrace, OrgID: "org_1", AppID: "app_1",
		ReceivedAt: time.Date(2026, 11, 22, 8, 0, 1, 0, time.UTC), Trace: validTrace()}
	env.Trace.Metadata = json.RawMessage(`{"k":"v"}`)
	env.Trace.PolicyHits = []PolicyHit{{Policy: "pii.email", Severity: "medium", Spans: []Span{{Start: 1, End: 4}}}}
	b, err := env.Marshal()
	require.NoError(t, err)
	got, err := DecodeEnvelope(b)
	require.NoError(t, err)
	require.Equal(t, env, got)
	require.Equal(t, "org_1/r1", string(Key(env.OrgID, env.Trace.RequestID)))
}

func TestDecodeEnvelopeRejects(t *testing.T) {
	good := Envelope{SchemaVersion: EnvelopeVersion, Kind: KindTrace, OrgID: "org_1", ReceivedAt: time.Unix(1, 0).UTC(), Trace: validTrace()}
	tests := []struct {
		name    string
		mutate  func(*Envelope)
		raw     string
		wantErr string
	}{
		{name: "not json", raw: "{", wantErr: "decode envelope"},
		{name: "future version", mutate: func(e *Envelope) { e.SchemaVersion = EnvelopeVersion + 1 }, wantErr: "schema_version"},
		{name: "zero version", mutate: func(e *Envelope) { e.SchemaVersion = 0 }, wantErr: "schema_version"},
		{name: "unknown kind", mutate: func(e *Envelope) { e.Kind = "mystery" }, wantErr: "kind"},
		{name: "no org", mutate: func(e *Envelope) { e.OrgID = "" }, wantErr: "org_id"},
		{name: "no received_at", mutate: func(e *Envelope) { e.ReceivedAt = time.Time{} }, wantErr: "received_at"},
		{name: "invalid trace", mutate: func(e *Envelope) { e.Trace.Status = "x" }, wantErr: "invalid trace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := []byte(tt.raw)
			if tt.mutate != nil {
				e := good
				tt.mutate(&e)
				var err error
				raw, err = e.Marshal()
				require.NoError(t, err)
			}
			_, err := DecodeEnvelope(raw)
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}
