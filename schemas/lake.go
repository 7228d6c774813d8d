package schemas

import "time"

// LakeSchemaVersion is the version of the lake row layout (LakeRowV1). The
// lake writer stores it in every Parquet file's key/value metadata under
// LakeSchemaVersionKey, so readers can tell layouts apart without guessing
// from columns. Bump it (and add LakeRowV2) for any change other than
// appending a new optional column.
const LakeSchemaVersion = 1

// LakeSchemaVersionKey is the Parquet key/value metadata key holding
// LakeSchemaVersion as decimal text.
const LakeSchemaVersionKey = "gateway.lake.schema_version"

// LakeRowV1 is one trace as stored in the Parquet lake (DESIGN.md section 7):
// every Trace field as a column plus the tenant and log-position columns.
//
// Column conventions, so DuckDB, Spark, pyarrow and Trino read it without
// configuration:
//   - timestamps are TIMESTAMP(MICROS, isAdjustedToUTC=true): sub-microsecond
//     precision and the original zone offset are not kept;
//   - optional numbers (cost_usd, latency_ms, risk_score) and finished_at are
//     optional columns, NULL when the trace had nil;
//   - optional strings are optional columns, NULL when the trace had "";
//   - metadata is the trace's metadata JSON as UTF-8 text (NULL when absent);
//   - policy_hits is a LIST of struct {policy, severity, confidence, stage},
//     NULL when the trace had a nil slice. Spans are NOT stored in the lake:
//     they are offsets into prompt/answer useful to the console, not to
//     analytics, and the query store keeps them.
//
// Hive partitioning adds the date=YYYY-MM-DD directory (UTC date of
// received_at) as a virtual column; it is not a field of the file.
type LakeRowV1 struct {
	OrgID        string `parquet:"org_id,dict"`
	AppID        string `parquet:"app_id,optional,dict"`
	LogPartition int32  `parquet:"log_partition"`
	LogOffset    int64  `parquet:"log_offset"`

	RequestID        string            `parquet:"request_id"`
	ParentRequestID  string            `parquet:"parent_request_id,optional"`
	Mode             string            `parquet:"mode,dict"`
	StartedAt        time.Time         `parquet:"started_at,timestamp(microsecond:utc)"`
	FinishedAt       *time.Time        `parquet:"finished_at,optional,timestamp(microsecond:utc)"`
	Provider         string            `parquet:"provider,optional,dict"`
	Model            string            `parquet:"model,optional,dict"`
	UseCase          string            `parquet:"use_case,optional,dict"`
	TeamID           string            `parquet:"team_id,optional,dict"`
	IntegrationID    string            `parquet:"integration_id,optional,dict"`
	EndUserID        string            `parquet:"end_user_id,optional"`
	UserID           string            `parquet:"user_id,optional"`
	SessionID        string            `parquet:"session_id,optional"`
	PromptTokens     int64             `parquet:"prompt_tokens"`
	CompletionTokens int64             `parquet:"completion_tokens"`
	TotalTokens      int64             `parquet:"total_tokens"`
	CostUSD          *float64          `parquet:"cost_usd,optional"`
	LatencyMs        *int64            `parquet:"latency_ms,optional"`
	Status           string            `parquet:"status,dict"`
	FinalDecision    string            `parquet:"final_decision,optional,dict"`
	RiskScore        *float64          `parquet:"risk_score,optional"`
	PolicyHits       []LakePolicyHitV1 `parquet:"policy_hits,optional,list"`
	Prompt           string            `parquet:"prompt,optional"`
	Answer           string            `parquet:"answer,optional"`
	Metadata         string            `parquet:"metadata,optional"`
	ReceivedAt       time.Time         `parquet:"received_at,timestamp(microsecond:utc)"`
}

// LakePolicyHitV1 is one element of LakeRowV1.PolicyHits: a PolicyHit
// without its spans.
type LakePolicyHitV1 struct {
	Policy     string  `parquet:"policy"`
	Severity   string  `parquet:"severity,optional"`
	Confidence float64 `parquet:"confidence"`
	Stage      string  `parquet:"stage,optional"`
}
