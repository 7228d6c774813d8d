package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/querytest"
)

// TestWriteTracesStatementShapes: chunks of every size from 1 to 150 rows,
// half of each already stored (so the owner look-ups run too), leave a
// handful of statement texts for the write connection to cache, not one
// per row count: with one per count the cache (maxCachedStmts) fills up and
// every later size is parsed again on each use. Owners stay exact.
func TestWriteTracesStatementShapes(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "gateway.db"))
	require.NoError(t, err)
	defer s.Close()
	next := int64(0)
	for n := 1; n <= 150; n++ {
		rows := querytest.BenchRows(n, next)
		next += int64(n)
		if old := rows[:n/2]; len(old) > 0 {
			_, err := s.WriteTraces(ctx, query.Chunk{Topic: querytest.Topic, FirstOffset: old[0].Offset, LastOffset: old[len(old)-1].Offset}, old)
			require.NoError(t, err)
		}
		// The same ids at later positions: only the fresh half is owned.
		resent := querytest.BenchRows(n, next-int64(n))
		for i := range resent {
			resent[i].Offset += 1 << 40
		}
		owner, err := s.WriteTraces(ctx, query.Chunk{Topic: querytest.Topic, FirstOffset: resent[0].Offset, LastOffset: resent[n-1].Offset}, resent)
		require.NoError(t, err)
		for i := range owner {
			require.Equal(t, i >= n/2, owner[i], "size %d row %d", n, i)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	inserts := 0
	for q := range s.stmts {
		if strings.HasPrefix(q, "INSERT INTO traces") || strings.HasPrefix(q, "SELECT org_id, request_id, log_partition") {
			inserts++
		}
	}
	require.LessOrEqual(t, inserts, 14, "trace insert and owner look-up texts: 64 rows and the powers of two below, each")
	require.Less(t, len(s.stmts), maxCachedStmts/2, "room left in the statement cache")
}
