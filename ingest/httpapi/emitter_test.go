package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/schemas"
)

// eachLog is a fakeLog that also takes independent records, as
// topics.Producer does; it records which method the emitter used.
type eachLog struct {
	fakeLog
	each int
}

func (l *eachLog) ProduceEach(ctx context.Context, envs []schemas.Envelope) error {
	l.mu.Lock()
	l.each++
	l.mu.Unlock()
	return l.Produce(ctx, envs)
}

func TestEmitter(t *testing.T) {
	envelope := func(id, prompt string) schemas.Envelope {
		return schemas.Envelope{SchemaVersion: schemas.EnvelopeVersion, Kind: schemas.KindDecision, OrgID: "org", AppID: "app",
			ReceivedAt: time.Now(), Trace: schemas.Trace{RequestID: id, Mode: schemas.ModeProxy, StartedAt: time.Now(), Prompt: prompt}}
	}
	t.Run("independent records without a transaction", func(t *testing.T) {
		log := &eachLog{}
		e, err := newEmitter(log, slog.New(slog.DiscardHandler), prometheus.NewRegistry())
		require.NoError(t, err)
		const n = 2*emitterBatch + 7 // several produce batches
		for i := range n {
			require.True(t, e.Emit(envelope(fmt.Sprint("r", i), "hi")))
		}
		e.Close() // produces everything still buffered
		require.Len(t, log.all(), n)
		require.LessOrEqual(t, len(log.calls[0]), emitterBatch)
		require.Positive(t, log.each, "ProduceEach, not the transactional Produce")
		require.False(t, e.Emit(envelope("late", "hi")), "closed")
	})
	t.Run("an Emit after Close is counted and logged", func(t *testing.T) {
		// A stream that outlived the shutdown wait: its trace is lost, not silently.
		var logs syncBuffer
		e, err := newEmitter(&fakeLog{}, slog.New(slog.NewJSONHandler(&logs, nil)), prometheus.NewRegistry())
		require.NoError(t, err)
		e.Close()
		require.False(t, e.Emit(envelope("late-stream", "secret prompt")))
		var m dto.Metric
		require.NoError(t, e.dropped.Write(&m))
		require.Equal(t, 1.0, m.GetCounter().GetValue())
		out := logs.String()
		require.Contains(t, out, `"request_id":"late-stream"`)
		require.Contains(t, out, "emitter is closed")
		require.NotContains(t, out, "secret prompt", "never the body")
	})
	t.Run("a record too large for the log is dropped alone", func(t *testing.T) {
		log := &fakeLog{}
		e, err := newEmitter(log, slog.New(slog.DiscardHandler), prometheus.NewRegistry())
		require.NoError(t, err)
		require.True(t, e.Emit(envelope("before", "hi")))
		require.True(t, e.Emit(envelope("huge", strings.Repeat("x", 2<<20))))
		require.True(t, e.Emit(envelope("after", "hi")))
		e.Close()
		var ids []string
		for _, env := range log.all() {
			ids = append(ids, env.Trace.RequestID)
		}
		require.ElementsMatch(t, []string{"before", "after"}, ids)
		var m dto.Metric
		require.NoError(t, e.dropped.Write(&m))
		require.Equal(t, 1.0, m.GetCounter().GetValue())
	})
}
