package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/governance-gateway/gateway/processors/analyse"
	"github.com/governance-gateway/gateway/processors/lake"
	"github.com/governance-gateway/gateway/processors/rebuild"
	"github.com/governance-gateway/gateway/topics"
	"github.com/governance-gateway/gateway/topics/embedded"
)

// cmdRebuild re-derives the trace projection of the query store (and, with
// --lake, the Parquet lake) from the log. It is idempotent: rows already
// present are kept, missing ones are written, chunk boundaries recorded in
// the store are honoured so lake file names stay the same. Tenants, users and
// applications are primary data of the store, not of the log: rebuild does
// not create them.
func cmdRebuild(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return usageError{err}
	}
	fs := flag.NewFlagSet("rebuild", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "data directory (GATEWAY_DATA_DIR)")
	withLake := fs.Bool("lake", false, "also rewrite the Parquet lake files of every chunk")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	cfg.finish()

	kcfg := topics.Config{Brokers: cfg.KafkaBrokers}
	if cfg.embedded() {
		// The embedded log lives in the data dir: the serving process must be
		// stopped, kfake holds its directory exclusively.
		b, err := embedded.Start(embedded.Config{Dir: filepath.Join(cfg.DataDir, "kafka"), Addr: "127.0.0.1:0", Logger: logger})
		if err != nil {
			return fmt.Errorf("start embedded broker (is `gateway serve` still running on %s?): %w", cfg.DataDir, err)
		}
		defer b.Close()
		kcfg = topics.Config{Brokers: b.Addrs(), Dial: b.Dial}
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	an, err := analyse.New(nil)
	if err != nil {
		return err
	}
	deps := rebuild.Deps{Store: store, Analyser: an, Logger: logger}
	if *withLake {
		lw, err := lake.NewWriter(lake.Config{Dir: cfg.LakeDir})
		if err != nil {
			return fmt.Errorf("open lake writer: %w", err)
		}
		deps.Lake = lw
	}
	st, err := rebuild.Rebuild(ctx, rebuild.Config{Kafka: kcfg, FlushRows: cfg.FlushRows}, deps)
	if err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	fmt.Fprintf(stdout, "rebuilt from the log: %d records, %d chunks, %d rows owned, %d undecodable (dead letters)\n",
		st.Records, st.Chunks, st.Rows, st.DeadLetters)
	return nil
}
