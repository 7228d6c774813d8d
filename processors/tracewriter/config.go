package tracewriter

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/governance-gateway/gateway/topics"
)

// Defaults applied by Config.Defaults to zero fields.
const (
	// DefaultFlushRows: large enough that a chunk amortises the store
	// transaction and gives a reasonably sized Parquet file.
	DefaultFlushRows = 5000
	// DefaultFlushInterval serves the freshness target: p95 <= 1 s from a 2xx
	// to the trace being visible in the console API. 200ms of buffering
	// plus a store transaction leaves ample headroom.
	DefaultFlushInterval   = 200 * time.Millisecond
	DefaultWriteTimeout    = 20 * time.Second
	DefaultRetryBackoffMin = 100 * time.Millisecond
	DefaultRetryBackoffMax = 10 * time.Second
	// DefaultDedupeCacheEntries sizes the resend hot set: 256k ids costs
	// ~15 MiB (ristretto's sketch is sized from it up front); the store
	// answers for anything older.
	DefaultDedupeCacheEntries = 1 << 18
	// DefaultRebalanceTimeout is kgo's default, stated here because
	// WriteTimeout must stay below it (see Validate).
	DefaultRebalanceTimeout = 60 * time.Second
	DefaultSessionTimeout   = 10 * time.Second
	// DefaultFetchMaxPartitionBytes lets one fetch bring a good part of a
	// 5000-row chunk: batches are compressed, so 2 MiB carries several
	// thousand traces (kgo's default, 1 MiB, measured slower). Larger values
	// only grow memory: fetched batches are held decompressed, and 8 MiB per
	// partition measured ~250 MiB of buffered data under a backlog.
	DefaultFetchMaxPartitionBytes = 2 << 20
	// DefaultFetchMaxBytes bounds one whole fetch response (kgo's default
	// is 50 MiB, which decompressed is most of the memory budget).
	DefaultFetchMaxBytes = 8 << 20
)

// Config configures a Writer. Zero fields take the defaults above.
type Config struct {
	// Kafka is the shared client configuration (brokers, client id, dial
	// timeout); only Brokers is required.
	Kafka topics.Config
	// Group is the consumer group; default topics.TraceWriterGroup.
	Group string
	// FlushRows cuts a chunk once a partition has buffered this many records.
	FlushRows int
	// FlushInterval cuts a chunk once its first record has waited this long.
	FlushInterval time.Duration
	// MaxBufferedRecords pauses fetching a partition holding this many
	// unwritten records (a sink is failing), resuming below half of it.
	// Default 2 * FlushRows: enough to cut the next chunk while one is being
	// written, without holding a large backlog in memory.
	MaxBufferedRecords int
	// FlushConcurrency bounds how many partitions flush at once (analysis
	// and sink writes); default GOMAXPROCS.
	FlushConcurrency int
	// WriteTimeout bounds one attempt at writing a chunk to the sinks; a
	// flush pass starts no new chunk after WriteTimeout, so one pass lasts
	// under 2*WriteTimeout, which must be below RebalanceTimeout: the poll
	// loop holds rebalances while it writes.
	WriteTimeout time.Duration
	// RebalanceTimeout is how long the group waits for members to finish a
	// rebalance (kgo.RebalanceTimeout).
	RebalanceTimeout time.Duration
	// RetryBackoffMin and RetryBackoffMax bound the delay between failed
	// write attempts of one partition (doubling from Min up to Max).
	RetryBackoffMin, RetryBackoffMax time.Duration
	// DedupeCacheEntries sizes the (org_id, request_id) -> owner hot set;
	// negative disables it (the store is authoritative either way).
	DedupeCacheEntries int64
	// SessionTimeout is how long the group waits for a silent member before
	// moving its partitions (kgo.SessionTimeout); default 10s.
	SessionTimeout time.Duration
	// FetchMaxPartitionBytes is kgo.FetchMaxPartitionBytes.
	FetchMaxPartitionBytes int32
}

// Defaults returns c with every zero field set to its default.
func (c Config) Defaults() Config {
	c.Kafka = c.Kafka.Defaults()
	if c.Group == "" {
		c.Group = topics.TraceWriterGroup
	}
	if c.FlushRows == 0 {
		c.FlushRows = DefaultFlushRows
	}
	if c.FlushInterval == 0 {
		c.FlushInterval = DefaultFlushInterval
	}
	if c.MaxBufferedRecords == 0 {
		c.MaxBufferedRecords = 2 * c.FlushRows
	}
	if c.FlushConcurrency == 0 {
		c.FlushConcurrency = runtime.GOMAXPROCS(0)
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.RebalanceTimeout == 0 {
		c.RebalanceTimeout = DefaultRebalanceTimeout
	}
	if c.RetryBackoffMin == 0 {
		c.RetryBackoffMin = DefaultRetryBackoffMin
	}
	if c.RetryBackoffMax == 0 {
		c.RetryBackoffMax = DefaultRetryBackoffMax
	}
	if c.DedupeCacheEntries == 0 {
		c.DedupeCacheEntries = DefaultDedupeCacheEntries
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	if c.FetchMaxPartitionBytes == 0 {
		c.FetchMaxPartitionBytes = DefaultFetchMaxPartitionBytes
	}
	return c
}

// Validate reports the first invalid field of c (after defaults).
func (c Config) Validate() error {
	c = c.Defaults()
	if err := c.Kafka.Validate(); err != nil {
		return fmt.Errorf("trace writer config: %w", err)
	}
	switch {
	case c.FlushRows < 1:
		return fmt.Errorf("trace writer config: FlushRows %d must be at least 1", c.FlushRows)
	case c.FlushInterval < 0:
		return fmt.Errorf("trace writer config: FlushInterval %s must be positive", c.FlushInterval)
	case c.MaxBufferedRecords < c.FlushRows:
		return fmt.Errorf("trace writer config: MaxBufferedRecords %d must be at least FlushRows %d", c.MaxBufferedRecords, c.FlushRows)
	case c.FlushConcurrency < 1:
		return fmt.Errorf("trace writer config: FlushConcurrency %d must be at least 1", c.FlushConcurrency)
	case c.WriteTimeout <= 0 || c.RebalanceTimeout <= 0:
		return errors.New("trace writer config: WriteTimeout and RebalanceTimeout must be positive")
	case 2*c.WriteTimeout >= c.RebalanceTimeout:
		return fmt.Errorf("trace writer config: 2*WriteTimeout (%s) must be below RebalanceTimeout %s", 2*c.WriteTimeout, c.RebalanceTimeout)
	case c.SessionTimeout < 2*time.Second:
		return fmt.Errorf("trace writer config: SessionTimeout %s must be at least 2s (heartbeats are every second)", c.SessionTimeout)
	case c.RetryBackoffMin <= 0 || c.RetryBackoffMax < c.RetryBackoffMin:
		return fmt.Errorf("trace writer config: retry backoff [%s, %s] is not a positive range", c.RetryBackoffMin, c.RetryBackoffMax)
	case c.FetchMaxPartitionBytes < 1:
		return fmt.Errorf("trace writer config: FetchMaxPartitionBytes %d must be positive", c.FetchMaxPartitionBytes)
	}
	return nil
}
