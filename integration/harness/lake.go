package harness

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// LakeExpect is the expectation handed to integration/lakecheck/check_lake.py:
// the exact row count of the lake and, per "<org_id>/<request_id>", the
// column values to compare.
type LakeExpect struct {
	Count int                       `json:"count"`
	Rows  map[string]map[string]any `json:"rows,omitempty"`
}

// CheckLake reads lakeDir with the independent readers of
// integration/lakecheck (pyarrow and DuckDB) and fails the test unless both
// agree with want. It skips when python3 with pyarrow and duckdb is missing,
// and fails instead under GATEWAY_REQUIRE_REAL=1.
func CheckLake(t testing.TB, lakeDir string, want LakeExpect) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("lake check: %v", err)
	}
	script := filepath.Join(root, "integration", "lakecheck", "check_lake.py")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("lake check: %v", err)
	}
	if out, err := exec.Command("python3", "-c", "import pyarrow, duckdb").CombinedOutput(); err != nil {
		msg := "lake check needs python3 with pyarrow and duckdb (pip install -r integration/lakecheck/requirements.txt): " + string(out)
		if RequireReal() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	exp, err := json.Marshal(want)
	if err != nil {
		t.Fatalf("lake check: encode expectation: %v", err)
	}
	f := filepath.Join(t.TempDir(), "expect.json")
	if err := os.WriteFile(f, exp, 0o600); err != nil {
		t.Fatalf("lake check: %v", err)
	}
	out, err := exec.Command("python3", script, lakeDir, "--expect-file", f).CombinedOutput()
	if err != nil {
		t.Fatalf("lake check of %s failed (%v):\n%s", lakeDir, err, truncateLines(out, 60))
	}
	t.Logf("lake check of %s:\n%s", lakeDir, truncateLines(out, 10))
}

func truncateLines(b []byte, n int) string {
	lines := 0
	for i, c := range b {
		if c == '\n' {
			lines++
			if lines == n {
				return string(b[:i]) + "\n..."
			}
		}
	}
	return string(b)
}
