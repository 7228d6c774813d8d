package rebuild

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/governance-gateway/gateway/processors/internal/testkit"
	"github.com/governance-gateway/gateway/processors/tracewriter"
	"github.com/governance-gateway/gateway/topics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// transact produces recs in one transaction, committed or aborted.
func transact(t *testing.T, brokers []string, commit bool, recs []*kgo.Record) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.TransactionalID(fmt.Sprintf("tx-%v", commit)))
	require.NoError(t, err)
	defer cl.Close()
	ctx := context.Background()
	require.NoError(t, cl.BeginTransaction())
	require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
	require.NoError(t, cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)))
}

func TestRebuildFromLogEqualsLiveProjection(t *testing.T) {
	brokers := testkit.Cluster(t, 3)
	prod := testkit.Producer(t, brokers)
	var recs []*kgo.Record
	for i := range 50 {
		recs = append(recs, testkit.Record(t, testkit.Envelope("o1", fmt.Sprintf("id-%d", i%40)))) // 10 resends
	}
	recs = append(recs, &kgo.Record{Topic: topics.Traces, Key: []byte("o1/bad"), Value: []byte("{")})
	testkit.Produce(t, prod, recs...)
	var txn, aborted []*kgo.Record
	for i := range 5 {
		txn = append(txn, testkit.Record(t, testkit.Envelope("o2", fmt.Sprintf("tx-%d", i))))
		aborted = append(aborted, testkit.Record(t, testkit.Envelope("o2", fmt.Sprintf("aborted-%d", i))))
	}
	transact(t, brokers, true, txn)
	transact(t, brokers, false, aborted)
	last := testkit.Record(t, testkit.Envelope("o3", "after-abort"))
	testkit.Produce(t, prod, last)
	// The group commits last data record + 1 (never past trailing
	// transaction markers): that is what "all durable" looks like.
	want := map[int32]int64{}
	for _, r := range append(append(recs, txn...), last) {
		want[r.Partition] = max(want[r.Partition], r.Offset+1)
	}

	// The live projection, by the group consumer.
	live, liveLake := testkit.NewStore(), testkit.NewLake()
	w, err := tracewriter.New(tracewriter.Config{Kafka: topics.Config{Brokers: brokers}, FlushRows: 4, FlushInterval: 10 * time.Millisecond},
		tracewriter.Deps{Store: live, Lake: liveLake})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	adm := kadm.NewClient(prod)
	require.Eventually(t, func() bool {
		got, err := adm.FetchOffsets(context.Background(), topics.TraceWriterGroup)
		if err != nil {
			return false
		}
		for p, end := range want {
			if c, has := got.Lookup(topics.Traces, p); !has || c.At < end {
				return false
			}
		}
		return true
	}, 30*time.Second, 20*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	liveRows := live.Rows()
	require.Len(t, liveRows, 40+5+1)
	for k := range liveRows {
		require.NotContains(t, k, "aborted")
	}

	t.Run("fresh store", func(t *testing.T) {
		fresh := testkit.NewStore()
		st, err := Rebuild(context.Background(), Config{Kafka: topics.Config{Brokers: brokers}, FlushRows: 1000}, Deps{Store: fresh})
		require.NoError(t, err)
		require.Equal(t, liveRows, fresh.Rows())
		require.Equal(t, Stats{Records: 57, Chunks: st.Chunks, Rows: 46, DeadLetters: 1}, st)
	})

	t.Run("into the live store replays its chunks", func(t *testing.T) {
		chunks := live.AllChunks()
		lake := testkit.NewLake()
		_, err := Rebuild(context.Background(), Config{Kafka: topics.Config{Brokers: brokers}, FlushRows: 1000}, Deps{Store: live, Lake: lake})
		require.NoError(t, err)
		require.Equal(t, chunks, live.AllChunks(), "no new boundary")
		require.Equal(t, liveRows, live.Rows())
		require.Equal(t, liveLake.Files(), lake.Files(), "the same file names")
		for _, c := range lake.Files() {
			require.Equal(t, liveLake.File(c), lake.File(c))
		}
	})
}

func TestRebuildEmptyTopic(t *testing.T) {
	brokers := testkit.Cluster(t, 2)
	st, err := Rebuild(context.Background(), Config{Kafka: topics.Config{Brokers: brokers}}, Deps{Store: testkit.NewStore()})
	require.NoError(t, err)
	require.Equal(t, Stats{}, st)
}
