package lake

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// ReadFile reads one lake file back into trace rows, in file order (by log
// offset). Timestamps come back in UTC at microsecond precision and policy
// hits without spans (see schemas.LakeRowV1). A file of an unknown lake
// schema version is an error, never guessed at.
func ReadFile(path string) ([]query.TraceRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read lake file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read lake file %s: %w", path, err)
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("read lake file %s: %w", path, err)
	}
	v, ok := pf.Lookup(schemas.LakeSchemaVersionKey)
	if !ok {
		return nil, fmt.Errorf("read lake file %s: no %s metadata", path, schemas.LakeSchemaVersionKey)
	}
	if v != strconv.Itoa(schemas.LakeSchemaVersion) {
		return nil, fmt.Errorf("read lake file %s: unsupported lake schema version %q", path, v)
	}
	r := parquet.NewGenericReader[schemas.LakeRowV1](pf)
	defer r.Close()
	lrows := make([]schemas.LakeRowV1, pf.NumRows())
	n, err := r.Read(lrows)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read lake file %s: %w", path, err)
	}
	if n != len(lrows) {
		return nil, fmt.Errorf("read lake file %s: read %d of %d rows", path, n, len(lrows))
	}
	out := make([]query.TraceRow, n)
	for i := range lrows {
		out[i] = fromLakeRow(&lrows[i])
	}
	return out, nil
}

// File is one lake file, as named by its path.
type File struct {
	Path        string
	Date        string // YYYY-MM-DD
	Partition   int32
	FirstOffset int64
	LastOffset  int64
}

// Files lists the lake's trace files in a stable order: date, partition,
// first offset. Temporary files and foreign names are ignored. A missing
// lake is empty, not an error.
func Files(dir string) ([]File, error) {
	matches, err := filepath.Glob(filepath.Join(dir, TracesDir, "date=*", "part-*.parquet"))
	if err != nil {
		return nil, fmt.Errorf("list lake files: %w", err)
	}
	files := make([]File, 0, len(matches))
	for _, m := range matches {
		if f, ok := parseFileName(m); ok {
			files = append(files, f)
		}
	}
	slices.SortFunc(files, func(a, b File) int {
		return cmp.Or(strings.Compare(a.Date, b.Date), cmp.Compare(a.Partition, b.Partition),
			cmp.Compare(a.FirstOffset, b.FirstOffset), cmp.Compare(a.LastOffset, b.LastOffset))
	})
	return files, nil
}

// parseFileName parses .../date=YYYY-MM-DD/part-<p>-<first>-<last>.parquet.
func parseFileName(path string) (File, bool) {
	date, ok := strings.CutPrefix(filepath.Base(filepath.Dir(path)), "date=")
	if !ok {
		return File{}, false
	}
	base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "part-"), ".parquet")
	fields := strings.Split(base, "-")
	if len(fields) != 3 {
		return File{}, false
	}
	p, err1 := strconv.ParseInt(fields[0], 10, 32)
	first, err2 := strconv.ParseInt(fields[1], 10, 64)
	last, err3 := strconv.ParseInt(fields[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return File{}, false
	}
	return File{Path: path, Date: date, Partition: int32(p), FirstOffset: first, LastOffset: last}, true
}

// ReadDir reads every trace file of the lake at dir in Files order and calls
// fn once per file with its rows; it stops at the first error (fn's errors
// are returned unwrapped). Memory holds one file at a time, so it suits
// rebuilding the query store from a large lake.
func ReadDir(ctx context.Context, dir string, fn func(f File, rows []query.TraceRow) error) error {
	files, err := Files(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("read lake %s: %w", dir, err)
		}
		rows, err := ReadFile(f.Path)
		if err != nil {
			return err
		}
		if err := fn(f, rows); err != nil {
			return err
		}
	}
	return nil
}
