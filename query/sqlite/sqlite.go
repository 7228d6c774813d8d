// Package sqlite is the embedded query store: query.Store on a SQLite file
// (modernc.org/sqlite, pure Go). One connection writes (SQLite has a single
// writer; serialising in-process avoids lock contention and SQLITE_BUSY), a
// separate read-only pool serves the console, and WAL lets reads proceed
// while a write transaction runs.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/query/internal/sqlcore"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// maxCachedStmts bounds the write connection's prepared statements: the
// fixed statements plus the multi-row INSERT shapes of WriteTraces.
const maxCachedStmts = 64

// maxCachedReads bounds the read pool's prepared statements: the fixed
// look-ups plus the ListTraces shapes (one per combination of filters in use).
const maxCachedReads = 128

var dialect = &sqlcore.Dialect{
	TimeArg: sqlcore.MicrosArg,
	// json_each binds the key as a value, so keys with dots, quotes or
	// brackets need no JSON-path quoting. Values compare as their text:
	// strings unquoted, true/false as words, numbers as SQLite prints them.
	MetadataMatch: func(key, value string) (string, []any) {
		return `EXISTS (SELECT 1 FROM json_each(traces.metadata) AS m WHERE m.key = ?` +
			` AND (CASE m.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(m.value AS TEXT) END) = ?)`, []any{key, value}
	},
	// Timestamps are integer microseconds: integer division floors (all
	// our times are after 1970).
	EpochBucket: func(col string, seconds int64) string {
		return "(" + col + " / " + strconv.FormatInt(seconds*1_000_000, 10) + ")"
	},
	IsUniqueViolation: func(err error) bool {
		var e *sqlite.Error
		if !errors.As(err, &e) {
			return false
		}
		return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	},
	// One JSON array argument. CROSS JOIN fixes the loop order (SQLite has
	// no statistics to choose it): one primary key probe per array element,
	// without the temporary b-tree "request_id IN (SELECT ...)" builds first.
	ExistingIDsSQL: `SELECT t.request_id FROM json_each(?) AS j CROSS JOIN traces AS t
		WHERE t.org_id = ? AND t.request_id = j.value`,
	IDList: func(ids []string) (any, error) {
		b, err := json.Marshal(ids)
		return string(b), err
	},
	MaxParams: 32766,
}

// Store is query.Store on SQLite. Safe for concurrent use.
type Store struct {
	*sqlcore.Store
	w, r *sql.DB

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // prepared on w, reused by every write transaction
	reads map[string]*sql.Stmt // prepared on r (per pooled connection, lazily)
}

var _ query.Store = (*Store)(nil)

// Open opens (creating if needed) the SQLite database at path and brings its
// schema up to date. Commits are durable on return (WAL, synchronous=FULL).
// Several processes may open the same file; writes are serialised by SQLite.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || path == ":memory:" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open sqlite store: path %q must be a plain file path", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}
	common := url.Values{}
	common.Set("_busy_timeout", "10000")
	common.Set("_foreign_keys", "1")

	wq := url.Values{}
	for k, v := range common {
		wq[k] = v
	}
	wq.Set("_journal_mode", "WAL")
	wq.Set("_synchronous", "FULL")
	wq.Set("_txlock", "immediate") // take the write lock at BEGIN: no upgrade deadlocks
	wq.Add("_pragma", "temp_store(MEMORY)")
	// 16 MiB of page cache and 64 MiB of memory-mapped reads: mapped pages
	// count in the process's RSS, and the embedded service's memory budget
	// (docs/benchmarks.md) matters more than the last percent of reads.
	wq.Add("_pragma", "cache_size(-16384)")
	wq.Add("_pragma", "mmap_size(67108864)")
	w, err := sql.Open("sqlite", "file:"+path+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite writer: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)

	rq := url.Values{}
	for k, v := range common {
		rq[k] = v
	}
	rq.Set("_query_only", "1")
	r, err := sql.Open("sqlite", "file:"+path+"?"+rq.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite readers: %w", err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)

	s := &Store{w: w, r: r, stmts: map[string]*sql.Stmt{}, reads: map[string]*sql.Stmt{}}
	s.Store = sqlcore.New(s, dialect, 0)

	migrations, err := sqlcore.LoadMigrations(migrationFS, "migrations")
	if err == nil {
		// BEGIN IMMEDIATE serialises concurrent openers across processes.
		// A brand-new file can still answer SQLITE_BUSY without waiting
		// while another opener switches it to WAL: retry for a while.
		for attempt := 1; ; attempt++ {
			err = s.writeTx(ctx, false, func(q sqlcore.Querier) error { return sqlcore.Migrate(ctx, q, dialect, migrations) })
			if err == nil || attempt == 100 || !strings.Contains(err.Error(), "SQLITE_BUSY") || ctx.Err() != nil {
				break
			}
			time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
		}
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("migrate sqlite store %s: %w", path, err)
	}
	return s, nil
}

// Reader implements sqlcore.Backend: the read-only pool, with statements
// prepared once and reused (parsing a statement costs as much as running a
// small one).
func (s *Store) Reader() sqlcore.Querier { return readQuerier{s} }

// WriteTx implements sqlcore.Backend: one BEGIN IMMEDIATE transaction on the
// write connection, committed (and fsynced) before it returns nil.
func (s *Store) WriteTx(ctx context.Context, fn func(q sqlcore.Querier) error) error {
	return s.writeTx(ctx, true, fn)
}

// writeTx runs fn in a write transaction; cache says whether statements run
// in it are worth preparing for later transactions (not one-off DDL).
func (s *Store) writeTx(ctx context.Context, cache bool, fn func(q sqlcore.Querier) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	q := &txQuerier{s: s, tx: tx, cache: cache}
	if err := fn(q); err != nil {
		_ = tx.Rollback()
		s.prepare(q.missed)
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	s.prepare(q.missed)
	return nil
}

// prepare caches statements a transaction ran unprepared. It runs after the
// transaction because the single write connection is busy during it.
func (s *Store) prepare(queries []string) {
	for _, q := range queries {
		s.mu.Lock()
		_, ok := s.stmts[q]
		full := len(s.stmts) >= maxCachedStmts
		s.mu.Unlock()
		if ok || full {
			continue
		}
		st, err := s.w.Prepare(q)
		if err != nil {
			continue // the statement still runs unprepared next time
		}
		s.mu.Lock()
		if _, ok := s.stmts[q]; ok {
			st.Close()
		} else {
			s.stmts[q] = st
		}
		s.mu.Unlock()
	}
}

// Ping implements query.Store.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.r.PingContext(ctx); err != nil {
		return fmt.Errorf("ping sqlite store: %w", err)
	}
	return nil
}

// Close implements query.Store.
func (s *Store) Close() error {
	s.mu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	for _, st := range s.reads {
		st.Close()
	}
	s.stmts, s.reads = map[string]*sql.Stmt{}, map[string]*sql.Stmt{}
	s.mu.Unlock()
	return errors.Join(s.r.Close(), s.w.Close())
}

type readQuerier struct{ s *Store }

// readStmt returns q prepared on the read pool, or nil when the cache is
// full or preparing failed (the caller then runs q unprepared).
func (r readQuerier) readStmt(ctx context.Context, q string) *sql.Stmt {
	s := r.s
	s.mu.Lock()
	st, full := s.reads[q], len(s.reads) >= maxCachedReads
	s.mu.Unlock()
	if st != nil || full {
		return st
	}
	st, err := s.r.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.reads[q]; old != nil {
		st.Close()
		return old
	}
	s.reads[q] = st
	return st
}

func (r readQuerier) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := r.s.r.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (r readQuerier) Query(ctx context.Context, q string, args ...any) (sqlcore.Rows, error) {
	if st := r.readStmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return r.s.r.QueryContext(ctx, q, args...)
}

type txQuerier struct {
	s      *Store
	tx     *sql.Tx
	cache  bool
	missed []string
	local  map[string]*sql.Stmt // prepared in this transaction, closed with it
}

// stmt returns q prepared for this transaction: from the store's cache, or
// prepared now (and kept for the rest of the transaction) when q is a
// cacheable statement seen for the first time.
func (t *txQuerier) stmt(ctx context.Context, q string) *sql.Stmt {
	if st := t.local[q]; st != nil {
		return st
	}
	t.s.mu.Lock()
	st := t.s.stmts[q]
	t.s.mu.Unlock()
	if st != nil {
		return t.tx.StmtContext(ctx, st)
	}
	if !t.cache {
		return nil
	}
	t.missed = append(t.missed, q)
	st, err := t.tx.PrepareContext(ctx, q)
	if err != nil {
		return nil // run it unprepared; the error, if real, surfaces there
	}
	if t.local == nil {
		t.local = map[string]*sql.Stmt{}
	}
	t.local[q] = st
	return st
}

func (t *txQuerier) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	var (
		res sql.Result
		err error
	)
	if st := t.stmt(ctx, q); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = t.tx.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *txQuerier) Query(ctx context.Context, q string, args ...any) (sqlcore.Rows, error) {
	if st := t.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, q, args...)
}
