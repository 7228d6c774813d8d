// Package lake writes and reads the Parquet lake (DESIGN.md section 7): one
// file per (chunk, UTC date of received_at) under hive-style partitions
//
//	<Dir>/traces/date=YYYY-MM-DD/part-<partition>-<first offset>-<last offset>.parquet
//
// with rows laid out as schemas.LakeRowV1. File names and bytes are a pure
// function of the chunk and its rows, so a replay after a crash rewrites the
// same files with the same content and never adds a second copy of a row.
package lake

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// TracesDir is the lake sub-directory holding trace files.
const TracesDir = "traces"

// tempPrefix starts every temporary file name. The leading dot hides it from
// pyarrow/Spark dataset discovery and from "*.parquet" globs.
const tempPrefix = ".tmp-"

// Writer writes chunks to the lake. It is safe for concurrent use; concurrent
// calls for different partitions proceed in parallel.
type Writer struct {
	cfg       Config
	traces    string // <Dir>/traces
	codec     compress.Codec
	options   []parquet.WriterOption
	states    sync.Pool // *writeState
	knownDirs sync.Map  // date dir path -> struct{}: created and made durable
}

// writeState is the per-call scratch space, pooled so a steady stream of
// chunks reuses its output buffer and converted rows. The parquet writer
// itself is NOT reused: in parquet-go v0.32.0, GenericWriter.Reset after
// Close drops the column paths from the next file's footer
// (parquet-go/parquet-go#602).
type writeState struct {
	buf  bytes.Buffer
	rows []schemas.LakeRowV1
	part []schemas.LakeRowV1 // rows of one date when a chunk spans several
	hits []schemas.LakePolicyHitV1
	days []int64 // distinct UTC days of the chunk
}

// NewWriter validates cfg, creates <Dir>/traces durably and removes
// temporary files older than cfg.StaleTempAge left by a crashed writer.
func NewWriter(cfg Config) (*Writer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	w := &Writer{cfg: cfg, traces: filepath.Join(cfg.Dir, TracesDir)}
	switch cfg.Compression {
	case CompressionZstd:
		// Fastest level: the lake is write-heavy and zstd-fast still beats
		// snappy on size; the level is fixed so output stays deterministic.
		w.codec = &zstd.Codec{Level: zstd.SpeedFastest}
	case CompressionSnappy:
		w.codec = &snappy.Codec{}
	}
	if err := os.MkdirAll(w.traces, 0o755); err != nil {
		return nil, fmt.Errorf("open lake writer: %w", err)
	}
	for _, d := range []string{cfg.Dir, filepath.Dir(cfg.Dir)} {
		if err := syncDir(d); err != nil {
			return nil, fmt.Errorf("open lake writer: %w", err)
		}
	}
	if cfg.StaleTempAge > 0 {
		if err := w.removeStaleTemps(time.Now().Add(-cfg.StaleTempAge)); err != nil {
			return nil, fmt.Errorf("open lake writer: %w", err)
		}
	}
	w.options = []parquet.WriterOption{
		parquet.Compression(w.codec),
		parquet.MaxRowsPerRowGroup(cfg.RowGroupRows),
		parquet.KeyValueMetadata(schemas.LakeSchemaVersionKey, strconv.Itoa(schemas.LakeSchemaVersion)),
	}
	w.states.New = func() any { return new(writeState) }
	return w, nil
}

// FileName is the base name of a chunk's file in every date directory.
func FileName(chunk query.Chunk) string {
	return "part-" + strconv.FormatInt(int64(chunk.Partition), 10) + "-" +
		strconv.FormatInt(chunk.FirstOffset, 10) + "-" +
		strconv.FormatInt(chunk.LastOffset, 10) + ".parquet"
}

// WriteChunk writes rows, the lake output of chunk, as one file per UTC date
// of Trace.ReceivedAt, rows ordered by log offset. It returns nil only after
// every file is fsynced and renamed into place and its directory fsynced.
// Idempotent: a replay of the same chunk and rows replaces each file with
// identical bytes under the same name. Zero rows write nothing. Every row
// must lie in the chunk (same partition, offset within [First, Last]) and
// have a non-zero Trace.ReceivedAt (the processor copies the envelope's);
// rows is not modified and may be reused after the call.
func (w *Writer) WriteChunk(ctx context.Context, chunk query.Chunk, rows []query.TraceRow) error {
	if len(rows) == 0 {
		return nil
	}
	if chunk.FirstOffset < 0 || chunk.LastOffset < chunk.FirstOffset {
		return fmt.Errorf("write lake chunk: invalid offsets [%d, %d]", chunk.FirstOffset, chunk.LastOffset)
	}
	st := w.states.Get().(*writeState)
	defer w.release(st)

	st.rows, st.hits = st.rows[:0], st.hits[:0]
	if st.hits == nil {
		st.hits = make([]schemas.LakePolicyHitV1, 0, 64)
	}
	for i := range rows {
		r := &rows[i]
		if r.Trace.ReceivedAt.IsZero() {
			return fmt.Errorf("write lake chunk %s: row %d (%s/%s) has no received_at",
				FileName(chunk), i, r.OrgID, r.Trace.RequestID)
		}
		// The file name promises the rows' positions; a row from elsewhere
		// would be lost or duplicated by a replay of another chunk.
		if r.Partition != chunk.Partition || r.Offset < chunk.FirstOffset || r.Offset > chunk.LastOffset {
			return fmt.Errorf("write lake chunk %s: row %d (%s/%s) is at %d/%d, outside the chunk",
				FileName(chunk), i, r.OrgID, r.Trace.RequestID, r.Partition, r.Offset)
		}
		st.rows = append(st.rows, toLakeRow(&rows[i], &st.hits))
	}
	byOffset := func(a, b schemas.LakeRowV1) int {
		return cmp.Or(cmp.Compare(a.LogOffset, b.LogOffset),
			strings.Compare(a.OrgID, b.OrgID), strings.Compare(a.RequestID, b.RequestID))
	}
	if !slices.IsSortedFunc(st.rows, byOffset) {
		slices.SortStableFunc(st.rows, byOffset)
	}

	name := FileName(chunk)
	st.days = st.days[:0]
	for i := range st.rows {
		if d := dayOf(st.rows[i].ReceivedAt); !slices.Contains(st.days, d) {
			st.days = append(st.days, d)
		}
	}
	if len(st.days) == 1 { // the common case: one file, no regrouping
		return w.writeFile(ctx, st, st.days[0], name, st.rows)
	}
	// Days in ascending order; within a day, offset order is kept.
	slices.Sort(st.days)
	for _, day := range st.days {
		st.part = st.part[:0]
		for i := range st.rows {
			if dayOf(st.rows[i].ReceivedAt) == day {
				st.part = append(st.part, st.rows[i])
			}
		}
		if err := w.writeFile(ctx, st, day, name, st.part); err != nil {
			return err
		}
	}
	return nil
}

// release clears references into the caller's rows before pooling st.
func (w *Writer) release(st *writeState) {
	clear(st.rows)
	clear(st.part)
	st.rows, st.part = st.rows[:0], st.part[:0]
	if st.buf.Cap() > 64<<20 { // do not pin a huge buffer forever
		st.buf = bytes.Buffer{}
	}
	w.states.Put(st)
}

// writeFile encodes rows and makes <traces>/date=<day>/name durable.
func (w *Writer) writeFile(ctx context.Context, st *writeState, day int64, name string, rows []schemas.LakeRowV1) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write lake file %s: %w", name, err)
	}
	st.buf.Reset()
	pw := parquet.NewGenericWriter[schemas.LakeRowV1](&st.buf, w.options...)
	if _, err := pw.Write(rows); err != nil {
		return fmt.Errorf("encode lake file %s: %w", name, err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("encode lake file %s: %w", name, err)
	}
	dir := filepath.Join(w.traces, dateDirName(day))
	if err := w.ensureDir(dir); err != nil {
		return fmt.Errorf("write lake file %s: %w", name, err)
	}
	if err := writeAtomic(dir, name, st.buf.Bytes()); err != nil {
		return fmt.Errorf("write lake file %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// ensureDir creates a date directory once per Writer and fsyncs its parent
// so the directory entry itself survives a crash.
func (w *Writer) ensureDir(dir string) error {
	if _, ok := w.knownDirs.Load(dir); ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	w.knownDirs.Store(dir, struct{}{})
	return nil
}

// writeAtomic writes data to dir/name through a unique temporary file in dir:
// write, fsync, rename over name, fsync dir. Readers see the old file or the
// new one, never a part; the temporary file is removed on every failure.
func writeAtomic(dir, name string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, tempPrefix+name+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close() // may already be closed; the first error wins
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o644); err != nil { // CreateTemp makes 0600
		return err
	}
	if err = os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory so renames and creations in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	return nil
}

// removeStaleTemps deletes temporary files last modified before cutoff.
func (w *Writer) removeStaleTemps(cutoff time.Time) error {
	matches, err := filepath.Glob(filepath.Join(w.traces, "date=*", tempPrefix+"*"))
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range matches {
		fi, err := os.Lstat(m)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		if fi.Mode().IsRegular() && fi.ModTime().Before(cutoff) {
			if err := os.Remove(m); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
