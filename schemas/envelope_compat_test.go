package schemas

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// referenceDecode is DecodeEnvelope as it was before the hand decoder:
// encoding/json.Unmarshal, then the same checks. The new DecodeEnvelope must
// agree with it on every input, results and error texts alike.
func referenceDecode(value []byte) (Envelope, error) {
	var e Envelope
	if err := json.Unmarshal(value, &e); err != nil {
		return e, err
	}
	return e, e.validate()
}

// compatEnvelopes covers every field, nil vs empty policy_hits and spans, nil
// vs set (and zero) pointers, metadata with unicode and escapes, a zero
// finished_at, times with nanoseconds and non-UTC offsets, and strings that
// need every kind of escaping.
func compatEnvelopes() map[string]Envelope {
	base := benchCanonical()
	ist := time.FixedZone("IST", 5*3600+30*60)
	nyc := time.FixedZone("", -4*3600)
	out := map[string]Envelope{
		"canonical": base,
		"simple":    benchSimple(),
	}
	add := func(name string, mutate func(*Envelope)) {
		e := benchCanonical()
		mutate(&e)
		out[name] = e
	}
	add("every field", func(e *Envelope) {
		fin := e.Trace.StartedAt.Add(1500 * time.Millisecond)
		t := &e.Trace
		t.ParentRequestID, t.FinishedAt = "parent-1", &fin
		t.UseCase, t.TeamID, t.IntegrationID, t.EndUserID, t.UserID, t.SessionID = "uc", "team", "int", "eu", "u", "s"
		t.FinalDecision, t.Prompt, t.Answer = "block", "p", "a"
		t.PolicyHits = []PolicyHit{
			{Policy: "pii.email", Severity: "medium", Confidence: 0.93, Stage: "output", Spans: []Span{{Start: 1, End: 4}, {Start: 10, End: 22}}},
			{Policy: "toxicity"},
			{Policy: "x", Spans: []Span{}},
		}
	})
	add("nil policy_hits", func(e *Envelope) { e.Trace.PolicyHits = nil })
	add("nil pointers", func(e *Envelope) { e.Trace.CostUSD, e.Trace.LatencyMs, e.Trace.RiskScore = nil, nil, nil })
	add("zero pointers", func(e *Envelope) {
		e.Trace.CostUSD, e.Trace.LatencyMs, e.Trace.RiskScore = ptr(0.0), ptr(int64(0)), ptr(0.0)
	})
	add("negative zero cost", func(e *Envelope) { e.Trace.CostUSD = ptr(math.Copysign(0, -1)) })
	add("float formats", func(e *Envelope) {
		e.Trace.CostUSD, e.Trace.RiskScore = ptr(1e21), ptr(1e-7)
		e.Trace.PolicyHits = []PolicyHit{{Policy: "a", Confidence: 123456789.125}, {Policy: "b", Confidence: 5e-324}, {Policy: "c", Confidence: -2.5e-9}}
	})
	add("big ints", func(e *Envelope) {
		e.Trace.PromptTokens, e.Trace.CompletionTokens, e.Trace.TotalTokens = math.MaxInt64, math.MinInt64, 1<<53+1
		e.Trace.LatencyMs = ptr(int64(math.MaxInt64))
		e.Trace.PolicyHits = []PolicyHit{{Policy: "a", Spans: []Span{{Start: math.MaxInt32, End: -1}}}}
	})
	add("no metadata", func(e *Envelope) { e.Trace.Metadata = nil })
	add("empty metadata object", func(e *Envelope) { e.Trace.Metadata = json.RawMessage(`{}`) })
	add("metadata unicode and escapes", func(e *Envelope) {
		e.Trace.Metadata = json.RawMessage(`{"name":"Zoë \u00e9 \"q\" \\ \/ \ud83d\ude00 😀","html":"<b>&amp;</b>","ls":"a` + "\u2028" + `b\u2029","n":{"a":[1,-2.5e-7,true,false,null,{}],"e":[]}}`)
	})
	add("metadata ampersand", func(e *Envelope) { e.Trace.Metadata = json.RawMessage(`{"q":"a&b"}`) })
	add("metadata spaced", func(e *Envelope) { e.Trace.Metadata = json.RawMessage("{ \"a\" : [ 1 , 2 ] ,\n\t\"b\":\"x y\" }") })
	add("metadata invalid utf8", func(e *Envelope) { e.Trace.Metadata = json.RawMessage("{\"a\":\"\xff\"}") })
	add("zero finished_at", func(e *Envelope) { e.Trace.FinishedAt = &time.Time{} })
	add("zero times", func(e *Envelope) {
		e.ReceivedAt, e.Trace.StartedAt, e.Trace.ReceivedAt = time.Time{}, time.Time{}, time.Time{}
	})
	add("offsets and nanoseconds", func(e *Envelope) {
		e.ReceivedAt = time.Date(2026, 1, 2, 3, 4, 5, 1, ist)
		e.Trace.StartedAt = time.Date(2026, 1, 2, 3, 4, 5, 120000000, nyc)
		fin := time.Date(2026, 1, 2, 23, 59, 59, 999999999, time.Local)
		e.Trace.FinishedAt = &fin
		e.Trace.ReceivedAt = time.Now() // monotonic reading, dropped by the encoding
	})
	add("string escapes", func(e *Envelope) {
		e.OrgID = "org \"q\" \\ / <x> & é 😀"
		e.AppID = "\x00\x01\b\f\n\r\t\x1f\x7f"
		e.Trace.Prompt = "bad utf8 \xff\xfe tail \xe2\x80 \xed\xa0\x80 ok"
		e.Trace.Answer = "line\u2028sep\u2029para \ufffd <script>&"
		e.Trace.Model = "模型-✓"
	})
	return out
}

// TestEnvelopeMarshalMatchesEncodingJSON: the new Marshal writes exactly
// encoding/json's bytes, so encoding/json decodes it to what it always did.
func TestEnvelopeMarshalMatchesEncodingJSON(t *testing.T) {
	for name, env := range compatEnvelopes() {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(&env)
			require.NoError(t, err)
			got, err := env.Marshal()
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))

			var fromNew, fromOld Envelope
			require.NoError(t, json.Unmarshal(got, &fromNew))
			require.NoError(t, json.Unmarshal(want, &fromOld))
			require.Equal(t, fromOld, fromNew)
		})
	}
}

// TestEnvelopeMarshalErrors: values encoding/json refuses are refused with
// its error.
func TestEnvelopeMarshalErrors(t *testing.T) {
	tests := map[string]func(*Envelope){
		"NaN cost":         func(e *Envelope) { e.Trace.CostUSD = ptr(math.NaN()) },
		"Inf risk":         func(e *Envelope) { e.Trace.RiskScore = ptr(math.Inf(1)) },
		"Inf confidence":   func(e *Envelope) { e.Trace.PolicyHits = []PolicyHit{{Policy: "p", Confidence: math.Inf(-1)}} },
		"year 10000":       func(e *Envelope) { e.ReceivedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) },
		"negative year":    func(e *Envelope) { e.Trace.StartedAt = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) },
		"finished year":    func(e *Envelope) { f := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC); e.Trace.FinishedAt = &f },
		"offset 24h":       func(e *Envelope) { e.Trace.ReceivedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)) },
		"invalid metadata": func(e *Envelope) { e.Trace.Metadata = json.RawMessage(`{"a":}`) },
		"metadata trailer": func(e *Envelope) { e.Trace.Metadata = json.RawMessage(`{} {}`) },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			env := benchCanonical()
			mutate(&env)
			_, wantErr := json.Marshal(&env)
			require.Error(t, wantErr)
			_, err := env.Marshal()
			require.EqualError(t, err, wantErr.Error())
		})
	}
}

// TestDecodeEnvelopeMatchesEncodingJSON: encoding/json's output (what is on
// the log today) decodes exactly as before, through the fast path.
func TestDecodeEnvelopeMatchesEncodingJSON(t *testing.T) {
	for name, env := range compatEnvelopes() {
		t.Run(name, func(t *testing.T) {
			v, err := json.Marshal(&env)
			require.NoError(t, err)
			requireSameDecode(t, v)
			var fast Envelope
			require.True(t, decodeFast(v, &fast), "the form encoding/json writes takes the fast path")
		})
	}
}

func requireSameDecode(t *testing.T, v []byte) {
	t.Helper()
	want, wantErr := referenceDecode(v)
	got, err := DecodeEnvelope(v)
	if wantErr != nil {
		require.Error(t, err, "encoding/json rejects %q", v)
		// The old error text, with DecodeEnvelope's prefix on syntax and type errors.
		require.Contains(t, err.Error(), wantErr.Error())
		return
	}
	require.NoError(t, err, "encoding/json accepts %q", v)
	require.Equal(t, want, got)
}

// rawCases are inputs Marshal never writes; each must decode (or fail)
// exactly as encoding/json does. Most go to the fallback; the test does not
// care which path runs, only that results agree.
var rawCases = map[string]string{
	"empty":                   ``,
	"null":                    `null`,
	"array":                   `[]`,
	"not json":                `{`,
	"trailing garbage":        `%s x`,
	"trailing object":         `%s {}`,
	"surrounding whitespace":  " \n\t\r%s \n\t\r",
	"leading BOM":             "\ufeff%s",
	"unknown key":             `{"extra":[1,{"a":null}],%s`,
	"case-folded key":         `{"KIND":"decision",%s`,
	"kelvin sign key":         `{"\u212aind":"decision",%s`,
	"kelvin sign raw key":     "{\"\u212aind\":\"decision\",%s",
	"escaped key":             `{"\u006bind":"decision",%s`,
	"duplicate kind":          `{"kind":"decision",%s`,
	"duplicate trace":         `{"org_id":"o2","trace":{"request_id":"other","mode":"proxy","policy_hits":[]},%s`,
	"duplicate policy_hits":   `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","policy_hits":[{"policy":"a","severity":"high","spans":[{"start":1,"end":2}]}],"policy_hits":[{"policy":"b","spans":[{"end":3}]}]},%s`,
	"null kind":               `{"kind":null,%s`,
	"null received_at":        `{"received_at":null,%s`,
	"number kind":             `{"kind":5,%s`,
	"float version":           `{"schema_version":1.0,%s`,
	"exp version":             `{"schema_version":1e0,%s`,
	"huge version":            `{"schema_version":99999999999999999999,%s`,
	"neg zero version":        `{"schema_version":-0,%s`,
	"leading zero":            `{"schema_version":01,%s`,
	"trailing comma":          `{"kind":"trace",}`,
	"empty object":            `{}`,
	"trace null":              `{"trace":null,%s`,
	"policy hit as string":    `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","policy_hits":["pii"]},%s`,
	"policy_hits null item":   `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","policy_hits":[null]},%s`,
	"spans null":              `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","policy_hits":[{"policy":"p","spans":null}]},%s`,
	"metadata null":           `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","metadata":null},%s`,
	"metadata array":          `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","metadata":[1]},%s`,
	"metadata deep":           `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","metadata":{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}},%s`,
	"invalid utf8 string":     "{\"trace\":{\"request_id\":\"r\xff\",\"mode\":\"ingest\",\"status\":\"ok\",\"started_at\":\"2026-01-01T00:00:00Z\"},%s",
	"invalid utf8 prompt":     "{\"trace\":{\"request_id\":\"r\",\"prompt\":\"a\\n\xc3\",\"mode\":\"ingest\",\"status\":\"ok\",\"started_at\":\"2026-01-01T00:00:00Z\"},%s",
	"lone surrogate":          `{"trace":{"request_id":"r","prompt":"\ud800x","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z"},%s`,
	"reversed surrogates":     `{"trace":{"request_id":"r","prompt":"\udc00\ud800","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z"},%s`,
	"surrogate pair":          `{"trace":{"request_id":"r","prompt":"\uD83D\uDE00 \u0000 \/","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z"},%s`,
	"bad escape":              `{"trace":{"request_id":"r","prompt":"\'","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z"},%s`,
	"raw control char":        "{\"trace\":{\"request_id\":\"r\",\"prompt\":\"a\tb\",\"mode\":\"ingest\",\"status\":\"ok\",\"started_at\":\"2026-01-01T00:00:00Z\"},%s",
	"escaped time":            `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00\u005a"},%s`,
	"lax time":                `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01 00:00:00Z"},%s`,
	"float int field":         `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","prompt_tokens":1.5},%s`,
	"cost out of range":       `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","cost_usd":1e400},%s`,
	"cost string":             `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","cost_usd":"1"},%s`,
	"latency null then value": `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","latency_ms":null,"latency_ms":5},%s`,
	"finished null":           `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","finished_at":null},%s`,
	"number grammar":          `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","risk_score":.5},%s`,
	"number grammar 2":        `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","risk_score":1.},%s`,
	"number grammar 3":        `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","risk_score":+1},%s`,
	"exp risk":                `{"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2026-01-01T00:00:00Z","risk_score":5E-1},%s`,
}

// rawTail completes an envelope the raw cases open; with the earlier keys it
// makes some fields duplicates, which is the point of those cases.
const rawTail = `"schema_version":1,"kind":"trace","org_id":"o","received_at":"2026-01-01T00:00:01.5+02:00","trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2025-12-31T23:00:00Z"}}`

func rawCase(format string) []byte {
	if !strings.Contains(format, "%s") {
		return []byte(format)
	}
	tail := rawTail
	if strings.HasPrefix(format, `{"trace"`) {
		tail = strings.Replace(rawTail, `,"trace":{"request_id":"r","mode":"ingest","status":"ok","started_at":"2025-12-31T23:00:00Z"}`, "", 1)
	}
	if !strings.HasPrefix(format, "{") || strings.HasPrefix(strings.TrimLeft(format, " \n\t\r\ufeff"), "%s") {
		tail = "{" + tail
	}
	return []byte(strings.Replace(format, "%s", tail, 1))
}

// TestDecodeEnvelopeRawInputs: hand-written inputs (keys encoding/json
// folds, duplicates, nulls, bad UTF-8, number and time edge cases) give
// encoding/json's result or error.
func TestDecodeEnvelopeRawInputs(t *testing.T) {
	for name, format := range rawCases {
		t.Run(name, func(t *testing.T) {
			requireSameDecode(t, rawCase(format))
		})
	}
	// The tail itself must be valid, or half the cases would test nothing.
	_, err := DecodeEnvelope(rawCase("%s"))
	require.NoError(t, err)
}

// FuzzDecodeEnvelope compares DecodeEnvelope with encoding/json on arbitrary
// input: both accept with equal envelopes, or both reject. There is no
// intended difference: whatever the fast path is unsure of goes to
// encoding/json.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, env := range compatEnvelopes() {
		v, err := json.Marshal(&env)
		require.NoError(f, err)
		f.Add(v)
	}
	for _, format := range rawCases {
		f.Add(rawCase(format))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		want, wantErr := referenceDecode(v)
		got, err := DecodeEnvelope(v)
		if wantErr != nil {
			if err == nil {
				t.Fatalf("encoding/json rejects %q (%v), DecodeEnvelope accepts it", v, wantErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("encoding/json accepts %q, DecodeEnvelope rejects it: %v", v, err)
		}
		require.Equal(t, want, got, "input %q", v)
		// The fast path alone must agree too whenever it claims the record.
		var fast Envelope
		if decodeFast(v, &fast) {
			require.Equal(t, want, fast, "fast path, input %q", v)
		}
	})
}

// FuzzEnvelopeMarshal holds Marshal to encoding/json's bytes for arbitrary
// strings, numbers and metadata.
func FuzzEnvelopeMarshal(f *testing.F) {
	f.Add("org", "prompt <&> \u2028", "answer\n\xff", `{"a":1}`, 0.5, int64(7), true)
	f.Add("", "", "", "", 1e21, int64(-1), false)
	f.Add("o", "p", "a", "{ \"a\" : \"<\" }", 1e-7, int64(math.MaxInt64), true)
	f.Fuzz(func(t *testing.T, org, prompt, answer, meta string, f64 float64, i64 int64, hits bool) {
		e := benchCanonical()
		e.OrgID, e.Trace.Prompt, e.Trace.Answer, e.Trace.RequestID = org, prompt, answer, answer
		e.Trace.Metadata = json.RawMessage(meta)
		e.Trace.CostUSD, e.Trace.PromptTokens = &f64, i64
		e.Trace.ReceivedAt = time.Unix(i64%(1<<40), i64%2e9).In(time.FixedZone("", int(i64%(20*3600))))
		if hits {
			e.Trace.PolicyHits = []PolicyHit{{Policy: prompt, Confidence: f64, Stage: org, Spans: []Span{{Start: int(i64 % (1 << 30)), End: 1}}}}
		} else {
			e.Trace.PolicyHits = nil
		}
		want, wantErr := json.Marshal(&e)
		got, err := e.Marshal()
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error())
			return
		}
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	})
}

// TestStrStopAtEveryOffset puts each byte the string scan must stop at (or
// must remember, for the UTF-8 check) at every offset around the scan's
// 8-byte words, and holds DecodeStringMembers to encoding/json: the same
// value, or a refusal where encoding/json would decode differently or fail.
func TestStrStopAtEveryOffset(t *testing.T) {
	specials := []struct{ name, s string }{
		{"quote", `\"`}, {"backslash", `\\`}, {"escape n", `\n`}, {"escape u", `\u00e9`},
		{"surrogate pair", `\ud83d\ude00`}, {"NUL", "\x00"}, {"US", "\x1f"}, {"space", " "},
		{"DEL", "\x7f"}, {"e acute", "é"}, {"line separator", "\u2028"}, {"invalid", "\xff"},
		{"truncated", "\xc3"}, {"0x80", "\x80"}, {"bang", "!"}, {"hash", "#"}, {"bracket", "["}, {"close bracket", "]"},
	}
	for _, sp := range specials {
		t.Run(sp.name, func(t *testing.T) {
			for pre := 0; pre <= 17; pre++ {
				for post := 0; post <= 9; post += 3 {
					body := []byte(`{"answer":"` + strings.Repeat("a", pre) + sp.s + strings.Repeat("b", post) + `"}`)
					var want struct{ Answer *string }
					wantErr := json.Unmarshal(body, &want)
					var got *string
					ok := DecodeStringMembers(body, func(name []byte, v *string) bool {
						got = v
						return string(name) == "answer"
					})
					if wantErr != nil {
						require.False(t, ok, "encoding/json rejects %q, the fast path accepts it", body)
						continue
					}
					if ok { // a refusal is always allowed: encoding/json decodes then
						require.Equal(t, *want.Answer, *got, "body %q", body)
					} else {
						// Only invalid UTF-8, which encoding/json replaces.
						require.False(t, utf8.ValidString(sp.s), "the fast path refused valid %q", body)
					}
				}
			}
		})
	}
}

// TestAppendStringEveryOffset puts each byte appendString must escape (or
// decode, if not ASCII) at every offset around its 8-byte words and holds
// it to encoding/json's bytes.
func TestAppendStringEveryOffset(t *testing.T) {
	specials := []string{`"`, `\`, "<", ">", "&", "\x00", "\n", "\x1f", " ", "~", "\x7f", "é", "\u2028", "\u2029",
		"\xff", "\xc3", "\x80", "😀", "=", "?", "<&>", "a\"b\\c", "é<", "<é", "\n\u2028x\x01", "中文中文中文", "€\"€"}
	for _, sp := range specials {
		for pre := 0; pre <= 17; pre++ {
			for post := 0; post <= 9; post += 3 {
				s := strings.Repeat("a", pre) + sp + strings.Repeat("b", post)
				want, err := json.Marshal(s)
				require.NoError(t, err)
				require.Equal(t, string(want), string(AppendJSONString(nil, s)), "string %q", s)
			}
		}
	}
}
