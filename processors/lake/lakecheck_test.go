package lake

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// requirePythonReaders skips unless python3 can import pyarrow and duckdb;
// with GATEWAY_REQUIRE_REAL=1 their absence is a failure instead.
func requirePythonReaders(t *testing.T) {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import pyarrow, duckdb").CombinedOutput()
	if err == nil {
		return
	}
	msg := "independent Parquet readers unavailable (pip install -r integration/lakecheck/requirements.txt): " + err.Error() + ": " + string(out)
	if os.Getenv("GATEWAY_REQUIRE_REAL") == "1" {
		t.Fatal("GATEWAY_REQUIRE_REAL=1: " + msg)
	}
	t.Skip(msg)
}

// runLakeCheck runs integration/lakecheck/check_lake.py on dir with expect.
func runLakeCheck(t *testing.T, dir string, expect any) (string, error) {
	t.Helper()
	b, err := json.Marshal(expect)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := filepath.Join("..", "..", "integration", "lakecheck", "check_lake.py")
	_, err = os.Stat(script) // also makes go test's cache notice script edits
	require.NoError(t, err)
	out, err := exec.CommandContext(ctx, "python3", script, dir, "--expect", string(b)).CombinedOutput()
	return string(out), err
}

func TestIndependentReaders(t *testing.T) {
	requirePythonReaders(t)
	dir := t.TempDir()
	w := newTestWriter(t, dir)
	ctx := context.Background()

	midnight := time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	full := fullRow(10, midnight.Add(-time.Second+987654321*time.Nanosecond))
	emptyHits := fullRow(12, midnight.Add(time.Hour))
	emptyHits.Trace.PolicyHits = []schemas.PolicyHit{}
	rows := []query.TraceRow{full, minimalRow(11, midnight), emptyHits}
	require.NoError(t, w.WriteChunk(ctx, query.Chunk{Partition: 3, FirstOffset: 10, LastOffset: 12}, rows))
	other := minimalRow(0, day1)
	other.Partition = 1
	require.NoError(t, w.WriteChunk(ctx, query.Chunk{Partition: 1, FirstOffset: 0, LastOffset: 0}, []query.TraceRow{other}))
	// A leftover temporary file must be invisible to both readers.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "traces", "date=2026-03-14", tempPrefix+"part-1-1-1.parquet.7"), []byte("half"), 0o600))

	expect := map[string]any{
		"count":          4,
		"schema_version": schemas.LakeSchemaVersion,
		"rows": map[string]any{
			"org-1/req-10": map[string]any{
				"org_id": "org-1", "app_id": "app-1", "log_partition": 3, "log_offset": 10,
				"request_id": "req-10", "parent_request_id": "parent", "mode": "proxy",
				// fullRow: started 2 s before received_at, +123 ns dropped, zone +05:30 normalised.
				"started_at":  "2026-03-14T23:59:57.987654Z",
				"finished_at": "2026-03-14T23:59:59.487654Z",
				"received_at": "2026-03-14T23:59:59.987654Z",
				"date":        "2026-03-14",
				"provider":    "openai", "model": "gpt-4o", "use_case": "support", "team_id": "team",
				"integration_id": "integ", "end_user_id": "end-user", "user_id": "user", "session_id": "sess",
				"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
				"cost_usd": 0.0125, "latency_ms": 1500, "status": "blocked", "final_decision": "block",
				"risk_score": 0.75, "prompt": "hello ✓", "answer": "world", "metadata": `{"k":"v","n":1}`,
				"policy_hits": []any{
					map[string]any{"policy": "pii.email", "severity": "high", "confidence": 0.9, "stage": "output"},
					map[string]any{"policy": "toxicity", "severity": nil, "confidence": 0, "stage": nil},
				},
			},
			"org-2/min-11": map[string]any{
				"date": "2026-03-15", "received_at": "2026-03-15T00:00:00Z", "app_id": nil,
				"parent_request_id": nil, "finished_at": nil, "model": nil, "cost_usd": nil,
				"latency_ms": nil, "risk_score": nil, "final_decision": nil, "policy_hits": nil,
				"prompt": nil, "answer": nil, "metadata": nil, "prompt_tokens": 0, "status": "ok",
			},
			"org-1/req-12": map[string]any{"date": "2026-03-15", "policy_hits": []any{}},
			"org-2/min-0":  map[string]any{"date": "2026-03-14", "log_partition": 1},
		},
	}
	out, err := runLakeCheck(t, dir, expect)
	require.NoError(t, err, out)
	t.Log(out)
	require.Contains(t, out, "pyarrow: 4 rows")
	require.Contains(t, out, "duckdb: 4 rows")

	// The check must be able to fail: a wrong value and a wrong count.
	expect["count"] = 5
	expect["rows"].(map[string]any)["org-1/req-10"].(map[string]any)["model"] = "gpt-3"
	out, err = runLakeCheck(t, dir, expect)
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, out)
	require.Equal(t, 1, exitErr.ExitCode(), out)
	require.Contains(t, out, "pyarrow: count 4, want 5")
	require.Contains(t, out, "duckdb: org-1/req-10.model: want 'gpt-3', got 'gpt-4o'")
}
