package sqlcore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/governance-gateway/gateway/query"
)

// The kpi_hourly rollup (migration kpi_hourly of both stores): per
// organisation, UTC hour, mode, final_decision and status, the sums the
// dashboard shows and a fixed log-scale latency histogram. WriteTraces keeps
// it next to usage_daily (same transaction, only for a chunk written for the
// first time); KPIs reads the whole hours of a long window from it and only
// the partial-hour edges from the traces.

// kpiBuckets is the number of latency histogram buckets.
const kpiBuckets = 40

// kpiLatencyBounds are the inclusive upper bounds, in milliseconds, of the
// histogram buckets: bucket i holds the latencies in (bound[i-1], bound[i]]
// (bucket 0 everything <= 1 ms, the last bucket everything above 426,573 ms
// too). They grow ~1.41x from 1 ms to 10 minutes (round(1.40656^i), kept
// strictly increasing), so a percentile read from the histogram is the exact
// value rounded up by at most one bucket (< +47%, ~+20% on average). The
// migrations' backfill buckets with the same bounds (kpiBucketSQL; a test
// compares them): never change them without rebuilding kpi_hourly.
var kpiLatencyBounds = [kpiBuckets]int64{
	1, 2, 3, 4, 5, 6, 8, 11, 15, 22,
	30, 43, 60, 84, 119, 167, 235, 330, 464, 653,
	919, 1292, 1817, 2556, 3596, 5058, 7114, 10006, 14074, 19796,
	27844, 39164, 55087, 77483, 108984, 153292, 215615, 303274, 426573, 600000,
}

// kpiBucket returns the histogram bucket of a latency.
func kpiBucket(ms int64) int {
	return min(sort.Search(kpiBuckets, func(i int) bool { return ms <= kpiLatencyBounds[i] }), kpiBuckets-1)
}

// kpiBucketSQL is kpiBucket as SQL on the column col: -1 for NULL.
func kpiBucketSQL(col string) string {
	var b strings.Builder
	b.WriteString("CASE WHEN " + col + " IS NULL THEN -1")
	for i := 0; i < kpiBuckets-1; i++ {
		fmt.Fprintf(&b, " WHEN %s <= %d THEN %d", col, kpiLatencyBounds[i], i)
	}
	fmt.Fprintf(&b, " ELSE %d END", kpiBuckets-1)
	return b.String()
}

// kpiHistColumns are the histogram columns lat_b00 .. lat_b39.
var kpiHistColumns = func() []string {
	c := make([]string, kpiBuckets)
	for i := range c {
		c[i] = fmt.Sprintf("lat_b%02d", i)
	}
	return c
}()

// kpiSumColumns are the additive columns of kpi_hourly.
var kpiSumColumns = append([]string{"requests", "prompt_tokens", "completion_tokens", "cost_usd",
	"latency_count", "latency_sum"}, kpiHistColumns...)

var kpiColumns = append([]string{"org_id", "hour", "mode", "final_decision", "status"}, kpiSumColumns...)

const microsPerHour = int64(time.Hour / time.Microsecond)

type kpiKey struct {
	org                    string
	hour                   int64 // microseconds since the epoch, a multiple of one hour
	mode, decision, status string
}

type kpiSum struct {
	requests, prompt, completion int64
	cost                         float64
	latN, latSum                 int64
	hist                         [kpiBuckets]int64
}

// kpiMaxRowsPerUpsert bounds the rows of one kpi_hourly upsert. Batches are
// powers of two up to it, so few statement texts exist (each engine caches
// prepared statements per text).
const kpiMaxRowsPerUpsert = 64

// addKPIs adds the owned rows to kpi_hourly: one upsert row per distinct
// key, in key order so concurrent writers lock rows in the same order.
func (s *Store) addKPIs(ctx context.Context, q Querier, rows []query.TraceRow, owner []bool) error {
	sums := map[kpiKey]*kpiSum{}
	var keys []kpiKey
	for i := range rows {
		if !owner[i] {
			continue
		}
		r := &rows[i]
		t := &r.Trace
		k := kpiKey{org: r.OrgID, hour: floorDiv(TruncTime(t.ReceivedAt).UnixMicro(), microsPerHour) * microsPerHour,
			mode: t.Mode, decision: t.FinalDecision, status: t.Status}
		if s.d.NoNUL { // as the trace itself is stored
			k.mode, k.decision, k.status = noNUL(k.mode), noNUL(k.decision), noNUL(k.status)
		}
		u := sums[k]
		if u == nil {
			u = &kpiSum{}
			sums[k] = u
			keys = append(keys, k)
		}
		u.requests++
		u.prompt += t.PromptTokens
		u.completion += t.CompletionTokens
		if t.CostUSD != nil {
			u.cost += *t.CostUSD
		}
		if t.LatencyMs != nil {
			u.latN++
			u.latSum += *t.LatencyMs
			u.hist[kpiBucket(*t.LatencyMs)]++
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.org != b.org {
			return a.org < b.org
		}
		if a.hour != b.hour {
			return a.hour < b.hour
		}
		if a.mode != b.mode {
			return a.mode < b.mode
		}
		if a.decision != b.decision {
			return a.decision < b.decision
		}
		return a.status < b.status
	})
	args := make([]any, 0, min(len(keys), kpiMaxRowsPerUpsert)*len(kpiColumns))
	for len(keys) > 0 {
		n := kpiMaxRowsPerUpsert
		for n > len(keys) {
			n /= 2
		}
		args = args[:0]
		for _, k := range keys[:n] {
			u := sums[k]
			args = append(args, k.org, s.d.TimeArg(time.UnixMicro(k.hour)), k.mode, k.decision, k.status,
				u.requests, u.prompt, u.completion, u.cost, u.latN, u.latSum)
			for _, h := range u.hist {
				args = append(args, h)
			}
		}
		if _, err := q.Exec(ctx, s.kpiUpsertStmt(n), args...); err != nil {
			return fmt.Errorf("kpi rollup: upsert: %w", err)
		}
		keys = keys[n:]
	}
	return nil
}

func noNUL(v string) string { return strings.ReplaceAll(v, "\x00", replacementChar) }

func (s *Store) kpiUpsertStmt(n int) string {
	if v, ok := s.kpiSQL.Load(n); ok {
		return v.(string)
	}
	var b strings.Builder
	b.WriteString("INSERT INTO kpi_hourly (" + strings.Join(kpiColumns, ", ") + ") VALUES ")
	s.writeValues(&b, n, len(kpiColumns))
	b.WriteString(" ON CONFLICT (org_id, hour, mode, final_decision, status) DO UPDATE SET ")
	for i, c := range kpiSumColumns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c + " = kpi_hourly." + c + " + excluded." + c)
	}
	s.kpiSQL.Store(n, b.String())
	return b.String()
}

// Windows shorter than kpiExactWindow are answered from the traces alone,
// latency percentiles exact. Longer ones read their whole hours from
// kpi_hourly; their percentiles are exact too while the window holds at most
// kpiExactPercentileRows traces (two cheap probes), else read from the
// histogram (the upper bound of the bucket holding the exact value).
const (
	kpiExactWindow         = 2 * time.Hour
	kpiExactPercentileRows = 5000
)

// kpiAcc accumulates the KPIs of a window from kpi_hourly and trace groups.
type kpiAcc struct {
	k      *query.KPIs
	hist   [kpiBuckets]int64
	series []query.KPIBucket // nil: not from the rollup
	first  int64             // bucket index of series[0]
}

func (a *kpiAcc) add(bucket int64, mode, decision, status string, requests, prompt, completion int64, cost float64) {
	a.k.Requests += requests
	a.k.PromptTokens += prompt
	a.k.CompletionTokens += completion
	a.k.CostUSD += cost
	if decision != "" { // no decision is no governance outcome to count (query.KPIs)
		a.k.ByDecision[decision] += requests
	}
	a.k.ByMode[mode] += requests
	if a.series == nil {
		return
	}
	i := bucket - a.first
	if i < 0 || i >= int64(len(a.series)) {
		return
	}
	p := &a.series[i]
	p.Requests += requests
	p.Tokens += prompt + completion
	switch status {
	case "blocked":
		p.Blocked += requests
	case "rewritten", "regenerated":
		p.Rewritten += requests
	case "error":
		p.Errors += requests
	}
}

// percentile returns the upper bound of the histogram bucket holding the
// value at 0-based rank off.
func (a *kpiAcc) percentile(off int64) int64 {
	var cum int64
	for i, n := range a.hist {
		cum += n
		if cum > off {
			return kpiLatencyBounds[i]
		}
	}
	return kpiLatencyBounds[kpiBuckets-1]
}

// KPIs implements query.Store. A window shorter than two hours is one scan
// of its traces (kpisFromTraces). A longer one is split into the whole UTC
// hours inside it, summed from kpi_hourly, and the partial hours at its
// edges, grouped from the traces; the time series comes from the same two
// reads when its bucket is a whole number of hours (then every bucket is a
// union of whole hours), else from a scan of the window's traces.
func (s *Store) KPIs(ctx context.Context, orgID string, since, until time.Time, bucket time.Duration) (query.KPIs, error) {
	sinceU, untilU := TruncTime(since).UnixMicro(), TruncTime(until).UnixMicro()
	h0 := -floorDiv(-sinceU, microsPerHour) * microsPerHour // ceil
	h1 := floorDiv(untilU, microsPerHour) * microsPerHour
	if until.Sub(since) < kpiExactWindow || h0 >= h1 {
		return s.kpisFromTraces(ctx, orgID, since, until, bucket)
	}
	k := query.KPIs{ByDecision: map[string]int64{}, ByMode: map[string]int64{}}
	acc := kpiAcc{k: &k}
	secs := max(int64(bucket/time.Second), 1)
	rollupSeries := bucket > 0 && bucket%time.Hour == 0
	if rollupSeries {
		var err error
		if acc.series, acc.first, err = emptySeries(since, until, secs); err != nil {
			return k, err
		}
	}
	r := s.b.Reader()

	// The whole hours [h0, h1).
	grp := ""
	if rollupSeries {
		grp = s.d.EpochBucket("hour", secs) + ", "
	}
	sums := make([]string, len(kpiSumColumns))
	for i, c := range kpiSumColumns {
		sums[i] = "SUM(" + c + ")"
	}
	q := `SELECT ` + grp + `mode, final_decision, status, ` + strings.Join(sums, ", ") +
		` FROM kpi_hourly WHERE org_id = ? AND hour >= ? AND hour < ? GROUP BY ` + groupByPositions(grp != "", 3)
	if err := s.scanKPIGroups(ctx, r, "kpis rollup", q, rollupSeries, &acc, true,
		orgID, s.d.TimeArg(time.UnixMicro(h0)), s.d.TimeArg(time.UnixMicro(h1))); err != nil {
		return k, err
	}

	// The partial hours [since, h0) and [h1, until), from the traces.
	var ranges []string
	args := []any{orgID}
	if sinceU < h0 {
		ranges = append(ranges, "(received_at >= ? AND received_at < ?)")
		args = append(args, s.d.TimeArg(since), s.d.TimeArg(time.UnixMicro(h0)))
	}
	if h1 < untilU {
		ranges = append(ranges, "(received_at >= ? AND received_at < ?)")
		args = append(args, s.d.TimeArg(time.UnixMicro(h1)), s.d.TimeArg(until))
	}
	if len(ranges) > 0 {
		grp := ""
		if rollupSeries {
			grp = s.d.EpochBucket("received_at", secs) + ", "
		}
		q := `SELECT ` + grp + `mode, final_decision, status, ` + kpiBucketSQL("latency_ms") + `, COUNT(*),
			COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(cost_usd), 0)` +
			` FROM traces WHERE org_id = ? AND (` + strings.Join(ranges, " OR ") + `) GROUP BY ` + groupByPositions(grp != "", 4)
		if err := s.scanKPIGroups(ctx, r, "kpis edges", q, rollupSeries, &acc, false, args...); err != nil {
			return k, err
		}
	}

	var latN int64
	for _, n := range acc.hist {
		latN += n
	}
	where := ` FROM traces WHERE org_id = ? AND received_at >= ? AND received_at < ?`
	whereArgs := []any{orgID, s.d.TimeArg(since), s.d.TimeArg(until)}
	if latN > 0 {
		if k.Requests <= kpiExactPercentileRows {
			if err := s.exactPercentiles(ctx, &k, where, whereArgs, latN); err != nil {
				return k, err
			}
		} else {
			k.LatencyP50Ms, k.LatencyP95Ms = new(int64), new(int64)
			*k.LatencyP50Ms = acc.percentile(latN / 2)
			*k.LatencyP95Ms = acc.percentile(latN * 95 / 100)
		}
	}
	switch {
	case rollupSeries:
		k.Series = acc.series
	case bucket > 0:
		var err error
		if k.Series, err = s.kpiSeries(ctx, where, whereArgs, since, until, bucket); err != nil {
			return k, err
		}
	}
	return k, nil
}

// groupByPositions is "1, 2, ..., n" (+1 with a leading bucket column).
func groupByPositions(withBucket bool, n int) string {
	if withBucket {
		n++
	}
	p := make([]string, n)
	for i := range p {
		p[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(p, ", ")
}

// scanKPIGroups reads rows of [bucket,] mode, final_decision, status and
// either the kpi_hourly sums (rollup) or a latency bucket and the count,
// token and cost sums of its traces (trace groups) into acc.
func (s *Store) scanKPIGroups(ctx context.Context, r Querier, what, q string, withBucket bool, acc *kpiAcc, rollup bool, args ...any) error {
	rows, err := r.Query(ctx, s.d.Rebind(q), args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var (
		bucket                       int64
		mode, decision, status       string
		requests, prompt, completion int64
		cost                         float64
		latN, latSum, latBucket      int64
		hist                         [kpiBuckets]int64
	)
	dest := []any{}
	if withBucket {
		dest = append(dest, &bucket)
	}
	dest = append(dest, &mode, &decision, &status)
	if !rollup {
		dest = append(dest, &latBucket)
	}
	dest = append(dest, &requests, &prompt, &completion, &cost)
	if rollup {
		dest = append(dest, &latN, &latSum)
		for i := range hist {
			dest = append(dest, &hist[i])
		}
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		acc.add(bucket, mode, decision, status, requests, prompt, completion, cost)
		if rollup {
			for i, n := range hist {
				acc.hist[i] += n
			}
		} else if latBucket >= 0 && latBucket < kpiBuckets {
			acc.hist[latBucket] += requests
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
