// Package pipeline is the processors' shared flush path: it turns a chunk of
// log records into durable rows — decode, validate, derive, analyse, dedupe,
// dead-letter, then the query store and the Parquet lake — and cuts a
// partition's records into chunks deterministically. The group consumer
// (processors/tracewriter) and the log replay (processors/rebuild) both use
// it, so a rebuild writes exactly what the live path wrote.
package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

// Store is the part of query.Store the processors use.
type Store interface {
	// WriteTraces records chunk and inserts the rows it owns; see
	// query.Store.WriteTraces.
	WriteTraces(ctx context.Context, chunk query.Chunk, rows []query.TraceRow) (owner []bool, err error)
	// Chunks lists the recorded chunks of topic/partition with LastOffset >= from.
	Chunks(ctx context.Context, topic string, partition int32, from int64) ([]query.Chunk, error)
}

// LakeWriter writes one chunk's rows to the Parquet lake; implemented by
// (*lake.Writer). It must be idempotent and return nil only once durable.
type LakeWriter interface {
	WriteChunk(ctx context.Context, chunk query.Chunk, rows []query.TraceRow) error
}

// Analyser scores a simple-form event (the asynchronous analysis stage). It
// must be deterministic, so a replay writes identical rows, and safe for
// concurrent use. analyse.Governance is the one the service uses.
type Analyser interface {
	Analyse(prompt, answer string) (risk float64, hits []schemas.PolicyHit)
}

// DeadLetterSink stores dead-letter records durably (acks=all); it returns
// nil only once every record is acknowledged.
type DeadLetterSink interface {
	SendDeadLetters(ctx context.Context, recs []*kgo.Record) error
}

// Errors a failed Write wraps, naming the sink that failed.
var (
	ErrDeadLetter = errors.New("dead-letter sink")
	ErrStore      = errors.New("query store")
	ErrLake       = errors.New("lake")
)

// FlusherConfig configures a Flusher.
type FlusherConfig struct {
	// DedupeCacheEntries bounds the hot set of (org_id, request_id) -> owning
	// log position. 0 disables the cache; the store stays authoritative.
	DedupeCacheEntries int64
}

// Flusher makes chunks durable. Safe for concurrent use by one goroutine per
// partition. Close it to stop the dedupe cache's goroutines.
type Flusher struct {
	store    Store
	lake     LakeWriter     // nil: store only (rebuild)
	analyser Analyser       // never nil
	dead     DeadLetterSink // nil: dead letters are counted, not sent (rebuild)
	metrics  *Metrics
	owners   *ristretto.Cache[string, position] // nil when disabled
}

type position struct {
	partition int32
	offset    int64
}

// NewFlusher returns a flusher over the given sinks. store, analyser and
// metrics are required; lake and dead may be nil (see Flusher).
func NewFlusher(cfg FlusherConfig, store Store, lake LakeWriter, analyser Analyser, dead DeadLetterSink, metrics *Metrics) (*Flusher, error) {
	if store == nil || analyser == nil || metrics == nil {
		return nil, errors.New("new flusher: store, analyser and metrics are required")
	}
	f := &Flusher{store: store, lake: lake, analyser: analyser, dead: dead, metrics: metrics}
	if cfg.DedupeCacheEntries > 0 {
		c, err := ristretto.NewCache(&ristretto.Config[string, position]{
			NumCounters: 10 * cfg.DedupeCacheEntries, // ristretto's advice: 10x the items
			MaxCost:     cfg.DedupeCacheEntries,      // cost 1 per entry
			BufferItems: 64,
		})
		if err != nil {
			return nil, fmt.Errorf("new flusher: dedupe cache: %w", err)
		}
		f.owners = c
	}
	return f, nil
}

// Close releases the dedupe cache.
func (f *Flusher) Close() {
	if f.owners != nil {
		f.owners.Close()
	}
}

// Batch is a prepared chunk: its decoded rows and its dead letters. Write is
// resumable: a failed Write retried on the same Batch redoes only the steps
// that did not complete.
type Batch struct {
	Chunk query.Chunk
	// Rows are the decoded, derived and analysed traces, in offset order.
	Rows []query.TraceRow
	// Dead are the dead-letter copies of the records that failed.
	Dead []*kgo.Record
	// Last is the chunk's last record, whose offset+1 is what to commit.
	Last *kgo.Record

	deadDone, storeDone bool
	owned               []query.TraceRow // the rows the store says this chunk owns
	started             time.Time
}

// Owned returns the rows the store attributed to this chunk (valid once
// Write returned nil).
func (b *Batch) Owned() []query.TraceRow { return b.owned }

// Prepare decodes p's records into a Batch: a record that fails
// schemas.DecodeEnvelope, or whose key is not org_id/request_id of its
// envelope (it would escape the per-partition dedupe), becomes a dead letter
// with the reason; the others are derived, and simple-form events analysed.
// The chunk still covers the dead letters' offsets. Deterministic.
func (f *Flusher) Prepare(p Pending) *Batch {
	b := &Batch{Chunk: p.Chunk, Rows: make([]query.TraceRow, 0, len(p.Records)), started: time.Now()}
	if n := len(p.Records); n > 0 {
		b.Last = p.Records[n-1]
	}
	for _, rec := range p.Records {
		env, err := schemas.DecodeEnvelope(rec.Value)
		if err == nil && !bytes.Equal(rec.Key, schemas.Key(env.OrgID, env.Trace.RequestID)) {
			err = fmt.Errorf("record key %q is not org_id/request_id of its envelope", rec.Key)
		}
		if err != nil {
			b.Dead = append(b.Dead, topics.DeadLetterRecord(rec, err))
			continue
		}
		tr := env.Trace
		tr.Derive()
		if tr.ReceivedAt.IsZero() {
			tr.ReceivedAt = env.ReceivedAt
		}
		if env.Kind == schemas.KindSimpleEvent {
			risk, hits := f.analyser.Analyse(tr.Prompt, tr.Answer)
			risk = min(max(risk, 0), 1)
			if hits == nil {
				hits = []schemas.PolicyHit{} // analysed, nothing fired (nil would read as "not analysed")
			}
			tr.RiskScore, tr.PolicyHits = &risk, hits
		}
		b.Rows = append(b.Rows, query.TraceRow{OrgID: env.OrgID, AppID: env.AppID, Trace: tr, Partition: rec.Partition, Offset: rec.Offset})
	}
	return b
}

// Write makes b durable: dead letters first (so none is lost once the offset
// is committed), then the chunk and its rows in the store, then exactly the
// owning rows in the lake. It returns nil only when all three are durable;
// the caller may then commit b.Last.Offset+1. On error, call Write again on
// the same Batch (after a backoff): completed steps are not repeated, and
// each step is idempotent anyway.
func (f *Flusher) Write(ctx context.Context, b *Batch) error {
	if !b.deadDone {
		if len(b.Dead) > 0 && f.dead != nil {
			if err := f.dead.SendDeadLetters(ctx, b.Dead); err != nil {
				f.metrics.FlushErrors.WithLabelValues("deadletter").Inc()
				return fmt.Errorf("flush chunk %s: %w: %w", chunkName(b.Chunk), ErrDeadLetter, err)
			}
		}
		b.deadDone = true
	}
	if !b.storeDone {
		rows := f.dropKnownDuplicates(b.Rows)
		owner, err := f.store.WriteTraces(ctx, b.Chunk, rows)
		if err == nil && len(owner) != len(rows) {
			err = fmt.Errorf("store answered %d owner flags for %d rows", len(owner), len(rows))
		}
		if err != nil {
			f.metrics.FlushErrors.WithLabelValues("store").Inc()
			return fmt.Errorf("flush chunk %s: %w: %w", chunkName(b.Chunk), ErrStore, err)
		}
		if b.owned == nil { // sized for the usual case, every row owned
			b.owned = make([]query.TraceRow, 0, len(rows))
		}
		b.owned = b.owned[:0]
		for i := range rows {
			if owner[i] {
				b.owned = append(b.owned, rows[i])
				f.remember(&rows[i])
			}
		}
		b.storeDone = true
	}
	if f.lake != nil {
		if err := f.lake.WriteChunk(ctx, b.Chunk, b.owned); err != nil {
			f.metrics.FlushErrors.WithLabelValues("lake").Inc()
			return fmt.Errorf("flush chunk %s: %w: %w", chunkName(b.Chunk), ErrLake, err)
		}
	}
	f.metrics.DeadLetters.Add(float64(len(b.Dead)))
	f.metrics.RowsWritten.Add(float64(len(b.owned)))
	f.metrics.DuplicatesDropped.Add(float64(len(b.Rows) - len(b.owned)))
	f.metrics.FlushDuration.Observe(time.Since(b.started).Seconds())
	return nil
}

// dropKnownDuplicates leaves out rows the cache knows another log position
// owns. Only positions the store confirmed enter the cache, and a position
// owns at most one id, so a hit at another position is never the owner; a
// replay of the owner (same position) is kept.
func (f *Flusher) dropKnownDuplicates(rows []query.TraceRow) []query.TraceRow {
	if f.owners == nil {
		return rows
	}
	var out []query.TraceRow
	for i := range rows {
		if pos, ok := f.owners.Get(ownerKey(&rows[i])); ok && (pos.partition != rows[i].Partition || pos.offset != rows[i].Offset) {
			if out == nil {
				out = append(make([]query.TraceRow, 0, len(rows)), rows[:i]...)
			}
			continue
		}
		if out != nil {
			out = append(out, rows[i])
		}
	}
	if out == nil {
		return rows
	}
	return out
}

func (f *Flusher) remember(r *query.TraceRow) {
	if f.owners != nil {
		f.owners.Set(ownerKey(r), position{r.Partition, r.Offset}, 1)
	}
}

// ownerKey joins org_id and request_id with a byte neither may contain
// (request ids reject control characters).
func ownerKey(r *query.TraceRow) string { return r.OrgID + "\x00" + r.Trace.RequestID }

func chunkName(c query.Chunk) string {
	return fmt.Sprintf("%s/%d@%d-%d", c.Topic, c.Partition, c.FirstOffset, c.LastOffset)
}

// Backoff is a capped exponential retry delay.
type Backoff struct {
	Min, Max time.Duration
	n        int
}

// Next returns the delay before the next retry and advances.
func (b *Backoff) Next() time.Duration {
	d := b.Min << min(b.n, 30)
	b.n++
	if d <= 0 || d > b.Max {
		d = b.Max
	}
	return d
}

// Reset starts over after a success.
func (b *Backoff) Reset() { b.n = 0 }

// Sleep waits d or until ctx is done, reporting ctx's error then.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// SetDeadLetterSink sets where dead letters go (before the first Write).
func (f *Flusher) SetDeadLetterSink(d DeadLetterSink) { f.dead = d }
