// Command gateway is the Governance Gateway: one binary for the HTTP front
// ends, the processors and the embedded broker. See docs/configuration.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const usage = `gateway: the Governance Gateway

Usage:
  gateway serve  [--role=all|api|processor] [--demo]   run the service (docs/configuration.md)
  gateway broker --addr=HOST:PORT --data-dir=DIR       run only the embedded Kafka-protocol broker
  gateway rebuild                                      re-derive the query store from the log
  gateway bench ingest|verify|proxy|console [flags]    the benchmarks (docs/benchmarks.md)
  gateway seed -email USER -traces N                   synthetic trace history for trying the dashboard at scale
  gateway dev-llm [--addr=127.0.0.1:8090]              a fake LLM (test double, OpenAI format) for trying /v1/chat
  gateway eval [-datasets DIR] [-only CATEGORY]        guardrail quality tables on labelled data (docs/governance.md)
  gateway help                                         this text

Run "gateway <command> -h" for the flags of a command.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run returns the process exit code: 0 success, 1 failure, 2 usage error.
func run(args []string, stdout, stderr io.Writer) int {
	level, err := logLevel(os.Getenv("GATEWAY_LOG_LEVEL"))
	if err != nil {
		fmt.Fprintf(stderr, "GATEWAY_LOG_LEVEL: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch args[0] {
	case "serve":
		err = cmdServe(ctx, args[1:], stdout, logger)
	case "broker":
		err = cmdBroker(ctx, args[1:], stdout, logger)
	case "rebuild":
		err = cmdRebuild(ctx, args[1:], stdout, logger)
	case "bench":
		err = cmdBench(ctx, args[1:], stdout, logger)
	case "dev-llm":
		err = cmdDevLLM(ctx, args[1:], stdout, logger)
	case "seed":
		err = cmdSeed(ctx, args[1:], stdout, logger)
	case "eval":
		err = cmdEval(ctx, args[1:], stdout, logger)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "gateway: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue) && errors.Is(ue.error, flag.ErrHelp):
		return 0 // "-h": the flag set has printed the flags
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "gateway %s: %v\n", args[0], err)
		return 2
	default:
		logger.Error("exit", "command", args[0], "err", err)
		return 1
	}
}

// usageError marks a bad flag or configuration: exit code 2, no stack of logs.
type usageError struct{ error }

// logLevel reads GATEWAY_LOG_LEVEL: debug, info (the default, also for ""),
// warn or error. At warn the per-request access lines (info) are off.
func logLevel(v string) (slog.Level, error) {
	if v == "" {
		return slog.LevelInfo, nil
	}
	switch l := strings.ToLower(strings.TrimSpace(v)); l {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("%q: want debug, info, warn or error", v)
}
