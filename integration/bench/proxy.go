package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ProxyRow is one measured configuration of RunProxy.
type ProxyRow struct {
	Label      string
	Rate       int // requests/s offered (open loop)
	Sent, Errs int
	DirectP50  time.Duration
	DirectP99  time.Duration
	ProxyP50   time.Duration
	ProxyP99   time.Duration
	AddedP50   time.Duration // proxy p50 - direct p50
	AddedP99   time.Duration // proxy p99 - direct p99
}

// ProxyResult is the outcome of RunProxy.
type ProxyResult struct {
	Rows         []ProxyRow
	MaxRateUnder time.Duration // the p99 bound used for MaxRate
	MaxRate      int           // highest offered rate under which every observe row's added p99 stayed under MaxRateUnder (0: none)
	PeakRSSBytes int64
	Topology     string          // Config.Topology
	SendLag      []time.Duration // actual send time minus scheduled, every measured request
}

// RunProxy starts a fake OpenAI-format upstream (`gateway dev-llm`) and a
// gateway on embedded defaults (traces go to its embedded broker), each a
// child process,
// then drives the same open-loop load generator at fixed rates against the
// upstream directly and through the proxy, and reports the added latency.
// Everything shares this machine's cores.
//
// rates are the observe sweep; streamRates the rates of the streaming
// time-to-first-byte rows (each stream is about 15 chunks, so a stream
// costs several times a plain call).
func RunProxy(ctx context.Context, cfg Config, rates, streamRates []int, per time.Duration) (ProxyResult, error) {
	cfg = cfg.Defaults()
	res := ProxyResult{MaxRateUnder: time.Millisecond, Topology: cfg.Topology}
	if err := cfg.Validate(); err != nil {
		return res, err
	}
	cleanup, err := prepareDir(&cfg)
	if err != nil {
		return res, err
	}
	defer cleanup()
	// The fake upstream is a process of its own (`gateway dev-llm`), as a
	// vendor is: were it in this process, the direct path would be an
	// in-process loopback call, whose receiver wakes in ~44 µs after an
	// idle gap on this VM, against ~130 µs for another process's, and the
	// difference would be billed to the proxy.
	upAddr, err := freePort()
	if err != nil {
		return res, err
	}
	up, err := startProc(ctx, cfg, "upstream", []string{cfg.Binary, "dev-llm", "--addr", upAddr}, nil, "dev-llm", "")
	if err != nil {
		return res, err
	}
	defer up.stop()
	upURL := "http://" + upAddr
	// The same fake serves as the proxy's upstream and as the Managed OpenAI
	// provider of a Full Control application (POST /v1/chat).
	cfg.Env = append(cfg.Env, "GATEWAY_UPSTREAM_URL="+upURL, "GATEWAY_PROVIDER_OPENAI_BASE_URL="+upURL,
		"GATEWAY_PROVIDER_OPENAI_API_KEY=sk-bench-managed")
	srv, err := startServer(ctx, cfg)
	if err != nil {
		return res, err
	}
	defer srv.stop()
	c := &client{base: srv.url, http: &http.Client{Timeout: 30 * time.Second}}
	if err := c.setupMode(ctx, "events"); err != nil {
		return res, fmt.Errorf("%w (server log: %s)", err, srv.logPath)
	}
	fcKey, err := c.createApp(ctx, `{"name":"bench-fc","mode":"full_control","provider_option":"managed","provider":"openai","model":"gpt-4o-mini"}`)
	if err != nil {
		return res, err
	}
	body := []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Summarise the quarterly numbers for the board in three sentences."}]}`)
	streamBody := []byte(`{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"Summarise the quarterly numbers for the board in three sentences."}]}`)
	direct, err := newRawClient(upURL)
	if err != nil {
		return res, err
	}
	defer direct.close()
	gw, err := newRawClient(srv.url)
	if err != nil {
		return res, err
	}
	defer gw.close()
	for _, rc := range []*rawClient{direct, gw} {
		if err := rc.warm(64); err != nil {
			return res, err
		}
	}

	// measure runs one open-loop row (openLoop); the generator's lag of
	// every row goes to res.SendLag (rows are measured one after another).
	measure := func(rate int, rc *rawClient, path string, body []byte, hdr map[string]string, ttfb bool) ([]time.Duration, int, int) {
		h := map[string]string{"Authorization": "Bearer sk-upstream-bench"}
		for k, v := range hdr {
			h[k] = v
		}
		lat, lag, sent, errs := openLoop(ctx, rc, rc.request(path, body, h), rate, per, ttfb)
		res.SendLag = append(res.SendLag, lag...)
		return lat, sent, errs
	}
	run := func(label string, rate int, pbody []byte, mode string, ttfb bool) ProxyRow {
		dlat, _, _ := measure(rate, direct, "/chat/completions", pbody, nil, ttfb)
		through, sent, errs := measure(rate, gw, "/v1/chat/completions", pbody, map[string]string{"X-Service-Api-Key": c.key, "X-Service-Mode": mode}, ttfb)
		row := ProxyRow{Label: label, Rate: rate, Sent: sent, Errs: errs,
			DirectP50: quantile(dlat, .5), DirectP99: quantile(dlat, .99), ProxyP50: quantile(through, .5), ProxyP99: quantile(through, .99)}
		row.AddedP50, row.AddedP99 = row.ProxyP50-row.DirectP50, row.ProxyP99-row.DirectP99
		cfg.Logger.Info("bench proxy", "label", label, "rate", rate, "added_p50", row.AddedP50, "added_p99", row.AddedP99, "errors", errs)
		return row
	}
	// Warm-up: connections, policy cache.
	measure(200, gw, "/v1/chat/completions", body, map[string]string{"X-Service-Api-Key": c.key, "X-Service-Mode": "guard"}, false)
	var observe []ProxyRow
	for _, rate := range rates {
		observe = append(observe, run("observe", rate, body, "observe", false))
	}
	res.Rows = append(res.Rows, observe...)
	rows := make([]rateRow, len(observe))
	for i, r := range observe {
		rows[i] = rateRow{rate: r.Rate, p99: r.AddedP99, errs: r.Errs}
	}
	res.MaxRate = maxRateUnder(rows, res.MaxRateUnder)
	res.Rows = append(res.Rows, run("guard", 2000, body, "guard", false))
	for _, rate := range streamRates {
		res.Rows = append(res.Rows, run("observe, stream (time to first byte)", rate, streamBody, "observe", true))
	}
	// Full Control: the gateway calls the LLM itself, pre- and post-flight
	// default policy on a 1 KB prompt and the 1 KB echo answer; direct is the
	// same upstream call in the OpenAI format.
	prompt := strings.Repeat("Please summarise the quarterly revenue figures for the board. ", 17)[:1024]
	fcBody, _ := json.Marshal(map[string]any{"prompt": prompt})
	upBody, _ := json.Marshal(map[string]any{"model": "gpt-4o-mini", "messages": []any{map[string]any{"role": "user", "content": prompt}}})
	dlat, _, _ := measure(1000, direct, "/chat/completions", upBody, nil, false)
	through, sent, errs := measure(1000, gw, "/v1/chat", fcBody, map[string]string{"X-API-Key": fcKey}, false)
	fc := ProxyRow{Label: "full control POST /v1/chat (1 KB prompt and answer)", Rate: 1000, Sent: sent, Errs: errs,
		DirectP50: quantile(dlat, .5), DirectP99: quantile(dlat, .99), ProxyP50: quantile(through, .5), ProxyP99: quantile(through, .99)}
	fc.AddedP50, fc.AddedP99 = fc.ProxyP50-fc.DirectP50, fc.ProxyP99-fc.DirectP99
	res.Rows = append(res.Rows, fc)
	res.PeakRSSBytes = peakRSS(srv.cmd.Process.Pid)
	return res, ctx.Err()
}

// PrintProxy writes the result table.
func PrintProxy(w io.Writer, r ProxyResult) {
	where := "one `gateway serve` on embedded defaults (broker, processors, SQLite, lake in the process)"
	if r.Topology == TopologySplit {
		where = "`serve --role=api`, a `gateway broker` process and `serve --role=processor` at nice 19"
	}
	fmt.Fprintf(w, "\nOpenAI-compatible proxy vs direct, fake upstream on loopback, open-loop load, traces produced to the log; %s\n", where)
	fmt.Fprintln(w, "\n| mode | offered req/s | sent (errors) | direct p50 / p99 | proxy p50 / p99 | added p50 | added p99 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "| %s | %d | %d (%d) | %s / %s | %s / %s | %s | %s |\n", row.Label, row.Rate, row.Sent, row.Errs,
			micros(row.DirectP50), micros(row.DirectP99), micros(row.ProxyP50), micros(row.ProxyP99), micros(row.AddedP50), micros(row.AddedP99))
	}
	maxRate := "none of the offered rates"
	if r.MaxRate > 0 {
		maxRate = fmt.Sprintf("%d req/s", r.MaxRate)
	}
	fmt.Fprintf(w, "\nhighest offered rate up to which every observe row's added p99 stayed under %s: %s\npeak RSS of the gateway (the API process): %d MiB\n",
		r.MaxRateUnder, maxRate, r.PeakRSSBytes>>20)
	printLag(w, r.SendLag)
}
