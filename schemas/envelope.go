package schemas

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// EnvelopeVersion is the current version of the log envelope. Readers accept
// every version up to this one; a newer version is a poison record for an old
// processor (it goes to the dead-letter topic, it is never guessed at).
const EnvelopeVersion = 1

// Envelope kinds: what produced the record and what processing it still needs.
const (
	// KindTrace is a canonical trace sent by a caller (Events canonical form).
	KindTrace = "trace"
	// KindSimpleEvent is a simple-form Events record: the processors'
	// analysis stage fills risk_score and policy_hits before the sinks.
	KindSimpleEvent = "event.simple"
	// KindDecision is a trace produced inline by verify, chat or the proxy,
	// already carrying its governance decision.
	KindDecision = "decision"
)

// Envelope is the value of every record on the traces topic (DESIGN.md
// section 4). Its key is Key(OrgID, Trace.RequestID).
type Envelope struct {
	SchemaVersion int       `json:"schema_version"`
	Kind          string    `json:"kind"`
	OrgID         string    `json:"org_id"`
	AppID         string    `json:"app_id"`
	ReceivedAt    time.Time `json:"received_at"`
	Trace         Trace     `json:"trace"`
}

// Key is the record key: all copies of one request_id of one organisation
// land on one partition, which is what makes per-partition dedupe exact.
func Key(orgID, requestID string) []byte {
	b := make([]byte, 0, len(orgID)+1+len(requestID))
	b = append(b, orgID...)
	b = append(b, '/')
	return append(b, requestID...)
}

// Marshal encodes the envelope for the log.
func (e *Envelope) Marshal() ([]byte, error) { return json.Marshal(e) }

// DecodeEnvelope decodes and validates a log record value. Any error means the
// record is poison and belongs on the dead-letter topic.
func DecodeEnvelope(value []byte) (Envelope, error) {
	var e Envelope
	if err := json.Unmarshal(value, &e); err != nil {
		return e, fmt.Errorf("decode envelope: %w", err)
	}
	if e.SchemaVersion < 1 || e.SchemaVersion > EnvelopeVersion {
		return e, fmt.Errorf("unsupported envelope schema_version %d", e.SchemaVersion)
	}
	switch e.Kind {
	case KindTrace, KindSimpleEvent, KindDecision:
	default:
		return e, fmt.Errorf("unknown envelope kind %q", e.Kind)
	}
	if e.OrgID == "" {
		return e, errors.New("envelope has no org_id")
	}
	if e.ReceivedAt.IsZero() {
		return e, errors.New("envelope has no received_at")
	}
	if err := e.Trace.Validate(); err != nil {
		return e, fmt.Errorf("invalid trace: %w", err)
	}
	return e, nil
}
