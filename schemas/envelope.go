package schemas

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
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
//
// The output is byte for byte what encoding/json.Marshal produces for the
// Envelope struct (field order, omitempty, null for nil pointers and a nil
// policy_hits, [] for an empty one, HTML-safe string escaping, U+FFFD for
// invalid UTF-8, ES6 float formatting, RFC 3339 times with nanoseconds,
// metadata validated, compacted and HTML-escaped), so any encoding/json
// reader decodes it exactly as before. It is written by hand because the
// reflective encoder cost about 12% of the front end's CPU: see
// BenchmarkEnvelopeMarshal and TestEnvelopeMarshalMatchesEncodingJSON /
// FuzzEnvelopeMarshal, which hold it to encoding/json's bytes. Values the hand
// encoder does not cover (NaN or infinite floats, years outside 0-9999,
// invalid metadata) go to encoding/json, so their errors are unchanged too.
//
// Options measured before choosing this (2-core machine, ns/op canonical /
// simple, encoding/json ≈ 4.5k / 4.8k): github.com/goccy/go-json ≈ 1.1k /
// 1.2k, github.com/go-json-experiment/json with v1 options ≈ 3.6-4.6k / 3.8-4.1k;
// the hand encoder is faster than both, needs no dependency, and is exact.
func (e *Envelope) Marshal() ([]byte, error) {
	b, ok := e.appendJSON(make([]byte, 0, e.sizeHint()))
	if !ok {
		return json.Marshal(e)
	}
	return b, nil
}

// sizeHint is enough for the whole envelope unless strings need escaping, so
// Marshal usually allocates once.
func (e *Envelope) sizeHint() int {
	t := &e.Trace
	n := 560 + len(e.Kind) + len(e.OrgID) + len(e.AppID) + len(t.RequestID) + len(t.ParentRequestID) +
		len(t.Mode) + len(t.Provider) + len(t.Model) + len(t.UseCase) + len(t.TeamID) + len(t.IntegrationID) +
		len(t.EndUserID) + len(t.UserID) + len(t.SessionID) + len(t.Status) + len(t.FinalDecision) +
		len(t.Prompt) + len(t.Answer) + len(t.Metadata)
	for i := range t.PolicyHits {
		h := &t.PolicyHits[i]
		n += 80 + len(h.Policy) + len(h.Severity) + len(h.Stage) + 24*len(h.Spans)
	}
	return n + n/16
}

// appendJSON appends the encoding/json encoding of e; ok is false when a value
// needs encoding/json itself (to produce its error).
func (e *Envelope) appendJSON(b []byte) (_ []byte, ok bool) {
	b = append(b, `{"schema_version":`...)
	b = strconv.AppendInt(b, int64(e.SchemaVersion), 10)
	b = append(b, `,"kind":`...)
	b = appendString(b, e.Kind)
	b = append(b, `,"org_id":`...)
	b = appendString(b, e.OrgID)
	b = append(b, `,"app_id":`...)
	b = appendString(b, e.AppID)
	b = append(b, `,"received_at":`...)
	if b, ok = appendTime(b, e.ReceivedAt); !ok {
		return b, false
	}
	b = append(b, `,"trace":`...)
	if b, ok = e.Trace.appendJSON(b); !ok {
		return b, false
	}
	return append(b, '}'), true
}

func (t *Trace) appendJSON(b []byte) (_ []byte, ok bool) {
	b = append(b, `{"request_id":`...)
	b = appendString(b, t.RequestID)
	b = appendOptString(b, `,"parent_request_id":`, t.ParentRequestID)
	b = append(b, `,"mode":`...)
	b = appendString(b, t.Mode)
	b = append(b, `,"started_at":`...)
	if b, ok = appendTime(b, t.StartedAt); !ok {
		return b, false
	}
	if t.FinishedAt != nil {
		b = append(b, `,"finished_at":`...)
		if b, ok = appendTime(b, *t.FinishedAt); !ok {
			return b, false
		}
	}
	b = appendOptString(b, `,"provider":`, t.Provider)
	b = appendOptString(b, `,"model":`, t.Model)
	b = appendOptString(b, `,"use_case":`, t.UseCase)
	b = appendOptString(b, `,"team_id":`, t.TeamID)
	b = appendOptString(b, `,"integration_id":`, t.IntegrationID)
	b = appendOptString(b, `,"end_user_id":`, t.EndUserID)
	b = appendOptString(b, `,"user_id":`, t.UserID)
	b = appendOptString(b, `,"session_id":`, t.SessionID)
	b = append(b, `,"prompt_tokens":`...)
	b = strconv.AppendInt(b, t.PromptTokens, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, t.CompletionTokens, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, t.TotalTokens, 10)
	b = append(b, `,"cost_usd":`...)
	if b, ok = appendOptFloat(b, t.CostUSD); !ok {
		return b, false
	}
	b = append(b, `,"latency_ms":`...)
	if t.LatencyMs == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *t.LatencyMs, 10)
	}
	b = append(b, `,"status":`...)
	b = appendString(b, t.Status)
	b = appendOptString(b, `,"final_decision":`, t.FinalDecision)
	b = append(b, `,"risk_score":`...)
	if b, ok = appendOptFloat(b, t.RiskScore); !ok {
		return b, false
	}
	b = append(b, `,"policy_hits":`...)
	if t.PolicyHits == nil {
		b = append(b, "null"...) // not analysed; [] means analysed and clean
	} else {
		b = append(b, '[')
		for i := range t.PolicyHits {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = t.PolicyHits[i].appendJSON(b); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	b = appendOptString(b, `,"prompt":`, t.Prompt)
	b = appendOptString(b, `,"answer":`, t.Answer)
	if len(t.Metadata) > 0 {
		b = append(b, `,"metadata":`...)
		if b, ok = appendRaw(b, t.Metadata); !ok {
			return b, false
		}
	}
	b = append(b, `,"received_at":`...)
	if b, ok = appendTime(b, t.ReceivedAt); !ok {
		return b, false
	}
	return append(b, '}'), true
}

func (h *PolicyHit) appendJSON(b []byte) (_ []byte, ok bool) {
	b = append(b, `{"policy":`...)
	b = appendString(b, h.Policy)
	b = appendOptString(b, `,"severity":`, h.Severity)
	if h.Confidence != 0 {
		b = append(b, `,"confidence":`...)
		if b, ok = appendFloat(b, h.Confidence); !ok {
			return b, false
		}
	}
	b = appendOptString(b, `,"stage":`, h.Stage)
	if len(h.Spans) > 0 {
		b = append(b, `,"spans":[`...)
		for i, s := range h.Spans {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"start":`...)
			b = strconv.AppendInt(b, int64(s.Start), 10)
			b = append(b, `,"end":`...)
			b = strconv.AppendInt(b, int64(s.End), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

func appendOptString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(append(b, key...), s)
}

// htmlSafe[c] is true for the ASCII bytes encoding/json writes unescaped with
// its default HTML escaping.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString is encoding/json's string encoding with HTML escaping
// (encode.go appendString): short escapes for \b \f \n \r \t, \u00XX for
// other controls and < > &, \ufffd for each invalid UTF-8 byte, and
// \u2028 / \u2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start, words := 0, 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time (no escape, nothing non-ASCII) up to
		// the first byte to look at, which is the lowest flagged byte (a
		// borrow only flags bytes above a true one): a verify request
		// writes its answer twice, in the trace and in the response. After
		// a rune that is not ASCII, bytes one at a time for a word's
		// length, so that text mostly not ASCII pays one word's test per 8
		// bytes, not per rune.
		if i >= words {
			for ; i+8 <= len(s); i += 8 {
				// '"' and '&' differ in bit 2 only, '<' and '>' in bit 1: one
				// equality test covers each pair.
				w := le64(s[i:])
				qa, lg, bs := (w|4*loBits)^('&'*loBits), (w|2*loBits)^('>'*loBits), w^('\\'*loBits)
				if m := ((qa-loBits)&^qa | (lg-loBits)&^lg | (bs-loBits)&^bs | (w-0x20*loBits)&^w | w) & hiBits; m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
			}
			if i == len(s) {
				break
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		words = i + 8
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// le64 is binary.LittleEndian.Uint64 of a string's first 8 bytes (the
// compiler merges the loads).
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// AppendJSONString appends s as encoding/json encodes a string (HTML
// escaping on), for hand-written encoders of other packages.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }

// AppendJSONFloat appends f as encoding/json encodes a float64; ok is false
// for NaN and the infinities, which encoding/json refuses.
func AppendJSONFloat(b []byte, f float64) (_ []byte, ok bool) { return appendFloat(b, f) }

// appendFloat is encoding/json's float64 encoding (ES6 number formatting);
// NaN and infinities are not JSON, ok is false.
func appendFloat(b []byte, f float64) (_ []byte, ok bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

func appendOptFloat(b []byte, f *float64) ([]byte, bool) {
	if f == nil {
		return append(b, "null"...), true
	}
	return appendFloat(b, *f)
}

// appendTime writes t as time.Time.MarshalJSON does (AppendText is the same
// strict RFC 3339 text); years outside 0-9999 are an error, ok is false.
func appendTime(b []byte, t time.Time) (_ []byte, ok bool) {
	out, err := t.AppendText(append(b, '"'))
	if err != nil {
		return b, false // AppendText returns nil on error
	}
	return append(out, '"'), true
}

// appendRaw writes metadata as encoding/json writes a json.RawMessage: it must
// be valid JSON, and is compacted with <, >, &, U+2028 and U+2029 escaped.
// Metadata from the front end is already compact, so the common case is a
// validity check and a copy.
func appendRaw(b []byte, m json.RawMessage) (_ []byte, ok bool) {
	plain := true
	for _, c := range m {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xE2: // 0xE2 starts U+2028 and U+2029
			plain = false
		}
	}
	if plain {
		if !json.Valid(m) {
			return b, false
		}
		return append(b, m...), true
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, m); err != nil {
		return b, false
	}
	out := bytes.NewBuffer(b)
	json.HTMLEscape(out, compact.Bytes())
	return out.Bytes(), true
}

// DecodeEnvelope decodes and validates a log record value. Any error means the
// record is poison and belongs on the dead-letter topic.
//
// Decoding gives exactly the Envelope encoding/json.Unmarshal gives, and
// rejects exactly what it rejects: a hand-written decoder handles the form
// Marshal writes (the exact field names, each at most once, in any order;
// strings with any escapes; numbers that fit their field; null only for the
// pointer fields and policy_hits), and any record it is not certain about —
// an unknown or differently-cased key, a duplicate key, invalid UTF-8, a lone
// surrogate, null elsewhere, deep metadata, a syntax error — is decoded by
// encoding/json instead, which also produces the error. So every difference
// of encoding/json's (case-insensitive keys, last duplicate wins, U+FFFD
// replacement) is kept, on the slow path. FuzzDecodeEnvelope holds the two to
// equal results on arbitrary input. It replaced plain json.Unmarshal, which
// cost about 18% of the processors' CPU (BenchmarkDecodeEnvelope).
//
// Options measured before choosing this (2-core machine, ns/op canonical /
// simple, encoding/json ≈ 10k / 13k): github.com/goccy/go-json ≈ 2.6k / 3.5k,
// github.com/go-json-experiment/json with v1 options ≈ 4.8-6.1k / 7.3-8.6k.
// The fast path is faster than both and, with encoding/json as its fallback,
// cannot decode any record differently from it; a new dependency could.
func DecodeEnvelope(value []byte) (Envelope, error) {
	var e Envelope
	if !decodeFast(value, &e) {
		e = Envelope{}
		if err := json.Unmarshal(value, &e); err != nil {
			return e, fmt.Errorf("decode envelope: %w", err)
		}
	}
	return e, e.validate()
}

func (e *Envelope) validate() error {
	if e.SchemaVersion < 1 || e.SchemaVersion > EnvelopeVersion {
		return fmt.Errorf("unsupported envelope schema_version %d", e.SchemaVersion)
	}
	switch e.Kind {
	case KindTrace, KindSimpleEvent, KindDecision:
	default:
		return fmt.Errorf("unknown envelope kind %q", e.Kind)
	}
	if e.OrgID == "" {
		return errors.New("envelope has no org_id")
	}
	if e.ReceivedAt.IsZero() {
		return errors.New("envelope has no received_at")
	}
	if err := e.Trace.Validate(); err != nil {
		return fmt.Errorf("invalid trace: %w", err)
	}
	return nil
}

// decodeFast decodes value into the zero Envelope e and reports true only when
// the result is certainly what encoding/json.Unmarshal gives; on false, e
// holds garbage and the caller decodes with encoding/json.
func decodeFast(value []byte, e *Envelope) bool {
	d := decoder{b: value}
	if !d.envelope(e) {
		return false
	}
	d.ws()
	return d.i == len(d.b)
}

// decoder is a cursor over one record. Every method returns false when the
// input is anything but the plain form it understands; none returns errors.
type decoder struct {
	b []byte
	i int
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// consume skips whitespace and then the byte c.
func (d *decoder) consume(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// peekNull skips whitespace and consumes a null literal if one is next.
func (d *decoder) peekNull() bool {
	d.ws()
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// key reads the next member name of an object after n members, or reports
// done at its closing brace. Names with escapes or non-ASCII bytes are left to
// encoding/json (its case folding maps some non-ASCII letters to ASCII ones).
func (d *decoder) key(n int) (key []byte, done, ok bool) {
	d.ws()
	if d.i >= len(d.b) {
		return nil, false, false
	}
	if d.b[d.i] == '}' {
		d.i++
		return nil, true, true
	}
	if n > 0 {
		if d.b[d.i] != ',' {
			return nil, false, false
		}
		d.i++
		d.ws()
	}
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false, false
	}
	start := d.i + 1
	j := start
	for ; j < len(d.b) && d.b[j] != '"'; j++ {
		if c := d.b[j]; c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return nil, false, false
		}
	}
	if j >= len(d.b) {
		return nil, false, false
	}
	key = d.b[start:j]
	d.i = j + 1
	if !d.consume(':') {
		return nil, false, false
	}
	return key, false, true
}

// seen marks field bit in *mask; a second occurrence sends the record to
// encoding/json (which keeps the last value, merging objects).
func seen(mask *uint32, bit uint) bool {
	if *mask&(1<<bit) != 0 {
		return false
	}
	*mask |= 1 << bit
	return true
}

func (d *decoder) envelope(e *Envelope) bool {
	if !d.consume('{') {
		return false
	}
	var mask uint32
	for n := 0; ; n++ {
		key, done, ok := d.key(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(key) {
		case "schema_version":
			ok = seen(&mask, 0) && d.int(&e.SchemaVersion)
		case "kind":
			ok = seen(&mask, 1) && d.str(&e.Kind)
		case "org_id":
			ok = seen(&mask, 2) && d.str(&e.OrgID)
		case "app_id":
			ok = seen(&mask, 3) && d.str(&e.AppID)
		case "received_at":
			ok = seen(&mask, 4) && d.time(&e.ReceivedAt)
		case "trace":
			ok = seen(&mask, 5) && d.trace(&e.Trace)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) trace(t *Trace) bool {
	if !d.consume('{') {
		return false
	}
	var mask uint32
	for n := 0; ; n++ {
		key, done, ok := d.key(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(key) {
		case "request_id":
			ok = seen(&mask, 0) && d.str(&t.RequestID)
		case "parent_request_id":
			ok = seen(&mask, 1) && d.str(&t.ParentRequestID)
		case "mode":
			ok = seen(&mask, 2) && d.str(&t.Mode)
		case "started_at":
			ok = seen(&mask, 3) && d.time(&t.StartedAt)
		case "finished_at":
			ok = seen(&mask, 4)
			if ok && !d.peekNull() {
				t.FinishedAt = new(time.Time)
				ok = d.time(t.FinishedAt)
			}
		case "provider":
			ok = seen(&mask, 5) && d.str(&t.Provider)
		case "model":
			ok = seen(&mask, 6) && d.str(&t.Model)
		case "use_case":
			ok = seen(&mask, 7) && d.str(&t.UseCase)
		case "team_id":
			ok = seen(&mask, 8) && d.str(&t.TeamID)
		case "integration_id":
			ok = seen(&mask, 9) && d.str(&t.IntegrationID)
		case "end_user_id":
			ok = seen(&mask, 10) && d.str(&t.EndUserID)
		case "user_id":
			ok = seen(&mask, 11) && d.str(&t.UserID)
		case "session_id":
			ok = seen(&mask, 12) && d.str(&t.SessionID)
		case "prompt_tokens":
			ok = seen(&mask, 13) && d.int64(&t.PromptTokens)
		case "completion_tokens":
			ok = seen(&mask, 14) && d.int64(&t.CompletionTokens)
		case "total_tokens":
			ok = seen(&mask, 15) && d.int64(&t.TotalTokens)
		case "cost_usd":
			ok = seen(&mask, 16) && d.optFloat(&t.CostUSD)
		case "latency_ms":
			ok = seen(&mask, 17)
			if ok && !d.peekNull() {
				t.LatencyMs = new(int64)
				ok = d.int64(t.LatencyMs)
			}
		case "status":
			ok = seen(&mask, 18) && d.str(&t.Status)
		case "final_decision":
			ok = seen(&mask, 19) && d.str(&t.FinalDecision)
		case "risk_score":
			ok = seen(&mask, 20) && d.optFloat(&t.RiskScore)
		case "policy_hits":
			ok = seen(&mask, 21) && d.policyHits(&t.PolicyHits)
		case "prompt":
			ok = seen(&mask, 22) && d.str(&t.Prompt)
		case "answer":
			ok = seen(&mask, 23) && d.str(&t.Answer)
		case "metadata":
			ok = seen(&mask, 24) && d.raw(&t.Metadata)
		case "received_at":
			ok = seen(&mask, 25) && d.time(&t.ReceivedAt)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

// policyHits decodes null as nil (not analysed) and [] as an empty, non-nil
// slice (analysed, nothing found), as encoding/json does.
func (d *decoder) policyHits(hits *[]PolicyHit) bool {
	if d.peekNull() {
		return true
	}
	if !d.consume('[') {
		return false
	}
	*hits = []PolicyHit{}
	for n := 0; ; n++ {
		if d.consume(']') {
			return true
		}
		if n > 0 && !d.consume(',') {
			return false
		}
		*hits = append(*hits, PolicyHit{})
		if !d.policyHit(&(*hits)[n]) {
			return false
		}
	}
}

func (d *decoder) policyHit(h *PolicyHit) bool {
	if !d.consume('{') {
		return false
	}
	var mask uint32
	for n := 0; ; n++ {
		key, done, ok := d.key(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(key) {
		case "policy":
			ok = seen(&mask, 0) && d.str(&h.Policy)
		case "severity":
			ok = seen(&mask, 1) && d.str(&h.Severity)
		case "confidence":
			ok = seen(&mask, 2) && d.float(&h.Confidence)
		case "stage":
			ok = seen(&mask, 3) && d.str(&h.Stage)
		case "spans":
			ok = seen(&mask, 4) && d.spans(&h.Spans)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) spans(spans *[]Span) bool {
	if !d.consume('[') {
		return false
	}
	*spans = []Span{}
	for n := 0; ; n++ {
		if d.consume(']') {
			return true
		}
		if n > 0 && !d.consume(',') {
			return false
		}
		var s Span
		if !d.consume('{') {
			return false
		}
		var mask uint32
		for m := 0; ; m++ {
			key, done, ok := d.key(m)
			if !ok {
				return false
			}
			if done {
				break
			}
			switch string(key) {
			case "start":
				ok = seen(&mask, 0) && d.int(&s.Start)
			case "end":
				ok = seen(&mask, 1) && d.int(&s.End)
			default:
				ok = false
			}
			if !ok {
				return false
			}
		}
		*spans = append(*spans, s)
	}
}

// DecodeStringMembers walks the JSON object b whose members are all strings
// or null, calling set with each name and value (nil for null) in document
// order, with this package's fast decoder: false for anything else (another
// value type, a name with escapes or non-ASCII bytes, an escape encoding/json
// would decode differently, trailing data) or when set refuses a name, and
// the caller then decodes b with encoding/json. A repeated name calls set
// again, so the last value wins as in encoding/json.
func DecodeStringMembers(b []byte, set func(name []byte, v *string) bool) bool {
	d := decoder{b: b}
	if !d.consume('{') {
		return false
	}
	for n := 0; ; n++ {
		name, done, ok := d.key(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		var v *string
		if !d.peekNull() {
			var s string
			if !d.str(&s) {
				return false
			}
			v = &s
		}
		if !set(name, v) {
			return false
		}
	}
	d.ws()
	return d.i == len(d.b)
}

// JSONReader is this package's fast JSON decoder for other fast paths
// that fall back to encoding/json on anything unusual (the proxy's request
// and answer). Every method returns false for anything but the plain form
// it reads; see DecodeStringMembers for what plain means (member names
// without escapes or non-ASCII bytes; strings whose escapes and UTF-8
// encoding/json would decode the same).
type JSONReader struct{ d decoder }

// NewJSONReader reads b from its start.
func NewJSONReader(b []byte) JSONReader { return JSONReader{decoder{b: b}} }

// Consume skips whitespace and then the byte c.
func (r *JSONReader) Consume(c byte) bool { return r.d.consume(c) }

// PeekNull skips whitespace and consumes a null literal if one is next.
func (r *JSONReader) PeekNull() bool { return r.d.peekNull() }

// Literal skips whitespace and consumes lit ("true", "false", "null") if it
// is next.
func (r *JSONReader) Literal(lit string) bool { r.d.ws(); return r.d.literal(lit) }

// Next skips whitespace and returns the next byte without consuming it.
func (r *JSONReader) Next() (byte, bool) {
	r.d.ws()
	if r.d.i >= len(r.d.b) {
		return 0, false
	}
	return r.d.b[r.d.i], true
}

// Key reads the next member name of an object after n members, and its
// colon, or reports done at the closing brace.
func (r *JSONReader) Key(n int) (key []byte, done, ok bool) { return r.d.key(n) }

// Str decodes a string.
func (r *JSONReader) Str(dst *string) bool { return r.d.str(dst) }

// Number steps over a number token, checked against the JSON grammar.
func (r *JSONReader) Number() (tok []byte, integer bool) { return r.d.number() }

// Value steps over one value, checked against the JSON grammar as
// encoding/json's scanner checks it, and returns its bytes.
func (r *JSONReader) Value() ([]byte, bool) {
	r.d.ws()
	start := r.d.i
	if !r.d.skip(0) {
		return nil, false
	}
	return r.d.b[start:r.d.i:r.d.i], true
}

// End reports whether only whitespace is left.
func (r *JSONReader) End() bool {
	r.d.ws()
	return r.d.i == len(r.d.b)
}

// str decodes a JSON string. Escapes are decoded as encoding/json does;
// invalid UTF-8 and lone surrogates (which it replaces by U+FFFD) are left to
// it.
func (d *decoder) str(dst *string) bool {
	if !d.consume('"') {
		return false
	}
	b, start := d.b, d.i
	i := start
	// Eight bytes at a time up to the first byte that needs a look: a quote,
	// a backslash or a control byte (a byte-at-a-time loop cost ~17
	// instructions a byte, a tenth of a verify request's handler outside the
	// engine). high collects the top bits: UTF-8 is checked only if set.
	var high uint64
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if hasStringStop(w) {
			break
		}
		high |= w
	}
	ascii := high&hiBits == 0
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			s := b[start:i]
			if !ascii && !utf8.Valid(s) {
				return false
			}
			d.i = i + 1
			*dst = intern(s)
			return true
		case c == '\\':
			d.i = i
			return d.strEscaped(dst, start, ascii)
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return false
}

const (
	loBits = 0x0101010101010101
	hiBits = 0x8080808080808080
)

// hasStringStop reports whether a byte of w is '"', '\\' or below 0x20
// (the classic "has a zero byte" and "has a byte less than n" tests, exact
// as booleans).
func hasStringStop(w uint64) bool {
	q := w ^ ('"' * loBits)
	bs := w ^ ('\\' * loBits)
	return ((q-loBits)&^q|(bs-loBits)&^bs|(w-0x20*loBits)&^w)&hiBits != 0
}

// strEscaped finishes str for a string with escapes; d.i is at the first
// backslash.
func (d *decoder) strEscaped(dst *string, start int, ascii bool) bool {
	if !ascii && !utf8.Valid(d.b[start:d.i]) {
		return false
	}
	out := make([]byte, 0, d.i-start+64)
	out = append(out, d.b[start:d.i]...)
	plain := d.i // start of the current run of unescaped bytes
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			run := d.b[plain:d.i]
			if !utf8.Valid(run) {
				return false
			}
			out = append(out, run...)
			d.i++
			*dst = string(out)
			return true
		case c == '\\':
			run := d.b[plain:d.i]
			if !utf8.Valid(run) {
				return false
			}
			out = append(out, run...)
			if d.i+1 >= len(d.b) {
				return false
			}
			switch e := d.b[d.i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d.b[d.i+2:])
				if !ok {
					return false
				}
				if utf16.IsSurrogate(r) {
					if len(d.b)-d.i < 12 || d.b[d.i+6] != '\\' || d.b[d.i+7] != 'u' {
						return false
					}
					r2, ok := hex4(d.b[d.i+8:])
					if !ok {
						return false
					}
					if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
						return false
					}
					d.i += 6
				}
				out = utf8.AppendRune(out, r)
				d.i += 4
			default:
				return false
			}
			d.i += 2
			plain = d.i
		case c < 0x20:
			return false
		default:
			d.i++
		}
	}
	return false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// intern returns the enumerated values without allocating.
func intern(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "user": // message roles (JSONReader's callers)
		return "user"
	case "assistant":
		return "assistant"
	case "system":
		return "system"
	case "tool":
		return "tool"
	case KindTrace:
		return KindTrace
	case KindSimpleEvent:
		return KindSimpleEvent
	case KindDecision:
		return KindDecision
	case ModeIngest:
		return ModeIngest
	case ModeProxy:
		return ModeProxy
	case ModeSDK:
		return ModeSDK
	case ModeVendor:
		return ModeVendor
	case StatusOK:
		return StatusOK
	case StatusError:
		return StatusError
	case StatusBlocked:
		return StatusBlocked
	case StatusRewritten:
		return StatusRewritten
	case StatusRegenerated:
		return StatusRegenerated
	case "pass":
		return "pass"
	case "low":
		return "low"
	case "medium":
		return "medium"
	case "high":
		return "high"
	case "critical":
		return "critical"
	}
	return string(b)
}

// time decodes a time as time.Time.UnmarshalJSON does: the raw text between
// the quotes (escapes are not decoded) in strict RFC 3339.
func (d *decoder) time(t *time.Time) bool {
	if !d.consume('"') {
		return false
	}
	start := d.i
	for ; d.i < len(d.b) && d.b[d.i] != '"'; d.i++ {
		if c := d.b[d.i]; c == '\\' || c < 0x20 {
			return false
		}
	}
	if d.i >= len(d.b) {
		return false
	}
	raw := d.b[start:d.i]
	d.i++
	return t.UnmarshalText(raw) == nil
}

// number returns the next JSON number token, checked against the JSON grammar.
func (d *decoder) number() (tok []byte, integer bool) {
	d.ws()
	start, i := d.i, d.i
	b := d.b
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		j := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == j {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == j {
			return nil, false
		}
	}
	d.i = i
	return b[start:i], integer
}

// int64 decodes an integer as strconv.ParseInt does for encoding/json; one
// out of range, or with a fraction or exponent, is left to encoding/json
// (which rejects it).
func (d *decoder) int64(dst *int64) bool {
	tok, integer := d.number()
	if !integer {
		return false
	}
	neg := tok[0] == '-'
	if neg {
		tok = tok[1:]
	}
	if len(tok) > 19 { // 19 digits fit in a uint64
		return false
	}
	var n uint64
	for _, c := range tok {
		n = n*10 + uint64(c-'0')
	}
	switch {
	case !neg && n <= math.MaxInt64:
		*dst = int64(n)
	case neg && n <= 1<<63:
		*dst = int64(-n) // -(1<<63) wraps to math.MinInt64
	default:
		return false
	}
	return true
}

// int decodes into an int, of this platform's size.
func (d *decoder) int(dst *int) bool {
	var n int64
	if !d.int64(&n) || n < math.MinInt || n > math.MaxInt {
		return false
	}
	*dst = int(n)
	return true
}

func (d *decoder) float(dst *float64) bool {
	tok, _ := d.number()
	if tok == nil {
		return false
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return false
	}
	*dst = f
	return true
}

func (d *decoder) optFloat(dst **float64) bool {
	if d.peekNull() {
		return true
	}
	f := new(float64)
	*dst = f
	return d.float(f)
}

// raw copies the next value (metadata) verbatim, as json.RawMessage's
// UnmarshalJSON does. null (which encoding/json stores as the text "null")
// is left to encoding/json.
func (d *decoder) raw(dst *json.RawMessage) bool {
	d.ws()
	start := d.i
	if !d.skip(0) {
		return false
	}
	v := d.b[start:d.i]
	if string(v) == "null" {
		return false
	}
	*dst = append(json.RawMessage(nil), v...)
	return true
}

// maxRawDepth bounds the nesting skip follows; deeper values go to
// encoding/json (whose own limit is 10000).
const maxRawDepth = 64

// skip steps over one JSON value, checking the JSON grammar as encoding/json's
// scanner does (string contents only for escapes and control bytes: the
// scanner accepts any other byte, and so does RawMessage).
func (d *decoder) skip(depth int) bool {
	if depth > maxRawDepth {
		return false
	}
	d.ws()
	if d.i >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; c {
	case '{':
		d.i++
		for n := 0; ; n++ {
			d.ws()
			if d.i < len(d.b) && d.b[d.i] == '}' && n == 0 {
				d.i++
				return true
			}
			if n > 0 {
				if d.consume('}') {
					return true
				}
				if !d.consume(',') {
					return false
				}
				d.ws()
			}
			if d.i >= len(d.b) || d.b[d.i] != '"' || !d.skipString() || !d.consume(':') || !d.skip(depth+1) {
				return false
			}
		}
	case '[':
		d.i++
		for n := 0; ; n++ {
			d.ws()
			if d.i < len(d.b) && d.b[d.i] == ']' && n == 0 {
				d.i++
				return true
			}
			if n > 0 {
				if d.consume(']') {
					return true
				}
				if !d.consume(',') {
					return false
				}
			}
			if !d.skip(depth + 1) {
				return false
			}
		}
	case '"':
		return d.skipString()
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		tok, _ := d.number()
		return tok != nil
	}
}

func (d *decoder) literal(lit string) bool {
	if len(d.b)-d.i >= len(lit) && string(d.b[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// skipString steps over a string token; d.i is at its opening quote.
func (d *decoder) skipString() bool {
	for d.i++; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			return true
		case c == '\\':
			if d.i+1 >= len(d.b) {
				return false
			}
			switch d.b[d.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i++
			case 'u':
				if _, ok := hex4(d.b[d.i+2:]); !ok {
					return false
				}
				d.i += 5
			default:
				return false
			}
		case c < 0x20:
			return false
		}
	}
	return false
}
