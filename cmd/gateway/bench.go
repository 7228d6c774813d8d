package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/governance-gateway/gateway/integration/bench"
)

// cmdBench runs `gateway bench ingest`: the end-to-end ingest benchmark of
// docs/benchmarks.md against a child `gateway serve` on embedded defaults.
func cmdBench(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	if len(args) > 0 && args[0] == "verify" {
		return cmdBenchVerify(ctx, args[1:], stdout, logger)
	}
	if len(args) > 0 && args[0] == "proxy" {
		return cmdBenchProxy(ctx, args[1:], stdout, logger)
	}
	if len(args) > 0 && args[0] == "console" {
		return cmdBenchConsole(ctx, args[1:], stdout, logger)
	}
	if len(args) == 0 || args[0] != "ingest" {
		return usageError{fmt.Errorf("usage: gateway bench ingest|verify|proxy|console [flags]")}
	}
	var cfg bench.Config
	fs := flag.NewFlagSet("bench ingest", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.DurationVar(&cfg.Duration, "duration", 60e9, "length of the throughput phase")
	fs.IntVar(&cfg.Concurrency, "concurrency", 8, "concurrent senders in the throughput phase")
	fs.IntVar(&cfg.BatchSize, "batch", 500, "events per request (1..500)")
	fs.IntVar(&cfg.FreshRate, "fresh-rate", 5000, "events/s of the freshness phase")
	fs.DurationVar(&cfg.FreshFor, "fresh-duration", 20e9, "length of the freshness phase")
	fs.StringVar(&cfg.DataDir, "data-dir", "", "scratch directory (default: a temp dir, removed afterwards)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the scratch directory (server log, lake, SQLite)")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err}
	}
	cfg.Logger = logger
	res, err := bench.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("bench ingest: %w", err)
	}
	bench.Print(stdout, cfg, res)
	return nil
}

// cmdBenchVerify runs `gateway bench verify`: POST /v1/verify with a 2 KB
// answer and an 8 KB tool_result against a child `gateway serve`, at fixed
// open-loop rates and then closed loop.
func cmdBenchVerify(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	var cfg bench.Config
	fs := flag.NewFlagSet("bench verify", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.DurationVar(&cfg.Duration, "duration", 30e9, "length of the measurement")
	fs.IntVar(&cfg.Concurrency, "concurrency", 4, "closed-loop clients")
	ratesFlag := fs.String("rates", "250,500,1000", "offered request rates of the open-loop rows, measured before the closed loop (\"\" for none)")
	per := fs.Duration("per-rate", 5e9, "measurement length of each open-loop rate")
	fs.StringVar(&cfg.Topology, "topology", "", topologyUsage)
	var env envFlag
	fs.Var(&env, "env", "KEY=VALUE for the child gateway(s), repeatable (e.g. -env GATEWAY_BROKER_FSYNC=batch)")
	fs.StringVar(&cfg.DataDir, "data-dir", "", "scratch directory (default: a temp dir, removed afterwards)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the scratch directory")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	var rates []int
	if *ratesFlag != "" {
		var err error
		if rates, err = parseRates("-rates", *ratesFlag); err != nil {
			return usageError{err}
		}
	}
	if *per <= 0 {
		return usageError{fmt.Errorf("-per-rate must be positive")}
	}
	cfg.Logger, cfg.Env = logger, env
	res, err := bench.RunVerify(ctx, cfg, rates, *per)
	if err != nil {
		return fmt.Errorf("bench verify: %w", err)
	}
	bench.PrintVerify(stdout, res)
	return nil
}

// cmdBenchProxy runs `gateway bench proxy`: the proxy's added latency at
// fixed open-loop rates against a fake upstream (docs/benchmarks.md).
func cmdBenchProxy(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	var cfg bench.Config
	fs := flag.NewFlagSet("bench proxy", flag.ContinueOnError)
	fs.SetOutput(stdout)
	per := fs.Duration("per-rate", 10e9, "measurement length of each rate (direct and through the proxy each)")
	ratesFlag := fs.String("rates", "1000,2000,3000,4000", "offered request rates (observe mode)")
	streamFlag := fs.String("stream-rates", "500,2000", "offered rates of the streaming time-to-first-byte rows")
	var env envFlag
	fs.Var(&env, "env", "KEY=VALUE for the child gateway, repeatable (e.g. -env KAFKA_BROKERS=127.0.0.1:9092 to measure against a real Kafka)")
	fs.StringVar(&cfg.Topology, "topology", "", topologyUsage)
	fs.StringVar(&cfg.DataDir, "data-dir", "", "scratch directory (default: a temp dir, removed afterwards)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the scratch directory")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	rates, err := parseRates("-rates", *ratesFlag)
	if err != nil {
		return usageError{err}
	}
	streamRates, err := parseRates("-stream-rates", *streamFlag)
	if err != nil {
		return usageError{err}
	}
	cfg.Logger, cfg.Env = logger, env
	res, err := bench.RunProxy(ctx, cfg, rates, streamRates, *per)
	if err != nil {
		return fmt.Errorf("bench proxy: %w", err)
	}
	bench.PrintProxy(stdout, res)
	return nil
}

// cmdBenchConsole runs `gateway bench console`: console API latency with a
// seeded history of traces in PostgreSQL (docs/benchmarks.md).
func cmdBenchConsole(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	var cfg bench.ConsoleConfig
	fs := flag.NewFlagSet("bench console", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.StringVar(&cfg.DatabaseURL, "database-url", os.Getenv("DATABASE_URL"), "PostgreSQL to seed and query (default $DATABASE_URL)")
	fs.IntVar(&cfg.Traces, "traces", 1_000_000, "traces to seed for the benchmark's new organisation")
	fs.IntVar(&cfg.Runs, "runs", 100, "timed requests per query")
	fs.StringVar(&cfg.DataDir, "data-dir", "", "scratch directory (default: a temp dir, removed afterwards)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the scratch directory")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if cfg.DatabaseURL == "" {
		return usageError{fmt.Errorf("needs PostgreSQL: -database-url or DATABASE_URL (deploy/local/postgres.sh start prints one)")}
	}
	if cfg.Traces < 1000 || cfg.Runs < 1 {
		return usageError{fmt.Errorf("-traces must be at least 1000 and -runs positive")}
	}
	cfg.Logger = logger
	res, err := bench.RunConsole(ctx, cfg, stdout)
	if err != nil {
		return fmt.Errorf("bench console: %w", err)
	}
	bench.PrintConsole(stdout, res)
	return nil
}

// topologyUsage documents -topology of bench verify and bench proxy.
const topologyUsage = `"" (one serve process) or "split" (broker, --role=api and a niced --role=processor as three processes)`

// parseRates reads a comma-separated list of positive request rates.
func parseRates(flagName, v string) ([]int, error) {
	var rates []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a positive integer", flagName, f)
		}
		rates = append(rates, n)
	}
	return rates, nil
}

// envFlag collects repeated -env KEY=VALUE flags.
type envFlag []string

func (e *envFlag) String() string { return strings.Join(*e, " ") }

func (e *envFlag) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", v)
	}
	*e = append(*e, v)
	return nil
}
