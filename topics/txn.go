package topics

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Group commit: multi-envelope batches queue on the Producer and each of the
// cfg.TxnPool workers takes everything queued (up to MaxTxnRecords and
// MaxTxnBytes) into one Kafka transaction. A transaction costs a fixed set
// of broker round trips and, on the embedded broker, fsyncs (AddPartitions,
// one write per partition, EndTxn, one marker per partition), so sharing
// it among the batches queued behind a busy transaction is what makes
// throughput grow with load instead of with the pool size.

// txnBatch is one caller's batch, queued for or inside a group transaction.
type txnBatch struct {
	recs  []*kgo.Record
	bytes int
	// taken is set under Producer.mu when a worker removes the batch from
	// the queue: from then on it is produced and its caller must wait for
	// the transaction's outcome.
	taken bool
	// err is the outcome, written before done is closed.
	err  error
	done chan struct{}
}

func (b *txnBatch) finish(err error) {
	b.err = err
	close(b.done)
}

// produceGroup queues recs for a group transaction and waits for its
// outcome. See Produce for the contract.
func (p *Producer) produceGroup(parent context.Context, recs []*kgo.Record) error {
	b := &txnBatch{recs: recs, done: make(chan struct{})}
	for _, r := range recs {
		b.bytes += recordBytes(r)
	}
	p.mu.Lock()
	if p.closed.Load() {
		p.mu.Unlock()
		return fmt.Errorf("%w: producer closed", ErrUnavailable)
	}
	p.queue = append(p.queue, b)
	p.metrics.queued.Set(float64(len(p.queue)))
	p.mu.Unlock()
	p.signal()

	ctx, cancel := context.WithTimeout(parent, p.cfg.ProduceTimeout)
	defer cancel()
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
	}
	p.mu.Lock()
	queued := !b.taken && !isDone(b)
	if queued {
		p.queue = slices.DeleteFunc(p.queue, func(q *txnBatch) bool { return q == b })
		p.metrics.queued.Set(float64(len(p.queue)))
	}
	p.mu.Unlock()
	if queued {
		// Removed before any worker saw it: it is never produced.
		if parent.Err() != nil {
			// The caller left: not the log's fault, do not report 503.
			return fmt.Errorf("queued for a transaction: caller gone: %w", parent.Err())
		}
		return fmt.Errorf("%w: queued for a transaction: %w", ErrUnavailable, ctx.Err())
	}
	// Its transaction already started and may still commit. Answering
	// failure now could make a batch visible after its caller was told it
	// failed, and aborting would fail every other batch of the transaction
	// for one impatient caller; so wait for the outcome, which the worker
	// bounds to ProduceTimeout from the transaction's start.
	<-b.done
	return b.err
}

// isDone reports whether b has its outcome. Called under p.mu: Close fails
// queued batches under the same lock.
func isDone(b *txnBatch) bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// signal wakes one idle worker; a pending wake-up is enough.
func (p *Producer) signal() {
	select {
	case p.ready <- struct{}{}:
	default:
	}
}

// take removes the next group from the queue: at least one batch, then
// more while the group stays within MaxTxnRecords and MaxTxnBytes.
func (p *Producer) take() []*txnBatch {
	p.mu.Lock()
	defer p.mu.Unlock()
	var (
		n, recs, bytes int
	)
	for _, b := range p.queue {
		if n > 0 && (recs+len(b.recs) > p.cfg.MaxTxnRecords || bytes+b.bytes > p.cfg.MaxTxnBytes) {
			break
		}
		b.taken = true
		n, recs, bytes = n+1, recs+len(b.recs), bytes+b.bytes
	}
	group := slices.Clone(p.queue[:n])
	p.queue = slices.Delete(p.queue, 0, n)
	p.metrics.queued.Set(float64(len(p.queue)))
	if len(p.queue) > 0 {
		p.signal() // more for another idle worker
	}
	return group
}

// worker runs group transactions on slot until the producer closes.
func (p *Producer) worker(slot *txnSlot) {
	defer p.workers.Done()
	defer func() {
		if slot.cl != nil {
			slot.cl.Close()
		}
	}()
	for {
		select {
		case <-p.ready:
		case <-p.closing:
			return
		}
		group := p.take()
		if len(group) == 0 {
			continue
		}
		errs := p.runTxn(slot, group)
		nrecs := 0
		for i, b := range group {
			nrecs += len(b.recs)
			b.finish(errs[i])
		}
		p.metrics.txnRecords.Observe(float64(nrecs))
	}
}

// runTxn produces group in one transaction on slot, within ProduceTimeout,
// and returns each batch's outcome: all nil once committed; otherwise the
// transaction is abandoned (never committed) and every batch fails with
// ErrUnavailable, except one the broker refused as too large (see
// tooLargeCulprit), which fails with ErrTooLarge.
func (p *Producer) runTxn(slot *txnSlot, group []*txnBatch) []error {
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.ProduceTimeout)
	defer cancel()
	own, err := p.txn(ctx, slot, group)
	errs := make([]error, len(group))
	if err == nil {
		return errs
	}
	// Why discard rather than EndTransaction(TryAbort): the client may hold
	// records in flight that kgo cannot fail until the broker answers, and
	// an abort needs the very broker we failed to reach. A fresh client
	// under the same transactional id calls InitProducerID on first use,
	// which bumps the epoch (fencing whatever the old client still sends)
	// and aborts the open transaction; if this process never comes back,
	// the broker aborts it after TxnTimeout. Either way the group stays
	// invisible (unless the commit itself reached the broker: see Produce).
	p.retire(slot)
	culprit := tooLargeCulprit(group, own)
	for i := range group {
		if i == culprit {
			errs[i] = classify(own[i])
			continue
		}
		errs[i] = fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return errs
}

// tooLargeCulprit is the index of the batch to blame when the broker refused
// records as too large, or -1. Produce already refuses records above the
// client's batch limit, so this happens only with a topic whose
// max.message.bytes is below Kafka's default, and the broker refuses a whole
// partition batch, which may mix several callers' records. Blame only the
// batch holding the largest refused record: the others fail with
// ErrUnavailable and their callers retry, rather than being told (413) that
// a valid batch can never be written.
func tooLargeCulprit(group []*txnBatch, own []error) int {
	culprit, largest := -1, -1
	for i, b := range group {
		if own[i] == nil || !errors.Is(classify(own[i]), ErrTooLarge) {
			continue
		}
		for _, r := range b.recs {
			if n := recordBytes(r); n > largest {
				culprit, largest = i, n
			}
		}
	}
	return culprit
}

// txn is one transaction attempt. It returns each batch's first record
// error, and nil only after the commit was acknowledged.
func (p *Producer) txn(ctx context.Context, slot *txnSlot, group []*txnBatch) (own []error, err error) {
	if slot.cl == nil {
		cl, err := kgo.NewClient(p.producerOpts(
			kgo.TransactionalID(slot.id),
			kgo.TransactionTimeout(p.cfg.TxnTimeout),
		)...)
		if err != nil {
			return nil, fmt.Errorf("new transactional client: %w", err)
		}
		slot.cl = cl
	}
	if err := slot.cl.BeginTransaction(); err != nil {
		return nil, fmt.Errorf("begin transaction: %w", err)
	}

	var (
		mu       sync.Mutex // guards errs, firstErr, left: promises outlive a timed-out wait
		errs     = make([]error, len(group))
		firstErr error
		left     int
		done     = make(chan struct{})
	)
	for _, b := range group {
		left += len(b.recs)
	}
	for i, b := range group {
		promise := func(_ *kgo.Record, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil && errs[i] == nil {
				errs[i] = err
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if left--; left == 0 {
				close(done)
			}
		}
		for _, r := range b.recs {
			slot.cl.Produce(ctx, r, promise)
		}
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
	mu.Lock()
	own, err = slices.Clone(errs), firstErr
	if err == nil && left > 0 {
		err = ctx.Err()
	}
	mu.Unlock()
	if err != nil {
		return own, fmt.Errorf("produce in transaction: %w", err)
	}
	// Every record is acknowledged, so nothing is buffered: EndTransaction
	// needs no Flush first.
	if err := slot.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return own, fmt.Errorf("commit transaction: %w", err)
	}
	return own, nil
}

// recordBytes is r's payload as kgo counts it against the batch limit.
func recordBytes(r *kgo.Record) int {
	n := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return n
}
