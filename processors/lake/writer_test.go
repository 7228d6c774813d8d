package lake

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func ptr[T any](v T) *T { return &v }

var day1 = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// fullRow sets every field, with sub-microsecond times in a non-UTC zone.
func fullRow(off int64, receivedAt time.Time) query.TraceRow {
	zone := time.FixedZone("X", 5*3600+30*60)
	started := receivedAt.Add(-2 * time.Second).Add(123 * time.Nanosecond).In(zone)
	return query.TraceRow{
		OrgID: "org-1", AppID: "app-1", Partition: 3, Offset: off,
		Trace: schemas.Trace{
			RequestID: fmt.Sprintf("req-%d", off), ParentRequestID: "parent", Mode: schemas.ModeProxy,
			StartedAt: started, FinishedAt: ptr(started.Add(1500 * time.Millisecond)),
			Provider: "openai", Model: "gpt-4o", UseCase: "support", TeamID: "team", IntegrationID: "integ",
			EndUserID: "end-user", UserID: "user", SessionID: "sess",
			PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15,
			CostUSD: ptr(0.0125), LatencyMs: ptr(int64(1500)), Status: schemas.StatusBlocked,
			FinalDecision: "block", RiskScore: ptr(0.75),
			PolicyHits: []schemas.PolicyHit{
				{Policy: "pii.email", Severity: "high", Confidence: 0.9, Stage: "output", Spans: []schemas.Span{{Start: 1, End: 4}}},
				{Policy: "toxicity"},
			},
			Prompt: "hello ✓", Answer: "world", Metadata: json.RawMessage(`{"k":"v","n":1}`),
			ReceivedAt: receivedAt,
		},
	}
}

// minimalRow leaves every optional field nil or empty.
func minimalRow(off int64, receivedAt time.Time) query.TraceRow {
	return query.TraceRow{OrgID: "org-2", Partition: 3, Offset: off, Trace: schemas.Trace{
		RequestID: fmt.Sprintf("min-%d", off), Mode: schemas.ModeIngest, StartedAt: receivedAt,
		Status: schemas.StatusOK, ReceivedAt: receivedAt,
	}}
}

// normalized is what the lake promises to give back for r: UTC times at
// microsecond precision, policy hits without spans.
func normalized(r query.TraceRow) query.TraceRow {
	t := r.Trace
	t.StartedAt = t.StartedAt.Truncate(time.Microsecond).UTC()
	t.ReceivedAt = t.ReceivedAt.Truncate(time.Microsecond).UTC()
	if t.FinishedAt != nil {
		t.FinishedAt = ptr(t.FinishedAt.Truncate(time.Microsecond).UTC())
	}
	if t.PolicyHits != nil {
		hits := make([]schemas.PolicyHit, len(t.PolicyHits))
		for i, h := range t.PolicyHits {
			h.Spans = nil
			hits[i] = h
		}
		t.PolicyHits = hits
	}
	r.Trace = t
	return r
}

func newTestWriter(t *testing.T, dir string) *Writer {
	t.Helper()
	w, err := NewWriter(Config{Dir: dir})
	require.NoError(t, err)
	return w
}

func chunkOf(rows []query.TraceRow) query.Chunk {
	c := query.Chunk{Topic: "gateway.traces.v1", Partition: rows[0].Partition, FirstOffset: rows[0].Offset, LastOffset: rows[0].Offset}
	for _, r := range rows {
		c.FirstOffset, c.LastOffset = min(c.FirstOffset, r.Offset), max(c.LastOffset, r.Offset)
	}
	return c
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		rows []query.TraceRow
	}{
		{"every field set", []query.TraceRow{fullRow(7, day1.Add(987654321*time.Nanosecond))}},
		{"every optional nil or empty", []query.TraceRow{minimalRow(8, day1)}},
		{"empty policy hits and zero numbers", func() []query.TraceRow {
			r := fullRow(9, day1)
			r.Trace.PolicyHits = []schemas.PolicyHit{}
			r.Trace.CostUSD, r.Trace.RiskScore, r.Trace.LatencyMs = ptr(0.0), ptr(0.0), ptr(int64(0))
			r.Trace.PromptTokens, r.Trace.CompletionTokens, r.Trace.TotalTokens = 0, 0, 0
			return []query.TraceRow{r}
		}()},
		{"mixed rows out of offset order", []query.TraceRow{minimalRow(12, day1), fullRow(10, day1), minimalRow(11, day1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w := newTestWriter(t, dir)
			chunk := chunkOf(tt.rows)
			require.NoError(t, w.WriteChunk(context.Background(), chunk, tt.rows))

			got, err := ReadFile(filepath.Join(dir, "traces", "date=2026-03-14", FileName(chunk)))
			require.NoError(t, err)
			want := make([]query.TraceRow, len(tt.rows))
			for i, r := range tt.rows {
				want[i] = normalized(r)
			}
			slices.SortFunc(want, func(a, b query.TraceRow) int { return int(a.Offset - b.Offset) })
			require.Equal(t, want, got)
		})
	}
}

func TestWriteChunkDoesNotModifyInput(t *testing.T) {
	rows := []query.TraceRow{fullRow(2, day1), fullRow(1, day1)}
	before := fmt.Sprintf("%+v", rows)
	require.NoError(t, newTestWriter(t, t.TempDir()).WriteChunk(context.Background(), chunkOf(rows), rows))
	require.Equal(t, before, fmt.Sprintf("%+v", rows))
}

func hashFile(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(b)
}

func TestDeterministicRewrite(t *testing.T) {
	rows := make([]query.TraceRow, 0, 300)
	for i := range int64(300) {
		if i%3 == 0 {
			rows = append(rows, minimalRow(100+i, day1.Add(time.Duration(i)*time.Second)))
		} else {
			rows = append(rows, fullRow(100+i, day1.Add(time.Duration(i)*time.Second)))
		}
	}
	chunk := chunkOf(rows)
	ctx := context.Background()
	rel := filepath.Join("traces", "date=2026-03-14", "part-3-100-399.parquet")

	dir := t.TempDir()
	w := newTestWriter(t, dir)
	require.NoError(t, w.WriteChunk(ctx, chunk, rows))
	first := hashFile(t, filepath.Join(dir, rel))

	// A replay through the same (pooled, reused) writer state.
	require.NoError(t, w.WriteChunk(ctx, chunk, rows))
	require.Equal(t, first, hashFile(t, filepath.Join(dir, rel)))

	// A replay after a restart, rows handed over in another order.
	shuffled := slices.Clone(rows)
	slices.Reverse(shuffled)
	dir2 := t.TempDir()
	require.NoError(t, newTestWriter(t, dir2).WriteChunk(ctx, chunk, shuffled))
	require.Equal(t, first, hashFile(t, filepath.Join(dir2, rel)))

	// Different content must give different bytes (the hash is meaningful).
	rows[5].Trace.Model = "other"
	dir3 := t.TempDir()
	require.NoError(t, newTestWriter(t, dir3).WriteChunk(ctx, chunk, rows))
	require.NotEqual(t, first, hashFile(t, filepath.Join(dir3, rel)))
}

func TestDateSplitAcrossMidnight(t *testing.T) {
	midnight := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1) // 2027-01-01
	// Offsets interleave the two dates; one row is before midnight in UTC
	// but after it in its own zone, which must not matter.
	east := time.FixedZone("east", 3*3600)
	rows := []query.TraceRow{
		minimalRow(50, midnight.Add(-time.Microsecond)),
		minimalRow(51, midnight),
		minimalRow(52, midnight.Add(-time.Hour).In(east)),
		minimalRow(53, midnight.Add(time.Hour)),
	}
	dir := t.TempDir()
	chunk := query.Chunk{Partition: 3, FirstOffset: 50, LastOffset: 60}
	require.NoError(t, newTestWriter(t, dir).WriteChunk(context.Background(), chunk, rows))

	files, err := Files(dir)
	require.NoError(t, err)
	require.Len(t, files, 2)
	offsets := map[string][]int64{}
	for _, f := range files {
		require.Equal(t, "part-3-50-60.parquet", filepath.Base(f.Path))
		got, err := ReadFile(f.Path)
		require.NoError(t, err)
		for _, r := range got {
			offsets[f.Date] = append(offsets[f.Date], r.Offset)
		}
	}
	require.Equal(t, map[string][]int64{"2026-12-31": {50, 52}, "2027-01-01": {51, 53}}, offsets)
}

func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			found = append(found, p)
		}
		return err
	}))
	return found
}

func TestNoTempFilesLeftBehind(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := newTestWriter(t, dir)
	rows := []query.TraceRow{fullRow(1, day1), fullRow(2, day1.AddDate(0, 0, 1))}
	require.NoError(t, w.WriteChunk(ctx, chunkOf(rows), rows))
	require.Empty(t, tempFiles(t, dir))

	// A failing rename (the target is a non-empty directory) returns the
	// error and still removes the temporary file.
	bad := []query.TraceRow{fullRow(5, day1)}
	target := filepath.Join(dir, "traces", "date=2026-03-14", FileName(chunkOf(bad)))
	require.NoError(t, os.MkdirAll(filepath.Join(target, "x"), 0o755))
	require.Error(t, w.WriteChunk(ctx, chunkOf(bad), bad))
	require.Empty(t, tempFiles(t, dir))

	// A cancelled context writes nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	other := []query.TraceRow{fullRow(9, day1)}
	require.ErrorIs(t, w.WriteChunk(cctx, chunkOf(other), other), context.Canceled)
	_, err := os.Stat(filepath.Join(dir, "traces", "date=2026-03-14", FileName(chunkOf(other))))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Empty(t, tempFiles(t, dir))
}

func TestStaleTempFilesRemovedOnOpen(t *testing.T) {
	dir := t.TempDir()
	dateDir := filepath.Join(dir, "traces", "date=2026-03-14")
	require.NoError(t, os.MkdirAll(dateDir, 0o755))
	stale := filepath.Join(dateDir, tempPrefix+"part-1-0-9.parquet.123")
	fresh := filepath.Join(dateDir, tempPrefix+"part-1-10-19.parquet.456")
	for _, p := range []string{stale, fresh} {
		require.NoError(t, os.WriteFile(p, []byte("half"), 0o600))
	}
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))

	_, err := NewWriter(Config{Dir: dir, StaleTempAge: time.Hour})
	require.NoError(t, err)
	_, err = os.Stat(stale)
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(fresh)
	require.NoError(t, err, "a temp file younger than StaleTempAge may belong to a live writer")
}

func TestZeroRowsWritesNothing(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, newTestWriter(t, dir).WriteChunk(context.Background(), query.Chunk{Partition: 1, FirstOffset: 0, LastOffset: 9}, nil))
	entries, err := os.ReadDir(filepath.Join(dir, "traces"))
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestWriteChunkRejects(t *testing.T) {
	noReceived := minimalRow(1, day1)
	noReceived.Trace.ReceivedAt = time.Time{}
	tests := []struct {
		name  string
		chunk query.Chunk
		rows  []query.TraceRow
		want  string
	}{
		{"zero received_at", query.Chunk{Partition: 3, FirstOffset: 1, LastOffset: 1}, []query.TraceRow{noReceived}, "no received_at"},
		{"last before first", query.Chunk{FirstOffset: 5, LastOffset: 4}, []query.TraceRow{minimalRow(5, day1)}, "invalid offsets"},
		{"negative first", query.Chunk{FirstOffset: -1, LastOffset: 4}, []query.TraceRow{minimalRow(1, day1)}, "invalid offsets"},
		{"row after the chunk", query.Chunk{Partition: 3, FirstOffset: 1, LastOffset: 4}, []query.TraceRow{minimalRow(2, day1), minimalRow(5, day1)}, "outside the chunk"},
		{"row before the chunk", query.Chunk{Partition: 3, FirstOffset: 1, LastOffset: 4}, []query.TraceRow{minimalRow(0, day1)}, "outside the chunk"},
		{"row of another partition", query.Chunk{Partition: 4, FirstOffset: 1, LastOffset: 4}, []query.TraceRow{minimalRow(2, day1)}, "outside the chunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			err := newTestWriter(t, dir).WriteChunk(context.Background(), tt.chunk, tt.rows)
			require.ErrorContains(t, err, tt.want)
			files, ferr := Files(dir)
			require.NoError(t, ferr)
			require.Empty(t, files)
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // "" = valid
	}{
		{"defaults", Config{Dir: "x"}, ""},
		{"snappy", Config{Dir: "x", Compression: "snappy"}, ""},
		{"no dir", Config{}, "Dir is required"},
		{"bad codec", Config{Dir: "x", Compression: "lzo"}, "not zstd or snappy"},
		{"negative row group", Config{Dir: "x", RowGroupRows: -1}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.want == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tt.want)
			}
		})
	}
}

func TestConcurrentPartitions(t *testing.T) {
	dir := t.TempDir()
	w := newTestWriter(t, dir)
	const partitions, chunks, perChunk = 6, 5, 40
	var wg sync.WaitGroup
	errs := make(chan error, partitions*chunks)
	for p := range int32(partitions) {
		wg.Go(func() {
			for c := range int64(chunks) {
				rows := make([]query.TraceRow, perChunk)
				for i := range rows {
					off := c*perChunk + int64(i)
					// Spread over two days so date dirs are created concurrently.
					rows[i] = fullRow(off, day1.Add(time.Duration(off)*30*time.Minute))
					rows[i].Partition = p
				}
				errs <- w.WriteChunk(context.Background(), chunkOf(rows), rows)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	seen := map[int32][]int64{}
	require.NoError(t, ReadDir(context.Background(), dir, func(f File, rows []query.TraceRow) error {
		for _, r := range rows {
			require.Equal(t, f.Partition, r.Partition)
			require.GreaterOrEqual(t, r.Offset, f.FirstOffset)
			require.LessOrEqual(t, r.Offset, f.LastOffset)
			seen[r.Partition] = append(seen[r.Partition], r.Offset)
		}
		return nil
	}))
	require.Len(t, seen, partitions)
	for p, offs := range seen {
		slices.Sort(offs)
		require.Len(t, offs, chunks*perChunk, "partition %d", p)
		require.Equal(t, int64(chunks*perChunk-1), offs[len(offs)-1])
		require.Len(t, slices.Compact(offs), chunks*perChunk, "partition %d has duplicate rows", p)
	}
	require.Empty(t, tempFiles(t, dir))
}

func TestFilesOrderAndNames(t *testing.T) {
	dir := t.TempDir()
	w := newTestWriter(t, dir)
	ctx := context.Background()
	for _, c := range []query.Chunk{
		{Partition: 10, FirstOffset: 0, LastOffset: 4},
		{Partition: 2, FirstOffset: 100, LastOffset: 199},
		{Partition: 2, FirstOffset: 20, LastOffset: 99},
	} {
		r := minimalRow(c.FirstOffset, day1)
		r.Partition = c.Partition
		require.NoError(t, w.WriteChunk(ctx, c, []query.TraceRow{r}))
	}
	// Foreign and temporary names are ignored.
	dd := filepath.Join(dir, "traces", "date=2026-03-14")
	require.NoError(t, os.WriteFile(filepath.Join(dd, "part-x-1-2.parquet"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dd, tempPrefix+"part-1-1-2.parquet.9"), nil, 0o644))

	files, err := Files(dir)
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f.Path))
	}
	require.Equal(t, []string{"part-2-20-99.parquet", "part-2-100-199.parquet", "part-10-0-4.parquet"}, names)

	missing, err := Files(filepath.Join(dir, "nope"))
	require.NoError(t, err)
	require.Empty(t, missing)
}

func TestReadFileRejectsForeignFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "junk.parquet")
	require.NoError(t, os.WriteFile(p, []byte("not parquet"), 0o644))
	_, err := ReadFile(p)
	require.Error(t, err)
}

// TestPooledStateDoesNotLeakRows: one Writer's pooled state (converted
// rows, a date's rows, policy hits, the output buffer) serves chunk after
// chunk: a large chunk over two dates with policy hits, then a small one,
// leaves the small file with exactly its own rows and hits.
func TestPooledStateDoesNotLeakRows(t *testing.T) {
	dir := t.TempDir()
	w := newTestWriter(t, dir)
	ctx := context.Background()
	var big []query.TraceRow
	for i := range int64(600) {
		big = append(big, fullRow(i, day1.Add(time.Duration(i)*2*time.Minute))) // 20 hours: crosses midnight
	}
	require.NoError(t, w.WriteChunk(ctx, chunkOf(big), big))
	files, err := Files(dir)
	require.NoError(t, err)
	require.Len(t, files, 2, "two dates")

	small := []query.TraceRow{minimalRow(1000, day1), fullRow(1001, day1)}
	require.NoError(t, w.WriteChunk(ctx, chunkOf(small), small))
	got, err := ReadFile(filepath.Join(dir, "traces", "date=2026-03-14", FileName(chunkOf(small))))
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, []int64{1000, 1001}, []int64{got[0].Offset, got[1].Offset})
	require.Nil(t, got[0].Trace.PolicyHits)
	require.Len(t, got[1].Trace.PolicyHits, 2)
}
