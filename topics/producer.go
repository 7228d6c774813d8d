package topics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/schemas"
)

var (
	// ErrUnavailable means the log did not acknowledge within
	// Config.ProduceTimeout (broker down, unreachable, overloaded, or the
	// producer closed). Nothing of the call is visible to read_committed
	// readers, except in the in-flight window documented on Produce. The
	// HTTP layer answers 503; the client retries.
	ErrUnavailable = errors.New("log unavailable")
	// ErrTooLarge means a record exceeds the broker's maximum message size.
	// Retrying cannot help; the HTTP layer answers 413.
	ErrTooLarge = errors.New("record too large for the log")
)

const (
	// producerBatchMaxBytes is the largest record batch the producer builds:
	// kgo's default, which is Kafka's default max.message.bytes.
	producerBatchMaxBytes = 1_000_012
	// MaxRecordBytes is the largest record (key + value) Produce accepts:
	// the batch limit less a generous margin for batch and record headers,
	// so kgo never refuses a record inside a group transaction, which would
	// fail the other batches sharing it.
	MaxRecordBytes = producerBatchMaxBytes - 1024
)

// Producer writes envelopes to the traces topic. Safe for concurrent use.
type Producer struct {
	cfg     Config
	log     *slog.Logger
	metrics *producerMetrics

	// cl is the shared idempotent client: single envelopes and raw records.
	// Sharing it is what batches concurrent handlers' records together.
	cl *kgo.Client
	// Group commit (txn.go): multi-envelope batches wait in queue, under
	// mu, until one of the cfg.TxnPool workers takes them into a
	// transaction; ready wakes an idle worker.
	mu      sync.Mutex
	queue   []*txnBatch
	ready   chan struct{}
	workers sync.WaitGroup
	closing chan struct{}
	closed  atomic.Bool // set under mu, so no batch is queued after Close
	// bg counts background closes of retired transactional clients.
	bg sync.WaitGroup
}

// txnSlot is one transactional id and, lazily, the client using it; one
// worker owns it. A nil cl means the next transaction creates a fresh client
// under the same id.
type txnSlot struct {
	id string
	cl *kgo.Client
}

// NewProducer builds the producer. It does not wait for the broker: use Ping
// for readiness. ctx is unused today and reserved for eager connection.
func NewProducer(ctx context.Context, cfg Config, logger *slog.Logger) (*Producer, error) {
	_ = ctx
	cfg = cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m, err := newProducerMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	p := &Producer{
		cfg:     cfg,
		log:     logger,
		metrics: m,
		ready:   make(chan struct{}, 1),
		closing: make(chan struct{}),
	}
	p.cl, err = kgo.NewClient(p.producerOpts()...)
	if err != nil {
		return nil, fmt.Errorf("new producer client: %w", err)
	}
	for i := range cfg.TxnPool {
		p.workers.Add(1)
		go p.worker(&txnSlot{id: cfg.TxnIDPrefix + "-" + strconv.Itoa(i)})
	}
	return p, nil
}

// producerOpts are ClientOpts plus the producing contract shared by the
// idempotent and the transactional clients.
func (p *Producer) producerOpts(extra ...kgo.Opt) []kgo.Opt {
	opts := append(ClientOpts(p.cfg),
		kgo.WithLogger(KgoLogger(p.log)),
		kgo.DefaultProduceTopic(Traces),
		// Why: a 2xx promises the record survives the loss of the leader;
		// acks=all is kgo's default, stated here because it is the contract.
		// Idempotence (kgo's default, never disabled) makes kgo's internal
		// retries duplicate-free.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		// Why: a handler waits on every record; see Config.Linger.
		kgo.ProducerLinger(p.cfg.Linger),
		// Why: records that were never sent are failed once ProduceTimeout
		// passed, so nothing is delivered after we answered 503. kgo only
		// fails records at safe points (never while a request carrying them
		// is in flight), so the caller's own deadline (Produce) is the
		// backstop for answering promptly.
		kgo.RecordDeliveryTimeout(p.cfg.ProduceTimeout),
		// Why: the broker's own wait for in-sync replicas should not outlast
		// what the caller waits (kgo default 10s).
		kgo.ProduceRequestTimeout(p.cfg.ProduceTimeout),
		// Stated because Produce checks record sizes against it up front.
		kgo.ProducerBatchMaxBytes(producerBatchMaxBytes),
	)
	return append(opts, extra...)
}

// Produce writes envs to the traces topic, key schemas.Key(org_id,
// request_id), value the JSON envelope. It returns nil only after the broker
// acknowledged every record (acks=all, idempotent producer) and, for several
// envelopes, committed their transaction.
//
// One envelope is one idempotent produce. Several envelopes are all-or-
// nothing: they are produced in one Kafka transaction, so a read_committed
// consumer sees the whole batch or none of it. Group commit: concurrent
// batches share transactions. A batch queues until one of the cfg.TxnPool
// workers is free; the worker takes everything queued (up to MaxTxnRecords
// and MaxTxnBytes) into one transaction and gives every batch in it the
// transaction's outcome, so the log pays one commit for many calls.
//
// A record larger than the log accepts fails its own call with ErrTooLarge
// before anything is queued; it never fails another call's batch. Other
// failures wrap ErrUnavailable. What happens to the records then:
//   - a batch whose ctx or ProduceTimeout ends while it is still queued is
//     removed from the queue and never produced;
//   - a batch whose transaction already started waits for that
//     transaction's outcome (the worker bounds a transaction to
//     ProduceTimeout from its start), so Produce can take up to about twice
//     ProduceTimeout. Why: failing the call early could leave a batch
//     visible after its caller was told it failed, and aborting the
//     transaction would fail every other batch in it;
//   - a failed transaction is never committed: its client is discarded and
//     the next use of the same transactional id (or the broker's
//     transaction timeout) aborts it, so none of it appears to
//     read_committed readers. One exception has an unknown outcome: a
//     commit request that reached the broker but whose answer was lost (the
//     broker died or the deadline hit mid-commit). Like the single envelope
//     below, the batch may then appear, exactly once;
//   - a single envelope that was never sent is failed by kgo and dropped; one
//     whose request was in flight when the deadline hit has an unknown outcome
//     (the broker may have written it): it may still appear, exactly once.
//
// Unknown outcomes are harmless because the client retries with the same
// request_id and the processors dedupe exactly.
//
// A single envelope's produce is detached from ctx's cancellation (it shares
// batches with other handlers' records, and kgo cancels a whole batch by its
// first record's context). A batch honours ctx while queued (the error then
// wraps ctx's error, not ErrUnavailable: the caller left, the log did not
// fail); once its transaction started it waits for the outcome as above.
func (p *Producer) Produce(ctx context.Context, envs []schemas.Envelope) error {
	if len(envs) == 1 {
		return p.produceEnvelopes(ctx, envs, pathSingle, p.produceShared)
	}
	return p.produceEnvelopes(ctx, envs, pathTxn, p.produceGroup)
}

// ProduceEach writes envs as independent records through the shared
// idempotent client, for records that need no atomicity (proxy traces):
// no transaction, so the broker writes no commit markers and kgo batches
// them per partition with other callers' records. Returns nil only after
// every record is acknowledged; on an error some may already be on the log,
// which a retry of the whole batch makes harmless (the processors dedupe by
// (org_id, request_id)). Errors as Produce.
func (p *Producer) ProduceEach(ctx context.Context, envs []schemas.Envelope) error {
	return p.produceEnvelopes(ctx, envs, pathEach, p.produceShared)
}

// produceEnvelopes encodes envs, refuses a record too large for the log
// before anything is sent, and hands the records to send, observed under
// path.
func (p *Producer) produceEnvelopes(ctx context.Context, envs []schemas.Envelope, path string,
	send func(context.Context, []*kgo.Record) error) error {
	if len(envs) == 0 {
		return nil
	}
	recs, err := envelopeRecords(envs)
	if err != nil {
		return err
	}
	return p.observe(path, len(recs), func() error {
		if err := checkSizes(recs); err != nil {
			return err
		}
		return send(ctx, recs)
	})
}

// envelopeRecords encodes envs as traces-topic records keyed
// schemas.Key(org_id, request_id).
func envelopeRecords(envs []schemas.Envelope) ([]*kgo.Record, error) {
	recs := make([]*kgo.Record, len(envs))
	for i := range envs {
		value, err := envs[i].Marshal()
		if err != nil {
			return nil, fmt.Errorf("marshal envelope %d: %w", i, err)
		}
		recs[i] = &kgo.Record{
			Topic: Traces,
			Key:   schemas.Key(envs[i].OrgID, envs[i].Trace.RequestID),
			Value: value,
		}
	}
	return recs, nil
}

// checkSizes fails with ErrTooLarge before anything is sent when a record
// exceeds what the log accepts.
func checkSizes(recs []*kgo.Record) error {
	for i, r := range recs {
		if n := recordBytes(r); n > MaxRecordBytes {
			return fmt.Errorf("%w: envelope %d is %d bytes, at most %d fit", ErrTooLarge, i, n, MaxRecordBytes)
		}
	}
	return nil
}

// ProduceRecords writes arbitrary records (e.g. DeadLetterRecord results)
// through the shared idempotent client. Not atomic across records; returns
// nil only after every record is acknowledged, else an error wrapping
// ErrUnavailable or ErrTooLarge within cfg.ProduceTimeout.
func (p *Producer) ProduceRecords(ctx context.Context, recs ...*kgo.Record) error {
	if len(recs) == 0 {
		return nil
	}
	return p.observe(pathRaw, len(recs), func() error { return p.produceShared(ctx, recs) })
}

func (p *Producer) observe(path string, n int, fn func() error) error {
	start := time.Now()
	err := fn()
	outcome := "ok"
	if err != nil {
		outcome = "error"
		p.metrics.errors.WithLabelValues(path, errorReason(err)).Inc()
	} else {
		p.metrics.records.WithLabelValues(path).Add(float64(n))
	}
	p.metrics.latency.WithLabelValues(path, outcome).Observe(time.Since(start).Seconds())
	return err
}

func (p *Producer) produceShared(ctx context.Context, recs []*kgo.Record) error {
	if p.closed.Load() {
		return fmt.Errorf("%w: producer closed", ErrUnavailable)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.cfg.ProduceTimeout)
	defer cancel()
	if err := produceAll(ctx, p.cl, recs); err != nil {
		return classify(err)
	}
	return nil
}

// retire closes slot's client in the background (Close waits for in-flight
// requests to die) and leaves the slot empty for a fresh client.
func (p *Producer) retire(slot *txnSlot) {
	cl := slot.cl
	slot.cl = nil
	if cl == nil {
		return
	}
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		cl.Close()
	}()
}

// produceAll produces recs on cl and waits until every promise fired or ctx
// is done, whichever is first. It does not use ProduceSync because that
// waits for every promise, and kgo cannot fire the promise of a record whose
// request is in flight to a broker that stopped answering.
func produceAll(ctx context.Context, cl *kgo.Client, recs []*kgo.Record) error {
	var (
		mu       sync.Mutex
		firstErr error
		left     = len(recs)
		done     = make(chan struct{})
	)
	promise := func(_ *kgo.Record, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil && firstErr == nil {
			firstErr = err
		}
		left--
		if left == 0 {
			close(done)
		}
	}
	for _, r := range recs {
		cl.Produce(ctx, r, promise)
	}
	select {
	case <-done:
		return firstErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// classify wraps a produce failure in ErrTooLarge or ErrUnavailable.
func classify(err error) error {
	if errors.Is(err, kerr.MessageTooLarge) || errors.Is(err, kerr.RecordListTooLarge) {
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// Ping reports whether the traces topic is reachable with a leader for every
// partition, within ctx and cfg.ProduceTimeout (readiness).
func (p *Producer) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.ProduceTimeout)
	defer cancel()
	details, err := kadm.NewClient(p.cl).ListTopics(ctx, Traces)
	if err == nil {
		err = details.Error()
	}
	if err == nil && (!details.Has(Traces) || !allLed(details)) {
		err = fmt.Errorf("topic %s missing or without leaders", Traces)
	}
	if err != nil {
		return fmt.Errorf("%w: ping: %w", ErrUnavailable, err)
	}
	return nil
}

// Close stops the producer: batches still queued fail with ErrUnavailable,
// in-flight transactions finish (each bounded by ProduceTimeout), every
// client is closed, and later Produce calls fail with ErrUnavailable.
// Idempotent.
func (p *Producer) Close() {
	p.mu.Lock()
	if p.closed.Swap(true) {
		p.mu.Unlock()
		return
	}
	for _, b := range p.queue {
		b.finish(fmt.Errorf("%w: producer closed", ErrUnavailable))
	}
	p.queue = nil
	p.metrics.queued.Set(0)
	p.mu.Unlock()
	close(p.closing)
	p.workers.Wait()
	p.cl.Close()
	p.bg.Wait()
}

// DeadLetterRecord is the dead-letter copy of src: same key and value on
// topic DeadLetter, with headers error (the reason), source_topic,
// source_partition and source_offset, so the record can be found and
// replayed. Produce it with ProduceRecords (or any client).
func DeadLetterRecord(src *kgo.Record, reason error) *kgo.Record {
	msg := "unknown"
	if reason != nil {
		msg = reason.Error()
	}
	return &kgo.Record{
		Topic: DeadLetter,
		Key:   src.Key,
		Value: src.Value,
		Headers: []kgo.RecordHeader{
			{Key: "error", Value: []byte(msg)},
			{Key: "source_topic", Value: []byte(src.Topic)},
			{Key: "source_partition", Value: []byte(strconv.FormatInt(int64(src.Partition), 10))},
			{Key: "source_offset", Value: []byte(strconv.FormatInt(src.Offset, 10))},
		},
	}
}
