// Package embedded runs the log in-process for the one-binary mode: franz-go's
// kfake broker, persisted to a directory and reached over TCP by the very
// same clients that talk to a real Kafka cluster (DESIGN.md section 3).
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/governance-gateway/gateway/topics"
)

// DefaultAddr is where the embedded broker listens unless told otherwise.
const DefaultAddr = "127.0.0.1:9092"

// Config configures the embedded broker. Zero fields take defaults.
type Config struct {
	// Dir holds the broker's data (segments, offsets, producer state). It
	// is created if missing and reloaded on Start. Required.
	Dir string
	// Addr is the listen address, host:port. The host is also what the
	// broker advertises in metadata, so it must be an address clients can
	// dial (not 0.0.0.0). "127.0.0.1:0" picks a free port (tests).
	// Default DefaultAddr.
	Addr string
	// Partitions of the traces topic when the data dir is new. Default
	// topics.DefaultPartitions.
	Partitions int32
	// Logger receives the broker's warnings and errors. Nil discards them.
	Logger *slog.Logger
}

// Defaults returns c with zero fields set to their defaults.
func (c Config) Defaults() Config {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.Partitions == 0 {
		c.Partitions = topics.DefaultPartitions
	}
	return c
}

// Validate reports the first invalid field of c (after defaults).
func (c Config) Validate() error {
	c = c.Defaults()
	if c.Dir == "" {
		return errors.New("embedded broker config: Dir is required")
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("embedded broker config: Addr %q: %w", c.Addr, err)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("embedded broker config: Addr %q: the host is advertised to clients and must be dialable, not unspecified", c.Addr)
	}
	if c.Partitions < 1 {
		return fmt.Errorf("embedded broker config: Partitions %d must be at least 1", c.Partitions)
	}
	return nil
}

// Broker is a running embedded broker.
type Broker struct {
	cluster *kfake.Cluster
	addrs   []string
	once    sync.Once
}

// Start starts the broker on cfg.Addr over the data in cfg.Dir (reloading
// whatever a previous run left there) and returns once it accepts
// connections. The traces and dead-letter topics exist when it returns.
//
// Durability: every acknowledged produce is fsynced before the ack (kfake
// SyncWrites; segment, index, producer-id and group-offset logs alike). The
// gateway answers 2xx only after that ack, so a process crash after a 2xx
// loses nothing. Without SyncWrites kfake, like Kafka's default, leaves data
// in the page cache, which is safe on a replicated cluster but not with one
// in-process broker whose process is the thing that crashes.
func Start(cfg Config) (*Broker, error) {
	cfg = cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ClusterID("gateway-embedded"),
		kfake.DataDir(cfg.Dir),
		kfake.SyncWrites(),
		// kfake always asks to listen on 127.0.0.1:<port>; listen on the
		// configured address instead (which may name another host or
		// interface), and let the OS pick when the port is 0.
		kfake.Ports(0),
		kfake.ListenFn(func(network, _ string) (net.Listener, error) {
			return net.Listen(network, cfg.Addr)
		}),
		// Only applied to a new data dir; a reloaded one keeps its topics.
		kfake.SeedTopics(cfg.Partitions, topics.Traces),
		kfake.SeedTopics(topics.DeadLetterPartitions, topics.DeadLetter),
		kfake.DefaultNumPartitions(int(cfg.Partitions)),
	}
	if cfg.Logger != nil {
		opts = append(opts, kfake.WithLogger(kfakeLogger{cfg.Logger}))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("start embedded broker in %s on %s: %w", cfg.Dir, cfg.Addr, err)
	}
	return &Broker{cluster: c, addrs: c.ListenAddrs()}, nil
}

// Addrs are the broker's host:port addresses, for topics.Config.Brokers.
func (b *Broker) Addrs() []string { return append([]string(nil), b.addrs...) }

// Close stops the broker: it closes the listener and client connections and
// writes its state to disk. Acknowledged data was already durable. Idempotent.
func (b *Broker) Close() error {
	b.once.Do(b.cluster.Close)
	return nil
}

// kfakeLogger passes kfake's warnings and errors to slog; its Info level
// logs every request.
type kfakeLogger struct{ l *slog.Logger }

func (k kfakeLogger) Logf(level kfake.LogLevel, format string, args ...any) {
	var lvl slog.Level
	switch level {
	case kfake.LogLevelError:
		lvl = slog.LevelError
	case kfake.LogLevelWarn:
		lvl = slog.LevelWarn
	default:
		return
	}
	k.l.Log(context.Background(), lvl, "embedded broker: "+fmt.Sprintf(format, args...))
}
