package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/crypto/bcrypt"

	"github.com/governance-gateway/gateway/ingest/auth"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/sqlite"
	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeLog records produced envelopes and can be told to fail.
type fakeLog struct {
	mu    sync.Mutex
	calls [][]schemas.Envelope
	fail  atomic.Value // error to return
}

func (f *fakeLog) Produce(_ context.Context, envs []schemas.Envelope) error {
	if b, _ := f.fail.Load().(errBox); b.error != nil {
		return b.error
	}
	// As the real producer: a record over the log's limit fails the call.
	for _, e := range envs {
		if v, err := e.Marshal(); err != nil || len(v) > topics.MaxRecordBytes {
			return fmt.Errorf("%w: envelope of %d bytes", topics.ErrTooLarge, len(v))
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, append([]schemas.Envelope(nil), envs...))
	return nil
}

func (f *fakeLog) all() []schemas.Envelope {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []schemas.Envelope
	for _, c := range f.calls {
		out = append(out, c...)
	}
	return out
}

// failWith makes Produce fail with err (nil: succeed again).
func (f *fakeLog) failWith(err error) { f.fail.Store(errBox{err}) }

type errBox struct{ error }

func (f *fakeLog) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func (f *fakeLog) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
}

// clock is a settable time source.
type clock struct{ ns atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

type env struct {
	t      testing.TB
	srv    *Server
	store  *sqlite.Store
	log    *fakeLog
	clock  *clock
	reg    *prometheus.Registry
	ready  atomic.Value // error
	offset int64
}

type envOpt func(*Config, *Deps)

func withMasterKey(c *Config, _ *Deps) { c.MasterKey = []byte("0123456789abcdef0123456789abcdef") }

func newEnv(t testing.TB, opts ...envOpt) *env {

	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gw.db"))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	e := &env{t: t, store: store, log: &fakeLog{}, clock: &clock{}, reg: prometheus.NewRegistry()}
	e.clock.ns.Store(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	cfg := Config{BcryptCost: bcrypt.MinCost}
	deps := Deps{
		Store:      store,
		Log:        e.log,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Registerer: e.reg,
		Ready: func(ctx context.Context) error {
			if err, _ := e.ready.Load().(error); err != nil {
				return err
			}
			return store.Ping(ctx)
		},
		Now: e.clock.Now,
	}
	for _, o := range opts {
		o(&cfg, &deps)
	}
	srv, err := New(cfg, deps)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	e.srv = srv
	return e
}

type resp struct {
	Code   int
	Header http.Header
	Body   []byte
}

func (r resp) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), "body: %s", r.Body)
	return m
}

// do sends a request; body may be nil, a []byte, a string or a value to
// marshal. hdr is pairs of header name, value.
func (e *env) do(method, path string, body any, hdr ...string) resp {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		require.NoError(e.t, err)
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return resp{Code: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// requireError checks a JSON error answer {ok:false, error:<non-empty>}.
func requireError(t testing.TB, r resp, code int) map[string]any {
	t.Helper()
	require.Equal(t, code, r.Code, "body: %s", r.Body)
	require.Contains(t, r.Header.Get("Content-Type"), "application/json")
	m := r.JSON(t)
	require.Equal(t, false, m["ok"])
	require.NotEmpty(t, m["error"])
	return m
}

type account struct {
	token string
	org   string
}

func (e *env) signup(email string) account {
	r := e.do("POST", "/api/console/signup", map[string]any{"email": email, "password": "correct horse", "organization": "Org " + email})
	require.Equal(e.t, http.StatusCreated, r.Code, "%s", r.Body)
	m := r.JSON(e.t)
	return account{token: m["token"].(string), org: m["org_id"].(string)}
}

func bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

type createdApp struct {
	ID  string
	Key string
}

func (e *env) createApp(a account, body map[string]any) createdApp {
	r := e.do("POST", "/api/console/apps", body, bearer(a.token)...)
	require.Equal(e.t, http.StatusCreated, r.Code, "%s", r.Body)
	m := r.JSON(e.t)
	return createdApp{ID: m["id"].(string), Key: m["api_key"].(string)}
}

func (e *env) eventsApp(a account) createdApp {
	return e.createApp(a, map[string]any{"name": "ingest", "mode": "events"})
}

func (e *env) postEvents(key string, body any, hdr ...string) resp {
	return e.do("POST", "/v1/events", body, append([]string{"X-API-Key", key}, hdr...)...)
}

// seed writes traces of app directly into the store, one chunk per call.
func (e *env) seed(org, app string, traces ...schemas.Trace) {
	rows := make([]query.TraceRow, len(traces))
	first := e.offset
	for i, tr := range traces {
		tr.Derive()
		require.NoError(e.t, tr.Validate())
		rows[i] = query.TraceRow{OrgID: org, AppID: app, Trace: tr, Partition: 0, Offset: e.offset}
		e.offset++
	}
	_, err := e.store.WriteTraces(context.Background(),
		query.Chunk{Topic: topics.Traces, Partition: 0, FirstOffset: first, LastOffset: e.offset - 1}, rows)
	require.NoError(e.t, err)
}

func event(id string) map[string]any {
	return map[string]any{"request_id": id, "model": "gpt-x", "prompt_tokens": 3, "completion_tokens": 4}
}

func batch(evs ...map[string]any) map[string]any { return map[string]any{"events": evs} }

type echoContext = echo.Context

func sealAADFor(org, app string) []byte { return auth.SealAAD(org, app) }

// scriptedUpstream answers every request with the body set last (JSON, or
// an event stream: the bytes are written as they are).
func scriptedUpstream(t *testing.T) (url string, set func(body string)) {
	var mu sync.Mutex
	var next string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, next)
	}))
	t.Cleanup(up.Close)
	return up.URL, func(body string) {
		mu.Lock()
		next = body
		mu.Unlock()
	}
}

// stallingUpstream streams one OpenAI chunk ("Once upon") and then waits;
// cancelled closes when the request's context ends (its caller left).
func stallingUpstream(t *testing.T) (url string, cancelled <-chan struct{}) {
	done := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once upon\"}}]}\n\n")
		w.(http.Flusher).Flush()
		select { // the rest of the answer never comes: only a cancel ends this
		case <-r.Context().Done():
			close(done)
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(up.Close)
	return up.URL, done
}

// leaveMidStream posts body to url, reads the first bytes of the streamed
// answer and disconnects.
func leaveMidStream(t *testing.T, url, body string, hdr ...string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	first := make([]byte, 16)
	_, err = io.ReadFull(res.Body, first)
	require.NoError(t, err)
	require.Equal(t, "data: {\"choices\"", string(first), "the first bytes arrive before the answer ends")
	require.NoError(t, res.Body.Close())
}

// requireClosed fails unless ch closes within 5 s.
func requireClosed(t *testing.T, ch <-chan struct{}, msg string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal(msg)
	}
}
