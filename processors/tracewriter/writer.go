// Package tracewriter is the processors' consumer: a member of the
// trace-writer consumer group that turns the traces topic into the query
// store and the Parquet lake, committing a partition's offset only after
// both sinks made the records before it durable (DESIGN.md sections 2, 4, 7).
//
// Each owned partition's records are cut into chunks (pipeline.Cutter): at
// FlushRows records, after FlushInterval, or — when the partition is taken
// over after a crash or a rebalance — exactly at the boundaries the store
// recorded for the uncommitted range, so a replay writes the same rows under
// the same Parquet file names. A chunk is flushed through pipeline.Flusher
// (dead letters, store, lake) and then its last offset+1 is committed. A
// failing sink is retried with backoff, never skipped; the partition's later
// records wait (and its fetching pauses) behind it.
//
// Known limit: a member that lost its partitions without noticing (a long
// pause past the session timeout) may finish a write it had started while
// the new owner replays the same range; the store stays exact, but if the
// two cut different chunks the lake may hold a row in two files. kgo stops
// the zombie at its next commit or poll.
package tracewriter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/governance-gateway/gateway/processors/analyse"
	"github.com/governance-gateway/gateway/processors/pipeline"
	"github.com/governance-gateway/gateway/topics"
)

// The narrow interfaces the writer needs (defined in pipeline, shared with
// processors/rebuild).
type (
	Store      = pipeline.Store
	LakeWriter = pipeline.LakeWriter
	Analyser   = pipeline.Analyser
)

// Deps are the writer's collaborators.
type Deps struct {
	Store Store      // required
	Lake  LakeWriter // required: (*lake.Writer)
	// Analyser scores simple-form events; nil uses analyse.Basic.
	Analyser Analyser
	// Logger; nil discards.
	Logger *slog.Logger
	// Registerer receives the processor metrics; nil registers nothing.
	Registerer prometheus.Registerer
}

// Writer is one member of the trace-writer group.
type Writer struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	metrics *pipeline.Metrics

	testOpts []kgo.Opt // tests: faster heartbeats
}

// New validates cfg and deps. It does not connect; Run does.
func New(cfg Config, deps Deps) (*Writer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Store == nil || deps.Lake == nil {
		return nil, errors.New("new trace writer: Store and Lake are required")
	}
	if deps.Analyser == nil {
		a, err := analyse.New(nil)
		if err != nil {
			return nil, fmt.Errorf("new trace writer: %w", err)
		}
		deps.Analyser = a
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m, err := pipeline.NewMetrics(deps.Registerer)
	if err != nil {
		return nil, fmt.Errorf("new trace writer: %w", err)
	}
	return &Writer{cfg: cfg.Defaults(), deps: deps, log: deps.Logger, metrics: m}, nil
}

// Run joins the group and processes owned partitions until ctx is
// cancelled, then leaves the group cleanly and returns nil. Unflushed
// records are dropped on the way out: nothing past the last durable chunk
// was committed, so the partition's next owner replays them. Run returns an
// error only if the client cannot be created. Call it once.
func (w *Writer) Run(ctx context.Context) error {
	flusher, err := pipeline.NewFlusher(pipeline.FlusherConfig{DedupeCacheEntries: max(w.cfg.DedupeCacheEntries, 0)},
		w.deps.Store, w.deps.Lake, w.deps.Analyser, nil, w.metrics)
	if err != nil {
		return fmt.Errorf("run trace writer: %w", err)
	}
	defer flusher.Close()

	r := &run{w: w, cfg: w.cfg, log: w.log, metrics: w.metrics, parts: map[int32]*partState{}}
	cl, err := kgo.NewClient(w.clientOpts(r)...)
	if err != nil {
		return fmt.Errorf("run trace writer: new client: %w", err)
	}
	r.cl = cl
	// Dead letters go through the same client: acks=all, idempotent.
	flusher.SetDeadLetterSink(deadLetters{cl})
	r.flusher = flusher
	defer func() {
		// Leaving the group revokes our partitions; with BlockRebalanceOnPoll
		// the revoke must be allowed or Close hangs.
		cl.CloseAllowingRebalance()
		for p := range r.parts {
			w.metrics.ConsumerLag.DeleteLabelValues(strconv.Itoa(int(p)))
		}
	}()
	w.log.Info("trace writer started", "group", w.cfg.Group, "topic", topics.Traces,
		"flush_rows", w.cfg.FlushRows, "flush_interval", w.cfg.FlushInterval)
	r.loop(ctx)
	return nil
}

// clientOpts are the group consumer's kgo options on top of the shared
// read_committed consumer options (topics.ConsumerOpts: Events batches are
// produced in transactions and must be seen whole or not at all).
func (w *Writer) clientOpts(r *run) []kgo.Opt {
	return append(append(topics.ConsumerOpts(w.cfg.Kafka),
		kgo.WithLogger(topics.KgoLogger(w.log)),
		kgo.ConsumerGroup(w.cfg.Group),
		kgo.ConsumeTopics(topics.Traces),
		// Why: an offset may be committed only after both sinks made every
		// record before it durable; we commit explicitly after each flush.
		kgo.DisableAutoCommit(),
		// Why: no rebalance may move a partition between our poll and our
		// commit for it: while we hold polled records (and write and commit
		// them) rebalances wait; AllowRebalance ends each loop iteration.
		kgo.BlockRebalanceOnPoll(),
		// Why: a group with no committed offset must start at the log's
		// beginning — the log is the source of truth, nothing is skipped.
		// (kgo's default too; stated because "latest" would lose traces.)
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		// Why: see DefaultFetchMaxPartitionBytes.
		kgo.FetchMaxPartitionBytes(w.cfg.FetchMaxPartitionBytes),
		kgo.FetchMaxBytes(DefaultFetchMaxBytes),
		// Why: answered at its first new record, a fetch (request, response,
		// one pass of this loop) runs per produced batch, a few per request
		// at low load; the broker instead holds it up to 50 ms for 256 KiB,
		// well inside FlushInterval's freshness budget (docs/benchmarks.md,
		// "the embedded log's CPU per request").
		kgo.FetchMinBytes(256<<10),
		kgo.FetchMaxWait(50*time.Millisecond),
		// Why: bounds how long we may hold a rebalance; see WriteTimeout.
		kgo.RebalanceTimeout(w.cfg.RebalanceTimeout),
		// Why: a processor that dies (SIGKILL, lost host) keeps its partitions
		// until its session expires; kgo's 45 s default would stall those
		// partitions' freshness for most of a minute. 10 s is well above the
		// brokers' minimum (group.min.session.timeout.ms, 6 s) and heartbeats
		// every second keep a live member safely inside it.
		kgo.SessionTimeout(w.cfg.SessionTimeout),
		kgo.HeartbeatInterval(time.Second),
		// Any change of ownership resets the partition's state: buffers of a
		// revoked or lost partition are dropped (nothing of them was
		// committed; the new owner replays them), and a newly assigned one
		// starts from its committed offset with freshly loaded boundaries.
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { r.noteChanged(m[topics.Traces]) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { r.noteChanged(m[topics.Traces]) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { r.noteChanged(m[topics.Traces]) }),
	), w.testOpts...)
}

// deadLetters produces dead-letter records synchronously on the consumer's client.
type deadLetters struct{ cl *kgo.Client }

func (d deadLetters) SendDeadLetters(ctx context.Context, recs []*kgo.Record) error {
	// kgo fills a record's fields while producing it: send copies, so a
	// retried flush never hands kgo a record it already owned.
	cp := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		c := *r
		cp[i] = &c
	}
	if err := d.cl.ProduceSync(ctx, cp...).FirstErr(); err != nil {
		return fmt.Errorf("produce %d dead letters: %w", len(recs), err)
	}
	return nil
}

// run is the state of one Run: owned only by the poll loop, except changed
// (written by the group callbacks) and, during a flush pass, each partState
// by its flush goroutine.
type run struct {
	w       *Writer
	cfg     Config
	log     *slog.Logger
	metrics *pipeline.Metrics
	cl      *kgo.Client
	flusher *pipeline.Flusher
	parts   map[int32]*partState

	mu      sync.Mutex
	changed []int32
}

// partState is one owned partition.
type partState struct {
	id      int32
	label   string             // metrics label
	cutter  *pipeline.Cutter   // nil until the replay boundaries are loaded
	raw     []*kgo.Record      // records waiting for the cutter
	ready   []pipeline.Pending // cut chunks, in offset order
	head    *pipeline.Batch    // ready[0] prepared, possibly half written
	backoff pipeline.Backoff
	retryAt time.Time
	lastErr error
	commit  *kgo.Record // last record of the last durable chunk, to commit
	paused  bool
}

func (r *run) noteChanged(ps []int32) {
	if len(ps) == 0 {
		return
	}
	r.mu.Lock()
	r.changed = append(r.changed, ps...)
	r.mu.Unlock()
}

// applyChanged drops the state of partitions whose ownership changed.
// Called right after a poll returned, before its records are used: kgo
// drops buffered fetches of revoked partitions, so records polled now
// belong to the current assignment.
func (r *run) applyChanged() {
	r.mu.Lock()
	changed := r.changed
	r.changed = nil
	r.mu.Unlock()
	if len(changed) == 0 {
		return
	}
	for _, p := range changed {
		if _, ok := r.parts[p]; ok {
			delete(r.parts, p)
			r.metrics.ConsumerLag.DeleteLabelValues(strconv.Itoa(int(p)))
		}
	}
	// Pausing outlives assignments; a partition that comes back must fetch.
	r.cl.ResumeFetchPartitions(map[string][]int32{topics.Traces: changed})
}

func (r *run) part(p int32) *partState {
	st, ok := r.parts[p]
	if !ok {
		st = &partState{id: p, label: strconv.Itoa(int(p)),
			backoff: pipeline.Backoff{Min: r.cfg.RetryBackoffMin, Max: r.cfg.RetryBackoffMax}}
		r.parts[p] = st
	}
	return st
}

func (r *run) loop(ctx context.Context) {
	for {
		if ctx.Err() != nil {
			return
		}
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if wake, ok := r.nextWake(); ok {
			pctx, cancel = context.WithDeadline(ctx, wake)
		}
		fetches := r.cl.PollFetches(pctx)
		cancel()
		if fetches.IsClientClosed() || ctx.Err() != nil {
			return
		}
		r.applyChanged()
		fetches.EachError(func(topic string, p int32, err error) {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				return // our own wake-up deadline
			}
			r.log.Warn("fetch error", "topic", topic, "partition", p, "err", err)
		})
		fetches.EachPartition(func(fp kgo.FetchTopicPartition) {
			if fp.Topic != topics.Traces || len(fp.Records) == 0 {
				return
			}
			st := r.part(fp.Partition)
			st.raw = append(st.raw, fp.Records...)
			r.metrics.RecordsConsumed.Add(float64(len(fp.Records)))
			last := fp.Records[len(fp.Records)-1].Offset
			r.metrics.ConsumerLag.WithLabelValues(st.label).Set(float64(max(fp.HighWatermark-last-1, 0)))
		})
		r.cut(ctx, time.Now())
		r.flush(ctx)
		for _, st := range r.parts {
			if st.lastErr != nil {
				r.log.Warn("partition write failed; retrying", "partition", st.id,
					"retry_in", time.Until(st.retryAt).Round(time.Millisecond), "err", st.lastErr)
				st.lastErr = nil
			}
		}
		r.pauseFull()
		r.cl.AllowRebalance()
	}
}

// nextWake is when the loop must act without new records: an idle cut or a
// retry. ok is false when only new records can make work.
func (r *run) nextWake() (wake time.Time, ok bool) {
	consider := func(t time.Time) {
		if !ok || t.Before(wake) {
			wake, ok = t, true
		}
	}
	for _, st := range r.parts {
		if len(st.ready) > 0 || (st.cutter == nil && len(st.raw) > 0) {
			consider(st.retryAt)
		}
		if st.cutter != nil {
			if due, idle := st.cutter.IdleDue(r.cfg.FlushInterval); idle {
				consider(due)
			}
		}
	}
	return wake, ok
}

// cut feeds new records to each partition's cutter, loading the replay
// boundaries first where needed, and makes idle cuts.
func (r *run) cut(ctx context.Context, now time.Time) {
	for _, st := range r.parts {
		if st.cutter == nil && len(st.raw) > 0 && !now.Before(st.retryAt) {
			if err := r.loadBounds(ctx, st); err != nil {
				st.lastErr, st.retryAt = err, now.Add(st.backoff.Next())
			}
		}
		if st.cutter == nil {
			continue
		}
		for _, rec := range st.raw {
			st.ready = append(st.ready, st.cutter.Add(rec, now)...)
		}
		clear(st.raw)
		st.raw = st.raw[:0]
		if p, ok := st.cutter.CutIdle(now, r.cfg.FlushInterval); ok {
			st.ready = append(st.ready, p)
		}
	}
}

// loadBounds reads the chunks the store recorded from the partition's first
// polled offset on: the uncommitted range a previous owner may have written.
// (Chunks are cut at record offsets, so those with LastOffset >= the first
// visible record are exactly those >= the committed offset.)
func (r *run) loadBounds(ctx context.Context, st *partState) error {
	first := st.raw[0].Offset
	lctx, cancel := context.WithTimeout(ctx, r.cfg.WriteTimeout)
	defer cancel()
	recorded, err := r.w.deps.Store.Chunks(lctx, topics.Traces, st.id, first)
	if err != nil {
		return fmt.Errorf("load chunk boundaries of partition %d from %d: %w", st.id, first, err)
	}
	keep, skipped := pipeline.ReplayBounds(recorded, first)
	if len(skipped) > 0 {
		r.metrics.ReplayBoundSkipped.Add(float64(len(skipped)))
		r.log.Warn("recorded chunks start before the first record in the log; cutting them afresh (their lake rows may appear twice)",
			"partition", st.id, "first_offset", first, "chunks", len(skipped))
	}
	st.cutter = pipeline.NewCutter(topics.Traces, st.id, r.cfg.FlushRows, keep)
	st.backoff.Reset()
	st.retryAt = time.Time{}
	return nil
}

// flush writes every due partition's ready chunks, partitions in parallel
// (at most FlushConcurrency), then commits what became durable.
func (r *run) flush(ctx context.Context) {
	start := time.Now()
	sem := make(chan struct{}, r.cfg.FlushConcurrency)
	var wg sync.WaitGroup
	for _, st := range r.parts {
		if len(st.ready) == 0 || start.Before(st.retryAt) {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			r.flushPartition(ctx, st, start)
		}()
	}
	wg.Wait()

	offsets := map[int32]kgo.EpochOffset{}
	for _, st := range r.parts {
		if st.commit != nil {
			offsets[st.id] = kgo.EpochOffset{Epoch: st.commit.LeaderEpoch, Offset: st.commit.Offset + 1}
			st.commit = nil
		}
	}
	if len(offsets) > 0 {
		if err := r.commit(ctx, offsets); err != nil && ctx.Err() == nil {
			r.metrics.CommitErrors.Inc()
			r.log.Warn("offset commit failed; the data is durable and a later commit or a replay covers it", "err", err)
		}
	}
}

// flushPartition writes st's ready chunks in order until one fails or the
// pass has run WriteTimeout (the loop must return to AllowRebalance in time).
func (r *run) flushPartition(ctx context.Context, st *partState, passStart time.Time) {
	for len(st.ready) > 0 && time.Since(passStart) < r.cfg.WriteTimeout {
		if st.head == nil {
			st.head = r.flusher.Prepare(st.ready[0])
		}
		wctx, cancel := context.WithTimeout(ctx, r.cfg.WriteTimeout)
		err := r.flusher.Write(wctx, st.head)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				st.lastErr, st.retryAt = err, time.Now().Add(st.backoff.Next())
			}
			return
		}
		st.backoff.Reset()
		st.retryAt = time.Time{}
		st.commit = st.head.Last
		st.head = nil
		st.ready[0] = pipeline.Pending{}
		st.ready = st.ready[1:]
	}
}

func (r *run) commit(ctx context.Context, offsets map[int32]kgo.EpochOffset) error {
	var cerr error
	r.cl.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{topics.Traces: offsets},
		func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			if err != nil {
				cerr = err
				return
			}
			for _, t := range resp.Topics {
				for _, p := range t.Partitions {
					if e := kerr.ErrorForCode(p.ErrorCode); e != nil && cerr == nil {
						cerr = fmt.Errorf("partition %d: %w", p.Partition, e)
					}
				}
			}
		})
	if cerr != nil {
		return fmt.Errorf("commit offsets %v: %w", offsets, cerr)
	}
	return nil
}

// pauseFull pauses fetching partitions holding MaxBufferedRecords unwritten
// records (their sink is failing) and resumes them below half of that.
func (r *run) pauseFull() {
	var pause, resume []int32
	for _, st := range r.parts {
		n := len(st.raw)
		if st.cutter != nil {
			n += st.cutter.Len()
		}
		for i := range st.ready {
			n += len(st.ready[i].Records)
		}
		switch {
		case !st.paused && n >= r.cfg.MaxBufferedRecords:
			st.paused = true
			pause = append(pause, st.id)
		case st.paused && n < r.cfg.MaxBufferedRecords/2:
			st.paused = false
			resume = append(resume, st.id)
		}
	}
	if len(pause) > 0 {
		r.cl.PauseFetchPartitions(map[string][]int32{topics.Traces: pause})
	}
	if len(resume) > 0 {
		r.cl.ResumeFetchPartitions(map[string][]int32{topics.Traces: resume})
	}
}
