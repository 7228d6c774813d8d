package httpapi

import (
	"math"
	"net/http"
	"sort"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/query"
)

// PricePerMillion is the price of 1,000,000 tokens per price mode, in USD
// (DESIGN.md 5).
var PricePerMillion = map[string]float64{query.AppModeEvents: 30, query.AppModeVerify: 90, query.AppModeFullControl: 180}

// usageView is one line of usage; the report covers the organisation's
// whole life (the credit does too).
type usageView struct {
	Key              string  `json:"key"`
	Requests         int64   `json:"requests"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	Tokens           int64   `json:"tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

type billingView struct {
	CreditUSD   float64     `json:"credit_usd"`
	UsageUSD    float64     `json:"usage_usd"`
	BalanceUSD  float64     `json:"balance_usd"`
	OverageUSD  float64     `json:"overage_usd"`
	Prices      any         `json:"price_per_million_tokens_usd"`
	ByMode      []usageView `json:"by_mode"`
	ByDay       []usageView `json:"by_day"`
	ByApp       []usageView `json:"by_app"`
	GeneratedAt time.Time   `json:"generated_at"`
}

func cost(tokens int64, mode string) float64 { return float64(tokens) / 1e6 * PricePerMillion[mode] }

// getBilling is GET /api/console/billing: credit, usage and cost by mode,
// by day and by application, balance and overage. It reads the usage
// aggregate the processors keep, never the traces.
func (s *Server) getBilling(c echo.Context) error {
	ctx := c.Request().Context()
	org, err := s.store.Org(ctx, orgOf(c))
	if err != nil {
		return unavailable("cannot read the organisation right now; retry", err)
	}
	rows, err := s.store.Usage(ctx, org.ID, org.CreatedAt.UTC().Format("2006-01-02"), s.now().UTC().Format("2006-01-02"))
	if err != nil {
		return unavailable("cannot read usage right now; retry", err)
	}
	add := func(m map[string]*usageView, key string, r query.UsageRow) {
		v := m[key]
		if v == nil {
			v = &usageView{Key: key}
			m[key] = v
		}
		t := r.PromptTokens + r.CompletionTokens
		v.Requests += r.Requests
		v.PromptTokens += r.PromptTokens
		v.CompletionTokens += r.CompletionTokens
		v.Tokens += t
		v.CostUSD += cost(t, r.PriceMode)
	}
	byMode, byDay, byApp := map[string]*usageView{}, map[string]*usageView{}, map[string]*usageView{}
	total := 0.0
	for _, r := range rows {
		add(byMode, r.PriceMode, r)
		add(byDay, r.Day, r)
		add(byApp, r.AppID, r)
		total += cost(r.PromptTokens+r.CompletionTokens, r.PriceMode)
	}
	flat := func(m map[string]*usageView) []usageView {
		out := make([]usageView, 0, len(m))
		for _, v := range m {
			v.CostUSD = round6(v.CostUSD)
			out = append(out, *v)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
		return out
	}
	v := billingView{CreditUSD: org.CreditUSD, UsageUSD: round6(total), Prices: PricePerMillion,
		ByMode: flat(byMode), ByDay: flat(byDay), ByApp: flat(byApp), GeneratedAt: s.now().UTC()}
	v.BalanceUSD = round6(org.CreditUSD - total)
	if v.BalanceUSD < 0 {
		v.OverageUSD = -v.BalanceUSD
	}
	return c.JSON(http.StatusOK, v)
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

type kpisView struct {
	Since            time.Time        `json:"since"`
	Until            time.Time        `json:"until"`
	Requests         int64            `json:"requests"`
	PromptTokens     int64            `json:"prompt_tokens"`
	CompletionTokens int64            `json:"completion_tokens"`
	Tokens           int64            `json:"tokens"`
	CostUSD          float64          `json:"cost_usd"`
	LatencyP50Ms     *int64           `json:"latency_p50_ms"`
	LatencyP95Ms     *int64           `json:"latency_p95_ms"`
	ByDecision       map[string]int64 `json:"by_decision"`
	ByMode           map[string]int64 `json:"by_mode"`
	BucketSeconds    int64            `json:"bucket_seconds"`
	Series           []kpiPoint       `json:"series"`
}

type kpiPoint struct {
	Start     time.Time `json:"start"`
	Requests  int64     `json:"requests"`
	Tokens    int64     `json:"tokens"`
	Blocked   int64     `json:"blocked"`
	Rewritten int64     `json:"rewritten"`
	Errors    int64     `json:"errors"`
}

// seriesBuckets are the widths the time series picks from: the smallest
// that keeps a window within 60 points.
var seriesBuckets = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour,
	3 * time.Hour, 6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}

func autoBucket(window time.Duration) time.Duration {
	for _, b := range seriesBuckets {
		if window/b <= 60 {
			return b
		}
	}
	return seriesBuckets[len(seriesBuckets)-1]
}

// getKPIs is GET /api/console/kpis?since=&until=&bucket= (default: the last
// 24 h; bucket a duration such as 1h, default the smallest of 1m, 5m, 15m,
// 1h, 3h, 6h, 24h, 168h giving at most 60 points).
func (s *Server) getKPIs(c echo.Context) error {
	until := s.now().UTC()
	since := until.Add(-24 * time.Hour)
	for name, dst := range map[string]*time.Time{"since": &since, "until": &until} {
		if v := c.QueryParam(name); v != "" {
			t, err := parseTime(name, v)
			if err != nil {
				return fail(http.StatusBadRequest, "%s", err.Error())
			}
			*dst = *t
		}
	}
	if !since.Before(until) {
		return fail(http.StatusBadRequest, "since must be before until")
	}
	bucket := autoBucket(until.Sub(since))
	if v := c.QueryParam("bucket"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d%time.Second != 0 {
			return fail(http.StatusBadRequest, "bucket must be a whole number of seconds written as a duration such as 30s, 5m or 1h, got %q", v)
		}
		bucket = d
	}
	if n := until.Sub(since)/bucket + 2; n > query.MaxSeriesPoints {
		return fail(http.StatusBadRequest, "the window holds about %d buckets of %s; at most %d: choose a wider bucket", n, bucket, query.MaxSeriesPoints)
	}
	k, err := s.store.KPIs(c.Request().Context(), orgOf(c), since, until, bucket)
	if err != nil {
		return unavailable("cannot compute KPIs right now; retry", err)
	}
	series := make([]kpiPoint, len(k.Series))
	for i, p := range k.Series {
		series[i] = kpiPoint(p)
	}
	return c.JSON(http.StatusOK, kpisView{Since: since, Until: until, Requests: k.Requests, PromptTokens: k.PromptTokens,
		CompletionTokens: k.CompletionTokens, Tokens: k.PromptTokens + k.CompletionTokens, CostUSD: round6(k.CostUSD),
		LatencyP50Ms: k.LatencyP50Ms, LatencyP95Ms: k.LatencyP95Ms, ByDecision: k.ByDecision, ByMode: k.ByMode,
		BucketSeconds: int64(bucket / time.Second), Series: series})
}
