package sqlcore

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKPIBuckets(t *testing.T) {
	for i, b := range kpiLatencyBounds {
		require.Equal(t, i, kpiBucket(b), "bound %d is in its bucket", b)
		if i > 0 {
			require.Greater(t, b, kpiLatencyBounds[i-1])
			require.Equal(t, i, kpiBucket(kpiLatencyBounds[i-1]+1))
			require.LessOrEqual(t, float64(b)/float64(kpiLatencyBounds[i-1]+1), 1.5, "one bucket is less than +50%%")
		}
	}
	require.Equal(t, 0, kpiBucket(0))
	require.Equal(t, 0, kpiBucket(-5))
	require.Equal(t, kpiBuckets-1, kpiBucket(24*3600*1000), "beyond the last bound: the last bucket")
}

// TestKPIMigrationBuckets: the migrations' backfill buckets latencies with
// exactly the bounds the write and read paths use.
func TestKPIMigrationBuckets(t *testing.T) {
	want := strings.Join(strings.Fields(kpiBucketSQL("latency_ms")), " ")
	for _, path := range []string{"../../sqlite/migrations/0005_kpi_hourly.sql", "../../postgres/migrations/0006_kpi_hourly.sql"} {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		got := strings.Join(strings.Fields(string(b)), " ")
		require.Contains(t, got, want+" AS lb", path)
		for _, c := range kpiColumns {
			require.Contains(t, got, c, path)
		}
	}
}
