package topics

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Produce paths, the "path" label of the producer metrics.
const (
	pathSingle = "single" // one envelope: idempotent produce
	pathTxn    = "txn"    // several envelopes: one transaction
	pathRaw    = "raw"    // ProduceRecords (dead letters and the like)
	pathEach   = "each"   // ProduceEach: independent envelopes, no transaction
)

// producerMetrics are registered on the Config's Registerer; with none they
// still work but nobody scrapes them.
type producerMetrics struct {
	latency *prometheus.HistogramVec // path, outcome
	errors  *prometheus.CounterVec   // path, reason
	records *prometheus.CounterVec   // path
	// txnRecords is the size of each group transaction, committed or not.
	txnRecords prometheus.Histogram
	// queued is how many batches wait for a transaction.
	queued prometheus.Gauge
}

func newProducerMetrics(reg prometheus.Registerer) (*producerMetrics, error) {
	m := &producerMetrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "gateway",
			Subsystem: "log",
			Name:      "produce_duration_seconds",
			Help:      "Time from Produce call to broker acknowledgement (or failure), by path and outcome.",
			Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"path", "outcome"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gateway",
			Subsystem: "log",
			Name:      "produce_errors_total",
			Help:      "Failed Produce calls, by path and reason (unavailable, too_large, other).",
		}, []string{"path", "reason"}),
		records: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gateway",
			Subsystem: "log",
			Name:      "produced_records_total",
			Help:      "Records acknowledged by the broker, by path.",
		}, []string{"path"}),
		txnRecords: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "gateway",
			Subsystem: "log",
			Name:      "transaction_records",
			Help:      "Records per group transaction (several Produce batches share one).",
			Buckets:   prometheus.ExponentialBuckets(2, 2, 15),
		}),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "gateway",
			Subsystem: "log",
			Name:      "transaction_queued_batches",
			Help:      "Produce batches waiting for a group transaction.",
		}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.latency, err = register(reg, m.latency)
	if err != nil {
		return nil, err
	}
	m.errors, err = register(reg, m.errors)
	if err != nil {
		return nil, err
	}
	m.records, err = register(reg, m.records)
	if err != nil {
		return nil, err
	}
	m.txnRecords, err = register(reg, m.txnRecords)
	if err != nil {
		return nil, err
	}
	m.queued, err = register(reg, m.queued)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c, or reuses the identical collector a previous
// Producer on the same registry registered (tests, restarts in-process).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, fmt.Errorf("register producer metrics: %w", err)
	}
	return c, nil
}

func errorReason(err error) string {
	switch {
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	case errors.Is(err, ErrTooLarge):
		return "too_large"
	default:
		return "other"
	}
}
