package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

var receivedAtRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

func TestEventsSimpleForm(t *testing.T) {
	e := newEnv(t)
	acc := e.signup("a@example.com")
	app := e.eventsApp(acc)

	r := e.postEvents(app.Key, map[string]any{
		"prompt": "hi", "answer": "hello", "model": "gpt-x", "prompt_tokens": 2, "completion_tokens": 3,
		"session_id": "s1", "metadata": map[string]any{"team": "x"},
	})
	require.Equal(t, http.StatusAccepted, r.Code, "%s", r.Body)
	m := r.JSON(t)
	require.Len(t, m, 3, "exactly ok, request_id, received_at: %s", r.Body)
	require.Equal(t, true, m["ok"])
	require.NotEmpty(t, m["request_id"])
	require.Regexp(t, receivedAtRE, m["received_at"])
	require.Equal(t, "2025-03-01T12:00:00.000Z", m["received_at"])

	envs := e.log.all()
	require.Len(t, envs, 1)
	got := envs[0]
	require.Equal(t, acc.org, got.OrgID)
	require.Equal(t, app.ID, got.AppID)
	require.Equal(t, schemas.KindSimpleEvent, got.Kind)
	require.Equal(t, m["request_id"], got.Trace.RequestID)
	require.Equal(t, e.clock.Now(), got.ReceivedAt)
	_, err := schemas.DecodeEnvelope(mustMarshal(t, &got))
	require.NoError(t, err, "the produced envelope passes the processors' validation")

	// A simple event missing a required field is a 400 with a JSON error.
	r = e.postEvents(app.Key, map[string]any{"prompt": "hi", "answer": "x"})
	m = requireError(t, r, http.StatusBadRequest)
	require.Contains(t, m["error"], "model")
	require.Len(t, e.log.all(), 1)

	// "request_id": null is "not sent", like every null: still the simple form.
	r = e.postEvents(app.Key, map[string]any{
		"request_id": nil, "prompt": "hi", "answer": "hello", "model": "gpt-x", "prompt_tokens": 2, "completion_tokens": 3,
	})
	require.Equal(t, http.StatusAccepted, r.Code, "%s", r.Body)
	envs = e.log.all()
	require.Len(t, envs, 2)
	require.Equal(t, r.JSON(t)["request_id"], envs[1].Trace.RequestID)
	require.Equal(t, schemas.KindSimpleEvent, envs[1].Kind)
}

func mustMarshal(t *testing.T, env *schemas.Envelope) []byte {
	b, err := env.Marshal()
	require.NoError(t, err)
	return b
}

func TestEventsOutcomes(t *testing.T) {
	e := newEnv(t)
	acc := e.signup("a@example.com")
	app := e.eventsApp(acc)
	// ids already stored for this org are skipped.
	e.seed(acc.org, app.ID, schemas.Trace{RequestID: "stored-1", StartedAt: time.Unix(1700000000, 0).UTC(), ReceivedAt: time.Unix(1700000000, 0).UTC()})

	bad := map[string]any{"request_id": "bad", "risk_score": 7}
	for _, tc := range []struct {
		name           string
		body           any
		code           int
		ok             bool
		acc, skip, tot int
		rejected       []int // indexes
		produced       []string
	}{
		{"single", event("s-1"), 200, true, 1, 0, 1, nil, []string{"s-1"}},
		{"batch", batch(event("b-1"), event("b-2"), event("b-3")), 200, true, 3, 0, 3, nil, []string{"b-1", "b-2", "b-3"}},
		{"duplicate in batch", batch(event("d-1"), event("d-1")), 200, true, 1, 1, 2, nil, []string{"d-1"}},
		{"already stored", batch(event("stored-1"), event("n-1")), 200, true, 1, 1, 2, nil, []string{"n-1"}},
		{"all skipped", batch(event("stored-1")), 200, true, 0, 1, 1, nil, nil},
		{"single stored", event("stored-1"), 200, true, 0, 1, 1, nil, nil},
		{"some rejected", batch(event("p-1"), bad, event("p-2")), 207, false, 2, 0, 3, []int{1}, []string{"p-1", "p-2"}},
		{"rejected and skipped", batch(event("stored-1"), bad), 207, false, 0, 1, 2, []int{1}, nil},
		{"all rejected", batch(bad, map[string]any{"request_id": ""}), 400, false, 0, 0, 2, []int{0, 1}, nil},
		{"single rejected", bad, 400, false, 0, 0, 1, []int{0}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.log.reset()
			r := e.postEvents(app.Key, tc.body)
			require.Equal(t, tc.code, r.Code, "%s", r.Body)
			require.Contains(t, string(r.Body), `"rejected":[`, "rejected is an array, never null")
			m := r.JSON(t)
			require.Equal(t, tc.ok, m["ok"])
			require.EqualValues(t, tc.acc, m["accepted"])
			require.EqualValues(t, tc.skip, m["skipped"])
			require.EqualValues(t, tc.tot, m["total"])
			rej := m["rejected"].([]any)
			require.Len(t, rej, len(tc.rejected))
			for i, idx := range tc.rejected {
				rm := rej[i].(map[string]any)
				require.EqualValues(t, idx, rm["index"])
				require.NotEmpty(t, rm["error"])
				require.Contains(t, rm, "request_id")
			}
			if tc.code == 400 {
				require.NotEmpty(t, m["error"])
			}
			var ids []string
			for _, env := range e.log.all() {
				require.Equal(t, acc.org, env.OrgID)
				require.Equal(t, app.ID, env.AppID)
				require.Equal(t, schemas.EnvelopeVersion, env.SchemaVersion)
				ids = append(ids, env.Trace.RequestID)
			}
			require.Equal(t, tc.produced, ids)
			if len(tc.produced) > 0 {
				require.Equal(t, 1, e.log.callCount(), "one atomic produce per request")
			}
		})
	}
	rej := e.postEvents(app.Key, batch(event("x-1"), bad)).JSON(t)["rejected"].([]any)[0].(map[string]any)
	require.Equal(t, "bad", rej["request_id"])
	require.Contains(t, rej["error"], "risk_score")
}

func TestEventsSkippedIsPerOrg(t *testing.T) {
	e := newEnv(t)
	a, b := e.signup("a@example.com"), e.signup("b@example.com")
	appA, appB := e.eventsApp(a), e.eventsApp(b)
	e.seed(a.org, appA.ID, schemas.Trace{RequestID: "shared", StartedAt: time.Unix(1700000000, 0).UTC()})
	m := e.postEvents(appB.Key, event("shared")).JSON(t)
	require.EqualValues(t, 1, m["accepted"], "another org's id is not a duplicate")
	require.EqualValues(t, 0, m["skipped"])
}

func TestEventsBadInput(t *testing.T) {
	e := newEnv(t)
	acc := e.signup("a@example.com")
	app := e.eventsApp(acc)
	verify := e.createApp(acc, map[string]any{"name": "v", "mode": "verify"})
	revoked := e.eventsApp(acc)
	require.Equal(t, http.StatusNoContent, e.do("DELETE", "/api/console/apps/"+revoked.ID, nil, bearer(acc.token)...).Code)

	many := make([]map[string]any, 501)
	for i := range many {
		many[i] = event(fmt.Sprintf("m-%d", i))
	}
	huge := `{"events":[{"request_id":"h","prompt":"` + strings.Repeat("a", 10<<20) + `"}]}`

	for _, tc := range []struct {
		name string
		key  string
		body any
		hdr  []string
		code int
		msg  string
	}{
		{"malformed JSON", app.Key, `{"events": [`, nil, 400, "invalid JSON"},
		{"not an object", app.Key, `[1,2]`, nil, 400, "JSON object"},
		{"empty body", app.Key, ``, nil, 400, ""},
		{"empty batch", app.Key, `{"events": []}`, nil, 400, "at least one"},
		{"unknown form", app.Key, `{"hello": 1}`, nil, 400, "form"},
		{"501 events", app.Key, batch(many...), nil, 413, "500"},
		{"body over 10 MiB", app.Key, huge, nil, 413, "limit"},
		{"wrong content type", app.Key, event("c-1"), []string{"Content-Type", "text/plain"}, 415, "application/json"},
		{"no content type", app.Key, event("c-1"), []string{"Content-Type", ""}, 415, "application/json"},
		{"missing key", "", event("k-1"), nil, 401, "API key"},
		{"unknown key", "gwk_00000000000000000000000000000000", event("k-1"), nil, 401, "API key"},
		{"revoked key", revoked.Key, event("k-1"), nil, 401, "API key"},
		{"wrong mode key", verify.Key, event("k-1"), nil, 403, "events"},
		{"console token is not an API key", acc.token, event("k-1"), nil, 401, "API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.log.reset()
			r := e.postEvents(tc.key, tc.body, tc.hdr...)
			m := requireError(t, r, tc.code)
			require.Contains(t, m["error"], tc.msg)
			require.Zero(t, e.log.callCount(), "nothing produced")
		})
	}
}

func TestEventsAuthHeaders(t *testing.T) {
	e := newEnv(t)
	app := e.eventsApp(e.signup("a@example.com"))
	r := e.do("POST", "/v1/events", event("h-1"), "Authorization", "Bearer "+app.Key)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	r = e.do("POST", "/v1/events", event("h-2"), "Content-Type", "application/json; charset=utf-8", "X-API-Key", app.Key)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
}

func TestEventsLogFailures(t *testing.T) {
	e := newEnv(t)
	app := e.eventsApp(e.signup("a@example.com"))
	bodies := []any{
		batch(event("u-1"), event("u-2")),
		event("u-3"),
		map[string]any{"prompt": "p", "answer": "a", "model": "m", "prompt_tokens": 1, "completion_tokens": 1},
	}
	for _, tc := range []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"unavailable", fmt.Errorf("produce: %w: broker down", topics.ErrUnavailable), 503, "retry"},
		{"too large", fmt.Errorf("produce: %w", topics.ErrTooLarge), 413, "larger"},
		{"unexpected", errors.New("marshal: boom"), 500, "nothing was recorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.log.failWith(tc.err)
			for _, body := range bodies {
				m := requireError(t, e.postEvents(app.Key, body), tc.code)
				require.NotContains(t, m, "accepted")
				require.Contains(t, m["error"], tc.msg)
				require.NotContains(t, m["error"], "boom", "causes are logged, not shown")
			}
		})
	}
	e.log.failWith(nil)
	r := e.postEvents(app.Key, batch(event("u-1"), event("u-2")))
	require.Equal(t, http.StatusOK, r.Code, "a retry after the outage is accepted")
	require.EqualValues(t, 2, r.JSON(t)["accepted"])
}

func TestEventsMetrics(t *testing.T) {
	e := newEnv(t)
	app := e.eventsApp(e.signup("a@example.com"))
	e.postEvents(app.Key, batch(event("m-1"), event("m-1"), map[string]any{"request_id": "m-2", "status": "nope"}))
	r := e.do("GET", "/metrics", nil)
	require.Equal(t, http.StatusOK, r.Code)
	body := string(r.Body)
	require.Contains(t, body, `gateway_events_total{outcome="accepted"} 1`)
	require.Contains(t, body, `gateway_events_total{outcome="skipped"} 1`)
	require.Contains(t, body, `gateway_events_total{outcome="rejected"} 1`)
	require.Contains(t, body, `gateway_http_request_duration_seconds_count{code="207",method="POST",route="/v1/events"} 1`)
}

// TestWrongModeMessage: the 403 for a key of another mode reads as English
// ("an events-mode application", not "a events-mode") and names both modes
// and the path called.
func TestWrongModeMessage(t *testing.T) {
	e := newEnv(t)
	acct := e.signup("mode@example.com")
	events := e.eventsApp(acct)
	verify := e.createApp(acct, map[string]any{"name": "v", "mode": "verify"})
	for _, tc := range []struct {
		path, key string
		body      any
		want      string
	}{
		{"/v1/verify", events.Key, map[string]any{"answer": "x"},
			"this API key belongs to an events-mode application; POST /v1/verify accepts only keys of verify-mode applications"},
		{"/v1/events", verify.Key, event("m-1"),
			"this API key belongs to a verify-mode application; POST /v1/events accepts only keys of events-mode applications"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			m := requireError(t, e.do("POST", tc.path, tc.body, "X-API-Key", tc.key), http.StatusForbidden)
			require.Equal(t, tc.want, m["error"])
		})
	}
}
