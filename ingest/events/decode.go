// Package events decodes and validates the body of POST /v1/events (spec
// section 4.4, DESIGN.md section 5). It is pure: no HTTP, no log, no store.
// The HTTP handler turns a Decoded into log records and the response.
//
// # Body forms
//
//   - {"events": [event, ...]}: a batch of 1 to MaxEvents canonical events
//     (FormBatch). The object may hold no other member.
//   - an object with a non-null "request_id": one canonical event (FormSingle).
//   - an object with "prompt" and "answer" and no "request_id" (or a null
//     one: null means "not sent" for every field): the simple form
//     (FormSimple).
//
// Anything else, malformed JSON, JSON nested deeper than 1000 levels,
// trailing data after the body, and invalid UTF-8 anywhere in the body reject
// the whole body. (encoding/json would silently replace invalid UTF-8 with
// U+FFFD; storing mangled text is worse than a 400.)
//
// # Field rules
//
// Every error message starts with the field it concerns and states the rule,
// for example "risk_score: must be a number between 0 and 1". A problem in
// one event never rejects its neighbours.
//
//   - Unknown fields reject the event (`unknown field "x"`), so that a typo
//     such as "prompt_token" is reported instead of silently dropping data.
//     A field sent twice rejects the event (`duplicate field "x"`).
//     "received_at" is accepted and ignored: the service sets it.
//   - null means "not sent" for every optional field.
//   - request_id, parent_request_id: strings of 1 to 64 characters without
//     control characters.
//   - mode: ingest (default), proxy, sdk, vendor. status: ok (default),
//     error, blocked, rewritten, regenerated.
//   - started_at, finished_at: an RFC 3339 string (fractional seconds
//     optional, "Z" or a ±hh:mm offset; a string without a zone is read as
//     UTC), or epoch seconds as a JSON number (integer or fractional, not
//     negative). Milliseconds since the epoch are rejected as out of range.
//     Both must lie in 1970-01-01T00:00:00Z..9999-12-31T23:59:59Z and are
//     stored in UTC. started_at defaults to the time of receipt;
//     finished_at must not be before started_at.
//   - prompt_tokens, completion_tokens, total_tokens, latency_ms: integers
//     from 0 to 2^53-1 written without fraction or exponent. total_tokens is
//     computed when omitted, and must not be smaller than
//     prompt_tokens + completion_tokens when sent. latency_ms is computed
//     from the timestamps when omitted.
//   - cost_usd: a non-negative finite number; never estimated when omitted.
//     risk_score: a number from 0 to 1.
//   - final_decision: free-form string of at most 32 characters.
//   - provider, model, use_case, team_id, integration_id, end_user_id,
//     user_id, session_id: strings of at most 256 characters. prompt,
//     answer: strings of at most 1 MiB each.
//   - Strings must not contain U+0000 or an unpaired UTF-16 surrogate escape
//     (PostgreSQL cannot store the first; the second is not text).
//   - policy_hits: an array of at most 256 entries, each a policy id string
//     or an object {policy (required), severity, confidence (0 to 1), stage,
//     spans: [{start, end}] (at most 256, 0 <= start <= end)}.
//   - metadata: a JSON object, nested at most 10 levels deep (the object
//     itself is level 1), at most 256 top-level keys, at most 64 KiB as
//     compact JSON. It is stored compacted.
//
// The simple form requires prompt, answer, model (strings) and
// prompt_tokens, completion_tokens (integers) and accepts every other
// canonical field except these, which are ignored as DESIGN.md section 5
// decides: cost_usd, latency_ms (computed), risk_score, final_decision
// (always "pass"), policy_hits (filled by analysis) and mode (always ingest).
// Its request_id is generated (a "request_id": null is the simple form's too).
//
// # Duplicates in one batch
//
// The first valid occurrence of a request_id claims it; later valid
// occurrences are marked Duplicate (counted as skipped). A rejected event
// claims nothing.
package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/governance-gateway/gateway/schemas"
)

// Form is the body form of a POST /v1/events request.
type Form int

const (
	FormSimple Form = iota + 1
	FormSingle
	FormBatch
)

func (f Form) String() string {
	switch f {
	case FormSimple:
		return "simple"
	case FormSingle:
		return "single"
	case FormBatch:
		return "batch"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// MaxEvents is the largest batch (spec section 8).
const MaxEvents = 500

// ErrTooManyEvents rejects a batch of more than MaxEvents events: the caller
// answers 413.
var ErrTooManyEvents = errors.New("events: a batch holds at most 500 events")

// Item is one event of the body, in body order.
type Item struct {
	// Index is the position in the batch (0 for single/simple).
	Index int
	// RequestID is as sent (or generated for the simple form); "" when it
	// could not be read. A non-string request_id that is a short number or
	// boolean is reported as its JSON text.
	RequestID string
	// Envelope is valid only when Err == nil && !Duplicate. OrgID and AppID
	// are left empty for the caller.
	Envelope schemas.Envelope
	// Err non-nil means rejected; Err.Error() is the client-facing message
	// naming the field.
	Err error
	// Duplicate marks a later occurrence of a request_id already accepted
	// earlier in this body: counted as skipped.
	Duplicate bool
}

// Decoded is a decoded body.
type Decoded struct {
	Form  Form
	Items []Item
}

// Decode parses a POST /v1/events body. A non-nil error rejects the whole body
// (400, or 413 when errors.Is ErrTooManyEvents); per-event problems are in
// Items[i].Err and never reject neighbours. now is the time of receipt;
// newID generates the request_id of the simple form (it is called once per
// simple body and never otherwise). Every accepted item's Trace has passed
// schemas.(*Trace).Validate. Decode does not retain body; the strings of all
// items share one allocation the size of body, so holding any item keeps that
// much memory alive (the handler drops them once the records are produced).
func Decode(body []byte, now time.Time, newID func() string) (Decoded, error) {
	if !utf8.Valid(body) {
		return Decoded{}, fmt.Errorf("body is not valid UTF-8 at byte %d", invalidUTF8At(body))
	}
	now = now.UTC()
	d := decoder{s: scanner{b: body, arena: make([]byte, 0, len(body))}, now: now}
	s := &d.s
	if s.peek() != '{' {
		if s.err == nil && s.pos < len(body) && isValueStart(body[s.pos]) {
			return Decoded{}, errors.New("body must be a JSON object: " + acceptedForms)
		}
		s.fail("expected '{', found %s", s.found())
		return Decoded{}, s.err
	}

	// One pass over the top-level members: a batch is decoded in place; for
	// the other forms only the presence of the form-deciding keys is noted,
	// and the object is decoded again as an event (a single event is small
	// compared with a batch, so the second pass is cheap).
	var (
		isBatch, hasRequestID, hasPrompt, hasAnswer bool
		nullRequestID, hasOther                     bool
		otherKey                                    string
	)
	if s.openObject() {
		for s.err == nil {
			raw, esc := s.key()
			name := raw
			if esc {
				str, _ := s.decodeString(raw, esc)
				name = []byte(str)
			}
			switch string(name) {
			case "events":
				if isBatch {
					return Decoded{}, errors.New(`duplicate field "events"`)
				}
				isBatch = true
				if err := d.batch(); err != nil {
					return Decoded{}, err
				}
			default:
				switch string(name) {
				case "request_id":
					// null means "not sent" here too: it leaves the form to
					// prompt and answer.
					if s.peek() == 'n' {
						nullRequestID = true
					} else {
						hasRequestID = true
					}
				case "prompt":
					hasPrompt = true
				case "answer":
					hasAnswer = true
				}
				if !hasOther {
					hasOther, otherKey = true, string(name)
				}
				s.skipValue(2, nil)
			}
			if !s.more('}') {
				break
			}
		}
	}
	if s.err == nil {
		// Not peek: it answers 0 at the end and for a NUL byte alike.
		if s.ws(); s.pos < len(s.b) {
			s.fail("unexpected data after the JSON body, found %s", s.found())
		}
	}
	if s.err != nil {
		return Decoded{}, s.err
	}

	switch {
	case isBatch:
		if hasOther {
			return Decoded{}, fmt.Errorf(`unknown field %s in a batch body (a batch holds only "events")`, quoteKey(otherKey))
		}
		d.dedupe()
		return Decoded{Form: FormBatch, Items: d.items}, nil
	case hasRequestID:
		s.pos = 0
		it := d.event(0, false, "")
		return Decoded{Form: FormSingle, Items: []Item{it}}, s.err
	case hasPrompt && hasAnswer:
		s.pos = 0
		it := d.event(0, true, newID())
		return Decoded{Form: FormSimple, Items: []Item{it}}, s.err
	case nullRequestID:
		// Neither form: answered as a rejected canonical event, whose error
		// names request_id, rather than as an unknown body.
		s.pos = 0
		it := d.event(0, false, "")
		return Decoded{Form: FormSingle, Items: []Item{it}}, s.err
	}
	return Decoded{}, errors.New("body is not an accepted form: " + acceptedForms)
}

const acceptedForms = `send {"events": [...]} (a batch), a canonical event with "request_id", or a simple event with "prompt" and "answer"`

func isValueStart(c byte) bool {
	switch c {
	case '"', '[', 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

type decoder struct {
	s     scanner
	now   time.Time
	items []Item
	opt   *optionals // of the event being decoded
}

// optionals backs the pointer fields of one trace, so that they cost one
// allocation together instead of one each.
type optionals struct {
	finishedAt time.Time
	costUSD    float64
	riskScore  float64
	latencyMs  int64
}

func (d *decoder) optionals() *optionals {
	if d.opt == nil {
		d.opt = new(optionals)
	}
	return d.opt
}

// batch decodes the value of "events". A non-nil error rejects the body.
func (d *decoder) batch() error {
	s := &d.s
	c := s.peek()
	if c != '[' {
		if isValueStart(c) || c == '{' {
			return fmt.Errorf("events: must be an array of 1 to %d events, not %s", MaxEvents, valueKind(c))
		}
		s.fail("expected a JSON value, found %s", s.found())
		return s.err
	}
	if !s.openArray() {
		return fmt.Errorf("events: must contain at least one event (1 to %d)", MaxEvents)
	}
	// A guess from the body size avoids most regrowth of the Items slice
	// (each Item is large) without over-reserving for small batches.
	d.items = make([]Item, 0, min(MaxEvents, len(s.b)/256+1))
	for s.err == nil {
		if len(d.items) == MaxEvents {
			return ErrTooManyEvents
		}
		idx := len(d.items)
		if c := s.peek(); c != '{' {
			if !isValueStart(c) {
				s.fail("expected a JSON value, found %s", s.found())
				return s.err
			}
			s.skipValue(3, nil)
			d.items = append(d.items, Item{Index: idx, Err: fmt.Errorf("events[%d]: must be an event object, not %s", idx, valueKind(c))})
		} else {
			d.items = append(d.items, d.event(idx, false, ""))
		}
		if !s.more(']') {
			break
		}
	}
	return s.err
}

// dedupe marks later valid occurrences of an accepted request_id.
func (d *decoder) dedupe() {
	if len(d.items) < 2 {
		return
	}
	seen := make(map[string]struct{}, len(d.items))
	for i := range d.items {
		it := &d.items[i]
		if it.Err != nil {
			continue
		}
		if _, dup := seen[it.RequestID]; dup {
			it.Duplicate = true
			it.Envelope = schemas.Envelope{}
			continue
		}
		seen[it.RequestID] = struct{}{}
	}
}

// simpleIgnored are the fields the simple form accepts and ignores
// (DESIGN.md section 5).
const simpleIgnored = 1<<fCostUSD | 1<<fLatencyMs | 1<<fRiskScore | 1<<fFinalDecision | 1<<fPolicyHits | 1<<fMode | 1<<fReceivedAt

// simpleRequired are the fields the simple form requires (spec 4.4).
var simpleRequired = [...]fieldID{fPrompt, fAnswer, fModel, fPromptTokens, fCompletionTokens}

// event decodes one event object at pos (the caller has peeked '{'). It
// always consumes the object unless a syntax error stops the scanner. simple
// selects the simple form, whose request_id is id.
func (d *decoder) event(idx int, simple bool, id string) Item {
	s := &d.s
	it := Item{Index: idx, RequestID: id}
	t := &it.Envelope.Trace
	var (
		sent uint32 // fields present, null or not, for duplicate detection
		set  uint32 // fields present, not null and valid
		err  error  // first problem, in body order
	)
	note := func(e error) {
		if err == nil && e != nil {
			err = e
		}
	}
	d.opt = nil
	s.peek()
	if s.openObject() {
		for s.err == nil {
			raw, esc := s.key()
			if s.err != nil {
				break
			}
			f := lookupField(raw)
			if f == fUnknown && esc {
				// An escaped spelling of a known name is still that name.
				name, _ := s.decodeString(raw, esc)
				f = lookupField([]byte(name))
			}
			bit := uint32(1) << f
			switch {
			case f == fUnknown:
				if err == nil {
					name, _ := s.decodeString(raw, esc)
					note(fmt.Errorf("unknown field %s", quoteKey(name)))
				}
				s.skipValue(4, nil)
			case sent&bit != 0:
				note(fmt.Errorf("duplicate field %q", fieldNames[f]))
				s.skipValue(4, nil)
			case simple && (bit&simpleIgnored != 0 || f == fRequestID):
				// The simple form is chosen only when every request_id is
				// null, and its id is generated.
				sent |= bit
				s.skipValue(4, nil)
			default:
				sent |= bit
				isNull, e := d.field(f, t, &it)
				if !isNull && e == nil {
					set |= bit
				}
				note(e)
			}
			if !s.more('}') {
				break
			}
		}
	}
	if s.err != nil {
		return it
	}

	// Checks that need the whole event.
	if simple {
		for _, f := range simpleRequired {
			switch {
			case sent&(1<<f) == 0:
				note(fieldError(fieldNames[f], "is required"))
			case set&(1<<f) == 0:
				note(fieldError(fieldNames[f], "is required, not null"))
			}
		}
		t.RequestID = id
		t.FinalDecision = "pass"
		t.Mode = schemas.ModeIngest
		it.Envelope.Kind = schemas.KindSimpleEvent
	} else {
		if sent&(1<<fRequestID) == 0 {
			note(errors.New("request_id is required (1-64 characters)"))
		}
		it.Envelope.Kind = schemas.KindTrace
	}
	if set&(1<<fStartedAt) == 0 {
		t.StartedAt = d.now
	}
	if t.FinishedAt != nil && t.FinishedAt.Before(t.StartedAt) {
		if set&(1<<fStartedAt) == 0 {
			note(fieldError("finished_at", "must not be before started_at (started_at defaults to the time of receipt)"))
		} else {
			note(fieldError("finished_at", "must not be before started_at"))
		}
	}
	if set&(1<<fTotalTokens) != 0 && t.TotalTokens < t.PromptTokens+t.CompletionTokens {
		note(fieldError("total_tokens", "must be at least prompt_tokens + completion_tokens (%d)", t.PromptTokens+t.CompletionTokens))
	}
	if err == nil {
		if t.LatencyMs == nil && t.FinishedAt != nil {
			// What Derive would do, without its allocation.
			o := d.optionals()
			o.latencyMs = t.FinishedAt.Sub(t.StartedAt).Milliseconds()
			t.LatencyMs = &o.latencyMs
		}
		t.Derive()
		t.ReceivedAt = d.now
		it.Envelope.SchemaVersion = schemas.EnvelopeVersion
		it.Envelope.ReceivedAt = d.now
		// The shared contract has the last word: a record failing it would
		// be dead-lettered by every processor.
		note(t.Validate())
	}
	if err != nil {
		it.Err = err
		it.Envelope = schemas.Envelope{}
	}
	return it
}

// problem turns a reader's problem into a field error.
func problem(field, p string) error {
	if p == "" {
		return nil
	}
	return errors.New(field + ": " + p)
}

// field decodes the value of field f into t.
func (d *decoder) field(f fieldID, t *schemas.Trace, it *Item) (isNull bool, err error) {
	s := &d.s
	var p string
	switch f {
	case fRequestID:
		return d.requestID(t, it)
	case fParentRequestID:
		var v string
		if v, isNull, p = s.readStringField(0, 0); p == "" && !isNull {
			if schemas.ValidateRequestID(v) != nil {
				p = fmt.Sprintf("must be a string of 1 to %d characters without control characters", schemas.MaxRequestIDLen)
			}
			t.ParentRequestID = v
		}
	case fMode:
		if t.Mode, isNull, p = s.readStringField(0, 0); p == "" && !isNull && !schemas.ValidMode(t.Mode) {
			p = "must be one of ingest, proxy, sdk, vendor"
		}
	case fStatus:
		if t.Status, isNull, p = s.readStringField(0, 0); p == "" && !isNull && !schemas.ValidStatus(t.Status) {
			p = "must be one of ok, error, blocked, rewritten, regenerated"
		}
	case fStartedAt:
		t.StartedAt, isNull, p = s.readTime()
	case fFinishedAt:
		var v time.Time
		if v, isNull, p = s.readTime(); p == "" && !isNull {
			o := d.optionals()
			o.finishedAt = v
			t.FinishedAt = &o.finishedAt
		}
	case fProvider:
		t.Provider, isNull, p = s.readStringField(MaxDimensionChars, 0)
	case fModel:
		t.Model, isNull, p = s.readStringField(MaxDimensionChars, 0)
	case fUseCase:
		t.UseCase, isNull, p = s.readStringField(MaxDimensionChars, 0)
	case fTeamID:
		t.TeamID, isNull, p = s.readStringField(MaxDimensionChars, 0)
	case fIntegrationID:
		t.IntegrationID, isNull, p = s.readStringField(MaxDimensionChars, 0)
	case fEndUserID:
		t.EndUserID, isNull, p = s.readStringField(MaxDimensionChars, 0)
	case fUserID:
		t.UserID, isNull, p = s.readStringField(MaxDimensionChars, 0)
	case fSessionID:
		t.SessionID, isNull, p = s.readStringField(MaxDimensionChars, 0)
	case fFinalDecision:
		t.FinalDecision, isNull, p = s.readStringField(MaxFinalDecisionChars, 0)
	case fPrompt:
		t.Prompt, isNull, p = s.readStringField(0, MaxTextBytes)
	case fAnswer:
		t.Answer, isNull, p = s.readStringField(0, MaxTextBytes)
	case fPromptTokens:
		t.PromptTokens, isNull, p = s.readCount()
	case fCompletionTokens:
		t.CompletionTokens, isNull, p = s.readCount()
	case fTotalTokens:
		t.TotalTokens, isNull, p = s.readCount()
	case fLatencyMs:
		var v int64
		if v, isNull, p = s.readCount(); p == "" && !isNull {
			o := d.optionals()
			o.latencyMs = v
			t.LatencyMs = &o.latencyMs
		}
	case fCostUSD:
		const rule = "must be a non-negative number"
		var v float64
		if v, isNull, p = s.readFloat(rule); p == "" && !isNull {
			if v < 0 {
				p = rule
			}
			o := d.optionals()
			o.costUSD = v
			t.CostUSD = &o.costUSD
		}
	case fRiskScore:
		const rule = "must be a number between 0 and 1"
		var v float64
		if v, isNull, p = s.readFloat(rule); p == "" && !isNull {
			if v < 0 || v > 1 {
				p = rule
			}
			o := d.optionals()
			o.riskScore = v
			t.RiskScore = &o.riskScore
		}
	case fPolicyHits:
		return d.policyHits(t)
	case fMetadata:
		return d.metadata(t)
	case fReceivedAt:
		s.skipValue(4, nil) // set by the service
	}
	return isNull, problem(fieldNames[f], p)
}

// requestID decodes request_id, keeping what was sent in it.RequestID even
// when it is invalid, so the client can match the rejection.
func (d *decoder) requestID(t *schemas.Trace, it *Item) (bool, error) {
	s := &d.s
	const rule = "request_id: must be a string of 1 to 64 characters"
	switch c := s.peek(); c {
	case '"':
		raw, esc := s.readString()
		if s.err != nil {
			return false, nil
		}
		v, p := s.keep(raw, esc)
		if p != "" {
			return false, problem("request_id", p)
		}
		it.RequestID = v
		if err := schemas.ValidateRequestID(v); err != nil {
			return false, err
		}
		t.RequestID = v
		return false, nil
	case 'n':
		s.literal()
		return true, errors.New(rule + ", not null")
	default:
		start := s.pos
		s.skipValue(4, nil)
		if s.err == nil && c != '{' && c != '[' && s.pos-start <= schemas.MaxRequestIDLen {
			it.RequestID = string(s.b[start:s.pos])
		}
		return false, errors.New(rule + ", not " + valueKind(c))
	}
}

func (d *decoder) policyHits(t *schemas.Trace) (bool, error) {
	s := &d.s
	switch c := s.peek(); c {
	case 'n':
		s.literal()
		return true, nil
	case '[':
	default:
		s.skipValue(4, nil)
		return false, problem("policy_hits", "must be an array, not "+valueKind(c))
	}
	hits := []schemas.PolicyHit{}
	var err error
	if s.openArray() {
		for i := 0; s.err == nil; i++ {
			if i == MaxPolicyHits && err == nil {
				err = fieldError("policy_hits", "must have at most %d entries", MaxPolicyHits)
			}
			h, sub, p := d.policyHit()
			if err == nil && p != "" {
				err = fieldError(fmt.Sprintf("policy_hits[%d]%s", i, sub), "%s", p)
			}
			if err == nil {
				hits = append(hits, h)
			}
			if !s.more(']') {
				break
			}
		}
	}
	if err != nil {
		return false, err
	}
	t.PolicyHits = hits
	return false, nil
}

// policyHit decodes one policy_hits entry: a policy id string or an object.
// A problem comes with the sub-field it concerns (".policy", "" for the
// entry itself).
func (d *decoder) policyHit() (h schemas.PolicyHit, sub, p string) {
	s := &d.s
	switch c := s.peek(); c {
	case '"':
		h.Policy, _, p = s.readStringField(MaxDimensionChars, 0)
		if p == "" && h.Policy == "" {
			p = "policy id must not be empty"
		}
		return h, "", p
	case '{':
	default:
		if !isValueStart(c) {
			s.fail("expected a JSON value, found %s", s.found())
			return h, "", ""
		}
		s.skipValue(5, nil)
		return h, "", `must be a policy id string or an object with "policy", not ` + valueKind(c)
	}
	note := func(k, q string) {
		if p == "" && q != "" {
			sub, p = k, q
		}
	}
	var seen uint8
	if s.openObject() {
		for s.err == nil {
			raw, _ := s.key()
			var bit uint8
			k := ""
			switch string(raw) {
			case "policy":
				bit, k = 1, ".policy"
			case "severity":
				bit, k = 2, ".severity"
			case "stage":
				bit, k = 4, ".stage"
			case "confidence":
				bit, k = 8, ".confidence"
			case "spans":
				bit, k = 16, ".spans"
			}
			switch {
			case bit == 0:
				note("", "unknown field "+quoteKey(string(raw)))
				s.skipValue(6, nil)
			case seen&bit != 0:
				note("", fmt.Sprintf("duplicate field %q", k[1:]))
				s.skipValue(6, nil)
			default:
				seen |= bit
				var q string
				switch bit {
				case 1:
					h.Policy, _, q = s.readStringField(MaxDimensionChars, 0)
				case 2:
					h.Severity, _, q = s.readStringField(MaxDimensionChars, 0)
				case 4:
					h.Stage, _, q = s.readStringField(MaxDimensionChars, 0)
				case 8:
					const rule = "must be a number between 0 and 1"
					if h.Confidence, _, q = s.readFloat(rule); q == "" && (h.Confidence < 0 || h.Confidence > 1) {
						q = rule
					}
				case 16:
					var spanSub string
					h.Spans, spanSub, q = d.spans()
					k += spanSub
				}
				note(k, q)
			}
			if !s.more('}') {
				break
			}
		}
	}
	if p == "" && h.Policy == "" {
		sub, p = ".policy", "is required (a non-empty string)"
	}
	return h, sub, p
}

// spans decodes the spans of a policy hit; a problem comes with the element
// it concerns ("[2].end").
func (d *decoder) spans() (spans []schemas.Span, sub, p string) {
	s := &d.s
	switch c := s.peek(); c {
	case 'n':
		s.literal()
		return nil, "", ""
	case '[':
	default:
		s.skipValue(6, nil)
		return nil, "", "must be an array of {start, end}, not " + valueKind(c)
	}
	if !s.openArray() {
		return nil, "", ""
	}
	for i := 0; s.err == nil; i++ {
		if i == MaxSpans && p == "" {
			p = fmt.Sprintf("must have at most %d entries", MaxSpans)
		}
		sp, q := d.span()
		if p == "" && q != "" {
			sub, p = fmt.Sprintf("[%d]", i), q
		}
		if p == "" {
			spans = append(spans, sp)
		}
		if !s.more(']') {
			break
		}
	}
	if p != "" {
		spans = nil
	}
	return spans, sub, p
}

func (d *decoder) span() (sp schemas.Span, p string) {
	s := &d.s
	const rule = "must be an object {start, end} of integers with 0 <= start <= end"
	if c := s.peek(); c != '{' {
		if !isValueStart(c) {
			s.fail("expected a JSON value, found %s", s.found())
			return sp, ""
		}
		s.skipValue(7, nil)
		return sp, rule + ", not " + valueKind(c)
	}
	var seen uint8
	if s.openObject() {
		for s.err == nil {
			raw, _ := s.key()
			var bit uint8
			var dst *int
			switch string(raw) {
			case "start":
				bit, dst = 1, &sp.Start
			case "end":
				bit, dst = 2, &sp.End
			}
			switch {
			case dst == nil:
				if p == "" {
					p = "unknown field " + quoteKey(string(raw))
				}
				s.skipValue(8, nil)
			case seen&bit != 0:
				if p == "" {
					p = "duplicate field " + quoteKey(string(raw))
				}
				s.skipValue(8, nil)
			default:
				seen |= bit
				v, isNull, q := s.readCount()
				if q == "" && isNull {
					q = "must be a non-negative integer, not null"
				}
				if p == "" && q != "" {
					p = string(raw) + ": " + q
				}
				*dst = int(v)
			}
			if !s.more('}') {
				break
			}
		}
	}
	if p == "" && (seen != 3 || sp.Start > sp.End) {
		p = rule
	}
	return sp, p
}

var tooBig = fmt.Sprintf("must be at most %d bytes as compact JSON", MaxMetadataBytes)

// metadata checks the metadata object and keeps it as compact JSON.
func (d *decoder) metadata(t *schemas.Trace) (bool, error) {
	s := &d.s
	switch c := s.peek(); c {
	case 'n':
		s.literal()
		return true, nil
	case '{':
	default:
		s.skipValue(4, nil)
		return false, problem("metadata", "must be a JSON object, not "+valueKind(c))
	}
	start := s.pos
	s.spaced = false
	st := valueStats{maxDepth: 1}
	keys := 0
	if s.openObject() {
		for s.err == nil {
			raw, esc := s.key()
			keys++
			if esc && st.problem == "" {
				st.problem = s.stringProblem(raw, esc)
			}
			s.skipValue(2, &st)
			if !s.more('}') {
				break
			}
		}
	}
	if s.err != nil {
		return false, nil
	}
	raw := s.b[start:s.pos]
	switch {
	case st.problem != "":
		return false, problem("metadata", st.problem)
	case st.maxDepth > MaxMetadataDepth:
		return false, fieldError("metadata", "must be nested at most %d levels deep", MaxMetadataDepth)
	case keys > MaxMetadataKeys:
		return false, fieldError("metadata", "must have at most %d top-level keys", MaxMetadataKeys)
	case !s.spaced && len(raw) > MaxMetadataBytes:
		return false, problem("metadata", tooBig)
	}
	var out []byte
	if s.spaced {
		var buf bytes.Buffer
		buf.Grow(len(raw))
		if err := json.Compact(&buf, raw); err != nil {
			// Unreachable: the scanner has checked the grammar.
			return false, fmt.Errorf("metadata: %w", err)
		}
		out = buf.Bytes()
	} else {
		out = append([]byte(nil), raw...)
	}
	if len(out) > MaxMetadataBytes {
		return false, problem("metadata", tooBig)
	}
	t.Metadata = out
	return false, nil
}
