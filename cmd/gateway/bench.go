package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
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
	if len(args) == 0 || args[0] != "ingest" {
		return usageError{fmt.Errorf("usage: gateway bench ingest|verify|proxy [flags]")}
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
// answer and an 8 KB tool_result against a child `gateway serve`.
func cmdBenchVerify(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	var cfg bench.Config
	fs := flag.NewFlagSet("bench verify", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.DurationVar(&cfg.Duration, "duration", 30e9, "length of the measurement")
	fs.IntVar(&cfg.Concurrency, "concurrency", 4, "closed-loop clients")
	fs.StringVar(&cfg.DataDir, "data-dir", "", "scratch directory (default: a temp dir, removed afterwards)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the scratch directory")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	cfg.Logger = logger
	res, err := bench.RunVerify(ctx, cfg)
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
	fs.StringVar(&cfg.DataDir, "data-dir", "", "scratch directory (default: a temp dir, removed afterwards)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the scratch directory")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	var rates []int
	for _, f := range strings.Split(*ratesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return usageError{fmt.Errorf("-rates: %q is not a positive integer", f)}
		}
		rates = append(rates, n)
	}
	cfg.Logger = logger
	res, err := bench.RunProxy(ctx, cfg, rates, *per)
	if err != nil {
		return fmt.Errorf("bench proxy: %w", err)
	}
	bench.PrintProxy(stdout, res)
	return nil
}
