package pipeline

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the processors' counters. NewMetrics registers them on the
// caller's registry (none is global); several writers of one process may
// share a registry: the second reuses the first one's collectors.
type Metrics struct {
	RecordsConsumed    prometheus.Counter
	RowsWritten        prometheus.Counter
	DuplicatesDropped  prometheus.Counter
	DeadLetters        prometheus.Counter
	FlushDuration      prometheus.Histogram
	FlushErrors        *prometheus.CounterVec // stage: deadletter, store, lake
	CommitErrors       prometheus.Counter
	ConsumerLag        *prometheus.GaugeVec // partition
	ReplayBoundSkipped prometheus.Counter
}

// NewMetrics builds the metrics and registers them on reg (nil: not
// registered, still usable).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	const ns, sub = "gateway", "processor"
	m := &Metrics{
		RecordsConsumed: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub,
			Name: "records_consumed_total", Help: "Log records read from the traces topic (a replay counts again)."}),
		RowsWritten: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub,
			Name: "rows_written_total", Help: "Trace rows written to both sinks by the position owning their (org_id, request_id)."}),
		DuplicatesDropped: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub,
			Name: "duplicates_dropped_total", Help: "Decoded records not written because another log position owns their (org_id, request_id)."}),
		DeadLetters: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub,
			Name: "dead_letters_total", Help: "Records that failed decoding or validation and went to the dead-letter topic."}),
		FlushDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: ns, Subsystem: sub,
			Name: "flush_duration_seconds", Help: "Time to make one chunk durable in every sink (successful flushes).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}),
		FlushErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub,
			Name: "flush_errors_total", Help: "Failed flush attempts (retried), by stage."}, []string{"stage"}),
		CommitErrors: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub,
			Name: "commit_errors_total", Help: "Failed offset commits (the data is durable; a later commit or a replay covers it)."}),
		ConsumerLag: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub,
			Name: "consumer_lag_records", Help: "High watermark minus the next offset to read, per owned partition, as of the last fetch."}, []string{"partition"}),
		ReplayBoundSkipped: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub,
			Name: "replay_bounds_skipped_total", Help: "Recorded chunks that could not be replayed exactly because the log no longer holds their first records."}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	for _, p := range []any{&m.RecordsConsumed, &m.RowsWritten, &m.DuplicatesDropped, &m.DeadLetters,
		&m.FlushDuration, &m.FlushErrors, &m.CommitErrors, &m.ConsumerLag, &m.ReplayBoundSkipped} {
		switch c := p.(type) {
		case *prometheus.Counter:
			*c, err = register(reg, *c)
		case *prometheus.Histogram:
			*c, err = register(reg, *c)
		case **prometheus.CounterVec:
			*c, err = register(reg, *c)
		case **prometheus.GaugeVec:
			*c, err = register(reg, *c)
		}
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

// register registers c, or returns the identical collector registered before.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, fmt.Errorf("register processor metrics: %w", err)
	}
	return c, nil
}
