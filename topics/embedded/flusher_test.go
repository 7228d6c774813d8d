package embedded

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The flusher syncs what changed since its last pass (new files, appends,
// new directories), skips what did not, and forgets removed files.
func TestFlusherSyncsChangedFiles(t *testing.T) {
	dir := t.TempDir()
	f := &flusher{dir: dir, logger: slog.New(slog.DiscardHandler), synced: map[string]fileState{}}
	seg := filepath.Join(dir, "traces-0", "00000000000000000000.log")
	require.NoError(t, os.MkdirAll(filepath.Dir(seg), 0o755))
	require.NoError(t, os.WriteFile(seg, []byte("batch-1"), 0o644))

	require.NoError(t, f.syncChanged())
	require.Contains(t, f.synced, seg)
	require.Contains(t, f.synced, filepath.Dir(seg))
	require.Equal(t, int64(len("batch-1")), f.synced[seg].size)

	// An append changes the size: synced again, the new state recorded.
	fh, err := os.OpenFile(seg, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fh.WriteString("batch-2")
	require.NoError(t, err)
	require.NoError(t, fh.Close())
	require.NoError(t, f.syncChanged())
	require.Equal(t, int64(len("batch-1batch-2")), f.synced[seg].size)

	// A removed segment is forgotten, not an error.
	require.NoError(t, os.Remove(seg))
	require.NoError(t, f.syncChanged())
	require.NotContains(t, f.synced, seg)
}
