package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ValidModes and ValidStatuses are the enumerations of spec sections 2 and 3.
var (
	validModes    = map[string]bool{ModeIngest: true, ModeProxy: true, ModeSDK: true, ModeVendor: true}
	validStatuses = map[string]bool{StatusOK: true, StatusError: true, StatusBlocked: true, StatusRewritten: true, StatusRegenerated: true}
)

// ValidMode reports whether m is a trace mode of the spec.
func ValidMode(m string) bool { return validModes[m] }

// ValidStatus reports whether s is a trace status of the spec.
func ValidStatus(s string) bool { return validStatuses[s] }

// ValidateRequestID checks the 1-64 character rule (characters, not bytes) and
// that the id is valid UTF-8 without control characters.
func ValidateRequestID(id string) error {
	if id == "" {
		return errors.New("request_id is required (1-64 characters)")
	}
	if !utf8.ValidString(id) {
		return errors.New("request_id is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(id); n > MaxRequestIDLen {
		return fmt.Errorf("request_id is %d characters, the limit is %d", n, MaxRequestIDLen)
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return errors.New("request_id contains a control character")
		}
	}
	return nil
}

// Validate checks every invariant a stored trace must hold. Front ends call it
// after decoding; processors call it again so that a record that bypassed the
// front end cannot reach a sink (it goes to the dead-letter topic instead).
func (t *Trace) Validate() error {
	if err := ValidateRequestID(t.RequestID); err != nil {
		return err
	}
	if !ValidMode(t.Mode) {
		return fmt.Errorf("mode %q is not one of ingest, proxy, sdk, vendor", t.Mode)
	}
	if !ValidStatus(t.Status) {
		return fmt.Errorf("status %q is not one of ok, error, blocked, rewritten, regenerated", t.Status)
	}
	if t.StartedAt.IsZero() {
		return errors.New("started_at is required")
	}
	if t.FinishedAt != nil && t.FinishedAt.Before(t.StartedAt) {
		return errors.New("finished_at is before started_at")
	}
	if t.PromptTokens < 0 || t.CompletionTokens < 0 || t.TotalTokens < 0 {
		return errors.New("token counts must be non-negative integers")
	}
	if t.CostUSD != nil && *t.CostUSD < 0 {
		return errors.New("cost_usd must be non-negative")
	}
	if t.LatencyMs != nil && *t.LatencyMs < 0 {
		return errors.New("latency_ms must be a non-negative integer")
	}
	if t.RiskScore != nil && (*t.RiskScore < 0 || *t.RiskScore > 1) {
		return errors.New("risk_score must be between 0 and 1")
	}
	if len(t.Metadata) > 0 && !bytes.HasPrefix(bytes.TrimSpace(t.Metadata), []byte("{")) {
		return errors.New("metadata must be a JSON object")
	}
	for i, h := range t.PolicyHits {
		if h.Policy == "" {
			return fmt.Errorf("policy_hits[%d] has no policy", i)
		}
	}
	return nil
}
