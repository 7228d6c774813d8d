package lake

import (
	"encoding/json"
	"time"
	"unsafe"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// toLakeRow converts r without copying its strings or pointers: the result
// aliases r (including Metadata's bytes) and must not outlive the WriteChunk
// call that made it. Policy hits are appended to *hits so one backing array
// serves a whole chunk.
func toLakeRow(r *query.TraceRow, hits *[]schemas.LakePolicyHitV1) schemas.LakeRowV1 {
	t := &r.Trace
	lr := schemas.LakeRowV1{
		OrgID:            r.OrgID,
		AppID:            r.AppID,
		LogPartition:     r.Partition,
		LogOffset:        r.Offset,
		RequestID:        t.RequestID,
		ParentRequestID:  t.ParentRequestID,
		Mode:             t.Mode,
		StartedAt:        t.StartedAt,
		FinishedAt:       t.FinishedAt,
		Provider:         t.Provider,
		Model:            t.Model,
		UseCase:          t.UseCase,
		TeamID:           t.TeamID,
		IntegrationID:    t.IntegrationID,
		EndUserID:        t.EndUserID,
		UserID:           t.UserID,
		SessionID:        t.SessionID,
		PromptTokens:     t.PromptTokens,
		CompletionTokens: t.CompletionTokens,
		TotalTokens:      t.TotalTokens,
		CostUSD:          t.CostUSD,
		LatencyMs:        t.LatencyMs,
		Status:           t.Status,
		FinalDecision:    t.FinalDecision,
		RiskScore:        t.RiskScore,
		Prompt:           t.Prompt,
		Answer:           t.Answer,
		ReceivedAt:       t.ReceivedAt,
	}
	if len(t.Metadata) > 0 {
		// Zero-copy: the bytes are only read while the file is encoded.
		lr.Metadata = unsafe.String(unsafe.SliceData(t.Metadata), len(t.Metadata))
	}
	if t.PolicyHits != nil {
		start := len(*hits)
		for i := range t.PolicyHits {
			h := &t.PolicyHits[i]
			*hits = append(*hits, schemas.LakePolicyHitV1{
				Policy: h.Policy, Severity: h.Severity, Confidence: h.Confidence, Stage: h.Stage,
			})
		}
		// Full slice expression: non-nil even when empty (an empty list is
		// not NULL), and appends by a later row cannot write into it.
		lr.PolicyHits = (*hits)[start:len(*hits):len(*hits)]
	}
	return lr
}

// fromLakeRow converts a lake row back; the result owns its memory.
// Timestamps come back in UTC at microsecond precision; spans are not stored.
func fromLakeRow(lr *schemas.LakeRowV1) query.TraceRow {
	t := schemas.Trace{
		RequestID:        lr.RequestID,
		ParentRequestID:  lr.ParentRequestID,
		Mode:             lr.Mode,
		StartedAt:        lr.StartedAt.UTC(),
		Provider:         lr.Provider,
		Model:            lr.Model,
		UseCase:          lr.UseCase,
		TeamID:           lr.TeamID,
		IntegrationID:    lr.IntegrationID,
		EndUserID:        lr.EndUserID,
		UserID:           lr.UserID,
		SessionID:        lr.SessionID,
		PromptTokens:     lr.PromptTokens,
		CompletionTokens: lr.CompletionTokens,
		TotalTokens:      lr.TotalTokens,
		CostUSD:          lr.CostUSD,
		LatencyMs:        lr.LatencyMs,
		Status:           lr.Status,
		FinalDecision:    lr.FinalDecision,
		RiskScore:        lr.RiskScore,
		Prompt:           lr.Prompt,
		Answer:           lr.Answer,
		ReceivedAt:       lr.ReceivedAt.UTC(),
	}
	if lr.FinishedAt != nil {
		f := lr.FinishedAt.UTC()
		t.FinishedAt = &f
	}
	if lr.Metadata != "" {
		t.Metadata = json.RawMessage(lr.Metadata)
	}
	if lr.PolicyHits != nil {
		t.PolicyHits = make([]schemas.PolicyHit, len(lr.PolicyHits))
		for i, h := range lr.PolicyHits {
			t.PolicyHits[i] = schemas.PolicyHit{Policy: h.Policy, Severity: h.Severity, Confidence: h.Confidence, Stage: h.Stage}
		}
	}
	return query.TraceRow{OrgID: lr.OrgID, AppID: lr.AppID, Trace: t, Partition: lr.LogPartition, Offset: lr.LogOffset}
}

// dayOf is the UTC calendar date of ts, as days since the Unix epoch.
func dayOf(ts time.Time) int64 {
	s := ts.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d--
	}
	return d
}

// dateDirName is the hive partition directory of a day: date=YYYY-MM-DD.
func dateDirName(day int64) string {
	return "date=" + time.Unix(day*86400, 0).UTC().Format(time.DateOnly)
}
