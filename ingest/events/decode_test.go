package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/schemas"
)

var testNow = time.Date(2025, 3, 4, 5, 6, 7, 890000000, time.UTC)

func fixedID() string { return "generated-id" }

func decode(t *testing.T, body string) (Decoded, error) {
	t.Helper()
	return Decode([]byte(body), testNow, fixedID)
}

// batchOf builds {"events":[...]} from n copies of gen(i).
func batchOf(n int, gen func(i int) string) string {
	var b strings.Builder
	b.WriteString(`{"events":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(gen(i))
	}
	b.WriteString(`]}`)
	return b.String()
}

func TestDecodeWholeBodyErrors(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantErr string
		tooMany bool
	}{
		{"empty body", ``, "invalid JSON at byte 0: expected '{', found end of input", false},
		{"malformed JSON", `{"events": [{"request_id": "a",}]}`, "invalid JSON at byte 31", false},
		{"truncated", `{"events": [{"request_id": "a"}`, "invalid JSON", false},
		{"unterminated string", `{"request_id": "a`, "unterminated string", false},
		{"bad escape", `{"request_id": "a\x"}`, `invalid escape '\x'`, false},
		{"raw control character in string", "{\"request_id\": \"a\tb\"}", "unescaped control character 0x09", false},
		{"leading zero", `{"request_id": "a", "prompt_tokens": 01}`, "expected ',' or '}'", false},
		{"bare dot number", `{"request_id": "a", "cost_usd": 1.}`, "expected a digit after '.'", false},
		{"trailing data", `{"request_id": "a"} {}`, "unexpected data after the JSON body", false},
		{"trailing NUL byte", "{\"request_id\": \"a\"}\x00", "unexpected data after the JSON body, found byte 0x00", false},
		{"NUL byte after trailing space", "{\"request_id\": \"a\"} \x00", "unexpected data after the JSON body, found byte 0x00", false},
		{"trailing comma in object", `{"request_id": "a",}`, "expected a string object key", false},
		{"top-level array", `[{"request_id": "a"}]`, "body must be a JSON object", false},
		{"top-level string", `"hello"`, "body must be a JSON object", false},
		{"no form keys", `{"model": "m"}`, "body is not an accepted form", false},
		{"prompt without answer", `{"prompt": "p", "model": "m"}`, "body is not an accepted form", false},
		{"empty object", `{}`, "body is not an accepted form", false},
		{"empty batch", `{"events": []}`, "events: must contain at least one event", false},
		{"events not an array", `{"events": {"request_id": "a"}}`, "events: must be an array of 1 to 500 events, not an object", false},
		{"events null", `{"events": null}`, "events: must be an array of 1 to 500 events, not null", false},
		{"batch with another member", `{"events": [{"request_id": "a"}], "request_id": "b"}`, `unknown field "request_id" in a batch body`, false},
		{"events twice", `{"events": [{"request_id": "a"}], "events": [{"request_id": "b"}]}`, `duplicate field "events"`, false},
		{"501 events", batchOf(501, func(i int) string { return fmt.Sprintf(`{"request_id":"r%d"}`, i) }), "at most 500 events", true},
		{"invalid UTF-8 in a string", "{\"request_id\": \"a\xff\"}", "body is not valid UTF-8 at byte 17", false},
		{"invalid UTF-8 in metadata", "{\"request_id\": \"a\", \"metadata\": {\"k\": \"\xc3\x28\"}}", "not valid UTF-8", false},
		{"truncated UTF-8 sequence at end", "{\"prompt\": \"a\", \"answer\": \"\xe2\x82\"}", "not valid UTF-8", false},
		{"nesting too deep", `{"request_id": "a", "x": ` + strings.Repeat("[", 1200) + strings.Repeat("]", 1200) + `}`, "nested deeper than 1000 levels", false},
		{"invalid literal", `{"request_id": "a", "cost_usd": nul}`, "invalid literal", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := decode(t, tt.body)
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.wantErr)
			require.Equal(t, tt.tooMany, errors.Is(err, ErrTooManyEvents))
			require.Empty(t, d.Items)
		})
	}
}

func TestDecodeBatchLimits(t *testing.T) {
	for _, n := range []int{1, 2, 500} {
		d, err := decode(t, batchOf(n, func(i int) string { return fmt.Sprintf(`{"request_id":"r%d"}`, i) }))
		require.NoError(t, err)
		require.Equal(t, FormBatch, d.Form)
		require.Len(t, d.Items, n)
		for i, it := range d.Items {
			require.NoError(t, it.Err)
			require.Equal(t, i, it.Index)
			require.Equal(t, fmt.Sprintf("r%d", i), it.RequestID)
		}
	}
}

// TestDecodeEventRules runs one row per field rule against a single canonical
// event {"request_id": "r1", <fields>}.
func TestDecodeEventRules(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name    string
		fields  string // JSON members after request_id, with leading comma
		wantErr string // "" = accepted
		check   func(t *testing.T, tr schemas.Trace)
	}{
		// defaults and derivation
		{"defaults", ``, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, schemas.ModeIngest, tr.Mode)
			require.Equal(t, schemas.StatusOK, tr.Status)
			require.Equal(t, testNow, tr.StartedAt)
			require.Equal(t, testNow, tr.ReceivedAt)
			require.Nil(t, tr.FinishedAt)
			require.Nil(t, tr.LatencyMs)
			require.Nil(t, tr.CostUSD)
			require.Nil(t, tr.RiskScore)
			require.Nil(t, tr.PolicyHits)
			require.Nil(t, tr.Metadata)
		}},
		{"nulls mean not sent", `,"mode":null,"status":null,"started_at":null,"finished_at":null,"cost_usd":null,"latency_ms":null,"risk_score":null,"policy_hits":null,"metadata":null,"model":null,"prompt_tokens":null`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, schemas.ModeIngest, tr.Mode)
			require.Equal(t, testNow, tr.StartedAt)
			require.Nil(t, tr.CostUSD)
			require.Empty(t, tr.Model)
		}},
		{"caller values kept", `,"cost_usd":0.0123,"latency_ms":250,"risk_score":0.7,"final_decision":"allow","mode":"proxy","status":"blocked"`, "", func(t *testing.T, tr schemas.Trace) {
			require.InDelta(t, 0.0123, *tr.CostUSD, 1e-12)
			require.Equal(t, int64(250), *tr.LatencyMs)
			require.InDelta(t, 0.7, *tr.RiskScore, 1e-12)
			require.Equal(t, "allow", tr.FinalDecision)
			require.Equal(t, schemas.ModeProxy, tr.Mode)
			require.Equal(t, schemas.StatusBlocked, tr.Status)
		}},
		{"every string dimension", `,"provider":"openai","model":"gpt-4o","use_case":"support","team_id":"t1","integration_id":"i1","end_user_id":"eu1","user_id":"u1","session_id":"s1","parent_request_id":"p1","prompt":"hi \"there\"\n","answer":"h\u00e9llo \ud83d\ude00"`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, "openai", tr.Provider)
			require.Equal(t, "gpt-4o", tr.Model)
			require.Equal(t, "support", tr.UseCase)
			require.Equal(t, "t1", tr.TeamID)
			require.Equal(t, "i1", tr.IntegrationID)
			require.Equal(t, "eu1", tr.EndUserID)
			require.Equal(t, "u1", tr.UserID)
			require.Equal(t, "s1", tr.SessionID)
			require.Equal(t, "p1", tr.ParentRequestID)
			require.Equal(t, "hi \"there\"\n", tr.Prompt)
			require.Equal(t, "héllo 😀", tr.Answer)
		}},
		{"received_at ignored", `,"received_at":"2001-01-01T00:00:00Z"`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, testNow, tr.ReceivedAt)
		}},
		{"escaped field name", `,"mod\u0065l":"m"`, "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, "m", tr.Model) }},

		// unknown and duplicate fields
		{"unknown field", `,"prompt_token":3`, `unknown field "prompt_token"`, nil},
		{"duplicate field", `,"model":"a","model":"b"`, `duplicate field "model"`, nil},
		{"first problem wins", `,"risk_score":2,"mode":"x"`, "risk_score:", nil},

		// mode and status
		{"unknown mode", `,"mode":"batch"`, "mode: must be one of ingest, proxy, sdk, vendor", nil},
		{"empty mode", `,"mode":""`, "mode: must be one of", nil},
		{"mode not a string", `,"mode":1`, "mode: must be a string, not a number", nil},
		{"every mode", `,"mode":"vendor"`, "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, "vendor", tr.Mode) }},
		{"unknown status", `,"status":"failed"`, "status: must be one of ok, error, blocked, rewritten, regenerated", nil},
		{"status regenerated", `,"status":"regenerated"`, "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, "regenerated", tr.Status) }},

		// tokens
		{"total computed", `,"prompt_tokens":10,"completion_tokens":5`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, int64(15), tr.TotalTokens)
		}},
		{"total sent and larger kept", `,"prompt_tokens":10,"completion_tokens":5,"total_tokens":20`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, int64(20), tr.TotalTokens)
		}},
		{"total only", `,"total_tokens":7`, "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, int64(7), tr.TotalTokens) }},
		{"total smaller than parts", `,"prompt_tokens":10,"completion_tokens":5,"total_tokens":14`, "total_tokens: must be at least prompt_tokens + completion_tokens (15)", nil},
		{"total smaller than one part", `,"prompt_tokens":10,"total_tokens":9`, "total_tokens: must be at least", nil},
		{"negative tokens", `,"prompt_tokens":-1`, "prompt_tokens: must be a non-negative integer, not -1", nil},
		{"fractional tokens", `,"completion_tokens":1.5`, "completion_tokens: must be a non-negative integer, not 1.5", nil},
		{"exponent tokens", `,"prompt_tokens":1e3`, "prompt_tokens: must be a non-negative integer, not 1e3", nil},
		{"huge tokens", `,"prompt_tokens":1e30`, "prompt_tokens: must be a non-negative integer", nil},
		{"tokens beyond 2^53-1", `,"total_tokens":9007199254740992`, "total_tokens: must be at most 9007199254740991", nil},
		{"tokens at 2^53-1", `,"total_tokens":9007199254740991`, "", nil},
		{"tokens overflowing int64", `,"prompt_tokens":99999999999999999999999`, "prompt_tokens: must be at most", nil},
		{"tokens as string", `,"prompt_tokens":"3"`, "prompt_tokens: must be a non-negative integer, not a string", nil},

		// cost, latency, risk, final_decision
		{"negative cost", `,"cost_usd":-0.5`, "cost_usd: must be a non-negative number", nil},
		{"cost as string", `,"cost_usd":"0.5"`, "cost_usd: must be a non-negative number, not a string", nil},
		{"cost overflowing float64", `,"cost_usd":1e400`, "cost_usd: must be a non-negative number", nil},
		{"negative zero cost", `,"cost_usd":-0`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, "0", fmt.Sprint(*tr.CostUSD))
		}},
		{"zero cost kept", `,"cost_usd":0`, "", func(t *testing.T, tr schemas.Trace) { require.NotNil(t, tr.CostUSD) }},
		{"negative latency", `,"latency_ms":-5`, "latency_ms: must be a non-negative integer", nil},
		{"fractional latency", `,"latency_ms":12.5`, "latency_ms: must be a non-negative integer, not 12.5", nil},
		{"risk 1.5", `,"risk_score":1.5`, "risk_score: must be a number between 0 and 1", nil},
		{"risk negative", `,"risk_score":-0.1`, "risk_score: must be a number between 0 and 1", nil},
		{"risk bounds", `,"risk_score":1`, "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, 1.0, *tr.RiskScore) }},
		{"risk as bool", `,"risk_score":true`, "risk_score: must be a number between 0 and 1, not a boolean", nil},
		{"final_decision 32 chars", `,"final_decision":"` + strings.Repeat("é", 32) + `"`, "", nil},
		{"final_decision 33 chars", `,"final_decision":"` + strings.Repeat("d", 33) + `"`, "final_decision: must be at most 32 characters", nil},

		// strings
		{"model 256 characters", `,"model":"` + strings.Repeat("é", 256) + `"`, "", nil},
		{"model 257 characters", `,"model":"` + strings.Repeat("m", 257) + `"`, "model: must be at most 256 characters", nil},
		{"escapes count as one character", `,"model":"` + strings.Repeat(`\u00e9`, 256) + `"`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, strings.Repeat("é", 256), tr.Model)
		}},
		{"session_id not a string", `,"session_id":42`, "session_id: must be a string, not a number", nil},
		{"prompt at 1 MiB", `,"prompt":"` + strings.Repeat("p", 1<<20) + `"`, "", nil},
		{"prompt over 1 MiB", `,"prompt":"` + strings.Repeat("p", 1<<20+1) + `"`, "prompt: must be at most 1048576 bytes", nil},
		{"answer over 1 MiB", `,"answer":"` + strings.Repeat("é", 1<<19+1) + `"`, "answer: must be at most 1048576 bytes", nil},
		{"NUL escape", `,"prompt":"a\u0000b"`, `prompt: must not contain U+0000`, nil},
		{"lone high surrogate", `,"answer":"\ud83d"`, "answer: contains an unpaired UTF-16 surrogate escape", nil},
		{"lone low surrogate", `,"answer":"\ude00x"`, "answer: contains an unpaired UTF-16 surrogate escape", nil},
		{"high surrogate then non-surrogate", `,"answer":"\ud83d\u0041"`, "answer: contains an unpaired UTF-16 surrogate escape", nil},
		{"parent_request_id too long", `,"parent_request_id":"` + strings.Repeat("p", 65) + `"`, "parent_request_id: must be a string of 1 to 64 characters", nil},

		// timestamps
		{"RFC 3339 Z", `,"started_at":"2025-01-02T03:04:05Z"`, "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, t0, tr.StartedAt) }},
		{"RFC 3339 fraction and offset", `,"started_at":"2025-01-02T05:04:05.25+02:00"`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, t0.Add(250*time.Millisecond), tr.StartedAt)
			require.Equal(t, time.UTC, tr.StartedAt.Location())
		}},
		{"zone-less is UTC", `,"started_at":"2025-01-02T03:04:05.123456"`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, t0.Add(123456*time.Microsecond), tr.StartedAt)
		}},
		{"epoch integer", fmt.Sprintf(`,"started_at":%d`, t0.Unix()), "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, t0, tr.StartedAt) }},
		{"epoch fractional is exact", fmt.Sprintf(`,"started_at":%d.123456789`, t0.Unix()), "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, t0.Add(123456789), tr.StartedAt)
		}},
		{"epoch with exponent", `,"started_at":1.7e9`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, time.Unix(1700000000, 0).UTC(), tr.StartedAt)
		}},
		{"epoch zero", `,"started_at":0`, "", nil},
		{"epoch negative", `,"started_at":-1`, "started_at: epoch seconds must be between 0 and 253402300799", nil},
		{"epoch milliseconds", `,"started_at":1735787045000`, "started_at: epoch seconds must be between 0 and 253402300799 (milliseconds are not accepted)", nil},
		{"epoch overflow", `,"started_at":1e400`, "started_at: epoch seconds must be between", nil},
		{"ISO 8601 offset +hhmm", `,"started_at":"2025-01-02T05:04:05+0200"`, "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, t0, tr.StartedAt) }},
		{"ISO 8601 offset -hhmm with fraction", `,"started_at":"2025-01-02T01:04:05.5-0200"`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, t0.Add(500*time.Millisecond), tr.StartedAt)
		}},
		{"ISO 8601 offset +hh", `,"started_at":"2025-01-02T05:04:05+02"`, "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, t0, tr.StartedAt) }},
		{"ISO 8601 minute precision", `,"started_at":"2025-01-02T03:04Z"`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, t0.Add(-5*time.Second), tr.StartedAt)
		}},
		{"ISO 8601 minute precision and offset", `,"started_at":"2025-01-02T05:04+02:00"`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, t0.Add(-5*time.Second), tr.StartedAt)
		}},
		{"offset of 24 hours", `,"started_at":"2025-01-02T03:04:05+2400"`, "started_at: must be an ISO 8601 timestamp", nil},
		{"offset without digits", `,"started_at":"2025-01-02T03:04:05+"`, "started_at: must be an ISO 8601 timestamp", nil},
		{"date only", `,"started_at":"2025-01-02"`, "started_at: must be an ISO 8601 timestamp", nil},
		{"space separator", `,"started_at":"2025-01-02 03:04:05Z"`, "started_at: must be an ISO 8601 timestamp", nil},
		{"unparsable timestamp", `,"finished_at":"yesterday"`, `finished_at: must be an ISO 8601 timestamp such as 2006-01-02T15:04:05.123Z or epoch seconds, not "yesterday"`, nil},
		{"invalid month", `,"started_at":"2025-13-02T03:04:05Z"`, "started_at: must be an ISO 8601 timestamp", nil},
		{"timestamp as bool", `,"started_at":true`, "started_at: must be an ISO 8601 timestamp such as 2006-01-02T15:04:05.123Z or epoch seconds, not a boolean", nil},
		{"before 1970", `,"started_at":"1969-12-31T23:59:59Z"`, "started_at: must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z", nil},
		{"offset pushing past year 9999", `,"started_at":"9999-12-31T23:59:59-01:00"`, "started_at: must be between", nil},
		{"finished before started", `,"started_at":"2025-01-02T03:04:05Z","finished_at":"2025-01-02T03:04:04Z"`, "finished_at: must not be before started_at", nil},
		{"finished before default started", `,"finished_at":"2025-01-02T03:04:04Z"`, "finished_at: must not be before started_at (started_at defaults to the time of receipt)", nil},
		{"latency computed", `,"started_at":"2025-01-02T03:04:05Z","finished_at":"2025-01-02T03:04:06.5Z"`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, int64(1500), *tr.LatencyMs)
		}},
		{"sent latency wins", `,"started_at":"2025-01-02T03:04:05Z","finished_at":"2025-01-02T03:04:06Z","latency_ms":7`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, int64(7), *tr.LatencyMs)
		}},

		// policy_hits
		{"policy hits both shapes", `,"policy_hits":["pii.email",{"policy":"security.prompt_injection","severity":"high","confidence":0.9,"stage":"post-flight","spans":[{"start":0,"end":4}]}]`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, []schemas.PolicyHit{
				{Policy: "pii.email"},
				{Policy: "security.prompt_injection", Severity: "high", Confidence: 0.9, Stage: "post-flight", Spans: []schemas.Span{{Start: 0, End: 4}}},
			}, tr.PolicyHits)
		}},
		{"policy hits empty", `,"policy_hits":[]`, "", func(t *testing.T, tr schemas.Trace) {
			require.NotNil(t, tr.PolicyHits)
			require.Empty(t, tr.PolicyHits)
		}},
		{"policy hits not an array", `,"policy_hits":"pii.email"`, "policy_hits: must be an array, not a string", nil},
		{"policy hit without policy", `,"policy_hits":[{"severity":"high"}]`, "policy_hits[0].policy: is required", nil},
		{"policy hit empty id", `,"policy_hits":["ok",""]`, "policy_hits[1]: policy id must not be empty", nil},
		{"policy hit number", `,"policy_hits":[7]`, `policy_hits[0]: must be a policy id string or an object with "policy", not a number`, nil},
		{"policy hit unknown field", `,"policy_hits":[{"policy":"p","score":1}]`, `policy_hits[0]: unknown field "score"`, nil},
		{"policy hit confidence range", `,"policy_hits":[{"policy":"p","confidence":2}]`, "policy_hits[0].confidence: must be a number between 0 and 1", nil},
		{"policy hit span inverted", `,"policy_hits":["a",{"policy":"p","spans":[{"start":0,"end":1},{"start":5,"end":2}]}]`, "policy_hits[1].spans[1]: must be an object {start, end}", nil},
		{"policy hit span negative", `,"policy_hits":[{"policy":"p","spans":[{"start":-1,"end":2}]}]`, "policy_hits[0].spans[0]: start: must be a non-negative integer", nil},
		{"policy hit span missing end", `,"policy_hits":[{"policy":"p","spans":[{"start":1}]}]`, "policy_hits[0].spans[0]: must be an object {start, end}", nil},
		{"too many policy hits", `,"policy_hits":[` + strings.Repeat(`"p",`, 256) + `"p"]`, "policy_hits: must have at most 256 entries", nil},

		// metadata
		{"metadata compacted", `,"metadata": { "a" : [ 1 , {"b": "x y"} ], "c":null }`, "", func(t *testing.T, tr schemas.Trace) {
			require.JSONEq(t, `{"a":[1,{"b":"x y"}],"c":null}`, string(tr.Metadata))
			require.Equal(t, `{"a":[1,{"b":"x y"}],"c":null}`, string(tr.Metadata))
		}},
		{"metadata escapes kept", `,"metadata":{"k":"a\"b\\c\u00e9"}`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, `{"k":"a\"b\\c\u00e9"}`, string(tr.Metadata))
		}},
		{"metadata empty object", `,"metadata":{}`, "", func(t *testing.T, tr schemas.Trace) { require.Equal(t, `{}`, string(tr.Metadata)) }},
		{"metadata string", `,"metadata":"{\"a\":1}"`, "metadata: must be a JSON object, not a string", nil},
		{"metadata array", `,"metadata":[1]`, "metadata: must be a JSON object, not an array", nil},
		{"metadata depth 10", `,"metadata":` + nested(10), "", nil},
		{"metadata depth 11", `,"metadata":` + nested(11), "metadata: must be nested at most 10 levels deep", nil},
		{"metadata 256 keys", `,"metadata":` + manyKeys(256), "", nil},
		{"metadata 257 keys", `,"metadata":` + manyKeys(257), "metadata: must have at most 256 top-level keys", nil},
		{"metadata 64 KiB", `,"metadata":{"k":"` + strings.Repeat("x", 64<<10-8) + `"}`, "", nil},
		{"metadata over 64 KiB", `,"metadata":{"k":"` + strings.Repeat("x", 64<<10-7) + `"}`, "metadata: must be at most 65536 bytes as compact JSON", nil},
		{"metadata size counts compacted", `,"metadata":{"k":` + strings.Repeat(" ", 70000) + `"v"}`, "", nil},
		{"metadata NUL", `,"metadata":{"k":"\u0000"}`, "metadata: must not contain U+0000", nil},
		{"metadata lone surrogate in key", `,"metadata":{"\udc00":1}`, "metadata: contains an unpaired UTF-16 surrogate escape", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := decode(t, `{"request_id":"r1"`+tt.fields+`}`)
			require.NoError(t, err)
			require.Equal(t, FormSingle, d.Form)
			require.Len(t, d.Items, 1)
			it := d.Items[0]
			require.Equal(t, "r1", it.RequestID)
			require.False(t, it.Duplicate)
			if tt.wantErr != "" {
				require.Error(t, it.Err)
				require.Contains(t, it.Err.Error(), tt.wantErr)
				require.Equal(t, schemas.Envelope{}, it.Envelope)
				return
			}
			require.NoError(t, it.Err)
			env := it.Envelope
			require.Equal(t, schemas.EnvelopeVersion, env.SchemaVersion)
			require.Equal(t, schemas.KindTrace, env.Kind)
			require.Equal(t, testNow, env.ReceivedAt)
			require.Empty(t, env.OrgID)
			require.Equal(t, "r1", env.Trace.RequestID)
			require.NoError(t, env.Trace.Validate())
			// The envelope must survive the log round trip.
			env.OrgID = "org"
			b, err := env.Marshal()
			require.NoError(t, err)
			_, err = schemas.DecodeEnvelope(b)
			require.NoError(t, err)
			if tt.check != nil {
				tt.check(t, it.Envelope.Trace)
			}
		})
	}
}

func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth-1) + `{}` + strings.Repeat(`}`, depth-1)
}

func manyKeys(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	return "{" + strings.Join(keys, ",") + "}"
}

func TestDecodeRequestID(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		wantID  string
		wantErr string
	}{
		{"valid", `"req-1"`, "req-1", ""},
		{"64 characters", `"` + strings.Repeat("é", 64) + `"`, strings.Repeat("é", 64), ""},
		{"65 characters", `"` + strings.Repeat("x", 65) + `"`, strings.Repeat("x", 65), "request_id is 65 characters, the limit is 64"},
		{"empty", `""`, "", "request_id is required"},
		{"control character", `"a\nb"`, "a\nb", "request_id contains a control character"},
		{"number 0", `0`, "0", "request_id: must be a string of 1 to 64 characters, not a number"},
		{"long number", strings.Repeat("9", 70), "", "request_id: must be a string of 1 to 64 characters, not a number"},
		{"null", `null`, "", "request_id: must be a string of 1 to 64 characters, not null"},
		{"object", `{"id":"x"}`, "", "request_id: must be a string of 1 to 64 characters, not an object"},
		{"boolean", `true`, "true", "not a boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := decode(t, `{"request_id":`+tt.value+`,"model":"m"}`)
			require.NoError(t, err)
			require.Len(t, d.Items, 1)
			require.Equal(t, tt.wantID, d.Items[0].RequestID)
			if tt.wantErr == "" {
				require.NoError(t, d.Items[0].Err)
				return
			}
			require.ErrorContains(t, d.Items[0].Err, tt.wantErr)
		})
	}
}

func TestDecodeSimpleForm(t *testing.T) {
	const required = `"prompt":"What is 2+2?","answer":"4","model":"gpt-4o-mini","prompt_tokens":12,"completion_tokens":1`
	tests := []struct {
		name    string
		body    string
		wantErr string
		check   func(t *testing.T, tr schemas.Trace)
	}{
		{"required only", `{` + required + `}`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, "generated-id", tr.RequestID)
			require.Equal(t, "pass", tr.FinalDecision)
			require.Equal(t, schemas.ModeIngest, tr.Mode)
			require.Equal(t, int64(13), tr.TotalTokens)
			require.Equal(t, "What is 2+2?", tr.Prompt)
			require.Equal(t, "4", tr.Answer)
			require.Equal(t, "gpt-4o-mini", tr.Model)
			require.Nil(t, tr.LatencyMs)
		}},
		{"optional fields", `{` + required + `,"user_id":"u","session_id":"s","metadata":{"env":"prod"}}`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, "u", tr.UserID)
			require.Equal(t, "s", tr.SessionID)
			require.Equal(t, `{"env":"prod"}`, string(tr.Metadata))
		}},
		{"caller values ignored", `{` + required + `,"cost_usd":9,"latency_ms":9,"risk_score":0.9,"final_decision":"block","policy_hits":["x"],"mode":"proxy"}`, "", func(t *testing.T, tr schemas.Trace) {
			require.Nil(t, tr.CostUSD)
			require.Nil(t, tr.LatencyMs)
			require.Nil(t, tr.RiskScore)
			require.Nil(t, tr.PolicyHits)
			require.Equal(t, "pass", tr.FinalDecision)
			require.Equal(t, schemas.ModeIngest, tr.Mode)
		}},
		{"ignored values are not validated", `{` + required + `,"risk_score":"high","cost_usd":-1}`, "", nil},
		{"latency from timestamps", `{` + required + `,"started_at":"2025-01-02T03:04:05Z","finished_at":"2025-01-02T03:04:05.040Z"}`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, int64(40), *tr.LatencyMs)
		}},
		{"null request_id is not sent", `{"request_id":null,` + required + `}`, "", func(t *testing.T, tr schemas.Trace) {
			require.Equal(t, "generated-id", tr.RequestID)
			require.Equal(t, "pass", tr.FinalDecision)
		}},
		{"null request_id last", `{` + required + `, "request_id" : null}`, "", nil},
		{"null request_id twice", `{"request_id":null,` + required + `,"request_id":null}`, `duplicate field "request_id"`, nil},
		{"missing model", `{"prompt":"p","answer":"a","prompt_tokens":1,"completion_tokens":1}`, "model: is required", nil},
		{"missing prompt_tokens", `{"prompt":"p","answer":"a","model":"m","completion_tokens":1}`, "prompt_tokens: is required", nil},
		{"null completion_tokens", `{"prompt":"p","answer":"a","model":"m","prompt_tokens":1,"completion_tokens":null}`, "completion_tokens: is required, not null", nil},
		{"prompt not a string", `{"prompt":1,"answer":"a","model":"m","prompt_tokens":1,"completion_tokens":1}`, "prompt: must be a string, not a number", nil},
		{"negative tokens", `{"prompt":"p","answer":"a","model":"m","prompt_tokens":-3,"completion_tokens":1}`, "prompt_tokens: must be a non-negative integer", nil},
		{"unknown field", `{` + required + `,"user":"u"}`, `unknown field "user"`, nil},
		{"metadata not an object", `{` + required + `,"metadata":"x"}`, "metadata: must be a JSON object", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			d, err := Decode([]byte(tt.body), testNow, func() string { calls++; return "generated-id" })
			require.NoError(t, err)
			require.Equal(t, FormSimple, d.Form)
			require.Equal(t, 1, calls)
			require.Len(t, d.Items, 1)
			it := d.Items[0]
			require.Equal(t, "generated-id", it.RequestID)
			if tt.wantErr != "" {
				require.ErrorContains(t, it.Err, tt.wantErr)
				return
			}
			require.NoError(t, it.Err)
			require.Equal(t, schemas.KindSimpleEvent, it.Envelope.Kind)
			require.Equal(t, schemas.EnvelopeVersion, it.Envelope.SchemaVersion)
			require.NoError(t, it.Envelope.Trace.Validate())
			if tt.check != nil {
				tt.check(t, it.Envelope.Trace)
			}
		})
	}
}

func TestDecodeBatchOutcomes(t *testing.T) {
	type want struct {
		id      string
		err     string // "" = no error
		dup     bool
		kindSet bool // accepted: envelope filled
	}
	tests := []struct {
		name string
		body string
		want []want
	}{
		{
			"neighbours isolated",
			`{"events":[{"request_id":"a"},{"request_id":"b","risk_score":1.5},{"request_id":"c","mode":"x"},{"request_id":"d"}]}`,
			[]want{{"a", "", false, true}, {"b", "risk_score:", false, false}, {"c", "mode:", false, false}, {"d", "", false, true}},
		},
		{
			"duplicates in one batch",
			`{"events":[{"request_id":"a"},{"request_id":"b"},{"request_id":"a","model":"other"},{"request_id":"a"}]}`,
			[]want{{"a", "", false, true}, {"b", "", false, true}, {"a", "", true, false}, {"a", "", true, false}},
		},
		{
			"rejected occurrence claims nothing",
			`{"events":[{"request_id":"a","mode":"x"},{"request_id":"a"},{"request_id":"a","status":"y"}]}`,
			[]want{{"a", "mode:", false, false}, {"a", "", false, true}, {"a", "status:", false, false}},
		},
		{
			"non-object elements",
			`{"events":[1,null,"s",[],{"request_id":"ok"}]}`,
			[]want{{"", "events[0]: must be an event object, not a number", false, false}, {"", "events[1]: must be an event object, not null", false, false}, {"", "not a string", false, false}, {"", "not an array", false, false}, {"ok", "", false, true}},
		},
		{
			"missing request_id",
			`{"events":[{"model":"m"},{}]}`,
			[]want{{"", "request_id is required", false, false}, {"", "request_id is required", false, false}},
		},
		{
			// A batch holds only canonical events, and they require request_id.
			"null request_id in a batch",
			`{"events":[{"request_id":null,"prompt":"p","answer":"a","model":"m","prompt_tokens":1,"completion_tokens":1}]}`,
			[]want{{"", "request_id: must be a string of 1 to 64 characters, not null", false, false}},
		},
		{
			"simple-shaped event in a batch needs request_id",
			`{"events":[{"prompt":"p","answer":"a","model":"m","prompt_tokens":1,"completion_tokens":1}]}`,
			[]want{{"", "request_id is required", false, false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := decode(t, tt.body)
			require.NoError(t, err)
			require.Equal(t, FormBatch, d.Form)
			require.Len(t, d.Items, len(tt.want))
			for i, w := range tt.want {
				it := d.Items[i]
				require.Equal(t, i, it.Index)
				require.Equal(t, w.id, it.RequestID, "item %d", i)
				require.Equal(t, w.dup, it.Duplicate, "item %d", i)
				if w.err == "" {
					require.NoError(t, it.Err, "item %d", i)
				} else {
					require.ErrorContains(t, it.Err, w.err, "item %d", i)
				}
				require.Equal(t, w.kindSet, it.Envelope.Kind == schemas.KindTrace, "item %d", i)
			}
		})
	}
}

func TestDecodeDoesNotRetainBody(t *testing.T) {
	body := []byte(`{"request_id":"r1","model":"m","metadata":{"a":1},"prompt":"p"}`)
	d, err := Decode(body, testNow, fixedID)
	require.NoError(t, err)
	for i := range body {
		body[i] = 'X'
	}
	tr := d.Items[0].Envelope.Trace
	require.Equal(t, "r1", tr.RequestID)
	require.Equal(t, "m", tr.Model)
	require.Equal(t, "p", tr.Prompt)
	require.Equal(t, `{"a":1}`, string(tr.Metadata))
}

// TestDecodeMatchesStdlib cross-checks string decoding against encoding/json
// for escapes and non-ASCII text.
func TestDecodeMatchesStdlib(t *testing.T) {
	for _, s := range []string{`plain`, `tab\there`, `quote\"s\\`, `\/slash`, `\u00e9\u4e16\ud834\udd1e`, `\b\f\n\r`, "naïve 世界 🎉"} {
		t.Run(s, func(t *testing.T) {
			body := `{"request_id":"r","prompt":"` + s + `"}`
			d, err := decode(t, body)
			require.NoError(t, err)
			require.NoError(t, d.Items[0].Err)
			var std struct{ Prompt string }
			require.NoError(t, json.Unmarshal([]byte(body), &std))
			require.Equal(t, std.Prompt, d.Items[0].Envelope.Trace.Prompt)
		})
	}
}
