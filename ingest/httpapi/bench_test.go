package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkEventsBatch500 measures POST /v1/events for a batch of 500
// canonical events end to end through the handler: key lookup (cached),
// decode, the skipped lookup in SQLite, envelope stamping, produce to an
// in-memory LogWriter and the JSON answer.
func BenchmarkEventsBatch500(b *testing.B) {
	e := newEnv(b)
	app := e.eventsApp(e.signup("bench@example.com"))
	evs := make([]map[string]any, 500)
	for i := range evs {
		evs[i] = map[string]any{
			"request_id": fmt.Sprintf("bench-%04d", i), "model": "gpt-4o-mini", "provider": "openai",
			"started_at": "2025-03-01T12:00:00Z", "finished_at": "2025-03-01T12:00:01.250Z",
			"prompt_tokens": 120, "completion_tokens": 80, "cost_usd": 0.00042, "status": "ok",
			"use_case": "support", "session_id": "s-1", "metadata": map[string]any{"tenant": "acme", "region": "eu"},
		}
	}
	body, err := json.Marshal(map[string]any{"events": evs})
	require.NoError(b, err)
	b.SetBytes(int64(len(body)))
	benchPost(b, e, "/v1/events", app.Key, body)
}

// benchPost posts body to path with the key, b.N times, through the whole
// handler chain, expecting 200; the in-memory log is emptied after each.
func benchPost(b *testing.B, e *env, path, key string, body []byte) {
	h := e.srv.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		e.log.reset()
	}
}

// BenchmarkVerifyHandler measures POST /v1/verify in process with the
// workload of `gateway bench verify` (2 KB answer restating an 8 KB
// tool_result, one e-mail address: a rewrite): key lookup, body checks and
// decode, the engine, the decision's envelope produced to an in-memory
// LogWriter, and the JSON answer. Subtract governance's BenchmarkVerify for
// the handler's own share.
func BenchmarkVerifyHandler(b *testing.B) {
	e := newEnv(b)
	app := e.createApp(e.signup("bench@example.com"), map[string]any{"name": "v", "mode": "verify"})
	tool := strings.Repeat("Quarterly report: revenue reached $4.2 million, up 12% year over year. Europe grew fastest "+
		"and the customer count rose to 1,250 accounts. Churn fell to 3% after the support changes. ", 50)[:8<<10]
	answer := strings.Repeat("Revenue reached $4.2 million this quarter, 12% more than a year ago, with Europe growing fastest. ", 21)[:2<<10-40] +
		" Questions: finance@example.com."
	body, err := json.Marshal(map[string]string{"prompt": "Summarise the quarter for the board.", "answer": answer, "tool_result": tool})
	require.NoError(b, err)
	b.SetBytes(int64(len(body)))
	benchPost(b, e, "/v1/verify", app.Key, body)
}
