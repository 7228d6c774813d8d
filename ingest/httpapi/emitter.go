package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

// emitter produces proxy traces (and the error traces of refused Full
// Control requests) off the response path: Emit never waits for the
// broker. A bounded buffer absorbs bursts; one goroutine takes everything
// buffered once per linger window into Produce calls and retries a failed
// batch until it is acknowledged or the emitter closes. A full buffer, a
// trace the log refuses and an Emit after Close drop, counted and logged. Emit wakes that goroutine only when the
// buffer was empty, so under load it wakes once per window instead of once
// per request (a wake-up per trace showed up as scheduler delay on the
// request goroutines in a 2,000 req/s execution trace).
type emitter struct {
	produce func(context.Context, []schemas.Envelope) error
	logger  *slog.Logger
	mu      sync.Mutex
	pending []schemas.Envelope // guarded by mu; at most emitterQueue
	closed  bool               // guarded by mu
	wake    chan struct{}      // capacity 1: pending became non-empty, or Close
	done    chan struct{}
	closing atomic.Bool // Close was called: give a failing log a bounded time

	queued  prometheus.Gauge
	dropped prometheus.Counter
	failed  prometheus.Counter
}

const (
	emitterQueue = 65536 // buffered envelopes; ~1 s of a busy proxy
	emitterBatch = 512
	// emitterLinger gathers traces for a moment before a produce: the
	// traces are off the response path, and each produce costs the broker
	// a write and (embedded broker) an fsync, which at thousands of
	// requests a second would otherwise run per few traces.
	emitterLinger  = 5 * time.Millisecond
	emitterTimeout = 10 * time.Second
)

// eachWriter is a log that takes independent records without a
// transaction (topics.Producer.ProduceEach). Proxy traces need no
// atomicity between them, and a transaction per batch costs the broker
// several requests and a commit marker per partition.
type eachWriter interface {
	ProduceEach(ctx context.Context, envs []schemas.Envelope) error
}

func newEmitter(log LogWriter, logger *slog.Logger, reg prometheus.Registerer) (*emitter, error) {
	produce := log.Produce
	if ew, ok := log.(eachWriter); ok {
		produce = ew.ProduceEach
	}
	e := &emitter{produce: produce, logger: logger, wake: make(chan struct{}, 1), done: make(chan struct{}),
		queued:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "gateway_proxy_trace_queue", Help: "Proxy traces waiting to be produced to the log."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_proxy_traces_dropped_total", Help: "Proxy traces dropped: the queue was full, the log refused them, or the emitter was closed."}),
		failed:  prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_proxy_trace_produce_errors_total", Help: "Failed produce attempts of proxy trace batches (retried)."}),
	}
	for _, c := range []prometheus.Collector{e.queued, e.dropped, e.failed} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	go e.run()
	return e, nil
}

// Emit queues env; false (and a drop counted) when the buffer is full or
// the emitter is closed.
func (e *emitter) Emit(env schemas.Envelope) bool {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		// A handler still running when the server shut down (a long
		// stream past the shutdown wait): its trace is lost, and says so.
		e.dropped.Inc()
		e.logger.Error("proxy trace dropped: the trace emitter is closed (the request outlived the shutdown)", "request_id", env.Trace.RequestID)
		return false
	}
	if len(e.pending) >= emitterQueue {
		e.mu.Unlock()
		e.dropped.Inc()
		e.logger.Error("proxy trace dropped: the trace queue is full (the log is slower than the traffic)", "request_id", env.Trace.RequestID)
		return false
	}
	e.pending = append(e.pending, env)
	first := len(e.pending) == 1
	e.mu.Unlock()
	e.queued.Inc()
	if first {
		e.signal()
	}
	return true
}

func (e *emitter) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *emitter) run() {
	defer close(e.done)
	var spare []schemas.Envelope
	linger := time.NewTimer(emitterLinger)
	for {
		<-e.wake
		if !e.closing.Load() {
			// Gather for a moment: traces are off the response path, and
			// each produce costs the broker a request.
			linger.Reset(emitterLinger)
			select {
			case <-linger.C:
			case <-e.wake: // Close
			}
		}
		e.mu.Lock()
		taken := e.pending
		e.pending = spare[:0]
		closed := e.closed
		e.mu.Unlock()
		for off := 0; off < len(taken); off += emitterBatch {
			batch := taken[off:min(off+emitterBatch, len(taken))]
			e.produceBatch(batch)
			e.queued.Sub(float64(len(batch)))
		}
		clear(taken)      // let the envelopes go
		spare = taken[:0] // double buffering: Emit fills the other array meanwhile
		if closed {
			e.mu.Lock()
			empty := len(e.pending) == 0
			e.mu.Unlock()
			if empty {
				return
			}
			e.signal()
		}
	}
}

// produceBatch produces batch, retrying until the log acknowledges it (or,
// once closing, for a bounded number of attempts). A batch holding a trace
// too large for the log is produced one trace at a time: retrying cannot
// help, and must not hold up the traces behind it, so only what cannot fit
// is dropped (counted, logged). Proxy traces are capped (capTraceText), so
// that is a safety net.
func (e *emitter) produceBatch(batch []schemas.Envelope) {
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), emitterTimeout)
		err := e.produce(ctx, batch)
		cancel()
		if err == nil {
			return
		}
		e.failed.Inc()
		if errors.Is(err, topics.ErrTooLarge) {
			if len(batch) == 1 {
				e.dropped.Inc()
				e.logger.Error("proxy trace dropped: the log refused it", "request_id", batch[0].Trace.RequestID, "err", err)
				return
			}
			for i := range batch {
				e.produceBatch(batch[i : i+1])
			}
			return
		}
		if e.closing.Load() && attempt >= 20 {
			e.dropped.Add(float64(len(batch)))
			e.logger.Error("proxy traces dropped at shutdown: the log did not acknowledge them", "batch", len(batch), "err", err)
			return
		}
		if attempt%10 == 0 {
			e.logger.Warn("proxy traces not yet on the log; retrying", "batch", len(batch), "err", err)
		}
		time.Sleep(min(time.Duration(attempt+1)*100*time.Millisecond, 2*time.Second))
	}
}

// Close stops taking traces and waits until the buffered ones are produced.
func (e *emitter) Close() {
	e.closing.Store(true)
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.signal()
	<-e.done
}
