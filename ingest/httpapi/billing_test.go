package httpapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/schemas"
)

func TestBilling(t *testing.T) {
	e := newEnv(t)
	a := e.signup("bill@example.com")
	other := e.signup("other@example.com")
	ev := e.eventsApp(a)
	vf := e.createApp(a, map[string]any{"name": "v", "mode": "verify"})
	at := time.Date(2025, 3, 1, 11, 0, 0, 0, time.UTC)
	tr := func(id string, p, q int64) schemas.Trace {
		return schemas.Trace{RequestID: id, Mode: schemas.ModeIngest, StartedAt: at, Status: "ok", PromptTokens: p, CompletionTokens: q, ReceivedAt: at}
	}
	e.seed(a.org, ev.ID, tr("b1", 600_000, 400_000)) // 1M tokens at the Events price: 30 USD
	e.seed(a.org, vf.ID, tr("b2", 100_000, 100_000)) // 0.2M at the Verify price: 18 USD
	e.seed(other.org, "x", tr("b3", 5_000_000, 0))

	r := e.do("GET", "/api/console/billing", nil, bearer(a.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	m := r.JSON(t)
	require.InDelta(t, 50.0, m["credit_usd"], 1e-9)
	require.InDelta(t, 48.0, m["usage_usd"], 1e-9)
	require.InDelta(t, 2.0, m["balance_usd"], 1e-9)
	require.InDelta(t, 0.0, m["overage_usd"], 1e-9)
	modes := map[string]float64{}
	for _, x := range m["by_mode"].([]any) {
		row := x.(map[string]any)
		modes[row["key"].(string)] = row["cost_usd"].(float64)
	}
	require.Equal(t, map[string]float64{"events": 30, "verify": 18}, modes)
	require.Len(t, m["by_app"], 2)
	require.Len(t, m["by_day"], 1)

	// Overage is shown, not refused.
	e.seed(a.org, ev.ID, tr("b4", 1_000_000, 0))
	m = e.do("GET", "/api/console/billing", nil, bearer(a.token)...).JSON(t)
	require.InDelta(t, -28.0, m["balance_usd"], 1e-9)
	require.InDelta(t, 28.0, m["overage_usd"], 1e-9)

	// The other organisation sees only its own usage (and the unknown app prices as events).
	m = e.do("GET", "/api/console/billing", nil, bearer(other.token)...).JSON(t)
	require.InDelta(t, 150.0, m["usage_usd"], 1e-9)
	requireError(t, e.do("GET", "/api/console/billing", nil), http.StatusUnauthorized)
}

func TestKPIs(t *testing.T) {
	e := newEnv(t)
	a := e.signup("kpi@example.com")
	ev := e.eventsApp(a)
	now := e.clock.Now()
	for i, d := range []string{"allow", "block", "allow"} {
		lat := int64((i + 1) * 100)
		e.seed(a.org, ev.ID, schemas.Trace{RequestID: "k" + d + string(rune('a'+i)), Mode: schemas.ModeSDK, StartedAt: now.Add(-time.Hour),
			Status: "ok", FinalDecision: d, PromptTokens: 10, CompletionTokens: 5, LatencyMs: &lat, ReceivedAt: now.Add(-time.Hour)})
	}
	r := e.do("GET", "/api/console/kpis", nil, bearer(a.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	m := r.JSON(t)
	require.EqualValues(t, 3, m["requests"])
	require.EqualValues(t, 45, m["tokens"])
	require.EqualValues(t, 200, m["latency_p50_ms"])
	require.Equal(t, map[string]any{"allow": 2.0, "block": 1.0}, m["by_decision"])
	// The default 24 h window: the smallest width within 60 points is 1 h.
	require.EqualValues(t, 3600, m["bucket_seconds"])
	series := m["series"].([]any)
	require.Len(t, series, 24, "24 hour-buckets (the test clock is on the hour)")
	var total float64
	for _, p := range series {
		total += p.(map[string]any)["requests"].(float64)
	}
	require.EqualValues(t, 3, total)
	m = e.do("GET", "/api/console/kpis?bucket=15m", nil, bearer(a.token)...).JSON(t)
	require.EqualValues(t, 900, m["bucket_seconds"])
	require.Len(t, m["series"], 96)
	requireError(t, e.do("GET", "/api/console/kpis?bucket=1s", nil, bearer(a.token)...), http.StatusBadRequest)
	requireError(t, e.do("GET", "/api/console/kpis?bucket=1.5s", nil, bearer(a.token)...), http.StatusBadRequest)
	requireError(t, e.do("GET", "/api/console/kpis?bucket=soon", nil, bearer(a.token)...), http.StatusBadRequest)
	m = e.do("GET", "/api/console/kpis?since="+now.Add(-30*time.Minute).Format(time.RFC3339), nil, bearer(a.token)...).JSON(t)
	require.EqualValues(t, 0, m["requests"])
	require.Nil(t, m["latency_p50_ms"])
	requireError(t, e.do("GET", "/api/console/kpis?since=yesterday", nil, bearer(a.token)...), http.StatusBadRequest)
	requireError(t, e.do("GET", "/api/console/kpis?since=2025-03-02T00:00:00Z&until=2025-03-01T00:00:00Z", nil, bearer(a.token)...), http.StatusBadRequest)
}
