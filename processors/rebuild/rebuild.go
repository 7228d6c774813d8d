// Package rebuild re-derives the query store (and optionally the lake) from
// the log, the source of truth (DESIGN.md section 2): a direct consumer,
// outside any group, reads every partition of the traces topic from its
// earliest offset to its last stable offset at start and pushes the records
// through the processors' flush path (pipeline), committing nothing.
//
// Chunk boundaries the store already records are replayed exactly, so a
// rebuild into the live store is a no-op and rewrites no lake file under a
// new name. A fresh store has no boundaries: chunks are cut every FlushRows
// records. That is why the lake is optional and off by default: rebuilding
// a lake next to files cut differently would hold rows twice.
package rebuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/processors/analyse"
	"github.com/governance-gateway/gateway/processors/pipeline"
	"github.com/governance-gateway/gateway/topics"
)

// Config configures a rebuild. Zero fields take defaults.
type Config struct {
	// Kafka is the shared client configuration; Brokers is required.
	Kafka topics.Config
	// FlushRows cuts fresh chunks (where the store records none); default 5000.
	FlushRows int
	// WriteTimeout bounds one write attempt of a chunk; default 30s.
	WriteTimeout time.Duration
	// RetryBackoffMin/Max bound the delay between failed attempts
	// (default 100ms to 10s); a failing sink is retried until ctx ends.
	RetryBackoffMin, RetryBackoffMax time.Duration
}

func (c Config) defaults() Config {
	c.Kafka = c.Kafka.Defaults()
	if c.FlushRows == 0 {
		c.FlushRows = 5000
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 30 * time.Second
	}
	if c.RetryBackoffMin == 0 {
		c.RetryBackoffMin = 100 * time.Millisecond
	}
	if c.RetryBackoffMax == 0 {
		c.RetryBackoffMax = 10 * time.Second
	}
	return c
}

// Validate reports the first invalid field of c (after defaults).
func (c Config) Validate() error {
	c = c.defaults()
	if err := c.Kafka.Validate(); err != nil {
		return fmt.Errorf("rebuild config: %w", err)
	}
	if c.FlushRows < 1 || c.WriteTimeout <= 0 || c.RetryBackoffMin <= 0 || c.RetryBackoffMax < c.RetryBackoffMin {
		return errors.New("rebuild config: FlushRows, WriteTimeout and the retry backoff range must be positive")
	}
	return nil
}

// Deps are the rebuild's sinks.
type Deps struct {
	Store pipeline.Store // required
	// Lake, when set, is rewritten too (see the package doc).
	Lake pipeline.LakeWriter
	// Analyser must be the one the live writers use (analyse.Basic if nil).
	Analyser pipeline.Analyser
	Logger   *slog.Logger
}

// Stats describe a finished rebuild.
type Stats struct {
	Records     int64 // data records read
	Chunks      int64 // chunks written
	Rows        int64 // rows owned by their chunk (written)
	DeadLetters int64 // records that did not decode (not produced again)
}

// Rebuild replays the traces topic into deps' sinks and returns once every
// record below each partition's last stable offset at start is durable, or
// with ctx's error. Idempotent; safe to run beside live writers (the store
// decides ownership), though a fresh store should be rebuilt offline.
func Rebuild(ctx context.Context, cfg Config, deps Deps) (Stats, error) {
	var st Stats
	if err := cfg.Validate(); err != nil {
		return st, err
	}
	cfg = cfg.defaults()
	if deps.Store == nil {
		return st, errors.New("rebuild: Store is required")
	}
	if deps.Analyser == nil {
		a, err := analyse.New(nil)
		if err != nil {
			return st, fmt.Errorf("rebuild: %w", err)
		}
		deps.Analyser = a
	}
	log := deps.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	metrics, err := pipeline.NewMetrics(nil)
	if err != nil {
		return st, fmt.Errorf("rebuild: %w", err)
	}
	flusher, err := pipeline.NewFlusher(pipeline.FlusherConfig{}, deps.Store, deps.Lake, deps.Analyser, nil, metrics)
	if err != nil {
		return st, fmt.Errorf("rebuild: %w", err)
	}
	defer flusher.Close()

	ends, err := endOffsets(ctx, cfg)
	if err != nil {
		return st, err
	}
	if len(ends) == 0 {
		return st, nil
	}
	start := map[int32]kgo.Offset{}
	for p := range ends {
		start[p] = kgo.NewOffset().AtStart()
	}
	cl, err := kgo.NewClient(append(topics.ConsumerOpts(cfg.Kafka),
		kgo.WithLogger(topics.KgoLogger(log)),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topics.Traces: start}),
		// Why: transaction markers occupy offsets; seeing them is how we
		// know we reached the end when the last offsets are markers.
		kgo.KeepControlRecords(),
	)...)
	if err != nil {
		return st, fmt.Errorf("rebuild: new client: %w", err)
	}
	defer cl.Close()

	parts := map[int32]*part{}
	for p, end := range ends {
		parts[p] = &part{end: end}
	}
	write := func(pend pipeline.Pending) error {
		b := flusher.Prepare(pend)
		backoff := pipeline.Backoff{Min: cfg.RetryBackoffMin, Max: cfg.RetryBackoffMax}
		for {
			wctx, cancel := context.WithTimeout(ctx, cfg.WriteTimeout)
			err := flusher.Write(wctx, b)
			cancel()
			if err == nil {
				break
			}
			log.Warn("rebuild: chunk write failed; retrying", "err", err)
			if serr := pipeline.Sleep(ctx, backoff.Next()); serr != nil {
				return fmt.Errorf("rebuild: %w (last: %w)", serr, err)
			}
		}
		st.Chunks++
		st.Rows += int64(len(b.Owned()))
		st.DeadLetters += int64(len(b.Dead))
		return nil
	}

	for len(parts) > 0 {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return st, fmt.Errorf("rebuild: %w", err)
		}
		if fetches.IsClientClosed() {
			return st, errors.New("rebuild: client closed")
		}
		fetches.EachError(func(t string, p int32, err error) {
			log.Warn("rebuild: fetch error", "topic", t, "partition", p, "err", err)
		})
		var ferr error
		var pending []pipeline.Pending
		fetches.EachPartition(func(fp kgo.FetchTopicPartition) {
			pt, ok := parts[fp.Partition]
			if !ok || fp.Topic != topics.Traces {
				return
			}
			for _, rec := range fp.Records {
				if rec.Offset >= pt.end && (pt.cutter == nil || !pt.cutter.Holding()) {
					break // written after the rebuild started: the live writers' job
				}
				pt.pos = rec.Offset + 1
				if rec.Attrs.IsControl() {
					continue
				}
				if pt.cutter == nil {
					if err := pt.load(ctx, deps.Store, fp.Partition, rec.Offset, cfg.FlushRows, log); err != nil {
						ferr = err
						return
					}
				}
				st.Records++
				pending = append(pending, pt.cutter.Add(rec, time.Now())...)
			}
		})
		if ferr != nil {
			return st, ferr // the store is unreachable: rerun the rebuild later
		}
		for p, pt := range parts {
			// Done at the end, unless a recorded chunk reaches further: then
			// read on to its last record so it is not cut short.
			if pt.pos < pt.end || (pt.cutter != nil && pt.cutter.Holding()) {
				continue
			}
			if pt.cutter != nil {
				if final, ok := pt.cutter.Final(); ok {
					pending = append(pending, final)
				}
			}
			delete(parts, p)
			// A finished partition must not keep buffering in kgo.
			cl.PauseFetchPartitions(map[string][]int32{topics.Traces: {p}})
		}
		for _, pend := range pending {
			if err := write(pend); err != nil {
				return st, err
			}
		}
	}
	log.Info("rebuild finished", "records", st.Records, "chunks", st.Chunks, "rows", st.Rows, "dead_letters", st.DeadLetters)
	return st, nil
}

// part is one partition's replay.
type part struct {
	end    int64 // last stable offset at start
	pos    int64 // next offset to read
	cutter *pipeline.Cutter
}

func (pt *part) load(ctx context.Context, store pipeline.Store, p int32, first int64, flushRows int, log *slog.Logger) error {
	recorded, err := store.Chunks(ctx, topics.Traces, p, first)
	if err != nil {
		return fmt.Errorf("rebuild: load chunk boundaries of partition %d: %w", p, err)
	}
	keep, skipped := pipeline.ReplayBounds(recorded, first)
	if len(skipped) > 0 {
		log.Warn("rebuild: recorded chunks start before the log's first record; cutting afresh", "partition", p, "chunks", len(skipped))
	}
	pt.cutter = pipeline.NewCutter(topics.Traces, p, flushRows, keep)
	return nil
}

// endOffsets returns, per partition holding records, its last stable offset.
func endOffsets(ctx context.Context, cfg Config) (map[int32]int64, error) {
	cl, err := kgo.NewClient(topics.ClientOpts(cfg.Kafka)...)
	if err != nil {
		return nil, fmt.Errorf("rebuild: admin client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	starts, err := adm.ListStartOffsets(ctx, topics.Traces)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("rebuild: list start offsets: %w", err)
	}
	// Committed = last stable offset: the end read_committed readers reach.
	ends, err := adm.ListCommittedOffsets(ctx, topics.Traces)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("rebuild: list end offsets: %w", err)
	}
	out := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if s, ok := starts.Lookup(topics.Traces, o.Partition); ok && o.Offset > s.Offset {
			out[o.Partition] = o.Offset
		}
	})
	return out, nil
}
