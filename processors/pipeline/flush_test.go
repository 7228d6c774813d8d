package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/processors/analyse"
	"github.com/governance-gateway/gateway/processors/internal/testkit"
	"github.com/governance-gateway/gateway/processors/pipeline"
	"github.com/governance-gateway/gateway/query"
)

func rec(t *testing.T, org, id string, offset int64) *kgo.Record {
	r := testkit.Record(t, testkit.Envelope(org, id))
	r.Partition, r.Offset = 0, offset
	return r
}

func TestFlusherResumesAndDedupes(t *testing.T) {
	store, lake := testkit.NewStore(), testkit.NewLake()
	m, err := pipeline.NewMetrics(nil)
	require.NoError(t, err)
	an, err := analyse.New(nil)
	require.NoError(t, err)
	f, err := pipeline.NewFlusher(pipeline.FlusherConfig{DedupeCacheEntries: 100}, store, lake, an, nil, m)
	require.NoError(t, err)
	defer f.Close()
	ctx := context.Background()
	chunk := func(first, last int64) query.Chunk {
		return query.Chunk{Topic: "gateway.traces.v1", Partition: 0, FirstOffset: first, LastOffset: last}
	}

	// A lake failure after the store write: the retry does not write the
	// store again, and the lake gets exactly the owners.
	lake.SetFail(true)
	b := f.Prepare(pipeline.Pending{Chunk: chunk(0, 2), Records: []*kgo.Record{rec(t, "o", "a", 0), rec(t, "o", "a", 1), rec(t, "o", "b", 2)}})
	require.ErrorIs(t, f.Write(ctx, b), pipeline.ErrLake)
	lake.SetFail(false)
	require.NoError(t, f.Write(ctx, b))
	require.Equal(t, 1, store.Calls)
	require.Len(t, b.Owned(), 2)
	require.Equal(t, int64(2), b.Last.Offset)

	// A resend in a later chunk is not owned; a replay of the first chunk is.
	b2 := f.Prepare(pipeline.Pending{Chunk: chunk(3, 3), Records: []*kgo.Record{rec(t, "o", "b", 3)}})
	require.NoError(t, f.Write(ctx, b2))
	require.Empty(t, b2.Owned())
	replay := f.Prepare(pipeline.Pending{Chunk: chunk(0, 2), Records: []*kgo.Record{rec(t, "o", "a", 0), rec(t, "o", "a", 1), rec(t, "o", "b", 2)}})
	require.NoError(t, f.Write(ctx, replay))
	require.Equal(t, b.Owned(), replay.Owned(), "a replay is not a duplicate of itself")
	require.Len(t, store.Rows(), 2)
	require.Equal(t, map[string]int{"o/a": 1, "o/b": 1}, lake.RowCounts())
}
