package querytest

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// kpiStatuses cycles the statuses (with their final decisions) of kpiCorpus.
var kpiStatuses = []struct{ status, decision string }{
	{schemas.StatusOK, "pass"}, {schemas.StatusOK, "pass"}, {schemas.StatusOK, "pass"}, {schemas.StatusOK, "pass"},
	{schemas.StatusOK, "pass"}, {schemas.StatusOK, "pass"}, {schemas.StatusBlocked, "block"},
	{schemas.StatusRewritten, "rewrite"}, {schemas.StatusRegenerated, "regenerate"}, {schemas.StatusError, ""},
}

// kpiCorpus returns n traces of org, one every ~30 s from start, at offsets
// first.. of partition, with varied modes, statuses, tokens, costs (some
// unknown) and log-normal-ish latencies (some unknown, some 0, some beyond
// the longest a histogram would bound).
func kpiCorpus(org string, n int, partition int32, first int64, start time.Time) []query.TraceRow {
	rows := make([]query.TraceRow, n)
	x := uint64(partition)*7919 + uint64(first) + 1
	for i := range rows {
		x = x*6364136223846793005 + 1442695040888963407
		frac := float64(x>>11) / (1 << 53)
		st := kpiStatuses[(i/3)%len(kpiStatuses)]
		tr := schemas.Trace{
			RequestID:  fmt.Sprintf("kpi-%s-%d-%06d", org, partition, first+int64(i)),
			Mode:       []string{schemas.ModeIngest, schemas.ModeSDK, schemas.ModeProxy}[i%3],
			Status:     st.status,
			ReceivedAt: start.Add(time.Duration(i)*30*time.Second + time.Duration(i*137%1000)*time.Millisecond + time.Duration(i%7)*time.Microsecond),
		}
		tr.StartedAt = tr.ReceivedAt.Add(-time.Second)
		tr.FinalDecision = st.decision
		tr.PromptTokens, tr.CompletionTokens = int64(i%100), int64(i%37)
		tr.TotalTokens = tr.PromptTokens + tr.CompletionTokens
		if i%13 != 0 {
			tr.CostUSD = ptr(float64(i%50) * 0.001)
		}
		switch {
		case i%17 == 0: // unknown latency
		case i%997 == 1:
			tr.LatencyMs = ptr(int64(0))
		case i%991 == 2:
			tr.LatencyMs = ptr(int64(3_600_000))
		default:
			tr.LatencyMs = ptr(int64(math.Exp(2 + 8*frac))) // 7 ms .. 22 s
		}
		rows[i] = row(org, "app", tr, partition, first+int64(i))
	}
	return rows
}

// bruteKPIs computes the KPIs of org's stored rows in [since, until)
// directly, latency percentiles exact.
func bruteKPIs(stored []query.TraceRow, org string, since, until time.Time, bucket time.Duration) query.KPIs {
	since, until = utc(since), utc(until)
	k := query.KPIs{ByDecision: map[string]int64{}, ByMode: map[string]int64{}}
	var lat []int64
	var secs, first int64
	if bucket > 0 {
		secs = int64(bucket / time.Second)
		first = floorDiv(since.Unix(), secs)
		last := floorDiv(until.Add(-time.Microsecond).Unix(), secs)
		for i := first; i <= last; i++ {
			k.Series = append(k.Series, query.KPIBucket{Start: time.Unix(i*secs, 0).UTC()})
		}
	}
	for _, r := range stored {
		t := r.Trace
		at := utc(t.ReceivedAt)
		if r.OrgID != org || at.Before(since) || !at.Before(until) {
			continue
		}
		k.Requests++
		k.PromptTokens += t.PromptTokens
		k.CompletionTokens += t.CompletionTokens
		if t.CostUSD != nil {
			k.CostUSD += *t.CostUSD
		}
		if t.FinalDecision != "" {
			k.ByDecision[t.FinalDecision]++
		}
		k.ByMode[t.Mode]++
		if t.LatencyMs != nil {
			lat = append(lat, *t.LatencyMs)
		}
		if bucket > 0 {
			p := &k.Series[floorDiv(at.Unix(), secs)-first]
			p.Requests++
			p.Tokens += t.PromptTokens + t.CompletionTokens
			switch t.Status {
			case schemas.StatusBlocked:
				p.Blocked++
			case schemas.StatusRewritten, schemas.StatusRegenerated:
				p.Rewritten++
			case schemas.StatusError:
				p.Errors++
			}
		}
	}
	if n := len(lat); n > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		k.LatencyP50Ms, k.LatencyP95Ms = ptr(lat[n/2]), ptr(lat[n*95/100])
	}
	return k
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// requireKPIs compares got with the brute-force want: counts, tokens,
// groups and series exactly, the cost to rounding, and the latency
// percentiles exactly when exact, else within one histogram bucket above
// the exact value (the buckets are ~1.41x wide).
func requireKPIs(t *testing.T, want, got query.KPIs, exact bool, msg string) {
	t.Helper()
	require.Equal(t, want.Requests, got.Requests, msg)
	require.Equal(t, want.PromptTokens, got.PromptTokens, msg)
	require.Equal(t, want.CompletionTokens, got.CompletionTokens, msg)
	require.InDelta(t, want.CostUSD, got.CostUSD, 1e-6, msg)
	require.Equal(t, want.ByDecision, got.ByDecision, msg)
	require.Equal(t, want.ByMode, got.ByMode, msg)
	require.Equal(t, want.Series, got.Series, msg)
	if want.LatencyP50Ms == nil {
		require.Nil(t, got.LatencyP50Ms, msg)
		require.Nil(t, got.LatencyP95Ms, msg)
		return
	}
	require.NotNil(t, got.LatencyP50Ms, msg)
	require.NotNil(t, got.LatencyP95Ms, msg)
	for _, p := range []struct {
		name      string
		want, got int64
	}{{"p50", *want.LatencyP50Ms, *got.LatencyP50Ms}, {"p95", *want.LatencyP95Ms, *got.LatencyP95Ms}} {
		if exact {
			require.Equal(t, p.want, p.got, "%s: exact %s", msg, p.name)
			continue
		}
		require.GreaterOrEqual(t, p.got, p.want, "%s: %s is the bound above the exact value", msg, p.name)
		require.LessOrEqual(t, float64(p.got), float64(p.want)*1.5, "%s: %s within one bucket of the exact value", msg, p.name)
	}
}

// testKPIRollup: long windows (answered from the hourly rollup and the
// partial-hour edges) equal a brute-force computation over the rows
// written; replays and duplicates count once, other organisations never.
func testKPIRollup(t *testing.T, s query.Store) {
	c := ctx(t)
	start := base // 09:26:53.589793: not on an hour
	var stored []query.TraceRow
	all := kpiCorpus("o1", 8000, 0, 0, start) // ~67 h
	for i := 0; i < len(all); i += 1000 {
		write(t, s, all[i:i+1000]...)
	}
	stored = append(stored, all...)
	// A replayed chunk (a processor restarted before committing its
	// offsets) owns its rows again and must not count them twice.
	owner := write(t, s, all[2000:3000]...)
	require.True(t, owner[0])
	// A later chunk: duplicates of stored ids are not stored nor counted.
	dups := kpiCorpus("o1", 10, 0, 0, start.Add(24*time.Hour))
	for i := range dups {
		dups[i].Offset = 10_000 + int64(i)
	}
	fresh := kpiCorpus("o1", 5, 0, 10_010, start.Add(30*time.Hour))
	owner = write(t, s, append(dups, fresh...)...)
	require.Equal(t, []bool{false, false, false, false, false, false, false, false, false, false, true, true, true, true, true}, owner)
	stored = append(stored, fresh...)
	// Another organisation in the same hours.
	other := kpiCorpus("o2", 600, 1, 0, start.Add(90*time.Second))
	write(t, s, other...)
	stored = append(stored, other...)

	hour := start.Truncate(time.Hour)
	for _, w := range []struct {
		name         string
		org          string
		since, until time.Time
		buckets      []time.Duration
		exact        bool // latency percentiles exact
	}{
		{"partial hours at both edges", "o1", start.Add(90*time.Minute + 17250*time.Microsecond), start.Add(53*time.Hour + 210500*time.Millisecond),
			[]time.Duration{0, time.Hour, 3 * time.Hour, 24 * time.Hour, 15 * time.Minute, 7 * time.Minute}, false},
		{"everything", "o1", start.Add(-24 * time.Hour), start.Add(96 * time.Hour), []time.Duration{0, 24 * time.Hour, 6 * time.Hour}, false},
		{"whole hours only", "o1", hour.Add(5 * time.Hour), hour.Add(55 * time.Hour), []time.Duration{0, time.Hour, 5 * time.Hour}, false},
		{"partial hour at the start", "o1", start.Add(10 * time.Minute), hour.Add(60 * time.Hour), []time.Duration{0, 2 * time.Hour}, false},
		{"partial hour at the end", "o1", hour.Add(2 * time.Hour), start.Add(57*time.Hour + time.Second), []time.Duration{0, time.Hour}, false},
		{"few traces: exact percentiles", "o1", start.Add(3*time.Hour + 10*time.Minute), start.Add(9*time.Hour + 20*time.Minute), []time.Duration{0, time.Hour, 30 * time.Minute}, true},
		{"just two hours", "o1", start.Add(40 * time.Hour), start.Add(42 * time.Hour), []time.Duration{0, time.Hour}, true},
		{"shorter than two hours: exact", "o1", start.Add(20*time.Hour + 5*time.Minute), start.Add(21*time.Hour + 35*time.Minute), []time.Duration{0, 5 * time.Minute, time.Hour}, true},
		{"the other organisation", "o2", start.Add(90 * time.Minute), start.Add(53 * time.Hour), []time.Duration{0, time.Hour}, true},
		{"an organisation without traces", "o3", start.Add(-24 * time.Hour), start.Add(96 * time.Hour), []time.Duration{0, 24 * time.Hour}, true},
		{"before any trace", "o1", start.Add(-72 * time.Hour), start.Add(-time.Hour), []time.Duration{0, 3 * time.Hour}, true},
	} {
		for _, b := range w.buckets {
			got, err := s.KPIs(c, w.org, w.since, w.until, b)
			require.NoError(t, err)
			want := bruteKPIs(stored, w.org, w.since, w.until, b)
			requireKPIs(t, want, got, w.exact, fmt.Sprintf("%s, bucket %s", w.name, b))
		}
	}
}

// KPIBackfill checks a store's kpi_hourly backfill migration: after
// rebuild empties kpi_hourly and runs the migration's backfill statement
// (KPIBackfillSQL) over the stored traces, the KPIs of long windows are
// those WriteTraces maintained.
func KPIBackfill(t *testing.T, s query.Store, rebuild func(t *testing.T)) {
	c := ctx(t)
	rows := kpiCorpus("o1", 7000, 0, 0, base)
	for i := 0; i < len(rows); i += 1000 {
		write(t, s, rows[i:i+1000]...)
	}
	write(t, s, kpiCorpus("o2", 500, 1, 0, base)...)
	type window struct {
		org          string
		since, until time.Time
		bucket       time.Duration
	}
	windows := []window{
		{"o1", base.Add(-time.Hour), base.Add(100 * time.Hour), 24 * time.Hour},
		{"o1", base.Add(95 * time.Minute), base.Add(50*time.Hour + 7*time.Minute), time.Hour},
		{"o2", base.Add(-time.Hour), base.Add(100 * time.Hour), 0},
	}
	before := make([]query.KPIs, len(windows))
	for i, w := range windows {
		k, err := s.KPIs(c, w.org, w.since, w.until, w.bucket)
		require.NoError(t, err)
		require.NotZero(t, k.Requests)
		before[i] = k
	}
	rebuild(t)
	for i, w := range windows {
		k, err := s.KPIs(c, w.org, w.since, w.until, w.bucket)
		require.NoError(t, err)
		require.InDelta(t, before[i].CostUSD, k.CostUSD, 1e-6)
		k.CostUSD = before[i].CostUSD
		require.Equal(t, before[i], k, "window %d after the backfill", i)
	}
}

// KPIBackfillSQL returns the backfill statement (INSERT INTO kpi_hourly
// ... ;) of a migration file.
func KPIBackfillSQL(t *testing.T, migrationFile string) string {
	t.Helper()
	b, err := os.ReadFile(migrationFile)
	require.NoError(t, err)
	text := string(b)
	i := strings.Index(text, "INSERT INTO kpi_hourly")
	require.GreaterOrEqual(t, i, 0, "no backfill in %s", migrationFile)
	j := strings.Index(text[i:], ";")
	require.Positive(t, j)
	return text[i : i+j]
}
