package topics_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConfigValidate(t *testing.T) {
	ok := topics.Config{Brokers: []string{"127.0.0.1:9092"}}
	for _, tc := range []struct {
		name   string
		mutate func(*topics.Config)
		errSub string
	}{
		{"defaults", func(*topics.Config) {}, ""},
		{"no brokers", func(c *topics.Config) { c.Brokers = nil }, "Brokers"},
		{"empty broker", func(c *topics.Config) { c.Brokers = []string{""} }, "empty address"},
		{"negative partitions", func(c *topics.Config) { c.Partitions = -2 }, "Partitions"},
		{"replication 0 means default", func(c *topics.Config) { c.ReplicationFactor = 0 }, ""},
		{"replication -2", func(c *topics.Config) { c.ReplicationFactor = -2 }, "ReplicationFactor"},
		{"negative timeout", func(c *topics.Config) { c.ProduceTimeout = -time.Second }, "ProduceTimeout"},
		{"negative pool", func(c *topics.Config) { c.TxnPool = -1 }, "TxnPool"},
		{"txn timeout not above produce timeout", func(c *topics.Config) {
			c.ProduceTimeout, c.TxnTimeout = 5*time.Second, 5*time.Second
		}, "TxnTimeout"},
		{"negative linger", func(c *topics.Config) { c.Linger = -1 }, "Linger"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.mutate(&c)
			err := c.Validate()
			if tc.errSub == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.errSub)
		})
	}
	d := ok.Defaults()
	require.Equal(t, topics.DefaultPartitions, d.Partitions)
	require.Equal(t, int16(-1), d.ReplicationFactor)
	require.Equal(t, 3*topics.DefaultProduceTimeout, d.TxnTimeout)
	require.NotEmpty(t, d.TxnIDPrefix)
}

func TestDeadLetterRecord(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason error
		want   string
	}{
		{"with reason", errors.New("decode envelope: bad json"), "decode envelope: bad json"},
		{"nil reason", nil, "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &kgo.Record{Topic: topics.Traces, Partition: 4, Offset: 1234, Key: []byte("org/req"), Value: []byte("{oops")}
			dl := topics.DeadLetterRecord(src, tc.reason)
			require.Equal(t, topics.DeadLetter, dl.Topic)
			require.Equal(t, src.Key, dl.Key)
			require.Equal(t, src.Value, dl.Value)
			h := map[string]string{}
			for _, kv := range dl.Headers {
				h[kv.Key] = string(kv.Value)
			}
			require.Equal(t, map[string]string{
				"error": tc.want, "source_topic": topics.Traces, "source_partition": "4", "source_offset": "1234",
			}, h)
		})
	}
}

func cluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{
		kfake.NumBrokers(1),
		kfake.SeedTopics(3, topics.Traces),
		kfake.SeedTopics(1, topics.DeadLetter),
	}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func envelopes(prefix string, n int) []schemas.Envelope {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	out := make([]schemas.Envelope, n)
	for i := range out {
		out[i] = schemas.Envelope{
			SchemaVersion: schemas.EnvelopeVersion, Kind: schemas.KindTrace, OrgID: "org", ReceivedAt: now,
			Trace: schemas.Trace{
				RequestID: fmt.Sprintf("%s-%d", prefix, i), Mode: schemas.ModeIngest, Status: schemas.StatusOK,
				StartedAt: now, ReceivedAt: now,
			},
		}
	}
	return out
}

// readCommitted reads the traces topic read_committed until it has seen a
// sentinel on every partition, produced after everything else.
func readCommitted(t *testing.T, brokers []string, iso kgo.IsolationLevel) []string {
	t.Helper()
	w, err := kgo.NewClient(append(topics.ClientOpts(topics.Config{Brokers: brokers}),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	require.NoError(t, err)
	for p := range int32(3) {
		require.NoError(t, w.ProduceSync(context.Background(),
			&kgo.Record{Topic: topics.Traces, Partition: p, Key: []byte("sentinel")}).FirstErr())
	}
	w.Close()

	cl, err := kgo.NewClient(append(topics.ClientOpts(topics.Config{Brokers: brokers}),
		kgo.FetchIsolationLevel(iso), kgo.ConsumeTopics(topics.Traces),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []string
	for sentinels := 0; sentinels < 3; {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Key) == "sentinel" {
				sentinels++
				return
			}
			got = append(got, string(r.Key))
		})
	}
	return got
}

func keysOf(envs []schemas.Envelope) []string {
	var out []string
	for _, e := range envs {
		out = append(out, string(schemas.Key(e.OrgID, e.Trace.RequestID)))
	}
	return out
}

func TestProduceTooLarge(t *testing.T) {
	c := cluster(t)
	p, err := topics.NewProducer(context.Background(), topics.Config{Brokers: c.ListenAddrs(), ProduceTimeout: 2 * time.Second}, nil)
	require.NoError(t, err)
	defer p.Close()
	big := envelopes("big", 1)
	big[0].Trace.Prompt = strings.Repeat("x", 2<<20)
	err = p.Produce(context.Background(), big)
	require.ErrorIs(t, err, topics.ErrTooLarge)
	require.NotErrorIs(t, err, topics.ErrUnavailable)
}

// A batch whose records reached the broker but whose commit failed must
// never become visible, and the slot must work again for the next batch.
func TestFailedCommitIsNeverVisible(t *testing.T) {
	c := cluster(t)
	var failEndTxn atomic.Bool
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if failEndTxn.Load() {
			return nil, errors.New("injected: connection dies on EndTxn"), true
		}
		return nil, nil, false
	})
	reg := prometheus.NewRegistry()
	p, err := topics.NewProducer(context.Background(), topics.Config{
		Brokers: c.ListenAddrs(), ProduceTimeout: time.Second, TxnPool: 1, Registerer: reg,
	}, nil)
	require.NoError(t, err)
	defer p.Close()

	failEndTxn.Store(true)
	lost := envelopes("lost", 20)
	require.ErrorIs(t, p.Produce(context.Background(), lost), topics.ErrUnavailable)
	failEndTxn.Store(false)

	kept := envelopes("kept", 20)
	require.NoError(t, p.Produce(context.Background(), kept))
	single := envelopes("single", 1)
	require.NoError(t, p.Produce(context.Background(), single))

	require.ElementsMatch(t, append(keysOf(kept), keysOf(single)...), readCommitted(t, c.ListenAddrs(), kgo.ReadCommitted()))
	require.Subset(t, readCommitted(t, c.ListenAddrs(), kgo.ReadUncommitted()), keysOf(lost),
		"the failed batch's records did reach the log; only the abort hides them")

	require.Equal(t, 1.0, counterValue(t, reg, "gateway_log_produce_errors_total", map[string]string{"path": "txn", "reason": "unavailable"}))
	require.Equal(t, 21.0, counterValue(t, reg, "gateway_log_produced_records_total", map[string]string{"path": "txn"})+
		counterValue(t, reg, "gateway_log_produced_records_total", map[string]string{"path": "single"}))
}

func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if labels[lp.GetName()] != lp.GetValue() {
					continue next
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// ProduceEach writes independent records without a transaction: every
// record readable by read_committed consumers, no EndTxn reaches the
// broker, and an oversized record fails up front.
func TestProduceEach(t *testing.T) {
	c := cluster(t)
	var endTxns atomic.Int32
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		endTxns.Add(1)
		return nil, nil, false
	})
	reg := prometheus.NewRegistry()
	p, err := topics.NewProducer(context.Background(), topics.Config{Brokers: c.ListenAddrs(), ProduceTimeout: 2 * time.Second, Registerer: reg}, nil)
	require.NoError(t, err)
	defer p.Close()

	envs := envelopes("each", 30)
	require.NoError(t, p.ProduceEach(context.Background(), envs))
	require.ElementsMatch(t, keysOf(envs), readCommitted(t, c.ListenAddrs(), kgo.ReadCommitted()))
	require.Zero(t, endTxns.Load(), "no transaction")
	require.Equal(t, 30.0, counterValue(t, reg, "gateway_log_produced_records_total", map[string]string{"path": "each"}))

	big := envelopes("big", 2)
	big[1].Trace.Prompt = strings.Repeat("x", 2<<20)
	require.ErrorIs(t, p.ProduceEach(context.Background(), big), topics.ErrTooLarge)
	require.NoError(t, p.ProduceEach(context.Background(), nil))
}
