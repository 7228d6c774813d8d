package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// VerifyResult is the outcome of RunVerify.
type VerifyResult struct {
	Concurrency  int
	Requests     int64
	Failed       int64
	Elapsed      time.Duration
	PerSec       float64
	P50, P90     time.Duration
	P99, Max     time.Duration
	Decisions    map[string]int64
	PeakRSSBytes int64
	AnswerBytes  int
	ToolBytes    int
	Topology     string // Config.Topology

	// Open-loop rows (RunVerify's rates), measured before the closed loop.
	Rates        []VerifyRate
	MaxRateUnder time.Duration // the p99 bound of MaxRate (the 2 ms)
	MaxRate      int           // highest offered rate up to which every row's p99 stayed under MaxRateUnder (0: none)
	SendLag      []time.Duration
}

// VerifyRate is one open-loop row of RunVerify.
type VerifyRate struct {
	Rate, Sent, Errs int
	P50, P99, Max    time.Duration
}

// verifyBody is the workload: a 2 KB answer checked against an
// 8 KB tool_result with every default scanner on; the answer restates the
// source's figures (grounded) and carries one e-mail address, so the
// decision is a rewrite. The engine runs every scanner on every field and
// the grounding checker whatever the decision. (Until stop 18 the
// injection model scored the repeated paragraph at 0.60-0.78 and the
// decisions were blocks; long texts are now scored window by window.)
func verifyBody() ([]byte, int, int) {
	tool := strings.Repeat("Quarterly report: revenue reached $4.2 million, up 12% year over year. Europe grew fastest "+
		"and the customer count rose to 1,250 accounts. Churn fell to 3% after the support changes. ", 50)[:8<<10]
	answer := strings.Repeat("Revenue reached $4.2 million this quarter, 12% more than a year ago, with Europe growing fastest. ", 21)[:2<<10-40] +
		" Questions: finance@example.com."
	b, _ := json.Marshal(map[string]string{"prompt": "Summarise the quarter for the board.", "answer": answer, "tool_result": tool})
	return b, len(answer), len(tool)
}

// RunVerify starts a gateway (embedded defaults) and drives POST /v1/verify,
// first open loop at each of rates for per (the latency a given load gets:
// requests leave on schedule whether or not earlier ones have answered),
// then closed loop from cfg.Concurrency clients for cfg.Duration (the
// throughput the machine tops out at). Latency is the client-observed time
// of each request: server work plus loopback HTTP on the same 2 cores;
// every request includes producing the decision to the log before the
// answer.
func RunVerify(ctx context.Context, cfg Config, rates []int, per time.Duration) (VerifyResult, error) {
	cfg = cfg.Defaults()
	res := VerifyResult{Concurrency: cfg.Concurrency, Decisions: map[string]int64{}, Topology: cfg.Topology,
		MaxRateUnder: 2 * time.Millisecond}
	if err := cfg.Validate(); err != nil {
		return res, err
	}
	srv, c, stop, err := launch(ctx, &cfg, "verify")
	if err != nil {
		return res, err
	}
	defer stop()
	body, na, nt := verifyBody()
	res.AnswerBytes, res.ToolBytes = na, nt

	// Warm up (policy cache, connections, JIT-free but page-cache warm).
	for i := 0; i < 200; i++ {
		if _, _, err := c.do(ctx, http.MethodPost, "/v1/verify", body, map[string]string{"X-API-Key": c.key}); err != nil {
			return res, err
		}
	}
	rc, err := newRawClient(srv.url)
	if err != nil {
		return res, err
	}
	defer rc.close()
	req := rc.request("/v1/verify", body, map[string]string{"X-API-Key": c.key})
	if err := rc.warm(64); err != nil {
		return res, err
	}
	rows := make([]rateRow, 0, len(rates))
	for _, rate := range rates {
		lat, lag, sent, errs := openLoop(ctx, rc, req, rate, per, false)
		row := VerifyRate{Rate: rate, Sent: sent, Errs: errs, P50: quantile(lat, .5), P99: quantile(lat, .99)}
		if len(lat) > 0 {
			row.Max = lat[len(lat)-1]
		}
		cfg.Logger.Info("bench verify", "rate", rate, "p50", row.P50, "p99", row.P99, "errors", errs)
		res.Rates = append(res.Rates, row)
		res.SendLag = append(res.SendLag, lag...)
		rows = append(rows, rateRow{rate: rate, p99: row.P99, errs: errs})
	}
	res.MaxRate = maxRateUnder(rows, res.MaxRateUnder)

	var mu sync.Mutex
	var lat []time.Duration
	deadline := time.Now().Add(cfg.Duration)
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 1<<14)
			dec := map[string]int64{}
			var failed int64
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t0 := time.Now()
				r, err := rc.do(req, true)
				d := time.Since(t0)
				if err != nil || r.status != http.StatusOK {
					failed++
					continue
				}
				local = append(local, d)
				dec[governanceOf(r.body)]++
			}
			mu.Lock()
			lat = append(lat, local...)
			res.Failed += failed
			for k, v := range dec {
				res.Decisions[k] += v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.Requests = int64(len(lat))
	res.PerSec = float64(res.Requests) / res.Elapsed.Seconds()
	slices.Sort(lat)
	res.P50, res.P90, res.P99 = quantile(lat, .5), quantile(lat, .9), quantile(lat, .99)
	if len(lat) > 0 {
		res.Max = lat[len(lat)-1]
	}
	res.PeakRSSBytes = peakRSS(srv.cmd.Process.Pid)
	return res, ctx.Err()
}

// governanceOf reads the decision out of a verify answer without decoding
// its 2 KB answer: the load generator's CPU is taken from the gateway's.
func governanceOf(body []byte) string {
	_, after, ok := bytes.Cut(body, []byte(`"governance":"`))
	if !ok {
		return "?"
	}
	v, _, _ := bytes.Cut(after, []byte(`"`))
	return string(v)
}

// PrintVerify writes the result table.
func PrintVerify(w io.Writer, r VerifyResult) {
	where := "embedded mode (one process)"
	if r.Topology == TopologySplit {
		where = "split: --role=api, a broker process, a niced --role=processor"
	}
	fmt.Fprintf(w, "\nPOST /v1/verify, %d B answer + %d B tool_result, default policy, %s, %d closed-loop clients\n\n",
		r.AnswerBytes, r.ToolBytes, where, r.Concurrency)
	fmt.Fprintln(w, "| measure | value | target |")
	fmt.Fprintln(w, "|---|---|---|")
	fmt.Fprintf(w, "| requests (failed) | %d (%d) | |\n", r.Requests, r.Failed)
	fmt.Fprintf(w, "| throughput | %.0f req/s | >= 5,000 req/s |\n", r.PerSec)
	fmt.Fprintf(w, "| latency p50 / p90 | %s / %s | |\n", r.P50.Round(time.Microsecond), r.P90.Round(time.Microsecond))
	fmt.Fprintf(w, "| latency p99 / max | %s / %s | p99 <= 2 ms |\n", r.P99.Round(time.Microsecond), r.Max.Round(time.Microsecond))
	fmt.Fprintf(w, "| decisions | %v | |\n", r.Decisions)
	fmt.Fprintf(w, "| peak RSS | %d MiB | |\n", r.PeakRSSBytes>>20)
	if len(r.Rates) == 0 {
		return
	}
	fmt.Fprintln(w, "\nOpen loop (measured first; each request leaves at its scheduled time):")
	fmt.Fprintln(w, "\n| offered req/s | sent (errors) | p50 | p99 | max |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, row := range r.Rates {
		fmt.Fprintf(w, "| %d | %d (%d) | %s | %s | %s |\n", row.Rate, row.Sent, row.Errs, micros(row.P50), micros(row.P99), micros(row.Max))
	}
	maxRate := "none of the offered rates"
	if r.MaxRate > 0 {
		maxRate = fmt.Sprintf("%d req/s", r.MaxRate)
	}
	fmt.Fprintf(w, "\nhighest offered rate up to which every row's p99 stayed under %s: %s\n", r.MaxRateUnder, maxRate)
	printLag(w, r.SendLag)
}
