package events

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/schemas"
)

// FuzzDecode checks the invariants of Decode on arbitrary bodies, using
// encoding/json as an independent oracle for the JSON grammar and for string
// decoding:
//   - Decode never panics;
//   - a body that is not valid JSON or not valid UTF-8 is rejected as a whole;
//   - len(Items) equals the number of events in the body;
//   - every item without Err or Duplicate has an Envelope whose Trace passes
//     Validate and survives the log round trip, and whose prompt, answer and
//     model equal what encoding/json reads;
//   - a Duplicate repeats the request_id of an earlier accepted item.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"request_id":"r1","model":"m","prompt_tokens":1,"completion_tokens":2,"metadata":{"a":[1,{"b":null}]}}`,
		`{"events":[{"request_id":"a","risk_score":0.5,"policy_hits":["p",{"policy":"q","spans":[{"start":0,"end":1}]}]},{"request_id":"a"},7]}`,
		`{"prompt":"p","answer":"a","model":"m","prompt_tokens":1,"completion_tokens":2,"started_at":1700000000.5}`,
		`{"request_id":"r","started_at":"2025-01-02T03:04:05.123+02:00","finished_at":"2025-01-02T03:04:05.999"}`,
		`{"request_id":"r","started_at":"2025-01-02T03:04:05,5+0200","finished_at":"2025-01-02T03:04-01"}`,
		`{"request_id":"r","answer":"\ud83d\ude00 \u00e9","prompt":"\ud83d"}`,
		`{"events":[]}`,
		`{"request_id":null,"prompt":"p","answer":"a","model":"m","prompt_tokens":1,"completion_tokens":2}`,
		`{"request_id":null,"model":"m"}`,
		`{"request_id":0}`,
		`{"request_id":"x","mode":"sdk","status":"rewritten","provider":"p","use_case":"u","team_id":"t","integration_id":"i","end_user_id":"e","user_id":"u","session_id":"s","parent_request_id":"q","total_tokens":9,"latency_ms":3,"received_at":null,"final_decision":"block"}`,
		`{"request_id":"x","started_at":1.7e9,"finished_at":"2025-01-02T03:04:05Z","cost_usd":-0,"risk_score":1e-3}`,
		`{"request_id":"x","policy_hits":[{"policy":"p","severity":"high","stage":"pre","confidence":1,"spans":[{"start":0,"end":0}]},""]}`,
		`{"request_id":"x","metadata":{ "a" : { "b" : [ "\u00e9", 1.5e3, true ] } }}`,
		`{"events":[{"request_id":"a","prompt_tokens":1,"completion_tokens":2,"total_tokens":3},{"request_id":"a"},{"request_id":"b","total_tokens":2,"prompt_tokens":5}]}`,
		`{"prompt":"p","answer":"a","model":"m","prompt_tokens":1,"completion_tokens":2,"cost_usd":1,"latency_ms":2,"risk_score":3,"final_decision":4,"policy_hits":5,"mode":6,"user_id":"u","session_id":"s","metadata":{}}`,
		benchEvent(0),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := Decode(body, testNow, fixedID)
		if !utf8.Valid(body) || !json.Valid(body) {
			require.Error(t, err, "invalid body accepted")
		}
		if err != nil {
			require.Empty(t, d.Items)
			return
		}
		var raws []json.RawMessage
		switch d.Form {
		case FormBatch:
			var batch struct {
				Events []json.RawMessage `json:"events"`
			}
			require.NoError(t, json.Unmarshal(body, &batch))
			raws = batch.Events
		case FormSingle, FormSimple:
			raws = []json.RawMessage{body}
		default:
			t.Fatalf("unknown form %v", d.Form)
		}
		require.Len(t, d.Items, len(raws))
		require.NotEmpty(t, d.Items)
		accepted := map[string]bool{}
		for i, it := range d.Items {
			require.Equal(t, i, it.Index)
			if it.Err != nil {
				require.False(t, it.Duplicate)
				require.NotEmpty(t, it.Err.Error())
				continue
			}
			if it.Duplicate {
				require.True(t, accepted[it.RequestID], "duplicate of an id not accepted earlier")
				continue
			}
			require.False(t, accepted[it.RequestID], "second accepted item with one id")
			accepted[it.RequestID] = true
			env := it.Envelope
			require.NoError(t, env.Trace.Validate())
			require.Equal(t, it.RequestID, env.Trace.RequestID)
			env.OrgID = "org"
			b, err := env.Marshal()
			require.NoError(t, err)
			_, err = schemas.DecodeEnvelope(b)
			require.NoError(t, err)

			var std struct{ Prompt, Answer, Model string }
			require.NoError(t, json.Unmarshal(raws[i], &std))
			require.Equal(t, std.Prompt, env.Trace.Prompt)
			require.Equal(t, std.Answer, env.Trace.Answer)
			require.Equal(t, std.Model, env.Trace.Model)
			if env.Trace.Metadata != nil {
				require.True(t, json.Valid(env.Trace.Metadata))
			}
		}
	})
}
