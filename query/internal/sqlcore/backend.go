// Package sqlcore is the dialect-independent half of the SQL query stores:
// the trace column layout and its encoding, row scanning, cursors, filter
// building, the owner computation of WriteTraces and the migration runner.
// query/sqlite and query/postgres supply a Backend (their driver) and a
// Dialect (the few SQL fragments that truly differ).
package sqlcore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Querier runs statements. Queries are written with '?' placeholders; the
// Store rebinds them for the dialect before they reach a Querier.
type Querier interface {
	// Exec runs a statement and returns the number of rows it affected.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Rows is the common subset of *sql.Rows and pgx.Rows.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// Backend is a database connection as the Store needs it.
type Backend interface {
	// Reader runs read-only statements outside any transaction.
	Reader() Querier
	// WriteTx runs fn in one read-write transaction and commits it when fn
	// returns nil. It returns nil only after the commit is durable.
	WriteTx(ctx context.Context, fn func(q Querier) error) error
}

// Dialect is what differs between the SQL engines.
type Dialect struct {
	// Dollar rebinds '?' placeholders to $1, $2, ... (PostgreSQL).
	Dollar bool
	// TimeArg encodes a timestamp argument; NullTime must scan it back.
	TimeArg func(t time.Time) any
	// MetadataMatch returns a predicate (with '?' placeholders) and its
	// arguments, true when the top-level metadata key
	// bound at keyPH has the text value bound at valPH.
	MetadataMatch func(key, value string) (string, []any)
	// EpochBucket returns an integer expression: the timestamp column col
	// in whole multiples of seconds since the Unix epoch (floor).
	EpochBucket func(col string, seconds int64) string
	// IsUniqueViolation reports whether err is a unique-constraint violation.
	IsUniqueViolation func(err error) bool
	// ExistingIDsSQL selects the request_id of the traces of one
	// organisation whose id is in a list, probing the primary key per id.
	// Its arguments are the list (encoded by IDList) and the org_id. The
	// list is one argument so the statement text never depends on its size.
	ExistingIDsSQL string
	IDList         func(ids []string) (any, error)
	// ArrayTypes, when set, is the SQL element type of each trace column
	// (traceColumns order; "jsonb" columns travel as text and are cast):
	// WriteTraces then sends each batch as one array per column through
	// unnest (PostgreSQL), not as a multi-row VALUES list.
	ArrayTypes map[string]string
	// MaxParams bounds the bound parameters of one statement.
	MaxParams int
	// NoNUL: the engine rejects NUL characters in text and JSON
	// (PostgreSQL). They are stored as U+FFFD instead, so one such trace
	// cannot make its whole chunk fail forever.
	NoNUL bool
}

// Rebind turns '?' placeholders into the dialect's. Our statements never
// hold a literal '?', so a plain scan is exact.
func (d *Dialect) Rebind(q string) string {
	if !d.Dollar || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + len(q)/4)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// NullTime scans a timestamp stored either as integer microseconds since the
// Unix epoch (SQLite) or as a native timestamp (PostgreSQL); NULL leaves
// Valid false. Times come back in UTC.
type NullTime struct {
	Time  time.Time
	Valid bool
}

// Scan implements sql.Scanner.
func (n *NullTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		n.Time, n.Valid = time.Time{}, false
	case int64:
		n.Time, n.Valid = time.UnixMicro(v).UTC(), true
	case time.Time:
		n.Time, n.Valid = v.UTC(), true
	default:
		return errors.New("sqlcore: unsupported timestamp type")
	}
	return nil
}

// Ptr returns nil for NULL, else a pointer to the time.
func (n NullTime) Ptr() *time.Time {
	if !n.Valid {
		return nil
	}
	t := n.Time
	return &t
}

// TruncTime drops sub-microsecond precision and the zone: what both engines
// keep of a timestamp.
func TruncTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// MicrosArg encodes a timestamp as integer microseconds (SQLite).
func MicrosArg(t time.Time) any { return t.UnixMicro() }

// NativeTimeArg encodes a timestamp as a UTC time truncated to microseconds
// (PostgreSQL rounds otherwise, and SQLite truncates: keep both equal).
func NativeTimeArg(t time.Time) any { return TruncTime(t) }
