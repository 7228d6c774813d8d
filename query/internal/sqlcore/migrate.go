package sqlcore

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migration is one versioned schema step, loaded from NNNN_name.sql.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// LoadMigrations reads every *.sql file of dir in fsys, ordered by version.
func LoadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", e.Name())
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", other, e.Name(), v)
		}
		seen[v] = e.Name()
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Migrate applies, inside the caller's transaction, every migration newer
// than the recorded schema version. The caller holds the engine's lock
// (SQLite: BEGIN IMMEDIATE; PostgreSQL: an advisory lock), which makes
// concurrent opens of one database safe; applying is idempotent.
func Migrate(ctx context.Context, q Querier, d *Dialect, migrations []Migration) error {
	if _, err := q.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	rows, err := q.Query(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	var current int
	if rows.Next() {
		err = rows.Scan(&current)
	}
	if err == nil {
		err = rows.Err()
	}
	rows.Close()
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if n := len(migrations); n > 0 && current > migrations[n-1].Version {
		return fmt.Errorf("database schema version %d is newer than this binary knows (%d)", current, migrations[n-1].Version)
	}
	for _, m := range migrations {
		if m.Version <= current {
			continue
		}
		if _, err := q.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("apply migration %s: %w", m.Name, err)
		}
		if _, err := q.Exec(ctx, d.Rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
			m.Version, m.Name, time.Now().UnixMicro()); err != nil {
			return fmt.Errorf("record migration %s: %w", m.Name, err)
		}
	}
	return nil
}
