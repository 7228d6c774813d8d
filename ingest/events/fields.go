package events

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Limits of the event fields. They are part of the API contract: the docs
// quote them.
const (
	// MaxDimensionChars bounds provider, model, use_case, team_id,
	// integration_id, end_user_id, user_id, session_id and policy names
	// (characters, not bytes).
	MaxDimensionChars = 256
	// MaxFinalDecisionChars bounds final_decision (characters).
	MaxFinalDecisionChars = 32
	// MaxTextBytes bounds prompt and answer (bytes of UTF-8).
	MaxTextBytes = 1 << 20
	// MaxMetadataBytes bounds metadata, measured as compact JSON.
	MaxMetadataBytes = 64 << 10
	// MaxMetadataDepth bounds metadata nesting: the metadata object itself is
	// depth 1.
	MaxMetadataDepth = 10
	// MaxMetadataKeys bounds the number of top-level metadata keys.
	MaxMetadataKeys = 256
	// MaxCount bounds token counts, latency_ms and span offsets: 2^53-1, the
	// largest integer a JSON number round-trips exactly through a float64
	// (JavaScript dashboards, DuckDB JSON readers); it also keeps
	// prompt_tokens + completion_tokens from overflowing.
	MaxCount = 1<<53 - 1
	// MaxPolicyHits bounds policy_hits entries per event, MaxSpans the spans
	// of one hit.
	MaxPolicyHits = 256
	MaxSpans      = 256
	// maxEpochSeconds is 9999-12-31T23:59:59Z: JSON encoding of time.Time
	// fails beyond year 9999, so such a trace could never be produced.
	maxEpochSeconds = 253402300799
)

var (
	minTime = time.Unix(0, 0).UTC()
	maxTime = time.Unix(maxEpochSeconds, 999999999).UTC()
)

// fieldID names the event fields; it doubles as a bit position for duplicate
// detection.
type fieldID uint8

const (
	fRequestID fieldID = iota
	fParentRequestID
	fMode
	fStartedAt
	fFinishedAt
	fProvider
	fModel
	fUseCase
	fTeamID
	fIntegrationID
	fEndUserID
	fUserID
	fSessionID
	fPromptTokens
	fCompletionTokens
	fTotalTokens
	fCostUSD
	fLatencyMs
	fStatus
	fFinalDecision
	fRiskScore
	fPolicyHits
	fPrompt
	fAnswer
	fMetadata
	fReceivedAt
	fUnknown
)

var fieldNames = [...]string{
	fRequestID:        "request_id",
	fParentRequestID:  "parent_request_id",
	fMode:             "mode",
	fStartedAt:        "started_at",
	fFinishedAt:       "finished_at",
	fProvider:         "provider",
	fModel:            "model",
	fUseCase:          "use_case",
	fTeamID:           "team_id",
	fIntegrationID:    "integration_id",
	fEndUserID:        "end_user_id",
	fUserID:           "user_id",
	fSessionID:        "session_id",
	fPromptTokens:     "prompt_tokens",
	fCompletionTokens: "completion_tokens",
	fTotalTokens:      "total_tokens",
	fCostUSD:          "cost_usd",
	fLatencyMs:        "latency_ms",
	fStatus:           "status",
	fFinalDecision:    "final_decision",
	fRiskScore:        "risk_score",
	fPolicyHits:       "policy_hits",
	fPrompt:           "prompt",
	fAnswer:           "answer",
	fMetadata:         "metadata",
	fReceivedAt:       "received_at",
}

func lookupField(key []byte) fieldID {
	// A switch on string(key) compiles to a comparison without allocating.
	switch string(key) {
	case "request_id":
		return fRequestID
	case "parent_request_id":
		return fParentRequestID
	case "mode":
		return fMode
	case "started_at":
		return fStartedAt
	case "finished_at":
		return fFinishedAt
	case "provider":
		return fProvider
	case "model":
		return fModel
	case "use_case":
		return fUseCase
	case "team_id":
		return fTeamID
	case "integration_id":
		return fIntegrationID
	case "end_user_id":
		return fEndUserID
	case "user_id":
		return fUserID
	case "session_id":
		return fSessionID
	case "prompt_tokens":
		return fPromptTokens
	case "completion_tokens":
		return fCompletionTokens
	case "total_tokens":
		return fTotalTokens
	case "cost_usd":
		return fCostUSD
	case "latency_ms":
		return fLatencyMs
	case "status":
		return fStatus
	case "final_decision":
		return fFinalDecision
	case "risk_score":
		return fRiskScore
	case "policy_hits":
		return fPolicyHits
	case "prompt":
		return fPrompt
	case "answer":
		return fAnswer
	case "metadata":
		return fMetadata
	case "received_at":
		return fReceivedAt
	}
	return fUnknown
}

// fieldError is a per-event rejection; its message names the field and rule.
func fieldError(field, format string, args ...any) error {
	return errors.New(field + ": " + fmt.Sprintf(format, args...))
}

// quoteKey renders an unknown key for an error message, bounded so that a
// hostile key cannot bloat the response.
func quoteKey(k string) string {
	const maxKey = 64
	if utf8.RuneCountInString(k) > maxKey {
		r := []rune(k)
		return strconv.Quote(string(r[:maxKey])) + "..."
	}
	return strconv.Quote(k)
}

// valueKind names a JSON value's type for messages.
func valueKind(c byte) string {
	switch c {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// Readers below return a problem: "" when the value is acceptable, else the
// rule it breaks, without the field name (the caller adds it, so that no name
// is formatted on the success path). They always consume the value unless a
// syntax error stops the scanner; null is reported as isNull.

// readCount reads a non-negative integer no larger than MaxCount. Anything
// else (1.5, 1e3, "3", -1, 1e30) is a problem.
func (s *scanner) readCount() (v int64, isNull bool, problem string) {
	c := s.peek()
	if c == 'n' {
		s.literal()
		return 0, true, ""
	}
	if c != '-' && (c < '0' || c > '9') {
		s.skipValue(maxNesting/2, nil)
		return 0, false, "must be a non-negative integer, not " + valueKind(c)
	}
	n := s.readNumber()
	if s.err != nil {
		return 0, false, ""
	}
	if n.neg || n.frac || n.ex {
		return 0, false, "must be a non-negative integer, not " + truncate(n.raw)
	}
	if len(n.raw) > 16 {
		return 0, false, fmt.Sprintf("must be at most %d", MaxCount)
	}
	for _, d := range n.raw {
		v = v*10 + int64(d-'0')
	}
	if v > MaxCount {
		return 0, false, fmt.Sprintf("must be at most %d", MaxCount)
	}
	return v, false, ""
}

// truncate renders a token for a message, bounded.
func truncate(raw []byte) string {
	if len(raw) > 32 {
		return string(raw[:32]) + "..."
	}
	return string(raw)
}

// readFloat reads a finite JSON number (-0 becomes 0); rule is the problem
// reported for anything else.
func (s *scanner) readFloat(rule string) (v float64, isNull bool, problem string) {
	c := s.peek()
	if c == 'n' {
		s.literal()
		return 0, true, ""
	}
	if c != '-' && (c < '0' || c > '9') {
		s.skipValue(maxNesting/2, nil)
		return 0, false, rule + ", not " + valueKind(c)
	}
	n := s.readNumber()
	if s.err != nil {
		return 0, false, ""
	}
	f, perr := strconv.ParseFloat(unsafe.String(unsafe.SliceData(n.raw), len(n.raw)), 64)
	if perr != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false, rule
	}
	if f == 0 {
		f = 0 // drop the sign of -0
	}
	return f, false, ""
}

// readStringField reads a string of at most maxChars characters (when
// maxChars > 0) and at most maxBytes bytes (when maxBytes > 0).
func (s *scanner) readStringField(maxChars, maxBytes int) (v string, isNull bool, problem string) {
	c := s.peek()
	if c == 'n' {
		s.literal()
		return "", true, ""
	}
	if c != '"' {
		s.skipValue(maxNesting/2, nil)
		return "", false, "must be a string, not " + valueKind(c)
	}
	raw, esc := s.readString()
	if s.err != nil {
		return "", false, ""
	}
	// Escapes only shrink a string, so the raw length bounds the decoded
	// one from above and the common case needs no decoding to check.
	if maxChars > 0 && len(raw) > maxChars && utf8.RuneCount(raw) > maxChars {
		if !esc || s.decodedRunes(raw) > maxChars {
			return "", false, fmt.Sprintf("must be at most %d characters", maxChars)
		}
	}
	if maxBytes > 0 && len(raw) > maxBytes {
		if !esc || s.decodedLen(raw) > maxBytes {
			return "", false, fmt.Sprintf("must be at most %d bytes", maxBytes)
		}
	}
	v, problem = s.keep(raw, esc)
	return v, false, problem
}

func (s *scanner) decodedRunes(raw []byte) int {
	s.buf, _ = unescape(s.buf[:0], raw)
	return utf8.RuneCount(s.buf)
}

func (s *scanner) decodedLen(raw []byte) int {
	s.buf, _ = unescape(s.buf[:0], raw)
	return len(s.buf)
}

// readTime reads a timestamp: an ISO 8601 string (see parseTimeString) or
// epoch seconds as a JSON number.
func (s *scanner) readTime() (t time.Time, isNull bool, problem string) {
	const rule = "must be an ISO 8601 timestamp such as 2006-01-02T15:04:05.123Z or epoch seconds"
	switch c := s.peek(); {
	case c == 'n':
		s.literal()
		return time.Time{}, true, ""
	case c == '"':
		raw, esc := s.readString()
		if s.err != nil {
			return time.Time{}, false, ""
		}
		if esc {
			// No escape belongs in a timestamp, but a decoded one may
			// still be valid.
			str, _ := s.decodeString(raw, esc)
			raw = []byte(str)
		}
		t, ok := parseTimeString(raw)
		if !ok {
			return time.Time{}, false, rule + ", not " + quoteKey(string(raw))
		}
		if t.Before(minTime) || t.After(maxTime) {
			return time.Time{}, false, "must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z"
		}
		return t, false, ""
	case c == '-' || (c >= '0' && c <= '9'):
		n := s.readNumber()
		if s.err != nil {
			return time.Time{}, false, ""
		}
		t, ok := parseEpoch(n)
		if !ok {
			return time.Time{}, false, fmt.Sprintf("epoch seconds must be between 0 and %d (milliseconds are not accepted), not %s", maxEpochSeconds, truncate(n.raw))
		}
		return t, false, ""
	default:
		s.skipValue(maxNesting/2, nil)
		return time.Time{}, false, rule + ", not " + valueKind(c)
	}
}

// zoneless is the layout of an ISO 8601 date-time without an offset; the
// fraction is optional when parsing.
const zoneless = "2006-01-02T15:04:05"

// isoZoned are the ISO 8601 extended date-times RFC 3339 leaves out, tried
// only after it: the ±hhmm and ±hh zone designators (Python's %z writes
// +0000, PostgreSQL +01) and minute precision. Go accepts a fraction after
// the seconds without a layout for it.
var isoZoned = []string{
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05Z07",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04Z0700",
	"2006-01-02T15:04Z07",
}

// parseTimeString accepts RFC 3339 (fractional seconds optional, "Z" or a
// ±hh:mm offset), the other ISO 8601 zone designators and minute precision
// (isoZoned), and a date-time with seconds and no zone, which is read as UTC
// because that is what Python's datetime.utcnow().isoformat() sends. The date
// and time must be separated by 'T'. The result is in UTC.
func parseTimeString(raw []byte) (time.Time, bool) {
	str := unsafe.String(unsafe.SliceData(raw), len(raw))
	if len(str) < len("2006-01-02T15:04Z") || str[10] != 'T' {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, str); err == nil {
		return t.UTC(), true
	}
	for _, layout := range isoZoned {
		if t, err := time.Parse(layout, str); err == nil {
			if _, off := t.Zone(); off <= -24*3600 || off >= 24*3600 {
				return time.Time{}, false
			}
			return t.UTC(), true
		}
	}
	if len(str) < len(zoneless) {
		return time.Time{}, false
	}
	// Only a zone-less form is left worth a try: no Z, no offset after the
	// time of day.
	for _, c := range str[len(zoneless):] {
		if c != '.' && (c < '0' || c > '9') {
			return time.Time{}, false
		}
	}
	t, err := time.ParseInLocation(zoneless, str, time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// parseEpoch converts epoch seconds exactly when written as a plain decimal
// (nanoseconds beyond the ninth fraction digit are truncated) and through
// float64 when written with an exponent.
func parseEpoch(n number) (time.Time, bool) {
	if n.neg {
		return time.Time{}, false
	}
	if n.ex {
		f, err := strconv.ParseFloat(string(n.raw), 64)
		if err != nil || f < 0 || f > maxEpochSeconds || math.IsNaN(f) {
			return time.Time{}, false
		}
		sec := math.Floor(f)
		return time.Unix(int64(sec), int64((f-sec)*1e9)).UTC(), true
	}
	raw := n.raw
	var sec, nsec int64
	i := 0
	for ; i < len(raw) && raw[i] != '.'; i++ {
		if i >= 12 {
			return time.Time{}, false
		}
		sec = sec*10 + int64(raw[i]-'0')
	}
	if sec > maxEpochSeconds {
		return time.Time{}, false
	}
	if i < len(raw) {
		i++ // '.'
		digits := 0
		for ; i < len(raw) && digits < 9; i++ {
			nsec = nsec*10 + int64(raw[i]-'0')
			digits++
		}
		for ; digits < 9; digits++ {
			nsec *= 10
		}
	}
	return time.Unix(sec, nsec).UTC(), true
}
