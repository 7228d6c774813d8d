package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/sync/errgroup"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/postgres"
	"github.com/governance-gateway/gateway/query/querytest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// databaseURL returns DATABASE_URL, or skips (fails under
// GATEWAY_REQUIRE_REAL=1) when it is not set.
func databaseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("DATABASE_URL")
	if u == "" {
		if os.Getenv("GATEWAY_REQUIRE_REAL") == "1" {
			t.Fatal("GATEWAY_REQUIRE_REAL=1 but DATABASE_URL is not set")
		}
		t.Skip("DATABASE_URL not set: PostgreSQL conformance runs in the real lane (.ci/run)")
	}
	return u
}

// withSearchPath points a connection string at schema.
func withSearchPath(t testing.TB, dsn, schema string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		require.NoError(t, err)
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}

// freshSchema creates an empty schema, dropped when the test ends, and
// returns a connection string pointing at it, so runs (and subtests) never
// see each other's rows.
func freshSchema(t testing.TB) string {
	t.Helper()
	dsn := databaseURL(t)
	ctx := context.Background()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "gwtest_" + hex.EncodeToString(b)

	admin, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	_, err = admin.Exec(ctx, "CREATE SCHEMA "+schema)
	require.NoError(t, err)
	require.NoError(t, admin.Close(ctx))
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Errorf("drop test schema: %v", err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop test schema: %v", err)
		}
	})
	return withSearchPath(t, dsn, schema)
}

func open(t testing.TB) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), freshSchema(t))
	require.NoError(t, err)
	return s
}

func TestConformance(t *testing.T) {
	databaseURL(t)
	querytest.Run(t, func(t *testing.T) query.Store { return open(t) })
}

// TestConcurrentOpen opens one empty schema from several stores at once, as
// several processes starting together would: every open succeeds and each
// migration is applied exactly once.
func TestConcurrentOpen(t *testing.T) {
	dsn := freshSchema(t)
	const n = 5
	stores := make([]*postgres.Store, n)
	var g errgroup.Group
	for i := range stores {
		g.Go(func() (err error) {
			stores[i], err = postgres.Open(context.Background(), dsn)
			return err
		})
	}
	require.NoError(t, g.Wait())
	c, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer c.Close(context.Background())
	var applied, distinct int
	require.NoError(t, c.QueryRow(context.Background(),
		"SELECT count(*), count(DISTINCT version) FROM schema_migrations").Scan(&applied, &distinct))
	require.Equal(t, distinct, applied)
	require.Positive(t, applied)
	for _, s := range stores {
		require.NoError(t, s.Ping(context.Background()))
		require.NoError(t, s.Close())
	}
}

func BenchmarkWriteTraces(b *testing.B) {
	s := open(b)
	defer s.Close()
	querytest.BenchWriteTraces(b, s)
}

// BenchmarkWriteTracesVaried: chunks of 20 to 219 rows, sizes cycling.
func BenchmarkWriteTracesVaried(b *testing.B) {
	s := open(b)
	defer s.Close()
	querytest.BenchWriteTracesVaried(b, s)
}

// BenchmarkExistingRequestIDs: one POST /v1/events resend check (500 ids, half stored).
func BenchmarkExistingRequestIDs(b *testing.B) {
	s := open(b)
	defer s.Close()
	querytest.BenchExistingRequestIDs(b, s)
}

// TestKPIBackfill: the kpi_hourly migration's backfill over existing traces
// gives the KPIs the write path maintains.
func TestKPIBackfill(t *testing.T) {
	dsn := freshSchema(t)
	s, err := postgres.Open(context.Background(), dsn)
	require.NoError(t, err)
	defer s.Close()
	querytest.KPIBackfill(t, s, func(t *testing.T) {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, dsn)
		require.NoError(t, err)
		defer c.Close(ctx)
		// The session time zone must not matter.
		_, err = c.Exec(ctx, `SET TIME ZONE 'Asia/Kolkata'`)
		require.NoError(t, err)
		_, err = c.Exec(ctx, `DELETE FROM kpi_hourly`)
		require.NoError(t, err)
		_, err = c.Exec(ctx, querytest.KPIBackfillSQL(t, "migrations/0006_kpi_hourly.sql"))
		require.NoError(t, err)
	})
}
