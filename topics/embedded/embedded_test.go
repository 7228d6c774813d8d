package embedded_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
	"github.com/governance-gateway/gateway/topics/embedded"
)

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  embedded.Config
		ok   bool
	}{
		{"defaults", embedded.Config{Dir: "d"}, true},
		{"no dir", embedded.Config{}, false},
		{"bad addr", embedded.Config{Dir: "d", Addr: "nohostport"}, false},
		{"unspecified host", embedded.Config{Dir: "d", Addr: "0.0.0.0:9092"}, false},
		{"negative partitions", embedded.Config{Dir: "d", Partitions: -1}, false},
		{"fsync every batch", embedded.Config{Dir: "d", FsyncInterval: embedded.FsyncEveryBatch}, true},
		{"fsync interval", embedded.Config{Dir: "d", FsyncInterval: time.Second}, true},
		{"negative fsync interval", embedded.Config{Dir: "d", FsyncInterval: -2 * time.Second}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}

// (1) Everything acknowledged before Close is there after Start on the same
// directory, single envelopes and transactional batches alike.
func TestRestartKeepsRecords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fsync time.Duration
	}{
		{"background fsync", 0},
		{"fsync every batch", embedded.FsyncEveryBatch},
	} {
		t.Run(tc.name, func(t *testing.T) { testRestartKeepsRecords(t, tc.fsync) })
	}
}

func testRestartKeepsRecords(t *testing.T, fsync time.Duration) {
	dir := t.TempDir()
	b := startFsync(t, dir, "127.0.0.1:0", fsync)
	cfg := topicsConfig(b)
	require.NoError(t, topics.EnsureTopics(context.Background(), cfg))
	p := newProducer(t, cfg)

	var want []string
	for _, e := range envelopes("org-a", "single", 10) {
		require.NoError(t, p.Produce(context.Background(), []schemas.Envelope{e}))
		want = append(want, keysOf([]schemas.Envelope{e})...)
	}
	for _, prefix := range []string{"batch-1", "batch-2"} {
		envs := envelopes("org-b", prefix, 50)
		require.NoError(t, p.Produce(context.Background(), envs))
		want = append(want, keysOf(envs)...)
	}
	p.Close()
	require.NoError(t, b.Close())

	b = startFsync(t, dir, "127.0.0.1:0", fsync)
	defer b.Close()
	// EnsureTopics on a reloaded directory finds the topics and changes nothing.
	require.NoError(t, topics.EnsureTopics(context.Background(), topicsConfig(b)))

	got := readAll(t, b.Addrs(), kgo.ReadCommitted(), markEnd(t, b.Addrs()))
	require.ElementsMatch(t, want, keys(got))
	for _, r := range got {
		env, err := schemas.DecodeEnvelope(r.Value)
		require.NoError(t, err)
		require.Equal(t, string(schemas.Key(env.OrgID, env.Trace.RequestID)), string(r.Key))
	}
}

// (2) A consumer group's committed offsets survive the restart: the group
// resumes after what it committed, it neither re-reads nor skips.
func TestGroupOffsetsSurviveRestart(t *testing.T) {
	const group = "test-group"
	dir := t.TempDir()
	b := start(t, dir, "127.0.0.1:0")
	cfg := topicsConfig(b)
	p := newProducer(t, cfg)
	first := envelopes("org-a", "first", 30)
	require.NoError(t, p.Produce(context.Background(), first))
	p.Close()

	consume := func(brokers []string, n int) []string {
		t.Helper()
		c := topics.Config{Brokers: brokers}
		cl, err := kgo.NewClient(append(topics.ConsumerOpts(c),
			kgo.ConsumerGroup(group),
			kgo.ConsumeTopics(topics.Traces),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.DisableAutoCommit())...)
		require.NoError(t, err)
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var got []string
		for len(got) < n {
			fs := cl.PollFetches(ctx)
			require.NoError(t, ctx.Err(), "consumed %d of %d", len(got), n)
			fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Key)) })
		}
		require.NoError(t, cl.CommitUncommittedOffsets(ctx))
		return got
	}
	require.ElementsMatch(t, keysOf(first), consume(b.Addrs(), len(first)))
	require.NoError(t, b.Close())

	b = start(t, dir, "127.0.0.1:0")
	defer b.Close()
	adm, err := kgo.NewClient(topics.ClientOpts(topics.Config{Brokers: b.Addrs()})...)
	require.NoError(t, err)
	defer adm.Close()
	offs, err := kadm.NewClient(adm).FetchOffsets(context.Background(), group)
	require.NoError(t, err)
	var committed int64
	offs.Each(func(o kadm.OffsetResponse) { committed += o.At })
	// 30 records were produced in one transaction: each partition also holds
	// one commit marker after its records, which the group committed past
	// or not depending on where the fetch stopped; records alone are 30.
	require.GreaterOrEqual(t, committed, int64(len(first)))

	p = newProducer(t, topicsConfig(b))
	second := envelopes("org-a", "second", 10)
	require.NoError(t, p.Produce(context.Background(), second))
	p.Close()
	require.ElementsMatch(t, keysOf(second), consume(b.Addrs(), len(second)),
		"after the restart the group must resume after its committed offsets")
}

// (3) Transactions: a committed batch is visible to read_committed readers,
// an aborted one and one left open by a crashed producer are not, before
// and after a restart; read_uncommitted proves the aborted records exist.
func TestTransactionsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	b := start(t, dir, "127.0.0.1:0")
	cfg := topicsConfig(b)
	cfg.TxnIDPrefix = "txn-test"
	p := newProducer(t, cfg)
	committed := envelopes("org-a", "committed", 40)
	require.NoError(t, p.Produce(context.Background(), committed))
	p.Close()

	rawTxn := func(brokers []string, id string, timeout time.Duration, envs []schemas.Envelope, end func(*kgo.Client)) {
		t.Helper()
		cl, err := kgo.NewClient(append(topics.ClientOpts(topics.Config{Brokers: brokers}),
			kgo.TransactionalID(id), kgo.TransactionTimeout(timeout))...)
		require.NoError(t, err)
		defer cl.Close()
		require.NoError(t, cl.BeginTransaction())
		for _, e := range envs {
			v, err := e.Marshal()
			require.NoError(t, err)
			rec := &kgo.Record{Topic: topics.Traces, Key: schemas.Key(e.OrgID, e.Trace.RequestID), Value: v}
			require.NoError(t, cl.ProduceSync(context.Background(), rec).FirstErr())
		}
		end(cl)
	}
	aborted := envelopes("org-a", "aborted", 20)
	rawTxn(b.Addrs(), "raw-abort", time.Minute, aborted, func(cl *kgo.Client) {
		require.NoError(t, cl.EndTransaction(context.Background(), kgo.TryAbort))
	})
	end := markEnd(t, b.Addrs())
	require.ElementsMatch(t, keysOf(committed), keys(readAll(t, b.Addrs(), kgo.ReadCommitted(), end)))
	require.Subset(t, keys(readAll(t, b.Addrs(), kgo.ReadUncommitted(), end)), keysOf(aborted),
		"aborted records are in the log, only hidden")

	// Left open: the client goes away without ending it, as in a crash of
	// the producing process. It holds read_committed readers back until the
	// broker aborts it at its transaction timeout, which kfake, like Kafka,
	// keeps counting across a clean broker restart.
	open := envelopes("org-a", "open", 20)
	rawTxn(b.Addrs(), "raw-open", 2*time.Second, open, func(*kgo.Client) {})

	require.NoError(t, b.Close())
	b = start(t, dir, "127.0.0.1:0")
	defer b.Close()

	end = markEnd(t, b.Addrs())
	require.ElementsMatch(t, keysOf(committed), keys(readAll(t, b.Addrs(), kgo.ReadCommitted(), end)))
	all := keys(readAll(t, b.Addrs(), kgo.ReadUncommitted(), end))
	require.Subset(t, all, keysOf(aborted), "aborted records are in the log, only hidden")
	require.Subset(t, all, keysOf(open))

	// The same transactional ids work after the restart.
	cfg = topicsConfig(b)
	cfg.TxnIDPrefix = "txn-test"
	p = newProducer(t, cfg)
	defer p.Close()
	after := envelopes("org-a", "after", 30)
	require.NoError(t, p.Produce(context.Background(), after))
	got := keys(readAll(t, b.Addrs(), kgo.ReadCommitted(), markEnd(t, b.Addrs())))
	require.ElementsMatch(t, append(keysOf(committed), keysOf(after)...), got)
}

// (4) With the broker stopped, Produce fails with ErrUnavailable within the
// timeout, and nothing of the failed calls appears once the broker is back.
func TestBrokerDownIsUnavailable(t *testing.T) {
	dir := t.TempDir()
	b := start(t, dir, "127.0.0.1:0")
	addr := b.Addrs()[0]
	cfg := topicsConfig(b)
	cfg.ProduceTimeout = time.Second
	p := newProducer(t, cfg)
	defer p.Close()
	before := envelopes("org-a", "before", 5)
	require.NoError(t, p.Produce(context.Background(), before))
	require.NoError(t, b.Close())

	for _, tc := range []struct {
		name string
		envs []schemas.Envelope
	}{
		{"single", envelopes("org-a", "lost-single", 1)},
		{"batch", envelopes("org-a", "lost-batch", 25)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 1)
			go func() { errc <- p.Produce(context.Background(), tc.envs) }()
			select {
			case err := <-errc:
				require.ErrorIs(t, err, topics.ErrUnavailable)
			case <-time.After(10 * cfg.ProduceTimeout):
				// Contract check, not a performance one: Produce must not
				// block indefinitely on a dead broker.
				t.Fatal("Produce blocked far past ProduceTimeout")
			}
		})
	}
	require.ErrorIs(t, p.Ping(context.Background()), topics.ErrUnavailable)

	// The broker comes back on the same address; the same producer recovers.
	b = start(t, dir, addr)
	defer b.Close()
	require.Eventually(t, func() bool { return p.Ping(context.Background()) == nil }, 20*time.Second, 100*time.Millisecond)
	after := envelopes("org-a", "after", 5)
	require.Eventually(t, func() bool { return p.Produce(context.Background(), after) == nil }, 20*time.Second, 100*time.Millisecond)
	// The shared idempotent client recovers on its own schedule (kgo backs
	// off its metadata loads while the broker is down), so singles are
	// retried too, each try a new record: a failed one may still land (the
	// in-flight window of Produce) and is ignored below.
	var single []schemas.Envelope
	tried := map[string]bool{}
	require.Eventually(t, func() bool {
		e := envelopes("org-a", fmt.Sprintf("after-single-%d", len(tried)), 1)
		tried[keysOf(e)[0]] = true
		if p.Produce(context.Background(), e) != nil {
			return false
		}
		single = e
		return true
	}, 20*time.Second, 100*time.Millisecond)
	delete(tried, keysOf(single)[0])

	got := slices.DeleteFunc(keys(readAll(t, b.Addrs(), kgo.ReadCommitted(), markEnd(t, b.Addrs()))),
		func(k string) bool { return tried[k] })
	want := append(keysOf(before), keysOf(after)...)
	want = append(want, keysOf(single)...)
	require.ElementsMatch(t, want, got)
}

// (5) Dial serves the broker's own address in process and any other over
// TCP; Close ends its in-process connections, and once the broker is closed
// its address is dialled over TCP again (a broker restarted there).
func TestDial(t *testing.T) {
	b := start(t, t.TempDir(), "127.0.0.1:0")
	defer b.Close()
	addr := b.Addrs()[0]
	ctx := context.Background()

	own, err := b.Dial(ctx, "tcp", addr)
	require.NoError(t, err)
	defer own.Close()
	require.Equal(t, "inproc", own.RemoteAddr().Network())
	require.Equal(t, addr, own.RemoteAddr().String())

	other, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer other.Close()
	oc, err := b.Dial(ctx, "tcp", other.Addr().String())
	require.NoError(t, err)
	defer oc.Close()
	require.Equal(t, "tcp", oc.RemoteAddr().Network())

	// A Kafka request answered through the in-process connection.
	cl, err := kgo.NewClient(topics.ClientOpts(topicsConfig(b))...)
	require.NoError(t, err)
	defer cl.Close()
	require.NoError(t, cl.Ping(ctx))

	require.NoError(t, b.Close())
	_, err = own.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF)
	_, err = b.Dial(ctx, "tcp", addr)
	var oe *net.OpError
	require.ErrorAs(t, err, &oe, "dialled over TCP, where nothing listens")
	require.Equal(t, "dial", oe.Op)
}
