package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/governance-gateway/gateway/query/postgres"
)

// ConsoleConfig of `gateway bench console`.
type ConsoleConfig struct {
	Config
	DatabaseURL string // PostgreSQL the child serve and the seeder use (required)
	Traces      int    // traces to seed for the benchmark's organisation (default 1,000,000)
	Runs        int    // timed requests per query (default 100)
}

// ConsoleQuery is one measured console request.
type ConsoleQuery struct {
	Name   string
	Target time.Duration
	Rows   int // rows of the last answer (data or series length)
	P50    time.Duration
	P95    time.Duration
	P99    time.Duration
	Max    time.Duration
}

// ConsoleResult is what `gateway bench console` prints.
type ConsoleResult struct {
	Traces  int
	SeedFor time.Duration
	Queries []ConsoleQuery
	Indexes []string // the traces table's indexes (name: definition)
}

// RunConsole starts a child `gateway serve` on the PostgreSQL store, signs
// up, seeds cfg.Traces traces for the new organisation through the store's
// write path, then times each console query over HTTP, sequentially (one
// dashboard user), after warm-up requests.
func RunConsole(ctx context.Context, cfg ConsoleConfig, progress io.Writer) (ConsoleResult, error) {
	if cfg.DatabaseURL == "" {
		return ConsoleResult{}, fmt.Errorf("a PostgreSQL DATABASE_URL is required (deploy/local/postgres.sh start prints one)")
	}
	if cfg.Traces == 0 {
		cfg.Traces = 1_000_000
	}
	if cfg.Runs == 0 {
		cfg.Runs = 100
	}
	cfg.Config = cfg.Config.Defaults()
	cfg.Env = append(cfg.Env, "DATABASE_URL="+cfg.DatabaseURL)
	var res ConsoleResult
	res.Traces = cfg.Traces
	cleanup, err := prepareDir(&cfg.Config)
	if err != nil {
		return res, err
	}
	defer cleanup()
	srv, err := startServer(ctx, cfg.Config)
	if err != nil {
		return res, err
	}
	defer srv.stop()
	c := &client{base: srv.url, http: &http.Client{Timeout: 60 * time.Second}}
	email := fmt.Sprintf("bench-console-%d@example.com", time.Now().UnixNano())
	st, b, err := c.do(ctx, http.MethodPost, "/api/console/signup",
		[]byte(`{"email":"`+email+`","password":"benchmark-password","organization":"Console bench"}`), nil)
	if err != nil || st != http.StatusCreated {
		return res, fmt.Errorf("signup: %d %s %v", st, b, err)
	}
	var su struct {
		Token string
		OrgID string `json:"org_id"`
	}
	if err := json.Unmarshal(b, &su); err != nil {
		return res, err
	}
	c.token = su.Token

	store, err := postgres.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return res, fmt.Errorf("open store: %w", err)
	}
	defer store.Close()
	now := time.Now().UTC()
	seedStart := time.Now()
	if err := SeedTraces(ctx, store, SeedConfig{OrgID: su.OrgID, Traces: cfg.Traces, Now: now}, progress); err != nil {
		return res, err
	}
	res.SeedFor = time.Since(seedStart)
	if _, err := store.Reader().Exec(ctx, "ANALYZE traces"); err != nil {
		return res, fmt.Errorf("analyze: %w", err)
	}
	res.Indexes, err = traceIndexes(ctx, store)
	if err != nil {
		return res, err
	}

	// A session and a trace of the seeded history, found through the API.
	var probe struct {
		Data []struct {
			RequestID string `json:"request_id"`
			SessionID string `json:"session_id"`
		}
	}
	if err := c.getJSON(ctx, "/api/console/requests?limit=1000&since="+url.QueryEscape(now.Add(-time.Hour).Format(time.RFC3339)), &probe); err != nil {
		return res, err
	}
	var sessionID, requestID string
	for _, t := range probe.Data {
		requestID = t.RequestID
		if t.SessionID != "" {
			sessionID = t.SessionID
		}
	}
	if sessionID == "" || requestID == "" {
		return res, fmt.Errorf("the seeded history has no recent session (%d traces in the last hour)", len(probe.Data))
	}
	day := func(d int) string {
		return url.QueryEscape(now.Add(-time.Duration(d) * 24 * time.Hour).Format(time.RFC3339))
	}
	const list, page = 100 * time.Millisecond, 100 * time.Millisecond
	queries := []struct {
		name   string
		target time.Duration
		path   func(i int) string
	}{
		{"requests, no filter", list, fixed("/api/console/requests?limit=50")},
		{"requests, app_id", list, cycle("/api/console/requests?limit=50&app_id=app-%d", 5)},
		{"requests, status=blocked (4%)", list, fixed("/api/console/requests?limit=50&status=blocked")},
		{"requests, status=regenerated (0.5%)", list, fixed("/api/console/requests?limit=50&status=regenerated")},
		{"requests, final_decision=rewrite", list, fixed("/api/console/requests?limit=50&final_decision=rewrite")},
		{"requests, model=mistral-large (5%)", list, fixed("/api/console/requests?limit=50&model=mistral-large")},
		{"requests, use_case=hr (2%)", list, fixed("/api/console/requests?limit=50&use_case=hr")},
		{"requests, mode=vendor (5%)", list, fixed("/api/console/requests?limit=50&mode=vendor")},
		{"requests, model that matches nothing", list, fixed("/api/console/requests?limit=50&model=no-such-model")},
		{"requests, session_id", list, fixed("/api/console/requests?limit=50&session_id=" + url.QueryEscape(sessionID))},
		{"requests, 1 h window 10 days ago", list, func(int) string {
			return "/api/console/requests?limit=50&since=" + day(10) + "&until=" + url.QueryEscape(now.Add(-10*24*time.Hour+time.Hour).Format(time.RFC3339))
		}},
		{"requests, metadata.customer (big)", list, fixed("/api/console/requests?limit=50&metadata.customer=c0")},
		{"requests, metadata.customer (small)", list, cycle("/api/console/requests?limit=50&metadata.customer=c%d", 400)},
		{"requests, metadata.env=staging", list, fixed("/api/console/requests?limit=50&metadata.env=staging")},
		{"requests, metadata that matches nothing", list, fixed("/api/console/requests?limit=50&metadata.customer=nobody")},
		{"requests, page 20 by cursor", page, nil}, // filled below
		{"request detail", list, fixed("/api/console/requests/" + url.PathEscape(requestID))},
		{"session view", 100 * time.Millisecond, fixed("/api/console/sessions/" + url.PathEscape(sessionID))},
		{"kpis, 24 h", 300 * time.Millisecond, fixed("/api/console/kpis")},
		{"kpis, 7 days", 0, fixed("/api/console/kpis?since=" + day(7))},
		{"kpis, 30 days", 0, fixed("/api/console/kpis?since=" + day(30))},
		{"billing", 100 * time.Millisecond, fixed("/api/console/billing")},
		{"dashboard page (GET /)", 100 * time.Millisecond, fixed("/")},
	}
	// Paging: the cursor of the 20th page of the unfiltered listing.
	cursor := ""
	for range 19 {
		var p struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := c.getJSON(ctx, "/api/console/requests?limit=50&cursor="+url.QueryEscape(cursor), &p); err != nil {
			return res, err
		}
		cursor = p.NextCursor
	}
	for i := range queries {
		if queries[i].path == nil {
			queries[i].path = fixed("/api/console/requests?limit=50&cursor=" + url.QueryEscape(cursor))
		}
	}
	for _, q := range queries {
		m := ConsoleQuery{Name: q.name, Target: q.target}
		var took []time.Duration
		for i := -5; i < cfg.Runs; i++ { // five warm-up requests
			t0 := time.Now()
			st, body, err := c.do(ctx, http.MethodGet, q.path(i+5), nil, map[string]string{"Authorization": "Bearer " + c.token})
			d := time.Since(t0)
			if err != nil || st != http.StatusOK {
				return res, fmt.Errorf("%s: %d %s %v", q.name, st, truncate(body), err)
			}
			if i >= 0 {
				took = append(took, d)
			}
			m.Rows = countRows(body)
		}
		sort.Slice(took, func(a, b int) bool { return took[a] < took[b] })
		m.P50, m.P95, m.P99, m.Max = took[len(took)/2], took[len(took)*95/100], took[len(took)*99/100], took[len(took)-1]
		res.Queries = append(res.Queries, m)
		if progress != nil {
			fmt.Fprintf(progress, "%-42s p95 %v\n", q.name, m.P95.Round(10*time.Microsecond))
		}
	}
	return res, nil
}

func fixed(p string) func(int) string { return func(int) string { return p } }

func cycle(format string, n int) func(int) string {
	return func(i int) string { return fmt.Sprintf(format, i%n) }
}

func countRows(body []byte) int {
	var v struct {
		Data   []json.RawMessage
		Series []json.RawMessage
	}
	if json.Unmarshal(body, &v) != nil {
		return 0
	}
	return len(v.Data) + len(v.Series)
}

func (c *client) getJSON(ctx context.Context, path string, v any) error {
	st, b, err := c.do(ctx, http.MethodGet, path, nil, map[string]string{"Authorization": "Bearer " + c.token})
	if err != nil || st != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s %v", path, st, truncate(b), err)
	}
	return json.Unmarshal(b, v)
}

func traceIndexes(ctx context.Context, s *postgres.Store) ([]string, error) {
	rows, err := s.Reader().Query(ctx, `SELECT indexname || ' (' || pg_size_pretty(pg_relation_size(quote_ident(indexname)::regclass)) || '): ' || indexdef
		FROM pg_indexes WHERE tablename = 'traces' AND schemaname = current_schema() ORDER BY indexname`)
	if err != nil {
		return nil, fmt.Errorf("list indexes: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// PrintConsole writes the result table.
func PrintConsole(w io.Writer, r ConsoleResult) {
	fmt.Fprintf(w, "\nconsole queries over HTTP with %d traces in PostgreSQL (seeded in %s)\n\n", r.Traces, r.SeedFor.Round(time.Second))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "query\trows\tp50\tp95\tp99\tmax\ttarget p95\tverdict\t")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
	for _, q := range r.Queries {
		target, verdict := "", ""
		if q.Target > 0 {
			target, verdict = "<= "+ms(q.Target), "met"
			if q.P95 > q.Target {
				verdict = "MISSED"
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", q.Name, q.Rows, ms(q.P50), ms(q.P95), ms(q.P99), ms(q.Max), target, verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nindexes of the traces table:\n  %s\n", strings.Join(r.Indexes, "\n  "))
}
