package tracewriter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/processors/internal/testkit"
	"github.com/governance-gateway/gateway/processors/lake"
	"github.com/governance-gateway/gateway/processors/rebuild"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/sqlite"
	"github.com/governance-gateway/gateway/topics"
)

// failingLake fails every write: a crash after the store write, before the commit.
type failingLake struct{}

func (failingLake) WriteChunk(context.Context, query.Chunk, []query.TraceRow) error {
	return fmt.Errorf("disk full")
}

// End to end with the real SQLite store and Parquet lake writer: a crash
// between the store write and the commit, a replay by a writer with other
// limits, then a rebuild over the same store and lake: every id exactly once
// in both sinks, the lake's files named by the store's chunks, and the
// replayed files byte-identical.
func TestEndToEndSQLiteAndLake(t *testing.T) {
	ctx := context.Background()
	brokers := testkit.Cluster(t, 2)
	prod := testkit.Producer(t, brokers)
	dir := t.TempDir()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "query.db"))
	require.NoError(t, err)
	defer store.Close()
	lw, err := lake.NewWriter(lake.Config{Dir: filepath.Join(dir, "lake")})
	require.NoError(t, err)

	var recs []*kgo.Record
	for i := range 60 {
		recs = append(recs, testkit.Record(t, testkit.Envelope("org-a", fmt.Sprintf("req-%d", i%50))))
	}
	testkit.Produce(t, prod, recs...)
	first := map[string]*kgo.Record{}
	for _, r := range recs {
		if cur, ok := first[string(r.Key)]; !ok || r.Offset < cur.Offset {
			first[string(r.Key)] = r
		}
	}

	s1 := start(t, brokers, Config{FlushRows: 6, FlushInterval: time.Hour}, store, failingLake{})
	require.Eventually(t, func() bool {
		n := 0
		for p := range int32(2) {
			c, err := store.Chunks(ctx, topics.Traces, p, 0)
			require.NoError(t, err)
			n += len(c)
		}
		return n == 2
	}, waitFor, 10*time.Millisecond)
	s1.stop()

	start(t, brokers, Config{FlushRows: 1000}, store, lw)
	waitCommitted(t, brokers)

	// The store: exactly the first position of each id.
	page, _, err := store.ListTraces(ctx, "org-a", query.TraceFilter{Limit: 1000})
	require.NoError(t, err)
	require.Len(t, page, 50)
	for _, row := range page {
		want := first["org-a/"+row.Trace.RequestID]
		require.Equal(t, want.Partition, row.Partition)
		require.Equal(t, want.Offset, row.Offset)
	}

	// The lake: files named by the recorded chunks, each id once.
	var chunks []query.Chunk
	for p := range int32(2) {
		c, err := store.Chunks(ctx, topics.Traces, p, 0)
		require.NoError(t, err)
		require.Len(t, c, 2, "the replayed 6-record chunk and one fresh chunk")
		require.Equal(t, int64(5), c[0].LastOffset-c[0].FirstOffset)
		chunks = append(chunks, c...)
	}
	files, err := lake.Files(filepath.Join(dir, "lake"))
	require.NoError(t, err)
	require.Len(t, files, len(chunks))
	seen := map[string]int{}
	before := map[string][]byte{}
	for i, f := range files {
		require.Equal(t, chunks[i].Partition, f.Partition)
		require.Equal(t, chunks[i].FirstOffset, f.FirstOffset)
		require.Equal(t, chunks[i].LastOffset, f.LastOffset)
		rows, err := lake.ReadFile(f.Path)
		require.NoError(t, err)
		for _, r := range rows {
			seen[r.Trace.RequestID]++
		}
		before[f.Path], err = os.ReadFile(f.Path)
		require.NoError(t, err)
	}
	require.Len(t, seen, 50)
	for id, n := range seen {
		require.Equal(t, 1, n, id)
	}

	// A rebuild over the same store and lake rewrites the same bytes.
	st, err := rebuild.Rebuild(ctx, rebuild.Config{Kafka: topics.Config{Brokers: brokers}, FlushRows: 7}, rebuild.Deps{Store: store, Lake: lw})
	require.NoError(t, err)
	require.Equal(t, int64(60), st.Records)
	require.Equal(t, int64(50), st.Rows)
	after, err := lake.Files(filepath.Join(dir, "lake"))
	require.NoError(t, err)
	require.Equal(t, files, after)
	for _, f := range after {
		b, err := os.ReadFile(f.Path)
		require.NoError(t, err)
		require.Equal(t, before[f.Path], b, f.Path)
	}
}
