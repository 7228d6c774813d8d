package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/schemas"
)

var base = time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)

// seedListing stores 30 traces of org A: received one minute apart (r-00
// oldest), two apps, varied dimensions; and 3 traces of org B.
func seedListing(t *testing.T) (*env, account, account, createdApp, createdApp) {
	e := newEnv(t)
	a, b := e.signup("a@example.com"), e.signup("b@example.com")
	app1, app2 := e.eventsApp(a), e.eventsApp(a)
	appB := e.eventsApp(b)
	var tr1, tr2 []schemas.Trace
	for i := range 30 {
		tr := schemas.Trace{
			RequestID:     fmt.Sprintf("r-%02d", i),
			StartedAt:     base.Add(time.Duration(i) * time.Minute),
			ReceivedAt:    base.Add(time.Duration(i) * time.Minute),
			Model:         []string{"gpt-a", "gpt-b"}[i%2],
			UseCase:       []string{"chat", "search", "summarise"}[i%3],
			Status:        []string{"ok", "ok", "error", "blocked", "ok"}[i%5],
			FinalDecision: []string{"pass", "allow", "block"}[i%3],
			Prompt:        "prompt " + strconv.Itoa(i),
			Answer:        "answer " + strconv.Itoa(i),
			Metadata:      json.RawMessage(fmt.Sprintf(`{"team":"t%d","tier":"gold"}`, i%4)),
		}
		if i < 4 {
			tr.SessionID = "sess-1"
			tr.StartedAt = base.Add(time.Duration(10-i) * time.Hour) // session order is by started_at
		}
		if i%2 == 0 {
			tr1 = append(tr1, tr)
		} else {
			tr2 = append(tr2, tr)
		}
	}
	e.seed(a.org, app1.ID, tr1...)
	e.seed(a.org, app2.ID, tr2...)
	e.seed(b.org, appB.ID,
		schemas.Trace{RequestID: "r-00", StartedAt: base, ReceivedAt: base, SessionID: "sess-1", Model: "gpt-a"},
		schemas.Trace{RequestID: "b-only", StartedAt: base, ReceivedAt: base, SessionID: "sess-b"},
	)
	return e, a, b, app1, app2
}

type listPage struct {
	Data []struct {
		RequestID string `json:"request_id"`
		AppID     string `json:"app_id"`
		Prompt    string `json:"prompt"`
		Model     string `json:"model"`
	} `json:"data"`
	NextCursor *string `json:"next_cursor"`
}

func (e *env) list(acc account, q string) (resp, listPage) {
	r := e.do("GET", "/api/console/requests?"+q, nil, bearer(acc.token)...)
	var p listPage
	if r.Code == http.StatusOK {
		require.NoError(e.t, json.Unmarshal(r.Body, &p))
	}
	return r, p
}

func ids(p listPage) []string {
	out := make([]string, len(p.Data))
	for i, d := range p.Data {
		out[i] = d.RequestID
	}
	return out
}

// want returns the ids r-NN for which keep(i) holds, newest first.
func want(keep func(i int) bool) []string {
	out := []string{}
	for i := 29; i >= 0; i-- {
		if keep(i) {
			out = append(out, fmt.Sprintf("r-%02d", i))
		}
	}
	return out
}

func TestListRequestsFilters(t *testing.T) {
	e, a, _, app1, _ := seedListing(t)
	epoch := strconv.FormatInt(base.Add(10*time.Minute).Unix(), 10)
	for _, tc := range []struct {
		name string
		q    url.Values
		keep func(i int) bool
	}{
		{"all", url.Values{"limit": {"100"}}, func(int) bool { return true }},
		{"app_id", url.Values{"app_id": {app1.ID}}, func(i int) bool { return i%2 == 0 }},
		{"status", url.Values{"status": {"error"}}, func(i int) bool { return i%5 == 2 }},
		{"final_decision", url.Values{"final_decision": {"block"}}, func(i int) bool { return i%3 == 2 }},
		{"model", url.Values{"model": {"gpt-b"}}, func(i int) bool { return i%2 == 1 }},
		{"use_case", url.Values{"use_case": {"search"}}, func(i int) bool { return i%3 == 1 }},
		{"session_id", url.Values{"session_id": {"sess-1"}}, func(i int) bool { return i < 4 }},
		{"since rfc3339", url.Values{"since": {base.Add(25 * time.Minute).Format(time.RFC3339)}}, func(i int) bool { return i >= 25 }},
		{"until epoch", url.Values{"until": {epoch}}, func(i int) bool { return i < 10 }},
		{"since and until", url.Values{"since": {"2025-02-01T00:05:00Z"}, "until": {"2025-02-01T00:07:00+00:00"}}, func(i int) bool { return i == 5 || i == 6 }},
		{"metadata", url.Values{"metadata.team": {"t1"}}, func(i int) bool { return i%4 == 1 }},
		{"two metadata keys", url.Values{"metadata.team": {"t2"}, "metadata.tier": {"gold"}}, func(i int) bool { return i%4 == 2 }},
		{"metadata no match", url.Values{"metadata.tier": {"silver"}}, func(int) bool { return false }},
		{"combined", url.Values{"model": {"gpt-a"}, "use_case": {"chat"}}, func(i int) bool { return i%2 == 0 && i%3 == 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, p := e.list(a, tc.q.Encode())
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			require.Equal(t, want(tc.keep), ids(p))
			require.Nil(t, p.NextCursor)
			require.Contains(t, string(r.Body), `"data":[`, "data is an array, never null")
			for _, d := range p.Data {
				require.NotEmpty(t, d.AppID)
				require.Empty(t, d.Prompt, "the listing leaves out prompt and answer")
			}
		})
	}
}

func TestListRequestsPaging(t *testing.T) {
	e, a, _, _, _ := seedListing(t)
	r, p := e.list(a, "")
	require.Equal(t, http.StatusOK, r.Code)
	require.Len(t, p.Data, 30, "default limit 50 holds all 30")
	require.Nil(t, p.NextCursor)
	require.Contains(t, string(r.Body), `"next_cursor":null`)

	var got []string
	q := url.Values{"limit": {"7"}, "model": {"gpt-a"}}
	pages := 0
	for {
		r, p := e.list(a, q.Encode())
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		got = append(got, ids(p)...)
		pages++
		if p.NextCursor == nil {
			break
		}
		require.Len(t, p.Data, 7)
		q.Set("cursor", *p.NextCursor)
		require.Less(t, pages, 10)
	}
	require.Equal(t, 3, pages)
	require.Equal(t, want(func(i int) bool { return i%2 == 0 }), got)
}

func TestListRequestsBadParams(t *testing.T) {
	e, a, _, _, _ := seedListing(t)
	for _, q := range []string{
		"limit=0", "limit=1001", "limit=abc", "limit=-1", "limit=5&limit=6",
		"cursor=!!!", "cursor=bm9wZQ",
		"since=yesterday", "until=2025-13-01T00:00:00Z", "since=-5",
		"status=weird", "metadata.=x", "metadata.a=1&metadata.a=2", "sort=asc",
	} {
		t.Run(q, func(t *testing.T) {
			r, _ := e.list(a, q)
			requireError(t, r, http.StatusBadRequest)
		})
	}
	r, p := e.list(a, "limit=1000")
	require.Equal(t, http.StatusOK, r.Code)
	require.Len(t, p.Data, 30)
	r, p = e.list(a, "limit=1")
	require.Equal(t, http.StatusOK, r.Code)
	require.Equal(t, []string{"r-29"}, ids(p))
	require.NotNil(t, p.NextCursor)
}

func TestRequestAndSession(t *testing.T) {
	e, a, b, app1, _ := seedListing(t)

	r := e.do("GET", "/api/console/requests/r-04", nil, bearer(a.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	m := r.JSON(t)
	require.Equal(t, "r-04", m["request_id"])
	require.Equal(t, app1.ID, m["app_id"])
	require.Equal(t, "prompt 4", m["prompt"])
	require.Equal(t, "answer 4", m["answer"])
	require.Equal(t, map[string]any{"team": "t0", "tier": "gold"}, m["metadata"])
	require.Equal(t, []any{}, m["policy_hits"], "an array (spec: Trace resource), not null, when nothing fired")
	// Every field of the spec's Trace resource is present, null when the
	// trace has no value for it.
	for _, k := range []string{"request_id", "mode", "started_at", "finished_at", "provider", "model", "use_case", "team_id",
		"integration_id", "end_user_id", "session_id", "prompt_tokens", "completion_tokens", "total_tokens", "cost_usd",
		"latency_ms", "status", "final_decision", "risk_score", "policy_hits", "user_id", "metadata", "received_at"} {
		require.Contains(t, m, k)
	}
	for _, k := range []string{"finished_at", "provider", "team_id", "session_id", "user_id", "cost_usd"} {
		require.Nil(t, m[k], k)
	}
	require.Equal(t, "gpt-a", m["model"])
	r = e.do("GET", "/api/console/requests?limit=2", nil, bearer(a.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	for _, d := range r.JSON(t)["data"].([]any) {
		require.Equal(t, []any{}, d.(map[string]any)["policy_hits"])
	}

	r = e.do("GET", "/api/console/sessions/sess-1", nil, bearer(a.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	var s struct {
		SessionID string `json:"session_id"`
		Data      []struct {
			RequestID string `json:"request_id"`
			Prompt    string `json:"prompt"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &s))
	require.Equal(t, "sess-1", s.SessionID)
	var order []string
	for _, d := range s.Data {
		order = append(order, d.RequestID)
		require.NotEmpty(t, d.Prompt)
	}
	require.Equal(t, []string{"r-03", "r-02", "r-01", "r-00"}, order, "oldest started_at first")

	requireError(t, e.do("GET", "/api/console/requests/nope", nil, bearer(a.token)...), http.StatusNotFound)
	requireError(t, e.do("GET", "/api/console/sessions/nope", nil, bearer(a.token)...), http.StatusNotFound)
	requireError(t, e.do("GET", "/api/console/requests/r-04", nil), http.StatusUnauthorized)
	_ = b
}

func TestTenantIsolationTraces(t *testing.T) {
	e, a, b, _, _ := seedListing(t)
	// B sees only its own rows: its r-00 shadows nothing of A's.
	r, p := e.list(b, "limit=1000")
	require.Equal(t, http.StatusOK, r.Code)
	require.ElementsMatch(t, []string{"r-00", "b-only"}, ids(p))

	for _, path := range []string{"/api/console/requests/r-05", "/api/console/sessions/" + "sess-x"} {
		m := requireError(t, e.do("GET", path, nil, bearer(b.token)...), http.StatusNotFound)
		require.Equal(t, "not found", m["error"])
	}
	// A's session has four traces; B's view of the same session id has only B's one.
	r = e.do("GET", "/api/console/sessions/sess-1", nil, bearer(b.token)...)
	require.Equal(t, http.StatusOK, r.Code)
	require.Len(t, r.JSON(t)["data"], 1)
	m := requireError(t, e.do("GET", "/api/console/sessions/sess-b", nil, bearer(a.token)...), http.StatusNotFound)
	require.Equal(t, "not found", m["error"])
	requireError(t, e.do("GET", "/api/console/requests/b-only", nil, bearer(a.token)...), http.StatusNotFound)
	// A's cursor used by B pages B's data only.
	_, pa := e.list(a, "limit=1")
	_, pb := e.list(b, "cursor="+url.QueryEscape(*pa.NextCursor))
	for _, id := range ids(pb) {
		require.Contains(t, []string{"r-00", "b-only"}, id)
	}
}

func TestRequestIDWithSlash(t *testing.T) {
	e := newEnv(t)
	a := e.signup("a@example.com")
	app := e.eventsApp(a)
	e.seed(a.org, app.ID, schemas.Trace{RequestID: "ord/42%", StartedAt: base, ReceivedAt: base})
	r := e.do("GET", "/api/console/requests/"+url.PathEscape("ord/42%"), nil, bearer(a.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	require.Equal(t, "ord/42%", r.JSON(t)["request_id"])
}
