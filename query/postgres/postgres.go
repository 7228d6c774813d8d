// Package postgres is the scaled query store: query.Store on PostgreSQL
// through a pgx v5 connection pool. Any number of gateway processes may
// share one database; schema migrations serialise on an advisory lock.
package postgres

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/internal/sqlcore"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLockID is the pg_advisory_xact_lock key held while migrating
// (an arbitrary constant: the ASCII of "gwquery").
const migrationLockID int64 = 0x67777175657279

var dialect = &sqlcore.Dialect{
	Dollar:        true,
	TimeArg:       sqlcore.NativeTimeArg,
	MetadataMatch: metadataMatch,
	EpochBucket: func(col string, seconds int64) string {
		return "floor(extract(epoch from " + col + ") / " + strconv.FormatInt(seconds, 10) + ")::bigint"
	},
	IsUniqueViolation: func(err error) bool {
		var e *pgconn.PgError
		return errors.As(err, &e) && e.Code == "23505"
	},
	// One text[] argument: one statement text for any number of ids.
	ExistingIDsSQL: `SELECT request_id FROM traces WHERE org_id = $2 AND request_id = ANY($1::text[])`,
	IDList:         func(ids []string) (any, error) { return ids, nil },
	// A chunk travels as one array per column: one statement, no 30-column
	// VALUES list for the server to parse and plan per 200 rows.
	ArrayTypes: map[string]string{
		"org_id": "text", "request_id": "text", "app_id": "text", "parent_request_id": "text", "mode": "text",
		"started_at": "timestamptz", "finished_at": "timestamptz", "provider": "text", "model": "text", "use_case": "text",
		"team_id": "text", "integration_id": "text", "end_user_id": "text", "user_id": "text", "session_id": "text",
		"prompt_tokens": "bigint", "completion_tokens": "bigint", "total_tokens": "bigint", "cost_usd": "float8", "latency_ms": "bigint",
		"status": "text", "final_decision": "text", "risk_score": "float8", "policy_hits": "jsonb", "prompt": "text",
		"answer": "text", "metadata": "jsonb", "received_at": "timestamptz", "log_partition": "integer", "log_offset": "bigint",
	},
	MaxParams: 65535,
	NoNUL:     true,
}

// Store is query.Store on PostgreSQL. Safe for concurrent use.
type Store struct {
	*sqlcore.Store
	pool *pgxpool.Pool
}

var _ query.Store = (*Store)(nil)

// Open connects to databaseURL (a postgres:// URL or key=value DSN; pool
// settings such as pool_max_conns are honoured) and brings the schema up to
// date. Safe when several processes open the same database at once.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres pool: %w", err)
	}
	s := &Store{pool: pool}
	s.Store = sqlcore.New(s, dialect, 0)

	migrations, err := sqlcore.LoadMigrations(migrationFS, "migrations")
	if err == nil {
		err = s.WriteTx(ctx, func(q sqlcore.Querier) error {
			if _, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockID); err != nil {
				return fmt.Errorf("take migration lock: %w", err)
			}
			return sqlcore.Migrate(ctx, q, dialect, migrations)
		})
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrate postgres store: %w", err)
	}
	return s, nil
}

// Reader implements sqlcore.Backend.
func (s *Store) Reader() sqlcore.Querier { return querier{s.pool} }

// WriteTx implements sqlcore.Backend: one READ COMMITTED transaction,
// committed before it returns nil (durable under PostgreSQL's default
// synchronous_commit).
func (s *Store) WriteTx(ctx context.Context, fn func(q sqlcore.Querier) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return fn(querier{tx}) })
}

// Ping implements query.Store.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping postgres store: %w", err)
	}
	return nil
}

// Close implements query.Store.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// pgxQuerier is what *pgxpool.Pool and pgx.Tx share.
type pgxQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

type querier struct{ q pgxQuerier }

func (q querier) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := q.q.Exec(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (q querier) Query(ctx context.Context, sql string, args ...any) (sqlcore.Rows, error) {
	rows, err := q.q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return rowsAdapter{rows}, nil
}

// rowsAdapter gives pgx.Rows the error-returning Close of sqlcore.Rows.
type rowsAdapter struct{ pgx.Rows }

func (r rowsAdapter) Close() error {
	r.Rows.Close()
	return r.Rows.Err()
}

// metadataMatch is "metadata ->> key = value" written so the GIN index of
// migration 0005 can answer it: containment of {key: value} as a string,
// which alone is exact unless value is itself JSON text (a number, true,
// an object...): then also containment of {key: <that JSON>}, and the text
// comparison removes what containment over-matches (3 for "3.0", a larger
// object). The documents are built here, so each is one constant argument.
func metadataMatch(key, value string) (string, []any) {
	asString, _ := json.Marshal(map[string]string{key: value})
	if !json.Valid([]byte(value)) {
		return `metadata @> ?::jsonb`, []any{string(asString)}
	}
	asJSON, _ := json.Marshal(map[string]json.RawMessage{key: json.RawMessage(value)})
	return `(metadata @> ?::jsonb OR metadata @> ?::jsonb) AND metadata ->> (?::text) = ?::text`,
		[]any{string(asString), string(asJSON), key, value}
}
