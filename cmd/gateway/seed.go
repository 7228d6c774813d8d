package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/governance-gateway/gateway/integration/bench"
)

// cmdSeed runs `gateway seed`: synthetic trace history for one organisation
// of the configured store, to try the dashboard and the console API at
// scale (docs/benchmarks.md, console queries).
func cmdSeed(ctx context.Context, args []string, stdout io.Writer, _ *slog.Logger) error {
	var sc bench.SeedConfig
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(stdout)
	org := fs.String("org", "", "organisation id to seed (or -email)")
	email := fs.String("email", "", "seed the organisation of this console user")
	fs.IntVar(&sc.Traces, "traces", 1_000_000, "number of traces")
	days := fs.Int("days", 30, "spread the traces over this many days before now")
	apps := fs.String("apps", "app-0,app-1,app-2,app-3,app-4", "comma-separated application ids the traces belong to")
	seed := fs.Uint64("seed", 1, "random seed (the same seed writes the same traces; a re-run skips what is written)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if (*org == "") == (*email == "") {
		return usageError{fmt.Errorf("give exactly one of -org and -email")}
	}
	if *days < 1 {
		return usageError{fmt.Errorf("-days must be positive")}
	}
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return usageError{err}
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	sc.OrgID, sc.Seed, sc.Apps = *org, *seed, strings.Split(*apps, ",")
	if *email != "" {
		u, err := store.UserByEmail(ctx, strings.ToLower(*email))
		if err != nil {
			return fmt.Errorf("find user %s: %w", *email, err)
		}
		sc.OrgID = u.OrgID
	}
	sc.Span = time.Duration(*days) * 24 * time.Hour
	fmt.Fprintf(stdout, "seeding %d traces for organisation %s into the %s store\n", sc.Traces, sc.OrgID, storeKind(cfg))
	return bench.SeedTraces(ctx, store, sc, stdout)
}
