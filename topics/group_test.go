package topics_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

// holdEndTxn makes the broker hold the next EndTxn (commit) request until
// release is called; arrived is closed when it is held. Only that one
// request is held: its transaction has started, every batch in it is taken.
func holdEndTxn(t *testing.T, c *kfake.Cluster) (arrived <-chan struct{}, release func()) {
	t.Helper()
	arrivedc, releasec := make(chan struct{}), make(chan struct{})
	var once sync.Once
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.DropControl()
		close(arrivedc)
		c.SleepControl(func() { <-releasec })
		return nil, nil, false
	})
	release = func() { once.Do(func() { close(releasec) }) }
	t.Cleanup(release) // a failed test must not leave the broker asleep
	return arrivedc, release
}

func newProducer(t *testing.T, cfg topics.Config) *topics.Producer {
	t.Helper()
	p, err := topics.NewProducer(context.Background(), cfg, nil)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

func produceAsync(p *topics.Producer, ctx context.Context, envs []schemas.Envelope) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- p.Produce(ctx, envs) }()
	return errc
}

// metric returns a gauge's value or a histogram's sample count.
func metric(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		m := mf.GetMetric()[0]
		if h := m.GetHistogram(); h != nil {
			return float64(h.GetSampleCount())
		}
		return m.GetGauge().GetValue()
	}
	return 0
}

// Batches queued behind a busy transaction share the next one, within
// MaxTxnRecords.
func TestGroupCommitCoalescesQueuedBatches(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxRecords int
		wantTxns   float64 // the held first one included
	}{
		{"all queued in one", 0, 2},
		{"bounded by MaxTxnRecords", 50, 4}, // 5 batches of 20: 2+2+1
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cluster(t)
			reg := prometheus.NewRegistry()
			p := newProducer(t, topics.Config{
				Brokers: c.ListenAddrs(), TxnPool: 1, ProduceTimeout: 10 * time.Second,
				MaxTxnRecords: tc.maxRecords, Registerer: reg,
			})
			arrived, release := holdEndTxn(t, c)
			first := envelopes("first", 20)
			firstErr := produceAsync(p, context.Background(), first)
			<-arrived

			var want []string
			errcs := make([]<-chan error, 5)
			for i := range errcs {
				envs := envelopes(fmt.Sprintf("queued%d", i), 20)
				want = append(want, keysOf(envs)...)
				errcs[i] = produceAsync(p, context.Background(), envs)
			}
			require.Eventually(t, func() bool { return metric(t, reg, "gateway_log_transaction_queued_batches") == 5 },
				10*time.Second, 5*time.Millisecond)
			release()
			require.NoError(t, <-firstErr)
			for _, errc := range errcs {
				require.NoError(t, <-errc)
			}
			require.Equal(t, tc.wantTxns, metric(t, reg, "gateway_log_transaction_records"))
			require.ElementsMatch(t, append(keysOf(first), want...), readCommitted(t, c.ListenAddrs(), kgo.ReadCommitted()))
		})
	}
}

// Many concurrent callers, some of whose transactions fail at commit: every
// acknowledged batch is visible exactly once to read_committed readers, and
// no batch whose caller got an error ever is.
func TestGroupCommitConcurrentCallers(t *testing.T) {
	c := cluster(t)
	// Every fourth transaction is doomed: its EndTxn, and any retry of it,
	// is refused until its id is re-initialised by a fresh client.
	var (
		ctlMu   sync.Mutex
		endTxns int
		doomed  = map[string]bool{}
	)
	c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		ctlMu.Lock()
		defer ctlMu.Unlock()
		id := req.(*kmsg.EndTxnRequest).TransactionalID
		if endTxns++; endTxns%4 == 0 {
			doomed[id] = true
		}
		if doomed[id] {
			resp := req.ResponseKind().(*kmsg.EndTxnResponse)
			resp.ErrorCode = kerr.InvalidTxnState.Code
			return resp, nil, true
		}
		return nil, nil, false
	})
	c.ControlKey(int16(kmsg.InitProducerID), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		ctlMu.Lock()
		defer ctlMu.Unlock()
		if id := req.(*kmsg.InitProducerIDRequest).TransactionalID; id != nil {
			delete(doomed, *id)
		}
		return nil, nil, false
	})
	// A short TxnTimeout: the broker aborts the last failed transactions,
	// which hold back read_committed readers until then.
	p := newProducer(t, topics.Config{Brokers: c.ListenAddrs(), TxnPool: 2, ProduceTimeout: 2 * time.Second, TxnTimeout: 3 * time.Second})

	const callers, batches = 24, 5
	var (
		mu           sync.Mutex
		acked, wrong []string
		failed       int
		wg           sync.WaitGroup
	)
	for g := range callers {
		wg.Go(func() {
			for i := range batches {
				envs := envelopes(fmt.Sprintf("c%d-b%d", g, i), 10)
				err := p.Produce(context.Background(), envs)
				mu.Lock()
				if err == nil {
					acked = append(acked, keysOf(envs)...)
				} else {
					require.ErrorIs(t, err, topics.ErrUnavailable)
					wrong = append(wrong, keysOf(envs)...)
					failed++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.NotEmpty(t, acked)
	require.NotZero(t, failed, "the injected commit failures must fail some batches")
	got := readCommitted(t, c.ListenAddrs(), kgo.ReadCommitted())
	require.ElementsMatch(t, acked, got, "each acknowledged record exactly once, no failed one")
}

// A caller whose ctx ends while its batch is queued gets its ctx's error
// (not ErrUnavailable: the caller left, the log did not fail) and its batch
// is never produced, not even uncommitted. ProduceTimeout takes the same
// path, wrapped in ErrUnavailable.
func TestGroupCommitQueuedCallerLeaves(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func(queued func() bool) (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func(func() bool) (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, context.DeadlineExceeded},
		{"canceled once queued", func(queued func() bool) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for !queued() {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
			return ctx, cancel
		}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cluster(t)
			reg := prometheus.NewRegistry()
			p := newProducer(t, topics.Config{Brokers: c.ListenAddrs(), TxnPool: 1, ProduceTimeout: 10 * time.Second, Registerer: reg})
			arrived, release := holdEndTxn(t, c)
			first := envelopes("first", 20)
			firstErr := produceAsync(p, context.Background(), first)
			<-arrived

			ctx, cancel := tc.ctx(func() bool { return metric(t, reg, "gateway_log_transaction_queued_batches") == 1 })
			defer cancel()
			err := p.Produce(ctx, envelopes("late", 20))
			require.ErrorIs(t, err, tc.want)
			require.NotErrorIs(t, err, topics.ErrUnavailable)
			require.Zero(t, metric(t, reg, "gateway_log_transaction_queued_batches"), "removed from the queue")

			release()
			require.NoError(t, <-firstErr)
			after := envelopes("after", 20)
			require.NoError(t, p.Produce(context.Background(), after))
			want := append(keysOf(first), keysOf(after)...)
			require.ElementsMatch(t, want, readCommitted(t, c.ListenAddrs(), kgo.ReadUncommitted()),
				"the abandoned batch was never sent")
		})
	}
}

// A caller whose deadline passes after its transaction started waits for
// the outcome: told nil, its batch is committed.
func TestGroupCommitStartedCallerGetsOutcome(t *testing.T) {
	c := cluster(t)
	p := newProducer(t, topics.Config{Brokers: c.ListenAddrs(), TxnPool: 1, ProduceTimeout: 10 * time.Second})
	arrived, release := holdEndTxn(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	envs := envelopes("started", 20)
	errc := produceAsync(p, ctx, envs)
	<-arrived
	cancel()
	select {
	case err := <-errc:
		t.Fatalf("Produce returned %v before its transaction's outcome was known", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	require.NoError(t, <-errc)
	require.ElementsMatch(t, keysOf(envs), readCommitted(t, c.ListenAddrs(), kgo.ReadCommitted()))
}

// A too-large record fails only its own batch, even among concurrent
// batches that would share its transaction.
func TestGroupCommitTooLargeIsolation(t *testing.T) {
	c := cluster(t)
	p := newProducer(t, topics.Config{Brokers: c.ListenAddrs(), TxnPool: 1, ProduceTimeout: 10 * time.Second})
	arrived, release := holdEndTxn(t, c)
	first := envelopes("first", 5)
	firstErr := produceAsync(p, context.Background(), first)
	<-arrived

	big := envelopes("big", 5)
	big[2].Trace.Prompt = strings.Repeat("x", 1<<20)
	small := envelopes("small", 5)
	bigErr := produceAsync(p, context.Background(), big)
	smallErr := produceAsync(p, context.Background(), small)
	err := <-bigErr
	require.ErrorIs(t, err, topics.ErrTooLarge)
	require.NotErrorIs(t, err, topics.ErrUnavailable)
	release()
	require.NoError(t, <-firstErr)
	require.NoError(t, <-smallErr)
	require.ElementsMatch(t, append(keysOf(first), keysOf(small)...), readCommitted(t, c.ListenAddrs(), kgo.ReadUncommitted()))
}

// A record the broker refuses as too large (its limit below the client's)
// fails its batch with ErrTooLarge; a batch sharing the transaction fails
// with ErrUnavailable (retryable) and is not visible.
func TestGroupCommitBrokerTooLarge(t *testing.T) {
	c := cluster(t, kfake.BrokerConfigs(map[string]string{"message.max.bytes": "20000"}))
	reg := prometheus.NewRegistry()
	p := newProducer(t, topics.Config{Brokers: c.ListenAddrs(), TxnPool: 1, ProduceTimeout: 10 * time.Second, Registerer: reg})
	arrived, release := holdEndTxn(t, c)
	firstErr := produceAsync(p, context.Background(), envelopes("first", 5))
	<-arrived

	big := envelopes("big", 2)
	noise := make([]byte, 40_000) // incompressible: kgo compresses batches
	_, _ = rand.Read(noise)
	big[1].Trace.Prompt = base64.StdEncoding.EncodeToString(noise)
	other := envelopes("other", 2)
	bigErr := produceAsync(p, context.Background(), big)
	otherErr := produceAsync(p, context.Background(), other)
	require.Eventually(t, func() bool { return metric(t, reg, "gateway_log_transaction_queued_batches") == 2 },
		10*time.Second, 5*time.Millisecond)
	release()
	require.NoError(t, <-firstErr)
	err := <-bigErr
	require.ErrorIs(t, err, topics.ErrTooLarge)
	err = <-otherErr
	require.ErrorIs(t, err, topics.ErrUnavailable)
	require.NotErrorIs(t, err, topics.ErrTooLarge)
	// The next transaction on the slot re-initialises its id, which aborts
	// the failed one (else readers wait for TxnTimeout).
	after := envelopes("after", 2)
	require.NoError(t, p.Produce(context.Background(), after))
	got := readCommitted(t, c.ListenAddrs(), kgo.ReadCommitted())
	require.ElementsMatch(t, append(keysOf(envelopes("first", 5)), keysOf(after)...), got)
}

// Close fails batches still queued and waits for the transaction in flight.
func TestCloseFailsQueuedBatches(t *testing.T) {
	c := cluster(t)
	p, err := topics.NewProducer(context.Background(), topics.Config{Brokers: c.ListenAddrs(), TxnPool: 1, ProduceTimeout: 10 * time.Second}, nil)
	require.NoError(t, err)
	arrived, release := holdEndTxn(t, c)
	firstErr := produceAsync(p, context.Background(), envelopes("first", 5))
	<-arrived
	queuedErr := produceAsync(p, context.Background(), envelopes("queued", 5))
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	err = <-queuedErr
	require.ErrorIs(t, err, topics.ErrUnavailable)
	require.ErrorContains(t, err, "closed")
	release()
	require.NoError(t, <-firstErr)
	<-closed
	require.ErrorIs(t, p.Produce(context.Background(), envelopes("after", 5)), topics.ErrUnavailable)
}
