package httpapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHealthReadyMetrics(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/healthz", nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.JSONEq(t, `{"ok":true}`, string(r.Body))

	r = e.do("GET", "/readyz", nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.JSONEq(t, `{"ok":true}`, string(r.Body))

	e.ready.Store(errString("kafka: no brokers reachable"))
	m := requireError(t, e.do("GET", "/readyz", nil), http.StatusServiceUnavailable)
	require.Contains(t, m["error"], "kafka: no brokers reachable")

	r = e.do("GET", "/metrics", nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, string(r.Body), "gateway_http_request_duration_seconds")
	require.Contains(t, string(r.Body), `route="/readyz"`)
}

type errString string

func (e errString) Error() string { return string(e) }

func TestJSONErrorsForRouting(t *testing.T) {
	e := newEnv(t)
	e.srv.Echo().GET("/test/panic", func(c echoContext) error { panic("boom") })

	m := requireError(t, e.do("GET", "/nope", nil), http.StatusNotFound)
	require.Equal(t, "not found", m["error"])
	m = requireError(t, e.do("GET", "/v1/events", nil), http.StatusMethodNotAllowed)
	require.Equal(t, "method not allowed", m["error"])
	m = requireError(t, e.do("GET", "/test/panic", nil), http.StatusInternalServerError)
	require.Equal(t, "internal server error", m["error"])
	require.NotContains(t, m["error"], "boom")

	r := e.do("GET", "/healthz", nil, "X-Request-Id", "abc-123")
	require.Equal(t, "abc-123", r.Header.Get("X-Request-Id"))
	r = e.do("GET", "/healthz", nil, "X-Request-Id", "bad id\n")
	require.NotEqual(t, "bad id\n", r.Header.Get("X-Request-Id"))
	require.NotEmpty(t, r.Header.Get("X-Request-Id"))
}

func TestSignupValidation(t *testing.T) {
	e := newEnv(t)
	ok := map[string]any{"email": "a@example.com", "password": "12345678", "organization": "Acme"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range ok {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for _, tc := range []struct {
		name string
		body any
		code int
		msg  string
	}{
		{"bad email", with("email", "not-an-email"), 400, "email"},
		{"display name", with("email", "A <a@example.com>"), 400, "email"},
		{"no email", with("email", nil), 400, "email"},
		{"short password", with("password", "1234567"), 400, "password"},
		{"long password", with("password", strings.Repeat("p", 73)), 400, "password"},
		{"no organization", with("organization", "  "), 400, "organization"},
		{"long organization", with("organization", strings.Repeat("o", 201)), 400, "organization"},
		{"unknown field", with("plan", "pro"), 400, "plan"},
		{"wrong type", with("password", 12345678), 400, "password"},
		{"malformed", `{"email":`, 400, "JSON"},
		{"trailing data", `{"email":"a@example.com","password":"12345678","organization":"A"} {}`, 400, "after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := requireError(t, e.do("POST", "/api/console/signup", tc.body), tc.code)
			require.Contains(t, m["error"], tc.msg)
		})
	}
	m := requireError(t, e.do("POST", "/api/console/signup", ok, "Content-Type", "text/plain"), http.StatusUnsupportedMediaType)
	require.Contains(t, m["error"], "application/json")

	r := e.do("POST", "/api/console/signup", ok)
	require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	got := r.JSON(t)
	require.EqualValues(t, 50, got["credit_usd"])
	require.True(t, strings.HasPrefix(got["token"].(string), "gwc_"))
	require.NotEmpty(t, got["org_id"])

	dup := with("email", "A@Example.COM")
	requireError(t, e.do("POST", "/api/console/signup", dup), http.StatusConflict)
}

func TestLoginAndTokens(t *testing.T) {
	e := newEnv(t)
	acc := e.signup("User@Example.com")

	r := e.do("POST", "/api/console/login", map[string]any{"email": "user@example.com", "password": "correct horse"})
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	tok := r.JSON(t)["token"].(string)
	require.NotEqual(t, acc.token, tok)
	require.Equal(t, http.StatusOK, e.do("GET", "/api/console/apps", nil, bearer(tok)...).Code)

	wrongPw := requireError(t, e.do("POST", "/api/console/login", map[string]any{"email": "user@example.com", "password": "wrong horse"}), 401)
	unknown := requireError(t, e.do("POST", "/api/console/login", map[string]any{"email": "nobody@example.com", "password": "correct horse"}), 401)
	require.Equal(t, wrongPw["error"], unknown["error"], "same message for unknown email and wrong password")

	for _, h := range [][]string{nil, bearer("gwc_nope"), {"Authorization", "Basic eDp5"}, bearer(strings.Repeat("x", 300))} {
		requireError(t, e.do("GET", "/api/console/apps", nil, h...), http.StatusUnauthorized)
	}
	requireError(t, e.do("GET", "/api/console/unknown", nil), http.StatusNotFound)
	requireError(t, e.do("GET", "/api/console/unknown", nil, bearer(tok)...), http.StatusNotFound)
	requireError(t, e.do("PUT", "/api/console/apps", nil, bearer(tok)...), http.StatusMethodNotAllowed)
	requireError(t, e.do("DELETE", "/api/console/requests/x", nil), http.StatusMethodNotAllowed)

	e.clock.Advance(7*24*time.Hour + time.Second)
	requireError(t, e.do("GET", "/api/console/apps", nil, bearer(tok)...), http.StatusUnauthorized)
}

func TestAppLifecycle(t *testing.T) {
	e := newEnv(t)
	acc := e.signup("a@example.com")

	r := e.do("POST", "/api/console/apps", map[string]any{"name": "shop", "mode": "events"}, bearer(acc.token)...)
	require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	created := r.JSON(t)
	key := created["api_key"].(string)
	require.True(t, strings.HasPrefix(key, "gwk_"))
	require.Equal(t, "events", created["mode"])
	require.Equal(t, "shop", created["name"])
	require.True(t, strings.HasPrefix(key, created["key_prefix"].(string)))
	id := created["id"].(string)

	r = e.do("GET", "/api/console/apps", nil, bearer(acc.token)...)
	require.Equal(t, http.StatusOK, r.Code)
	require.NotContains(t, string(r.Body), key, "the key is shown only at creation")
	require.NotContains(t, string(r.Body), `"api_key"`)
	data := r.JSON(t)["data"].([]any)
	require.Len(t, data, 1)
	require.Equal(t, created["key_prefix"], data[0].(map[string]any)["key_prefix"])

	r = e.do("GET", "/api/console/apps/"+id, nil, bearer(acc.token)...)
	require.Equal(t, http.StatusOK, r.Code)
	require.NotContains(t, string(r.Body), key)

	// The key works; the whole path is warm in the key cache.
	require.Equal(t, http.StatusOK, e.postEvents(key, event("e-1")).Code)
	require.Equal(t, http.StatusOK, e.postEvents(key, event("e-2")).Code)

	r = e.do("PATCH", "/api/console/apps/"+id, map[string]any{"name": "shop2", "model": "gpt-4o"}, bearer(acc.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	require.Equal(t, "shop2", r.JSON(t)["name"])

	r = e.do("DELETE", "/api/console/apps/"+id, nil, bearer(acc.token)...)
	require.Equal(t, http.StatusNoContent, r.Code)
	requireError(t, e.postEvents(key, event("e-3")), http.StatusUnauthorized)
	require.Len(t, e.do("GET", "/api/console/apps", nil, bearer(acc.token)...).JSON(t)["data"], 0)
	requireError(t, e.do("DELETE", "/api/console/apps/"+id, nil, bearer(acc.token)...), http.StatusNotFound)
}

func TestAppValidation(t *testing.T) {
	e := newEnv(t)
	acc := e.signup("a@example.com")
	for _, tc := range []struct {
		name string
		body map[string]any
		msg  string
	}{
		{"no name", map[string]any{"mode": "events"}, "name"},
		{"no mode", map[string]any{"name": "x"}, "mode"},
		{"bad mode", map[string]any{"name": "x", "mode": "chat"}, "mode"},
		{"provider option on events", map[string]any{"name": "x", "mode": "events", "provider_option": "byok"}, "full_control"},
		{"llm key on events", map[string]any{"name": "x", "mode": "events", "llm_api_key": "sk"}, "full_control"},
		{"verify llm without model", map[string]any{"name": "x", "mode": "verify", "provider_option": "managed", "provider": "openai"}, "provider and model"},
		{"verify llm without provider", map[string]any{"name": "x", "mode": "verify", "provider_option": "managed", "model": "m"}, "provider and model"},
		{"verify bad provider option", map[string]any{"name": "x", "mode": "verify", "provider_option": "free", "provider": "openai", "model": "m"}, "provider_option"},
		{"verify byok without key", map[string]any{"name": "x", "mode": "verify", "provider_option": "byok", "provider": "openai", "model": "m"}, "llm_api_key"},
		{"verify byok without master key", map[string]any{"name": "x", "mode": "verify", "provider": "openai", "model": "m", "llm_api_key": "sk-1"}, "GATEWAY_MASTER_KEY"},
		{"full_control without provider option", map[string]any{"name": "x", "mode": "full_control", "provider_option": ""}, "provider_option"},
		{"bad provider option", map[string]any{"name": "x", "mode": "full_control", "provider_option": "free"}, "provider_option"},
		{"bad provider", map[string]any{"name": "x", "mode": "full_control", "provider": "acme"}, "provider"},
		{"byok without key", map[string]any{"name": "x", "mode": "full_control", "provider_option": "byok"}, "llm_api_key"},
		{"byok without master key", map[string]any{"name": "x", "mode": "full_control", "provider_option": "byok", "llm_api_key": "sk-1"}, "GATEWAY_MASTER_KEY"},
		{"managed with key", map[string]any{"name": "x", "mode": "full_control", "provider_option": "managed", "llm_api_key": "sk-1"}, "byok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := requireError(t, e.do("POST", "/api/console/apps", tc.body, bearer(acc.token)...), http.StatusBadRequest)
			require.Contains(t, m["error"], tc.msg)
		})
	}
	require.Len(t, e.do("GET", "/api/console/apps", nil, bearer(acc.token)...).JSON(t)["data"], 0)
}

func TestAppBYOK(t *testing.T) {
	e := newEnv(t, withMasterKey)
	acc := e.signup("a@example.com")
	id := e.createBYOKApp(acc, "full_control", "sk-upstream-secret-123")
	path := "/api/console/apps/" + id
	r := e.do("PATCH", path, map[string]any{"provider_option": "managed"}, bearer(acc.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	require.Equal(t, "managed", r.JSON(t)["provider_option"])
	require.Equal(t, false, r.JSON(t)["has_llm_api_key"])

	m := requireError(t, e.do("PATCH", path, map[string]any{"provider_option": "byok"}, bearer(acc.token)...), 400)
	require.Contains(t, m["error"], "llm_api_key")
	requireError(t, e.do("PATCH", path, map[string]any{"mode": "events"}, bearer(acc.token)...), 400)

	r = e.do("PATCH", path, map[string]any{"provider_option": "byok", "llm_api_key": "sk-new"}, bearer(acc.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	require.Equal(t, true, r.JSON(t)["has_llm_api_key"])

	r = e.do("GET", "/api/console/apps", nil, bearer(acc.token)...)
	require.NotContains(t, string(r.Body), "sk-new")
	require.NotContains(t, string(r.Body), `"llm_api_key"`)
}

// TestVerifyAppLLM: a Verify application may carry an LLM to regenerate
// with, validated and sealed as a Full Control application's; the key is
// never returned; provider_option "" removes the LLM again.
func TestVerifyAppLLM(t *testing.T) {
	e := newEnv(t, withMasterKey)
	acc := e.signup("a@example.com")
	const llmKey = "sk-verify-upstream-secret"
	id := e.createBYOKApp(acc, "verify", llmKey)
	path := "/api/console/apps/" + id
	var r resp
	for _, p := range []string{path, "/api/console/apps"} {
		r = e.do("GET", p, nil, bearer(acc.token)...)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		require.NotContains(t, string(r.Body), llmKey)
		require.NotContains(t, string(r.Body), `"llm_api_key"`)
		require.Contains(t, string(r.Body), `"has_llm_api_key":true`)
	}

	requireError(t, e.do("PATCH", path, map[string]any{"model": ""}, bearer(acc.token)...), http.StatusBadRequest)
	r = e.do("PATCH", path, map[string]any{"provider_option": "managed"}, bearer(acc.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	require.Equal(t, "managed", r.JSON(t)["provider_option"])
	require.Equal(t, false, r.JSON(t)["has_llm_api_key"])

	r = e.do("PATCH", path, map[string]any{"provider_option": ""}, bearer(acc.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	require.NotContains(t, r.JSON(t), "provider_option", "no LLM any more")
	require.Equal(t, false, r.JSON(t)["has_llm_api_key"])
	r = e.do("PATCH", path, map[string]any{"llm_api_key": "sk-again"}, bearer(acc.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	require.Equal(t, "byok", r.JSON(t)["provider_option"], "a key alone makes it BYOK again")

	// A verify app created as before has no LLM.
	plainApp := e.createApp(acc, map[string]any{"name": "plain", "mode": "verify", "provider": "openai", "model": "gpt-4o-mini"})
	r = e.do("GET", "/api/console/apps/"+plainApp.ID, nil, bearer(acc.token)...)
	require.NotContains(t, r.JSON(t), "provider_option")
}

// createBYOKApp creates a BYOK application of mode (openai, gpt-4o) and
// checks that the answer never holds its LLM key, which is sealed at rest,
// bound to the app, and opens with the master key. It returns the app's id.
func (e *env) createBYOKApp(acc account, mode, llmKey string) string {
	t := e.t
	r := e.do("POST", "/api/console/apps", map[string]any{
		"name": mode, "mode": mode, "provider": "openai", "model": "gpt-4o", "llm_api_key": llmKey,
	}, bearer(acc.token)...)
	require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	require.NotContains(t, string(r.Body), llmKey)
	m := r.JSON(t)
	require.Equal(t, mode, m["mode"])
	require.Equal(t, "byok", m["provider_option"])
	require.Equal(t, true, m["has_llm_api_key"])
	id := m["id"].(string)

	stored, err := e.store.App(context.Background(), acc.org, id)
	require.NoError(t, err)
	require.NotContains(t, string(stored.LLMKeyCipher), llmKey)
	plain, err := e.srv.Sealer().Open(stored.LLMKeyCipher, sealAADFor(acc.org, id))
	require.NoError(t, err)
	require.Equal(t, llmKey, string(plain))
	return id
}

func TestTenantIsolationApps(t *testing.T) {
	e := newEnv(t)
	a, b := e.signup("a@example.com"), e.signup("b@example.com")
	appA := e.eventsApp(a)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/console/apps/" + appA.ID},
		{"PATCH", "/api/console/apps/" + appA.ID},
		{"DELETE", "/api/console/apps/" + appA.ID},
	} {
		var body any
		if tc.method == "PATCH" {
			body = map[string]any{"name": "stolen"}
		}
		m := requireError(t, e.do(tc.method, tc.path, body, bearer(b.token)...), http.StatusNotFound)
		require.Equal(t, "not found", m["error"])
	}
	require.Len(t, e.do("GET", "/api/console/apps", nil, bearer(b.token)...).JSON(t)["data"], 0)
	// A's app is untouched.
	r := e.do("GET", "/api/console/apps/"+appA.ID, nil, bearer(a.token)...)
	require.Equal(t, http.StatusOK, r.Code)
	require.Equal(t, "ingest", r.JSON(t)["name"])
	require.Equal(t, http.StatusOK, e.postEvents(appA.Key, event("still-works")).Code)
}

// The request log names requests, never secrets or bodies.
func TestLogsHoldNoSecrets(t *testing.T) {
	var buf syncBuffer
	e := newEnv(t, withMasterKey, func(_ *Config, d *Deps) {
		d.Logger = slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	acc := e.signup("secret-user@example.com")
	r := e.do("POST", "/api/console/login", map[string]any{"email": "secret-user@example.com", "password": "correct horse"})
	loginTok := r.JSON(t)["token"].(string)
	app := e.eventsApp(acc)
	fc := e.createApp(acc, map[string]any{"name": "fc", "mode": "full_control", "llm_api_key": "sk-llm-very-secret"})
	e.postEvents(app.Key, map[string]any{"prompt": "my prompt text", "answer": "my answer text", "model": "m", "prompt_tokens": 1, "completion_tokens": 1})
	e.do("POST", "/v1/events", event("bearer-1"), "Authorization", "Bearer "+app.Key)
	e.postEvents(fc.Key, event("wrong-mode"))
	e.postEvents("gwk_notarealkeybutstillsecret00000", event("x"))
	e.log.failWith(errors.New("broker down"))
	e.postEvents(app.Key, event("fail-1"))

	logs := buf.String()
	require.Contains(t, logs, `"route":"/v1/events"`)
	require.Contains(t, logs, `"request_id"`)
	require.Contains(t, logs, `"status":500`)
	require.Contains(t, logs, "broker down", "5xx causes are logged")
	for _, secret := range []string{acc.token, loginTok, app.Key, fc.Key, "correct horse", "sk-llm-very-secret",
		"gwk_notarealkeybutstillsecret00000", "my prompt text", "my answer text"} {
		require.NotContains(t, logs, secret)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestConsoleBodyLimit(t *testing.T) {
	e := newEnv(t)
	big := `{"email":"a@example.com","password":"12345678","organization":"` + strings.Repeat("o", 70<<10) + `"}`
	m := requireError(t, e.do("POST", "/api/console/signup", big), http.StatusRequestEntityTooLarge)
	require.Contains(t, m["error"], "limit")
}

func TestMetricsRouteLabelsAreBounded(t *testing.T) {
	e := newEnv(t)
	acc := e.signup("a@example.com")
	e.do("GET", "/nope/abc123", nil)
	e.do("GET", "/api/console/zzz/abc123", nil, bearer(acc.token)...)
	e.do("GET", "/api/console/requests/some-request-id", nil, bearer(acc.token)...)
	r := e.do("POST", "/api/console/requests", map[string]any{}, bearer(acc.token)...)
	requireError(t, r, http.StatusMethodNotAllowed)
	body := string(e.do("GET", "/metrics", nil).Body)
	require.NotContains(t, body, "abc123")
	require.NotContains(t, body, "some-request-id")
	require.Contains(t, body, `route="/api/console/requests/:id"`)
	require.Contains(t, body, `route="unmatched"`)
}
