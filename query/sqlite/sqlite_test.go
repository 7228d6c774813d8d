package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/sync/errgroup"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/querytest"
	"github.com/governance-gateway/gateway/query/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func open(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "sub", "gateway.db"))
	require.NoError(t, err)
	return s
}

func TestConformance(t *testing.T) {
	querytest.Run(t, func(t *testing.T) query.Store { return open(t) })
}

// TestConcurrentOpen opens one new database file from several stores at
// once, as several processes starting together would: every open succeeds
// and each migration is applied exactly once.
func TestConcurrentOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	const n = 5
	stores := make([]*sqlite.Store, n)
	var g errgroup.Group
	for i := range stores {
		g.Go(func() (err error) {
			stores[i], err = sqlite.Open(context.Background(), path)
			return err
		})
	}
	require.NoError(t, g.Wait())
	for _, s := range stores {
		require.NoError(t, s.Ping(context.Background()))
		require.NoError(t, s.Close())
	}
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	var applied, distinct int
	require.NoError(t, db.QueryRow("SELECT count(*), count(DISTINCT version) FROM schema_migrations").Scan(&applied, &distinct))
	require.Equal(t, distinct, applied)
	require.Positive(t, applied)
}

// TestDurableAcrossReopen: what WriteTraces committed is there after the
// store is closed and opened again, and a replay still owns its rows.
func TestDurableAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.db")
	rows := querytest.BenchRows(10, 0)
	chunk := query.Chunk{Topic: querytest.Topic, FirstOffset: 0, LastOffset: 9}
	s, err := sqlite.Open(context.Background(), path)
	require.NoError(t, err)
	_, err = s.WriteTraces(context.Background(), chunk, rows)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s, err = sqlite.Open(context.Background(), path)
	require.NoError(t, err)
	defer s.Close()
	chunks, err := s.Chunks(context.Background(), querytest.Topic, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []query.Chunk{chunk}, chunks)
	owner, err := s.WriteTraces(context.Background(), chunk, rows)
	require.NoError(t, err)
	require.Equal(t, []bool{true, true, true, true, true, true, true, true, true, true}, owner)
}

// TestKPIBackfill: the kpi_hourly migration's backfill over existing traces
// gives the KPIs the write path maintains.
func TestKPIBackfill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.db")
	s, err := sqlite.Open(context.Background(), path)
	require.NoError(t, err)
	defer s.Close()
	querytest.KPIBackfill(t, s, func(t *testing.T) {
		db, err := sql.Open("sqlite", path)
		require.NoError(t, err)
		defer db.Close()
		_, err = db.Exec(`DELETE FROM kpi_hourly`)
		require.NoError(t, err)
		_, err = db.Exec(querytest.KPIBackfillSQL(t, "migrations/0005_kpi_hourly.sql"))
		require.NoError(t, err)
	})
}
