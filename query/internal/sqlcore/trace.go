package sqlcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// traceColumns is the column order of the traces table used by every insert
// and select. Both migrations must define these columns.
var traceColumns = []string{
	"org_id", "request_id", "app_id", "parent_request_id", "mode",
	"started_at", "finished_at", "provider", "model", "use_case",
	"team_id", "integration_id", "end_user_id", "user_id", "session_id",
	"prompt_tokens", "completion_tokens", "total_tokens", "cost_usd", "latency_ms",
	"status", "final_decision", "risk_score", "policy_hits", "prompt",
	"answer", "metadata", "received_at", "log_partition", "log_offset",
}

var traceSelectList = strings.Join(traceColumns, ", ")

// traceArgs appends the column values of r in traceColumns order.
func (d *Dialect) traceArgs(dst []any, r *query.TraceRow) ([]any, error) {
	t := &r.Trace
	if d.NoNUL && traceHasNUL(t) {
		c := withoutNUL(*t)
		t = &c
	}
	var finished, hits, meta any
	if t.FinishedAt != nil {
		finished = d.TimeArg(*t.FinishedAt)
	}
	if t.PolicyHits != nil && len(t.PolicyHits) == 0 { // the common case, without the encoder
		hits = "[]"
	} else if t.PolicyHits != nil {
		b, err := json.Marshal(t.PolicyHits)
		if err != nil {
			return dst, fmt.Errorf("encode policy_hits of %q: %w", t.RequestID, err)
		}
		hits = string(b)
	}
	if len(t.Metadata) > 0 {
		if !json.Valid(t.Metadata) {
			return dst, fmt.Errorf("metadata of %q is not valid JSON", t.RequestID)
		}
		meta = string(t.Metadata)
	}
	var cost, latency, risk any
	if t.CostUSD != nil {
		cost = *t.CostUSD
	}
	if t.LatencyMs != nil {
		latency = *t.LatencyMs
	}
	if t.RiskScore != nil {
		risk = *t.RiskScore
	}
	return append(dst,
		r.OrgID, t.RequestID, r.AppID, t.ParentRequestID, t.Mode,
		d.TimeArg(t.StartedAt), finished, t.Provider, t.Model, t.UseCase,
		t.TeamID, t.IntegrationID, t.EndUserID, t.UserID, t.SessionID,
		t.PromptTokens, t.CompletionTokens, t.TotalTokens, cost, latency,
		t.Status, t.FinalDecision, risk, hits, t.Prompt,
		t.Answer, meta, d.TimeArg(t.ReceivedAt), r.Partition, r.Offset,
	), nil
}

// scanTrace reads one row selected with traceSelectList.
func scanTrace(rows Rows) (query.TraceRow, error) {
	var (
		r                           query.TraceRow
		started, finished, received NullTime
		hits, meta                  []byte
	)
	t := &r.Trace
	err := rows.Scan(
		&r.OrgID, &t.RequestID, &r.AppID, &t.ParentRequestID, &t.Mode,
		&started, &finished, &t.Provider, &t.Model, &t.UseCase,
		&t.TeamID, &t.IntegrationID, &t.EndUserID, &t.UserID, &t.SessionID,
		&t.PromptTokens, &t.CompletionTokens, &t.TotalTokens, &t.CostUSD, &t.LatencyMs,
		&t.Status, &t.FinalDecision, &t.RiskScore, &hits, &t.Prompt,
		&t.Answer, &meta, &received, &r.Partition, &r.Offset,
	)
	if err != nil {
		return r, fmt.Errorf("scan trace: %w", err)
	}
	t.StartedAt, t.FinishedAt, t.ReceivedAt = started.Time, finished.Ptr(), received.Time
	if hits != nil {
		if err := json.Unmarshal(hits, &t.PolicyHits); err != nil {
			return r, fmt.Errorf("decode policy_hits of %q: %w", t.RequestID, err)
		}
		if t.PolicyHits == nil { // "[]" stays an empty, non-nil slice
			t.PolicyHits = []schemas.PolicyHit{}
		}
	}
	if meta != nil {
		t.Metadata = meta
	}
	return r, nil
}

// replacementChar stands in for NUL where the engine cannot store it.
const replacementChar = "\uFFFD"

var jsonNUL = []byte(`\u0000`)

func traceHasNUL(t *schemas.Trace) bool {
	if bytes.Contains(t.Metadata, jsonNUL) {
		return true
	}
	for _, s := range []string{t.ParentRequestID, t.Provider, t.Model, t.UseCase, t.TeamID, t.IntegrationID,
		t.EndUserID, t.UserID, t.SessionID, t.FinalDecision, t.Prompt, t.Answer} {
		if strings.IndexByte(s, 0) >= 0 {
			return true
		}
	}
	for _, h := range t.PolicyHits {
		if strings.IndexByte(h.Policy+h.Severity+h.Stage, 0) >= 0 {
			return true
		}
	}
	return false
}

// withoutNUL returns a copy of t with every NUL replaced by U+FFFD.
func withoutNUL(t schemas.Trace) schemas.Trace {
	fix := func(s string) string { return strings.ReplaceAll(s, "\x00", replacementChar) }
	for _, p := range []*string{&t.ParentRequestID, &t.Provider, &t.Model, &t.UseCase, &t.TeamID, &t.IntegrationID,
		&t.EndUserID, &t.UserID, &t.SessionID, &t.FinalDecision, &t.Prompt, &t.Answer} {
		*p = fix(*p)
	}
	if t.PolicyHits != nil {
		hits := make([]schemas.PolicyHit, len(t.PolicyHits))
		for i, h := range t.PolicyHits {
			h.Policy, h.Severity, h.Stage = fix(h.Policy), fix(h.Severity), fix(h.Stage)
			hits[i] = h
		}
		t.PolicyHits = hits
	}
	if bytes.Contains(t.Metadata, jsonNUL) {
		var v any
		if json.Unmarshal(t.Metadata, &v) == nil {
			if b, err := json.Marshal(fixJSON(v, fix)); err == nil {
				t.Metadata = b
			}
		}
	}
	return t
}

// fixJSON applies fix to every string and object key of a decoded JSON value.
func fixJSON(v any, fix func(string) string) any {
	switch x := v.(type) {
	case string:
		return fix(x)
	case []any:
		for i := range x {
			x[i] = fixJSON(x[i], fix)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fix(k)] = fixJSON(e, fix)
		}
		return out
	}
	return v
}

// traceArrays returns the rows of idx as one typed array per column, in
// traceColumns order, for a single "INSERT ... SELECT FROM unnest(...)"
// (Dialect.ArrayTypes). Values come from traceArgs, so both insert shapes
// encode a trace identically.
func (d *Dialect) traceArrays(rows []query.TraceRow, idx []int) ([]any, error) {
	n := len(idx)
	cols := make([]any, len(traceColumns))
	one := make([]any, 0, len(traceColumns))
	for pos, i := range idx {
		var err error
		if one, err = d.traceArgs(one[:0], &rows[i]); err != nil {
			return nil, err
		}
		for c, v := range one {
			if err := setArray(&cols[c], c, n, pos, v); err != nil {
				return nil, err
			}
		}
	}
	// A column that was NULL in every row still gets its typed array.
	for c := range cols {
		if cols[c] == nil {
			switch traceColumns[c] {
			case "finished_at":
				cols[c] = make([]*time.Time, n)
			case "cost_usd", "risk_score":
				cols[c] = make([]*float64, n)
			case "latency_ms":
				cols[c] = make([]*int64, n)
			default: // policy_hits, metadata
				cols[c] = make([]*string, n)
			}
		}
	}
	return cols, nil
}

// setArray stores v at pos of column c's array, allocating the array on the
// first non-NULL value with the element type of v. NULL is a nil pointer.
func setArray(col *any, c, n, pos int, v any) error {
	switch x := v.(type) {
	case nil:
		switch a := (*col).(type) {
		case nil:
			return nil // decided by a later row, or []*string if none
		case []*string, []*time.Time, []*int64, []*float64:
			return nil // the zero element is already nil
		default:
			return fmt.Errorf("column %s: NULL in a non-null column (%T)", traceColumns[c], a)
		}
	case string:
		return put(col, n, pos, x, c)
	case int64:
		return put(col, n, pos, x, c)
	case int32:
		return put(col, n, pos, x, c)
	case time.Time:
		return put(col, n, pos, x, c)
	case float64:
		return putPtr(col, n, pos, x, c)
	}
	return fmt.Errorf("column %s: unsupported value type %T", traceColumns[c], v)
}

// put stores a value of a column that is never NULL, except that string,
// int64 and time columns holding NULLs elsewhere use pointer arrays.
func put[T any](col *any, n, pos int, v T, c int) error {
	if nullable[c] {
		return putPtr(col, n, pos, v, c)
	}
	if *col == nil {
		*col = make([]T, n)
	}
	a, ok := (*col).([]T)
	if !ok {
		return fmt.Errorf("column %s: mixed value types", traceColumns[c])
	}
	a[pos] = v
	return nil
}

func putPtr[T any](col *any, n, pos int, v T, c int) error {
	if *col == nil {
		*col = make([]*T, n)
	}
	a, ok := (*col).([]*T)
	if !ok {
		return fmt.Errorf("column %s: mixed value types", traceColumns[c])
	}
	a[pos] = &v
	return nil
}

// nullable marks the traceColumns that may be NULL.
var nullable = func() []bool {
	out := make([]bool, len(traceColumns))
	for i, c := range traceColumns {
		switch c {
		case "finished_at", "cost_usd", "latency_ms", "risk_score", "policy_hits", "metadata":
			out[i] = true
		}
	}
	return out
}()
