package topics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Defaults applied by Config.Defaults to zero fields.
const (
	DefaultPartitions        int32 = 6
	DefaultReplicationFactor int16 = -1 // the broker's default.replication.factor
	DefaultClientID                = "governance-gateway"
	DefaultProduceTimeout          = 5 * time.Second
	DefaultTxnPool                 = 2
	DefaultMaxTxnRecords           = 20_000
	DefaultMaxTxnBytes             = 8 << 20
	DefaultDialTimeout             = 2 * time.Second
)

// Config configures every Kafka client of the gateway. Zero fields take the
// defaults above (see Defaults); Validate checks the result.
type Config struct {
	// Brokers are the seed brokers, host:port.
	Brokers []string
	// Partitions of the traces topic when EnsureTopics creates it. The
	// partition count is part of the key -> partition mapping, so an
	// existing topic is never altered.
	Partitions int32
	// ReplicationFactor of created topics; -1 lets the broker choose
	// (default.replication.factor), the only value that works unchanged on a
	// one-broker embedded log and on a real cluster.
	ReplicationFactor int16
	// ClientID names our connections in broker logs and quotas.
	ClientID string
	// ProduceTimeout bounds Produce: past it the caller gets ErrUnavailable
	// (the HTTP layer answers 503), whatever the broker does. It also bounds
	// each group transaction from its start; a batch whose transaction began
	// before its caller's deadline waits for that transaction's outcome, so
	// a multi-envelope Produce returns within about twice ProduceTimeout.
	ProduceTimeout time.Duration
	// TxnPool is how many transactional clients a Producer keeps, each with
	// one worker: the number of transactions in flight at once. Batches that
	// arrive while every worker is busy queue (within ProduceTimeout), and
	// the next free worker commits everything queued in one transaction
	// (group commit, see Producer.Produce). Default 2: one transaction
	// commits while the next one fills; more transactions in flight make
	// smaller groups and cost more fsyncs (BenchmarkProduceBatch500 on the
	// embedded broker: pool 2 beats 4 and 8).
	TxnPool int
	// MaxTxnRecords and MaxTxnBytes (key + value bytes) bound one group
	// transaction: a worker stops taking queued batches before either is
	// exceeded, though a batch larger than them on its own still goes, alone.
	// They bound how much one failure fails and how long a transaction takes,
	// not the size of a batch. Defaults 20,000 records and 8 MiB.
	MaxTxnRecords int
	MaxTxnBytes   int
	// TxnTimeout is the broker-side transaction timeout. It bounds how long
	// an abandoned transaction (process crash mid-batch) holds back the
	// last stable offset of read_committed consumers. Default: three times
	// ProduceTimeout, so a healthy slow transaction (bounded by
	// ProduceTimeout) is never aborted by the broker.
	TxnTimeout time.Duration
	// DialTimeout bounds one TCP connect. Default 2s, well under
	// ProduceTimeout, so a dead broker is retried (or given up) within the
	// produce deadline instead of one dial eating the whole budget.
	DialTimeout time.Duration
	// Dial, when set, opens every connection of our clients instead of a
	// plain TCP dial (DialTimeout still bounds it). The embedded broker's
	// Dial connects its own process's clients to it in memory.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Linger is how long the producer waits for more records before sending
	// a partition's batch. Default 0: a request handler is waiting on every
	// record, and under load kgo batches anyway while the previous request
	// to the broker is in flight (see BenchmarkProduceBatch500).
	Linger time.Duration
	// TxnIDPrefix prefixes the transactional ids of this process's pool:
	// "<prefix>-<index>". Default "gateway-<hostname>-<pid>", unique per
	// running process so two replicas never fence each other.
	TxnIDPrefix string
	// Registerer receives the Producer's metrics. Nil registers nothing.
	Registerer prometheus.Registerer
}

// Defaults returns c with every zero field set to its default.
func (c Config) Defaults() Config {
	if c.Partitions == 0 {
		c.Partitions = DefaultPartitions
	}
	if c.ReplicationFactor == 0 {
		c.ReplicationFactor = DefaultReplicationFactor
	}
	if c.ClientID == "" {
		c.ClientID = DefaultClientID
	}
	if c.ProduceTimeout == 0 {
		c.ProduceTimeout = DefaultProduceTimeout
	}
	if c.TxnPool == 0 {
		c.TxnPool = DefaultTxnPool
	}
	if c.MaxTxnRecords == 0 {
		c.MaxTxnRecords = DefaultMaxTxnRecords
	}
	if c.MaxTxnBytes == 0 {
		c.MaxTxnBytes = DefaultMaxTxnBytes
	}
	if c.TxnTimeout == 0 {
		c.TxnTimeout = 3 * c.ProduceTimeout
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.TxnIDPrefix == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "unknown-host"
		}
		c.TxnIDPrefix = "gateway-" + host + "-" + strconv.Itoa(os.Getpid())
	}
	return c
}

// Validate reports the first invalid field of c (after defaults).
func (c Config) Validate() error {
	c = c.Defaults()
	switch {
	case len(c.Brokers) == 0:
		return errors.New("topics config: Brokers is required")
	case c.Partitions < 1:
		return fmt.Errorf("topics config: Partitions %d must be at least 1", c.Partitions)
	case c.ReplicationFactor != -1 && c.ReplicationFactor < 1:
		return fmt.Errorf("topics config: ReplicationFactor %d must be -1 (broker default) or at least 1", c.ReplicationFactor)
	case c.ProduceTimeout < 0:
		return fmt.Errorf("topics config: ProduceTimeout %s must be positive", c.ProduceTimeout)
	case c.TxnPool < 1:
		return fmt.Errorf("topics config: TxnPool %d must be at least 1", c.TxnPool)
	case c.MaxTxnRecords < 1:
		return fmt.Errorf("topics config: MaxTxnRecords %d must be at least 1", c.MaxTxnRecords)
	case c.MaxTxnBytes < 1:
		return fmt.Errorf("topics config: MaxTxnBytes %d must be at least 1", c.MaxTxnBytes)
	case c.TxnTimeout <= c.ProduceTimeout:
		return fmt.Errorf("topics config: TxnTimeout %s must exceed ProduceTimeout %s", c.TxnTimeout, c.ProduceTimeout)
	case c.DialTimeout < 0:
		return fmt.Errorf("topics config: DialTimeout %s must be positive", c.DialTimeout)
	case c.Linger < 0:
		return fmt.Errorf("topics config: Linger %s must not be negative", c.Linger)
	}
	for _, b := range c.Brokers {
		if b == "" {
			return errors.New("topics config: Brokers holds an empty address")
		}
	}
	return nil
}

// ClientOpts are the base options of every franz-go client of ours (producer,
// processors' consumers, admin). Callers add their role's options on top.
// cfg is taken after Defaults. Add kgo.WithLogger(KgoLogger(l)) for logs.
func ClientOpts(cfg Config) []kgo.Opt {
	cfg = cfg.Defaults()
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ClientID(cfg.ClientID),
		// Why: a dead broker must fail a dial fast enough that retries and
		// deadline checks happen inside ProduceTimeout (kgo default 10s).
		kgo.DialTimeout(cfg.DialTimeout),
		// Why: after a broker restart (embedded mode restarts with the
		// process) clients should re-learn metadata within a second rather
		// than kgo's 5s minimum, which would exceed ProduceTimeout.
		kgo.MetadataMinAge(time.Second),
	}
	if dial := cfg.Dial; dial != nil {
		// kgo.Dialer replaces the dialer that DialTimeout configures.
		timeout := cfg.DialTimeout
		opts = append(opts, kgo.Dialer(func(ctx context.Context, network, address string) (net.Conn, error) {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return dial(ctx, network, address)
		}))
	}
	return opts
}

// ConsumerOpts are ClientOpts plus what every reader of the traces topic
// needs: read_committed, so a batch produced in a transaction is seen whole
// or not at all (an aborted batch, e.g. after a 503, never).
func ConsumerOpts(cfg Config) []kgo.Opt {
	return append(ClientOpts(cfg),
		// Why: Events batches are produced in one transaction; read_uncommitted
		// would expose half-written and aborted batches.
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	)
}

// KgoLogger adapts slog to kgo's logger. kgo's Info level narrates every
// connection and metadata refresh, so it passes Warn and above only.
func KgoLogger(l *slog.Logger) kgo.Logger { return kgoLogger{l} }

type kgoLogger struct{ l *slog.Logger }

func (kgoLogger) Level() kgo.LogLevel { return kgo.LogLevelWarn }

func (k kgoLogger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	var lvl slog.Level
	switch level {
	case kgo.LogLevelError:
		lvl = slog.LevelError
	case kgo.LogLevelWarn:
		lvl = slog.LevelWarn
	case kgo.LogLevelInfo:
		lvl = slog.LevelInfo
	default:
		lvl = slog.LevelDebug
	}
	k.l.Log(context.Background(), lvl, "kafka client: "+msg, keyvals...)
}
