// Package schemas holds the versioned wire and storage schemas shared by every
// part of the gateway: the canonical trace, the log envelope and the lake row.
// It imports nothing of ours.
package schemas

import (
	"encoding/json"
	"time"
)

// Trace modes (spec section 2).
const (
	ModeIngest = "ingest"
	ModeProxy  = "proxy"
	ModeSDK    = "sdk"
	ModeVendor = "vendor"
)

// Trace statuses (spec section 3).
const (
	StatusOK          = "ok"
	StatusError       = "error"
	StatusBlocked     = "blocked"
	StatusRewritten   = "rewritten"
	StatusRegenerated = "regenerated"
)

// MaxRequestIDLen is the longest request_id the spec allows.
const MaxRequestIDLen = 64

// Trace is the canonical trace record (spec section 2). Optional numbers are
// pointers so that "not sent" and "zero" stay distinct: cost_usd is never
// estimated, latency_ms is null when it cannot be derived.
type Trace struct {
	RequestID        string          `json:"request_id"`
	ParentRequestID  string          `json:"parent_request_id,omitempty"`
	Mode             string          `json:"mode"`
	StartedAt        time.Time       `json:"started_at"`
	FinishedAt       *time.Time      `json:"finished_at,omitempty"`
	Provider         string          `json:"provider,omitempty"`
	Model            string          `json:"model,omitempty"`
	UseCase          string          `json:"use_case,omitempty"`
	TeamID           string          `json:"team_id,omitempty"`
	IntegrationID    string          `json:"integration_id,omitempty"`
	EndUserID        string          `json:"end_user_id,omitempty"`
	UserID           string          `json:"user_id,omitempty"`
	SessionID        string          `json:"session_id,omitempty"`
	PromptTokens     int64           `json:"prompt_tokens"`
	CompletionTokens int64           `json:"completion_tokens"`
	TotalTokens      int64           `json:"total_tokens"`
	CostUSD          *float64        `json:"cost_usd"`
	LatencyMs        *int64          `json:"latency_ms"`
	Status           string          `json:"status"`
	FinalDecision    string          `json:"final_decision,omitempty"`
	RiskScore        *float64        `json:"risk_score"`
	PolicyHits       []PolicyHit     `json:"policy_hits"`
	Prompt           string          `json:"prompt,omitempty"`
	Answer           string          `json:"answer,omitempty"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	ReceivedAt       time.Time       `json:"received_at"`
}

// PolicyHit is one policy that fired. Callers of the canonical form may send a
// bare policy identifier string; it decodes to a hit with only Policy set.
type PolicyHit struct {
	Policy     string  `json:"policy"`
	Severity   string  `json:"severity,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	Stage      string  `json:"stage,omitempty"`
	Spans      []Span  `json:"spans,omitempty"`
}

// Span is a half-open byte range [Start, End) of the scanned text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Derive fills the fields the service computes: total_tokens when only the
// parts were sent, latency_ms from the timestamps when it was omitted. It is
// idempotent, so processors may call it on records the front end derived.
func (t *Trace) Derive() {
	if t.TotalTokens == 0 {
		t.TotalTokens = t.PromptTokens + t.CompletionTokens
	}
	if t.LatencyMs == nil && t.FinishedAt != nil && !t.StartedAt.IsZero() {
		ms := t.FinishedAt.Sub(t.StartedAt).Milliseconds()
		t.LatencyMs = &ms
	}
	if t.Status == "" {
		t.Status = StatusOK
	}
	if t.Mode == "" {
		t.Mode = ModeIngest
	}
}
