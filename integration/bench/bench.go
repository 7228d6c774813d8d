// Package bench is the end-to-end ingest benchmark behind `gateway bench
// ingest`: it starts a real `gateway serve` child process on embedded
// defaults in a scratch directory, drives POST /v1/events over HTTP from this
// process, and reads results back through the public APIs (/metrics, the
// console API) and /proc. It measures; it asserts nothing.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Config of one benchmark run. Zero values take the defaults of Defaults.
type Config struct {
	Binary      string        // the gateway binary to start; default: this executable
	DataDir     string        // scratch directory; default: a new temp dir, removed unless Keep
	Keep        bool          // keep DataDir after the run
	Duration    time.Duration // throughput phase length (default 60s)
	Concurrency int           // concurrent HTTP senders in the throughput phase (default 8)
	BatchSize   int           // events per request (default 500)
	FreshRate   int           // events/s of the freshness phase (default 5000)
	FreshFor    time.Duration // freshness phase length (default 20s)
	Env         []string      // extra environment for the server (e.g. GATEWAY_FLUSH_INTERVAL)
	Topology    string        // "" (one `serve` on embedded defaults) or TopologySplit
	Logger      *slog.Logger
}

// TopologySplit runs the log, the API and the processors as three processes
// (the scaled layout of the README on one machine; see startServer).
const TopologySplit = "split"

// Defaults fills zero fields.
func (c Config) Defaults() Config {
	if c.Duration == 0 {
		c.Duration = 60 * time.Second
	}
	if c.Concurrency == 0 {
		c.Concurrency = 8
	}
	if c.BatchSize == 0 {
		c.BatchSize = 500
	}
	if c.FreshRate == 0 {
		c.FreshRate = 5000
	}
	if c.FreshFor == 0 {
		c.FreshFor = 20 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Validate checks the configuration.
func (c Config) Validate() error {
	switch {
	case c.Duration <= 0 || c.FreshFor <= 0:
		return errors.New("durations must be positive")
	case c.Concurrency < 1:
		return errors.New("concurrency must be at least 1")
	case c.BatchSize < 1 || c.BatchSize > 500:
		return errors.New("batch size must be 1..500 (the Events limit)")
	case c.FreshRate < 1:
		return errors.New("freshness rate must be positive")
	case c.Topology != "" && c.Topology != TopologySplit:
		return fmt.Errorf("topology %q: want empty (one process) or %q", c.Topology, TopologySplit)
	}
	return nil
}

// Result is what one run measured.
type Result struct {
	EventBytes       int           // average encoded size of one event
	Accepted         int64         // events acknowledged (2xx) in the throughput phase
	Failed           int64         // requests that did not get a 2xx
	SendElapsed      time.Duration // length of the throughput phase
	AcceptedPerSec   float64
	Written          int64         // rows written by the processors for those events
	DrainElapsed     time.Duration // from the first send until every accepted event was written
	EndToEndPerSec   float64       // Written / DrainElapsed
	FreshSamples     int
	FreshP50         time.Duration
	FreshP95         time.Duration
	FreshP99         time.Duration
	FreshMax         time.Duration
	FreshAchievedEPS float64
	PeakRSSBytes     int64 // VmHWM of the server process
}

// Run executes the benchmark and returns its measurements.
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg = cfg.Defaults()
	var res Result
	if err := cfg.Validate(); err != nil {
		return res, err
	}
	srv, c, stop, err := launch(ctx, &cfg, "events")
	if err != nil {
		return res, err
	}
	defer stop()
	cfg.Logger.Info("bench: server ready", "url", srv.url, "data_dir", cfg.DataDir)

	if err := throughput(ctx, cfg, c, &res); err != nil {
		return res, err
	}
	if err := freshness(ctx, cfg, c, &res); err != nil {
		return res, err
	}
	res.PeakRSSBytes = peakRSS(srv.cmd.Process.Pid)
	return res, nil
}

// throughput sends batches as fast as Concurrency senders can for Duration,
// then waits until the processors have written every accepted event.
func throughput(ctx context.Context, cfg Config, c *client, res *Result) error {
	base, err := c.rowsWritten(ctx)
	if err != nil {
		return err
	}
	var accepted, failed, seq atomic.Int64
	var sizeOnce sync.Once
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	var wg sync.WaitGroup
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var buf bytes.Buffer
			for time.Now().Before(deadline) && ctx.Err() == nil {
				n := seq.Add(1)
				buf.Reset()
				writeBatch(&buf, fmt.Sprintf("t%d-%d", w, n), cfg.BatchSize, time.Now())
				sizeOnce.Do(func() { res.EventBytes = buf.Len() / cfg.BatchSize })
				got, err := c.sendBatch(ctx, buf.Bytes())
				if err != nil {
					failed.Add(1)
					cfg.Logger.Warn("bench: batch failed", "err", err)
					continue
				}
				accepted.Add(int64(got))
			}
		}(w)
	}
	wg.Wait()
	res.SendElapsed = time.Since(start)
	res.Accepted, res.Failed = accepted.Load(), failed.Load()
	res.AcceptedPerSec = float64(res.Accepted) / res.SendElapsed.Seconds()
	cfg.Logger.Info("bench: send phase done", "accepted", res.Accepted, "per_sec", int(res.AcceptedPerSec))

	// Drain: the processors keep writing after the senders stop.
	for {
		w, err := c.rowsWritten(ctx)
		if err != nil {
			return err
		}
		res.Written = w - base
		if res.Written >= res.Accepted {
			break
		}
		if time.Since(start) > cfg.Duration+5*time.Minute {
			return fmt.Errorf("processors wrote %d of %d accepted events within 5 minutes of the send phase", res.Written, res.Accepted)
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	res.DrainElapsed = time.Since(start)
	res.EndToEndPerSec = float64(res.Written) / res.DrainElapsed.Seconds()
	return nil
}

// freshness sends FreshRate events/s in batches of 100 (one per 20 ms at
// 5,000/s) and, for one event of each batch, measures the time from the 2xx
// to the event being visible through GET /api/console/requests/{id}.
func freshness(ctx context.Context, cfg Config, c *client, res *Result) error {
	const perBatch = 100
	interval := time.Duration(float64(time.Second) * perBatch / float64(cfg.FreshRate))
	var (
		mu      sync.Mutex
		samples []time.Duration
		wg      sync.WaitGroup
		sent    atomic.Int64
	)
	start := time.Now()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for i := 0; time.Since(start) < cfg.FreshFor; i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var buf bytes.Buffer
			prefix := fmt.Sprintf("f%d", i)
			writeBatch(&buf, prefix, perBatch, time.Now())
			if _, err := c.sendBatch(ctx, buf.Bytes()); err != nil {
				cfg.Logger.Warn("bench: freshness batch failed", "err", err)
				return
			}
			acked := time.Now()
			sent.Add(perBatch)
			id := fmt.Sprintf("%s-%d", prefix, perBatch-1) // the last event of the batch
			for time.Since(acked) < time.Minute {
				ok, err := c.visible(ctx, id)
				if err != nil {
					cfg.Logger.Warn("bench: visibility check failed", "err", err)
					return
				}
				if ok {
					mu.Lock()
					samples = append(samples, time.Since(acked))
					mu.Unlock()
					return
				}
				if sleep(ctx, 5*time.Millisecond) != nil {
					return
				}
			}
		}(i)
	}
	elapsed := time.Since(start)
	wg.Wait()
	res.FreshAchievedEPS = float64(sent.Load()) / elapsed.Seconds()
	if len(samples) == 0 {
		return errors.New("freshness: no event became visible")
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	q := func(p float64) time.Duration { return samples[int(p*float64(len(samples)-1))] }
	res.FreshSamples = len(samples)
	res.FreshP50, res.FreshP95, res.FreshP99, res.FreshMax = q(0.50), q(0.95), q(0.99), samples[len(samples)-1]
	return nil
}

// writeBatch encodes n canonical events of about 400 bytes with ids
// "<prefix>-<i>".
func writeBatch(buf *bytes.Buffer, prefix string, n int, now time.Time) {
	started := now.Add(-850 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	finished := now.UTC().Format(time.RFC3339Nano)
	buf.WriteString(`{"events":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(buf, `{"request_id":"%s-%d","mode":"ingest","started_at":"%s","finished_at":"%s",`+
			`"provider":"openai","model":"gpt-4o-mini","use_case":"support-bot","team_id":"team-payments",`+
			`"integration_id":"bench","end_user_id":"user-%d","session_id":"sess-%d",`+
			`"prompt_tokens":%d,"completion_tokens":%d,"cost_usd":0.00042,"status":"ok","final_decision":"pass",`+
			`"risk_score":0.02,"policy_hits":[],"metadata":{"region":"eu-west-1","customer_tier":"gold","build":"2026.11.3"}}`,
			prefix, i, started, finished, i%97, i%13, 120+i%50, 40+i%30)
	}
	buf.WriteString(`]}`)
}

type server struct {
	cmd     *exec.Cmd
	url     string
	logPath string
	done    chan struct{}
	others  []*server // stopped after this one (split topology)
}

// launch prepares cfg's data directory, starts the server and signs up a
// client with an application of mode; stop ends the server and removes the
// directory unless cfg.Keep.
func launch(ctx context.Context, cfg *Config, mode string) (srv *server, c *client, stop func(), err error) {
	cleanup, err := prepareDir(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	if srv, err = startServer(ctx, *cfg); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	stop = func() { srv.stop(); cleanup() }
	c = &client{base: srv.url, http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}}
	if err := c.setupMode(ctx, mode); err != nil {
		stop()
		return nil, nil, nil, fmt.Errorf("%w (server log: %s)", err, srv.logPath)
	}
	return srv, c, stop, nil
}

// prepareDir defaults cfg.Binary to this executable and cfg.DataDir to a new
// temporary directory; cleanup removes that directory unless cfg.Keep.
func prepareDir(cfg *Config) (cleanup func(), err error) {
	cleanup = func() {}
	if cfg.Binary == "" {
		if cfg.Binary, err = os.Executable(); err != nil {
			return cleanup, fmt.Errorf("find own executable: %w", err)
		}
	}
	if cfg.DataDir == "" {
		d, err := os.MkdirTemp("", "gateway-bench-*")
		if err != nil {
			return cleanup, err
		}
		cfg.DataDir = d
		if !cfg.Keep {
			cleanup = func() { os.RemoveAll(d) }
		}
	}
	return cleanup, nil
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// startServer starts `gateway serve` on embedded defaults (Topology "") or,
// with Topology "split", the scaled layout on this machine: a `gateway
// broker` process, `serve --role=api` (the server returned, which the load
// goes to) and `serve --role=processor` under `nice -n 19`, all on one data
// dir. The returned server stops the others with itself.
func startServer(ctx context.Context, cfg Config) (*server, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	kafka, err := freePort()
	if err != nil {
		return nil, err
	}
	dataDir := filepath.Join(cfg.DataDir, "data")
	env := []string{"GATEWAY_ADDR=" + addr, "GATEWAY_DATA_DIR=" + dataDir, "DATABASE_URL="}
	if cfg.Topology != TopologySplit {
		env = append(env, "GATEWAY_EMBEDDED_KAFKA_ADDR="+kafka, "KAFKA_BROKERS=")
		return startProc(ctx, cfg, "server", []string{cfg.Binary, "serve"}, env, "Gateway ready", "http://"+addr)
	}
	var started []*server // stopped, newest first, if a later one fails
	fail := func(err error) (*server, error) {
		for i := len(started) - 1; i >= 0; i-- {
			started[i].stop()
		}
		return nil, err
	}
	broker, err := startProc(ctx, cfg, "broker", []string{cfg.Binary, "broker", "--addr", kafka,
		"--data-dir", filepath.Join(dataDir, "kafka")}, nil, "Embedded broker ready", "")
	if err != nil {
		return fail(err)
	}
	started = append(started, broker)
	env = append(env, "KAFKA_BROKERS="+kafka)
	api, err := startProc(ctx, cfg, "api", []string{cfg.Binary, "serve", "--role=api"}, env, "Gateway ready", "http://"+addr)
	if err != nil {
		return fail(err)
	}
	started = append(started, api)
	procAddr, err := freePort()
	if err != nil {
		return fail(err)
	}
	// The processors yield the cores to the latency-bound front end (nice),
	// as an operator sharing one machine would set it; on separate machines
	// this is moot. The profiler listener (-env GATEWAY_PPROF_ADDR) belongs
	// to the API process, the one under load; later entries win in
	// exec.Cmd.Env.
	procCfg := cfg
	procCfg.Env = append(append([]string(nil), cfg.Env...), "GATEWAY_PPROF_ADDR=")
	env[0] = "GATEWAY_ADDR=" + procAddr
	proc, err := startProc(ctx, procCfg, "processor", []string{"nice", "-n", "19", cfg.Binary, "serve", "--role=processor"},
		env, "Gateway ready", "")
	if err != nil {
		return fail(err)
	}
	api.others = []*server{proc, broker}
	return api, nil
}

// startProc starts argv with env added to this process's environment, its
// stderr in <data dir>/<name>.log, and waits for a stdout line starting
// with ready.
func startProc(ctx context.Context, cfg Config, name string, argv, env []string, ready, url string) (*server, error) {
	logPath := filepath.Join(cfg.DataDir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), env...), cfg.Env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", strings.Join(argv, " "), err)
	}
	s := &server{cmd: cmd, url: url, logPath: logPath, done: make(chan struct{})}
	readyc := make(chan struct{})
	go func() {
		defer logf.Close()
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), ready) {
				close(readyc)
			}
		}
		_ = cmd.Wait()
		close(s.done)
	}()
	select {
	case <-readyc:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("%s exited before it was ready; see %s", name, logPath)
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, fmt.Errorf("%s not ready after 60s; see %s", name, logPath)
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	for _, o := range s.others {
		o.stop()
	}
}

// peakRSS reads VmHWM (peak resident set) of a live process, in bytes.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return -1
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

type client struct {
	base  string
	http  *http.Client
	token string
	key   string
}

func (c *client) do(ctx context.Context, method, path string, body []byte, hdr map[string]string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// setupMode signs up and creates one application of the given mode.
func (c *client) setupMode(ctx context.Context, mode string) error {
	st, b, err := c.do(ctx, http.MethodPost, "/api/console/signup",
		[]byte(`{"email":"bench@example.com","password":"benchmark-password","organization":"Bench"}`), nil)
	if err != nil || st != http.StatusCreated {
		return fmt.Errorf("signup: %d %s %v", st, b, err)
	}
	var s struct{ Token string }
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	c.token = s.Token
	c.key, err = c.createApp(ctx, `{"name":"bench","mode":"`+mode+`"}`)
	return err
}

// createApp creates an application from its JSON and returns its API key.
func (c *client) createApp(ctx context.Context, app string) (string, error) {
	st, b, err := c.do(ctx, http.MethodPost, "/api/console/apps", []byte(app), map[string]string{"Authorization": "Bearer " + c.token})
	if err != nil || st != http.StatusCreated {
		return "", fmt.Errorf("create app: %d %s %v", st, b, err)
	}
	var a struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return "", err
	}
	return a.APIKey, nil
}

// sendBatch posts one batch and returns how many events were accepted.
func (c *client) sendBatch(ctx context.Context, body []byte) (int, error) {
	st, b, err := c.do(ctx, http.MethodPost, "/v1/events", body, map[string]string{"X-API-Key": c.key})
	if err != nil {
		return 0, err
	}
	if st != http.StatusOK {
		return 0, fmt.Errorf("POST /v1/events: %d %s", st, truncate(b))
	}
	var r struct{ Accepted int }
	if err := json.Unmarshal(b, &r); err != nil {
		return 0, err
	}
	return r.Accepted, nil
}

func (c *client) visible(ctx context.Context, id string) (bool, error) {
	st, b, err := c.do(ctx, http.MethodGet, "/api/console/requests/"+id, nil,
		map[string]string{"Authorization": "Bearer " + c.token})
	switch {
	case err != nil:
		return false, err
	case st == http.StatusOK:
		return true, nil
	case st == http.StatusNotFound:
		return false, nil
	default:
		return false, fmt.Errorf("GET request %s: %d %s", id, st, truncate(b))
	}
}

// rowsWritten reads gateway_processor_rows_written_total from /metrics.
func (c *client) rowsWritten(ctx context.Context) (int64, error) {
	st, b, err := c.do(ctx, http.MethodGet, "/metrics", nil, nil)
	if err != nil || st != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %d %v", st, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "gateway_processor_rows_written_total "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int64(f), err
		}
	}
	return 0, nil
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// Print writes the result as a table.
func Print(w io.Writer, cfg Config, r Result) {
	cfg = cfg.Defaults()
	fmt.Fprintf(w, "ingest benchmark: embedded mode, batches of %d canonical events of ~%d bytes, %d senders, %s\n\n",
		cfg.BatchSize, r.EventBytes, cfg.Concurrency, cfg.Duration)
	fmt.Fprintf(w, "| metric | value | target |\n|---|---|---|\n")
	fmt.Fprintf(w, "| accepted (acknowledged by the log) | %.0f events/s (%d events, %d failed requests) | >= 100,000 |\n", r.AcceptedPerSec, r.Accepted, r.Failed)
	fmt.Fprintf(w, "| end-to-end into store + lake | %.0f events/s (%d rows in %s) | >= 50,000 |\n", r.EndToEndPerSec, r.Written, r.DrainElapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "| freshness at %.0f events/s, 2xx -> visible | p50 %s, p95 %s, p99 %s, max %s (%d samples) | p95 <= 1s |\n",
		r.FreshAchievedEPS, r.FreshP50.Round(time.Millisecond), r.FreshP95.Round(time.Millisecond), r.FreshP99.Round(time.Millisecond), r.FreshMax.Round(time.Millisecond), r.FreshSamples)
	fmt.Fprintf(w, "| peak RSS of the server | %.0f MiB | <= 512 MiB |\n", float64(r.PeakRSSBytes)/(1<<20))
}
