package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/governance-gateway/gateway/topics/embedded"
)

// cmdBroker runs only the embedded Kafka-protocol broker, persisted under
// --data-dir: for several gateway processes on one machine without a real
// Kafka (and the CI fallback of DESIGN.md section 9).
func cmdBroker(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("broker", flag.ContinueOnError)
	fs.SetOutput(stdout)
	addr := fs.String("addr", embedded.DefaultAddr, "listen (and advertised) address host:port")
	dir := fs.String("data-dir", "./data/kafka", "directory the broker persists to")
	partitions := fs.Int("partitions", 6, "partitions of the traces topic when the data dir is new")
	fsyncFlag := fs.String("fsync", embedded.DefaultFsyncInterval.String(), `"batch" (fsync before every ack) or the background fsync interval`)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	fsync, err := parseFsync(*fsyncFlag)
	if err != nil {
		return usageError{fmt.Errorf("--fsync: %w", err)}
	}
	b, err := embedded.Start(embedded.Config{Dir: *dir, Addr: *addr, Partitions: int32(*partitions), FsyncInterval: fsync, Logger: logger})
	if err != nil {
		return fmt.Errorf("start embedded broker: %w", err)
	}
	logger.Info("ready", "component", "broker", "addrs", b.Addrs(), "dir", *dir)
	fmt.Fprintf(stdout, "Embedded broker ready on %v (data in %s)\n", b.Addrs(), *dir)
	<-ctx.Done()
	return b.Close()
}
