package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/httpapi"
	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/anthropic"
	"github.com/governance-gateway/gateway/ingest/llm/azure"
	"github.com/governance-gateway/gateway/ingest/llm/bedrock"
	"github.com/governance-gateway/gateway/ingest/llm/llmfake"
	"github.com/governance-gateway/gateway/ingest/llm/openai"
	"github.com/governance-gateway/gateway/ingest/llm/tokens"
	"github.com/governance-gateway/gateway/ingest/llm/vertex"
	"github.com/governance-gateway/gateway/processors/analyse"
	"github.com/governance-gateway/gateway/processors/lake"
	"github.com/governance-gateway/gateway/processors/tracewriter"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/postgres"
	"github.com/governance-gateway/gateway/query/sqlite"
	"github.com/governance-gateway/gateway/topics"
	"github.com/governance-gateway/gateway/topics/embedded"
)

// serveFlags parses `gateway serve` flags over the environment's config.
func serveFlags(args []string, out io.Writer) (config, error) {
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return cfg, usageError{err}
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.Role, "role", cfg.Role, "all (api + processors + embedded broker when KAFKA_BROKERS is unset), api or processor")
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address (GATEWAY_ADDR)")
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "data directory: SQLite, lake, embedded broker (GATEWAY_DATA_DIR)")
	fs.BoolVar(&cfg.Demo, "demo", false, "create a demo organisation (once) and demo Events, Verify and Full Control applications, and print their API keys and a console token (loopback only)")
	if err := fs.Parse(args); err != nil {
		return cfg, usageError{err}
	}
	if fs.NArg() > 0 {
		return cfg, usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	cfg.finish()
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

func cmdServe(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	cfg, err := serveFlags(args, stdout)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	logger = logger.With("role", cfg.Role)
	if os.Getenv("GOMEMLIMIT") == "" && cfg.MemoryLimit > 0 {
		// A soft limit makes the GC collect and return memory before the
		// heap doubles; without it a burst of buffered records leaves the
		// process at twice its live heap. GOMEMLIMIT, when set, wins.
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	brokers := cfg.KafkaBrokers
	var dial func(context.Context, string, string) (net.Conn, error)
	if cfg.embedded() {
		b, err := embedded.Start(embedded.Config{
			Dir:           filepath.Join(cfg.DataDir, "kafka"),
			Addr:          cfg.EmbeddedKafkaAddr,
			Partitions:    cfg.Partitions,
			FsyncInterval: cfg.BrokerFsync,
			Logger:        logger.With("component", "broker"),
		})
		if err != nil {
			return fmt.Errorf("start embedded broker: %w", err)
		}
		defer b.Close()
		brokers = b.Addrs()
		// This process's clients reach the broker in memory; other
		// processes (--role=processor, tools) still connect over TCP.
		dial = b.Dial
		logger.Info("embedded broker started", "addrs", brokers, "dir", filepath.Join(cfg.DataDir, "kafka"))
	}
	kcfg := topics.Config{Brokers: brokers, Dial: dial, Partitions: cfg.Partitions, Registerer: reg}
	if err := ensureTopics(ctx, kcfg, logger); err != nil {
		return err
	}

	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	url := "http://" + ln.Addr().String()

	errc := make(chan error, 3)
	if cfg.PprofAddr != "" {
		go servePprof(cfg.PprofAddr, logger, errc)
	}
	var srv *http.Server
	runAPI := cfg.Role == roleAll || cfg.Role == roleAPI
	runProc := cfg.Role == roleAll || cfg.Role == roleProcessor
	// One governance engine (scanners, embedded model) shared by verify
	// and the processors' analysis stage.
	gov := governance.New()
	if err := governance.Preload(); err != nil {
		return err
	}
	if runAPI {
		tokens.Preload()
	}
	if cfg.Demo && runAPI && cfg.ProviderURLs[llm.OpenAI] == "" && cfg.ProviderKeys[llm.OpenAI] == "" {
		// The demo needs no vendor key: Full Control talks to the built-in
		// fake LLM (a test double, see `gateway dev-llm`).
		fl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("demo fake LLM: %w", err)
		}
		fsrv := &http.Server{Handler: &llmfake.Server{NoRecord: true}, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = fsrv.Serve(fl) }()
		defer fsrv.Close()
		cfg.ProviderURLs[llm.OpenAI] = "http://" + fl.Addr().String() + "/v1"
		cfg.ProviderKeys[llm.OpenAI] = "dev-llm"
		logger.Info("demo: provider openai is the built-in fake LLM (test double)", "url", cfg.ProviderURLs[llm.OpenAI])
		if cfg.UpstreamURL == "" {
			cfg.UpstreamURL = cfg.ProviderURLs[llm.OpenAI]
			logger.Info("demo: the proxy's upstream is the built-in fake LLM (test double)", "url", cfg.UpstreamURL)
		}
	}

	var producer *topics.Producer
	if runAPI {
		producer, err = topics.NewProducer(ctx, kcfg, logger.With("component", "producer"))
		if err != nil {
			return fmt.Errorf("start producer: %w", err)
		}
		defer producer.Close()
		prices, err := cfg.prices().Table()
		if err != nil {
			return usageError{fmt.Errorf("GATEWAY_PRICES_FILE: %w", err)}
		}
		api, err := httpapi.New(httpapi.Config{MasterKey: cfg.MasterKey, ManagedKeys: cfg.ProviderKeys,
			UpstreamURL: cfg.UpstreamURL, UpstreamTimeout: cfg.UpstreamTimeout, ProxyDefaultMode: cfg.ProxyDefaultMode, Prices: prices,
			SessionRetention: cfg.SessionRetention}, httpapi.Deps{
			Governance: gov,
			Providers:  providers(cfg),
			Store:      store,
			Log:        producer,
			Logger:     logger.With("component", "http"),
			Registerer: reg,
			Gatherer:   reg,
			Ready: func(ctx context.Context) error {
				if err := producer.Ping(ctx); err != nil {
					return fmt.Errorf("log: %w", err)
				}
				if err := store.Ping(ctx); err != nil {
					return fmt.Errorf("store: %w", err)
				}
				return nil
			},
		})
		if err != nil {
			return fmt.Errorf("build http api: %w", err)
		}
		defer api.Close()
		srv = api.HTTPServer(cfg.Addr)
	} else {
		srv = &http.Server{Handler: opsMux(reg, store, kcfg), ReadHeaderTimeout: 10 * time.Second}
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("http server: %w", err)
		}
	}()

	procCtx, stopProc := context.WithCancel(context.Background())
	var analyser *analyse.Governance
	if runProc {
		if analyser, err = analyse.New(gov); err != nil {
			stopProc()
			return err
		}
	}
	procDone := make(chan struct{})
	if runProc {
		lw, err := lake.NewWriter(lake.Config{Dir: cfg.LakeDir})
		if err != nil {
			stopProc()
			return fmt.Errorf("open lake writer: %w", err)
		}
		tw, err := tracewriter.New(tracewriter.Config{
			Kafka:            kcfg,
			FlushRows:        cfg.FlushRows,
			FlushInterval:    cfg.FlushInterval,
			FlushConcurrency: cfg.FlushConcurrency,
		}, tracewriter.Deps{
			Store:      store,
			Lake:       lw,
			Analyser:   analyser,
			Logger:     logger.With("component", "tracewriter"),
			Registerer: reg,
		})
		if err != nil {
			stopProc()
			return fmt.Errorf("build trace writer: %w", err)
		}
		go func() {
			defer close(procDone)
			if err := tw.Run(procCtx); err != nil && !errors.Is(err, context.Canceled) {
				errc <- fmt.Errorf("trace writer: %w", err)
			}
		}()
	} else {
		close(procDone)
	}

	logger.Info("ready", "url", url, "data_dir", cfg.DataDir, "lake_dir", cfg.LakeDir,
		"kafka", brokers, "embedded", cfg.embedded(), "store", storeKind(cfg))
	fmt.Fprintf(stdout, "Gateway ready on %s (role %s)\n", url, cfg.Role)
	if cfg.Demo && runAPI {
		if err := printDemo(ctx, cfg.DataDir, url, stdout); err != nil {
			logger.Error("demo setup failed", "err", err)
		}
	}

	var runErr error
	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case runErr = <-errc:
	}
	// Stop taking requests first, then let the processors finish their
	// current chunk and leave the group, then close the log and the store
	// (deferred, in reverse order of opening).
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		logger.Warn("http shutdown", "err", err)
	}
	stopProc()
	<-procDone
	return runErr
}

// ensureTopics retries while a freshly started cluster elects its
// controller: a real broker started a second ago may refuse admin calls.
func ensureTopics(ctx context.Context, kcfg topics.Config, logger *slog.Logger) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := topics.EnsureTopics(ctx, kcfg)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("ensure topics on %v: %w", kcfg.Brokers, err)
		}
		logger.Warn("log not ready, retrying", "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func storeKind(cfg config) string {
	if cfg.DatabaseURL != "" {
		return "postgres"
	}
	return "sqlite"
}

func openStore(ctx context.Context, cfg config) (query.Store, error) {
	if cfg.DatabaseURL != "" {
		s, err := postgres.Open(ctx, cfg.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("open postgres store: %w", err)
		}
		return s, nil
	}
	path := filepath.Join(cfg.DataDir, "gateway.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	return s, nil
}

// opsMux serves liveness, readiness and metrics for a processor-only
// process, which has no public API.
func opsMux(reg *prometheus.Registry, store query.Store, kcfg topics.Config) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if err := store.Ping(ctx); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintf(w, `{"ok":false,"error":%q}`, "store: "+err.Error())
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

// servePprof exposes the Go profiler on its own listener (GATEWAY_PPROF_ADDR),
// never on the public API address.
func servePprof(addr string, logger *slog.Logger, errc chan<- error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	logger.Info("pprof listening", "addr", addr)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		errc <- fmt.Errorf("pprof server: %w", err)
	}
}

// providers builds the LLM adapters of POST /v1/chat. OpenAI and Anthropic
// are always available (their public endpoints unless
// GATEWAY_PROVIDER_<NAME>_BASE_URL says otherwise, e.g. `gateway dev-llm`);
// Bedrock in GATEWAY_PROVIDER_BEDROCK_REGION (default us-east-1), Vertex AI
// in GATEWAY_PROVIDER_VERTEX_PROJECT / _LOCATION; Azure OpenAI when its
// resource endpoint is configured.
func providers(cfg config) map[string]llm.Provider {
	lc := func(v string) llm.Config { return llm.Config{BaseURL: cfg.ProviderURLs[v], Timeout: cfg.LLMTimeout} }
	ps := map[string]llm.Provider{
		llm.OpenAI:    openai.New(lc(llm.OpenAI)),
		llm.Anthropic: anthropic.New(lc(llm.Anthropic)),
	}
	bc := lc(llm.Bedrock)
	bc.Region = cfg.BedrockRegion
	ps[llm.Bedrock] = bedrock.New(bc)
	vc := lc(llm.Vertex)
	vc.Project, vc.Region = cfg.VertexProject, cfg.VertexLocation
	ps[llm.Vertex] = vertex.New(vc)
	// Azure OpenAI has no default endpoint: each customer has a resource.
	if cfg.ProviderURLs[llm.AzureOpenAI] != "" {
		ps[llm.AzureOpenAI] = azure.New(lc(llm.AzureOpenAI))
	}
	return ps
}
