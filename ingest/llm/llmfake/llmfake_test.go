package llmfake

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRecording(t *testing.T) {
	for _, noRecord := range []bool{false, true} {
		s := &Server{NoRecord: noRecord}
		for range 3 {
			r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
			r.Header.Set("Authorization", "Bearer sk-test")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			require.Contains(t, w.Body.String(), `"content":"You said: hi"`)
		}
		if noRecord {
			require.Empty(t, s.Received(), "a long-running demo upstream keeps nothing")
		} else {
			require.Len(t, s.Received(), 3)
		}
	}
}
