package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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
	h := e.srv.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/events", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", app.Key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		e.log.reset()
	}
}
