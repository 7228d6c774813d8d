package tracewriter

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/governance-gateway/gateway/processors/internal/testkit"
	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const waitFor = 20 * time.Second

// started is a running Writer.
type started struct {
	w    *Writer
	stop func()
}

func start(t *testing.T, brokers []string, cfg Config, store Store, lake LakeWriter) started {
	t.Helper()
	cfg.Kafka.Brokers = brokers
	if cfg.FlushInterval == 0 {
		cfg.FlushInterval = 20 * time.Millisecond
	}
	cfg.RetryBackoffMin, cfg.RetryBackoffMax = 5*time.Millisecond, 50*time.Millisecond
	w, err := New(cfg, Deps{Store: store, Lake: lake, Registerer: prometheus.NewRegistry(), Logger: slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	require.NoError(t, err)
	w.testOpts = []kgo.Opt{kgo.HeartbeatInterval(100 * time.Millisecond), kgo.SessionTimeout(6 * time.Second)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
		})
	}
	t.Cleanup(stop)
	return started{w: w, stop: stop}
}

// waitCommitted waits until the group's committed offset of every traces
// partition is its end offset: every record is durable in both sinks.
func waitCommitted(t *testing.T, brokers []string) {
	t.Helper()
	cl := testkit.Producer(t, brokers)
	adm := kadm.NewClient(cl)
	require.Eventually(t, func() bool {
		ctx := context.Background()
		ends, err := adm.ListEndOffsets(ctx, topics.Traces)
		if err != nil {
			return false
		}
		got, err := adm.FetchOffsets(ctx, topics.TraceWriterGroup)
		if err != nil {
			return false
		}
		ok := true
		ends.Each(func(o kadm.ListedOffset) {
			if o.Offset == 0 {
				return
			}
			c, has := got.Lookup(topics.Traces, o.Partition)
			ok = ok && has && c.At == o.Offset
		})
		return ok
	}, waitFor, 20*time.Millisecond)
}

// produced produces recs and returns them with their offsets.
func produced(t *testing.T, cl *kgo.Client, recs []*kgo.Record) []*kgo.Record {
	testkit.Produce(t, cl, recs...)
	return recs
}

// checkExact asserts the store holds exactly want (key -> owning record),
// and the lake holds each of them in exactly one file, identical to the store.
func checkExact(t *testing.T, store *testkit.Store, lake *testkit.Lake, want map[string]*kgo.Record) {
	t.Helper()
	rows := store.Rows()
	require.Len(t, rows, len(want))
	for k, rec := range want {
		r, ok := rows[k]
		require.True(t, ok, "missing row %s", k)
		require.Equal(t, rec.Partition, r.Partition, k)
		require.Equal(t, rec.Offset, r.Offset, "row %s must be owned by its first log position", k)
	}
	counts := lake.RowCounts()
	require.Len(t, counts, len(want))
	for k, n := range counts {
		require.Equal(t, 1, n, "lake row %s", k)
	}
	for _, c := range lake.Files() {
		for _, r := range lake.File(c) {
			require.Equal(t, rows[r.OrgID+"/"+r.Trace.RequestID], r)
		}
	}
}

func TestExactlyOnceUnderDuplicates(t *testing.T) {
	for _, flushRows := range []int{1, 3, 1000} {
		t.Run("flush_rows="+strconv.Itoa(flushRows), func(t *testing.T) {
			brokers := testkit.Cluster(t, 3)
			prod := testkit.Producer(t, brokers)
			store, lake := testkit.NewStore(), testkit.NewLake()
			want := map[string]*kgo.Record{}
			first := func(recs []*kgo.Record) {
				for _, r := range recs {
					env, err := schemas.DecodeEnvelope(r.Value)
					require.NoError(t, err)
					k := env.OrgID + "/" + env.Trace.RequestID
					if cur, ok := want[k]; !ok || r.Offset < cur.Offset {
						want[k] = r
					}
				}
			}

			// Batch 1: 30 ids of o1, duplicates of 5 of them in the same
			// batch, and the same 5 ids in org o2 (other tenant: other rows).
			var b1 []*kgo.Record
			for i := range 30 {
				b1 = append(b1, testkit.Record(t, testkit.Envelope("o1", fmt.Sprintf("id-%d", i))))
			}
			for i := range 5 {
				b1 = append(b1, testkit.Record(t, testkit.Envelope("o1", fmt.Sprintf("id-%d", i))))
				b1 = append(b1, testkit.Record(t, testkit.Envelope("o2", fmt.Sprintf("id-%d", i))))
			}
			first(produced(t, prod, b1))
			s := start(t, brokers, Config{FlushRows: flushRows}, store, lake)
			waitCommitted(t, brokers)

			// Batch 2, after batch 1 is durable: 10 resends and 10 new ids.
			var b2 []*kgo.Record
			for i := 5; i < 15; i++ {
				b2 = append(b2, testkit.Record(t, testkit.Envelope("o1", fmt.Sprintf("id-%d", i))))
			}
			for i := 30; i < 40; i++ {
				b2 = append(b2, testkit.Record(t, testkit.Envelope("o1", fmt.Sprintf("id-%d", i))))
			}
			first(produced(t, prod, b2))
			waitCommitted(t, brokers)

			checkExact(t, store, lake, want)
			require.Len(t, want, 45)
			require.Equal(t, 15.0, counter(s.w.metrics.DuplicatesDropped))
			require.Equal(t, 45.0, counter(s.w.metrics.RowsWritten))
			require.Equal(t, 60.0, counter(s.w.metrics.RecordsConsumed))
		})
	}
}

// A crash after the store write and before the commit (the lake is down, so
// nothing is committed), then a new writer with other flush limits: it
// replays exactly the recorded chunk boundaries, and no row is doubled.
func TestCrashReplayKeepsChunkBoundaries(t *testing.T) {
	brokers := testkit.Cluster(t, 2)
	prod := testkit.Producer(t, brokers)
	store := testkit.NewStore()
	want := map[string]*kgo.Record{}
	var recs []*kgo.Record
	for i := range 40 {
		recs = append(recs, testkit.Record(t, testkit.Envelope("o1", fmt.Sprintf("id-%d", i))))
	}
	for _, r := range produced(t, prod, recs) {
		want["o1/"+string(r.Key[3:])] = r
	}

	deadLake := testkit.NewLake()
	deadLake.SetFail(true)
	s1 := start(t, brokers, Config{FlushRows: 4, FlushInterval: time.Hour}, store, deadLake)
	require.Eventually(t, func() bool { return len(store.AllChunks()) == 2 }, waitFor, 10*time.Millisecond,
		"each partition's first chunk reaches the store, then the lake blocks it")
	s1.stop()
	recorded := store.AllChunks()
	for _, c := range recorded {
		require.Equal(t, int64(3), c.LastOffset-c.FirstOffset, "a 4-record chunk: %+v", c)
	}
	require.Empty(t, deadLake.Files())
	adm := kadm.NewClient(prod)
	offs, err := adm.FetchOffsets(context.Background(), topics.TraceWriterGroup)
	require.NoError(t, err)
	require.Empty(t, offs.Offsets().Sorted(), "nothing may be committed before the lake is durable")

	lake := testkit.NewLake()
	start(t, brokers, Config{FlushRows: 1000}, store, lake)
	waitCommitted(t, brokers)
	checkExact(t, store, lake, want)
	files := lake.Files()
	for _, c := range recorded {
		require.Contains(t, files, c, "the replay must rewrite the recorded chunk under its name")
	}
	require.Len(t, files, 4, "one replayed and one fresh chunk per partition")
	require.Equal(t, files, store.AllChunks())
}

func TestRebalanceMidStreamExactlyOnce(t *testing.T) {
	brokers := testkit.Cluster(t, 4)
	prod := testkit.Producer(t, brokers)
	store, lake := testkit.NewStore(), testkit.NewLake()
	want := map[string]*kgo.Record{}
	var mu sync.Mutex
	produceRange := func(from, to int) {
		var recs []*kgo.Record
		for i := from; i < to; i++ {
			recs = append(recs, testkit.Record(t, testkit.Envelope("o1", fmt.Sprintf("id-%d", i))))
			if i%7 == 0 { // a resend of an earlier id
				recs = append(recs, testkit.Record(t, testkit.Envelope("o1", fmt.Sprintf("id-%d", i/2))))
			}
		}
		produced(t, prod, recs)
		mu.Lock()
		defer mu.Unlock()
		for _, r := range recs {
			k := "o1/" + string(r.Key[3:])
			if cur, ok := want[k]; !ok || r.Offset < cur.Offset {
				want[k] = r
			}
		}
	}

	a := start(t, brokers, Config{FlushRows: 5}, store, lake)
	produceRange(0, 100)
	b := start(t, brokers, Config{FlushRows: 7}, store, lake)
	for i := 100; i < 300; i += 20 {
		produceRange(i, i+20)
		time.Sleep(20 * time.Millisecond)
	}
	require.Eventually(t, func() bool { return counter(b.w.metrics.RecordsConsumed) > 0 }, waitFor, 10*time.Millisecond,
		"the second member got partitions")
	a.stop()
	produceRange(300, 400)
	waitCommitted(t, brokers)
	checkExact(t, store, lake, want)
	require.Len(t, want, 400)
}

func TestPoisonRecordsGoToDeadLetters(t *testing.T) {
	brokers := testkit.Cluster(t, 1)
	prod := testkit.Producer(t, brokers)
	store, lake := testkit.NewStore(), testkit.NewLake()

	newer := testkit.Envelope("o1", "v99")
	newer.SchemaVersion = 99
	mismatch := testkit.Record(t, testkit.Envelope("o1", "real-id"))
	mismatch.Key = []byte("o1/other-id")
	recs := produced(t, prod, []*kgo.Record{
		testkit.Record(t, testkit.Envelope("o1", "ok-0")),
		{Topic: topics.Traces, Key: []byte("o1/garbage"), Value: []byte("not json")},
		testkit.Record(t, testkit.Envelope("o1", "ok-1")),
		mismatch,
		testkit.Record(t, newer),
		testkit.Record(t, testkit.Envelope("o1", "ok-2")),
	})
	s := start(t, brokers, Config{FlushRows: 100}, store, lake)
	waitCommitted(t, brokers)

	checkExact(t, store, lake, map[string]*kgo.Record{"o1/ok-0": recs[0], "o1/ok-1": recs[2], "o1/ok-2": recs[5]})
	require.Equal(t, 3.0, counter(s.w.metrics.DeadLetters))

	dl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topics.DeadLetter))
	require.NoError(t, err)
	defer dl.Close()
	var got []*kgo.Record
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		got = append(got, dl.PollFetches(ctx).Records()...)
		return len(got) >= 3
	}, waitFor, time.Millisecond)
	require.Len(t, got, 3)
	header := func(r *kgo.Record, k string) string {
		for _, h := range r.Headers {
			if h.Key == k {
				return string(h.Value)
			}
		}
		return ""
	}
	for i, want := range []struct {
		offset int64
		reason string
	}{{1, "decode envelope"}, {3, "is not org_id/request_id"}, {4, "unsupported envelope schema_version 99"}} {
		require.Equal(t, recs[want.offset].Value, got[i].Value)
		require.Equal(t, strconv.FormatInt(want.offset, 10), header(got[i], "source_offset"))
		require.Contains(t, header(got[i], "error"), want.reason)
	}
}

func TestSimpleEventsAreAnalysedAndSinkErrorsRetried(t *testing.T) {
	brokers := testkit.Cluster(t, 1)
	prod := testkit.Producer(t, brokers)
	store, lake := testkit.NewStore(), testkit.NewLake()
	store.FailWrites = 3

	simple := testkit.Envelope("o1", "simple-1")
	simple.Kind = schemas.KindSimpleEvent
	simple.Trace.Prompt = "write to ann@example.com"
	simple.Trace.RiskScore = ptr(0.99) // a caller's value is ignored for the simple form
	canonical := testkit.Envelope("o1", "canonical-1")
	canonical.Trace.Prompt = "ann@example.com"
	recs := produced(t, prod, []*kgo.Record{testkit.Record(t, simple), testkit.Record(t, canonical)})

	s := start(t, brokers, Config{}, store, lake)
	waitCommitted(t, brokers)
	checkExact(t, store, lake, map[string]*kgo.Record{"o1/simple-1": recs[0], "o1/canonical-1": recs[1]})
	rows := store.Rows()
	got := rows["o1/simple-1"].Trace
	require.NotNil(t, got.RiskScore)
	require.Greater(t, *got.RiskScore, 0.0, "the analysis stage scored the simple event, ignoring the caller's 0.99")
	require.Less(t, *got.RiskScore, 0.99)
	require.Len(t, got.PolicyHits, 1)
	require.Equal(t, "pii.email", got.PolicyHits[0].Policy)
	require.Equal(t, []schemas.Span{{Start: 9, End: 24}}, got.PolicyHits[0].Spans)
	require.Nil(t, rows["o1/canonical-1"].Trace.RiskScore, "canonical traces keep the caller's values")
	require.Equal(t, int64(7), got.TotalTokens, "derived")
	require.GreaterOrEqual(t, counter(s.w.metrics.FlushErrors.WithLabelValues("store")), 3.0)
}

func ptr[T any](v T) *T { return &v }

// testLog sends the writer's log to the test's log (shown on failure or -v).
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Helper()
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// counter reads a counter's value.
func counter(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

func TestConfigValidate(t *testing.T) {
	ok := Config{Kafka: topics.Config{Brokers: []string{"127.0.0.1:9092"}}}
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{name: "defaults", mutate: func(*Config) {}},
		{name: "no brokers", mutate: func(c *Config) { c.Kafka.Brokers = nil }, wantErr: "Brokers"},
		{name: "buffer below a chunk", mutate: func(c *Config) { c.FlushRows, c.MaxBufferedRecords = 10, 5 }, wantErr: "MaxBufferedRecords"},
		{name: "writes outlast rebalance", mutate: func(c *Config) { c.WriteTimeout = 40 * time.Second }, wantErr: "RebalanceTimeout"},
		{name: "backoff range", mutate: func(c *Config) { c.RetryBackoffMin, c.RetryBackoffMax = time.Second, time.Millisecond }, wantErr: "backoff"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.mutate(&c)
			err := c.Validate()
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
	_, err := New(ok, Deps{})
	require.ErrorContains(t, err, "Store and Lake are required")
}

// TestFetchWaitsForRecords: the consumer's fetches wait for records instead
// of returning at the first new one (kgo's default, FetchMinBytes 1): in the
// one-process serve a fetch per produced record cost the reader ~47k
// instructions a record, batched ~13k (BenchmarkProduceConsume,
// docs/benchmarks.md). The wait stays far inside FlushInterval's freshness.
func TestFetchWaitsForRecords(t *testing.T) {
	w, err := New(Config{Kafka: topics.Config{Brokers: []string{"127.0.0.1:1"}}},
		Deps{Store: testkit.NewStore(), Lake: testkit.NewLake(), Registerer: prometheus.NewRegistry()})
	require.NoError(t, err)
	cl, err := kgo.NewClient(w.clientOpts(&run{})...)
	require.NoError(t, err)
	defer cl.Close()
	require.Equal(t, int32(256<<10), cl.OptValue(kgo.FetchMinBytes))
	require.Equal(t, 50*time.Millisecond, cl.OptValue(kgo.FetchMaxWait))
	require.Less(t, cl.OptValue(kgo.FetchMaxWait).(time.Duration), DefaultFlushInterval)
}
