package sqlcore

import (
	"encoding/json"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

func TestRebind(t *testing.T) {
	for _, tc := range []struct {
		dollar bool
		in     string
		want   string
	}{
		{false, "a = ? AND b = ?", "a = ? AND b = ?"},
		{true, "a = ? AND b = ?", "a = $1 AND b = $2"},
		{true, "no params", "no params"},
		{true, "(?, ?), (?, ?)", "($1, $2), ($3, $4)"},
	} {
		d := &Dialect{Dollar: tc.dollar}
		require.Equal(t, tc.want, d.Rebind(tc.in))
	}
}

func TestCursor(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	for _, id := range []string{"a", "with:colons:inside", "日本", "x y"} {
		got, err := decodeCursor(cursor{receivedAt: at, requestID: id}.encode())
		require.NoError(t, err)
		require.Equal(t, cursor{receivedAt: at, requestID: id}, got)
	}
	for _, bad := range []string{"%%%", "", "MTIz", "YWJjOmRlZg", "MTIzOg"} {
		_, err := decodeCursor(bad)
		require.ErrorIs(t, err, query.ErrBadCursor, bad)
	}
}

func TestLoadMigrations(t *testing.T) {
	ok := fstest.MapFS{
		"m/0002_b.sql": {Data: []byte("B")},
		"m/0001_a.sql": {Data: []byte("A")},
		"m/README":     {Data: []byte("ignored")},
	}
	got, err := LoadMigrations(ok, "m")
	require.NoError(t, err)
	require.Equal(t, []Migration{{1, "0001_a.sql", "A"}, {2, "0002_b.sql", "B"}}, got)

	for name, fsys := range map[string]fstest.MapFS{
		"no version":     {"m/init.sql": {Data: []byte("x")}},
		"zero version":   {"m/0000_x.sql": {Data: []byte("x")}},
		"shared version": {"m/0001_a.sql": {Data: []byte("x")}, "m/1_b.sql": {Data: []byte("y")}},
	} {
		_, err := LoadMigrations(fsys, "m")
		require.Error(t, err, name)
	}
}

func TestNullTime(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.FixedZone("X", 7200))
	for _, src := range []any{at.UnixMicro(), at} {
		var n NullTime
		require.NoError(t, n.Scan(src))
		require.True(t, n.Valid)
		require.True(t, n.Time.Equal(at))
		require.Equal(t, time.UTC, n.Time.Location())
	}
	var n NullTime
	require.NoError(t, n.Scan(nil))
	require.Nil(t, n.Ptr())
	require.Error(t, n.Scan("2026-01-01"))
}

// TestTraceArrays: the columnar encoding keeps NULLs where they are, whether
// a column's first row is NULL or not, and types every array.
func TestTraceArrays(t *testing.T) {
	fin := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	cost := 0.5
	minimal := query.TraceRow{OrgID: "o", Trace: schemas.Trace{RequestID: "a", Mode: "ingest", Status: "ok"}, Offset: 1}
	full := query.TraceRow{OrgID: "o", Trace: schemas.Trace{RequestID: "b", Mode: "ingest", Status: "ok",
		FinishedAt: &fin, CostUSD: &cost, Metadata: []byte(`{"k":1}`)}, Partition: 2, Offset: 3}
	d := &Dialect{TimeArg: NativeTimeArg}
	cols, err := d.traceArrays([]query.TraceRow{minimal, full, minimal}, []int{0, 1, 2})
	require.NoError(t, err)
	require.Len(t, cols, len(traceColumns))
	col := func(name string) any {
		for i, c := range traceColumns {
			if c == name {
				return cols[i]
			}
		}
		t.Fatalf("no column %s", name)
		return nil
	}
	require.Equal(t, []string{"a", "b", "a"}, col("request_id"))
	require.Equal(t, []*time.Time{nil, &fin, nil}, col("finished_at"))
	require.Equal(t, []*float64{nil, &cost, nil}, col("cost_usd"))
	meta := `{"k":1}`
	require.Equal(t, []*string{nil, &meta, nil}, col("metadata"))
	require.Equal(t, []*float64{nil, nil, nil}, col("risk_score")) // NULL everywhere: still an array
	require.Equal(t, []int32{0, 2, 0}, col("log_partition"))
	require.Equal(t, []int64{1, 3, 1}, col("log_offset"))
}

// TestProxyPriceMode: the direct read of the proxy's metadata agrees with
// encoding/json on the proxy's own shape and on everything near it.
func TestProxyPriceMode(t *testing.T) {
	viaJSON := func(meta []byte) string {
		var m struct {
			ServiceMode string `json:"service_mode"`
		}
		_ = json.Unmarshal(meta, &m)
		return proxyPriceModes[m.ServiceMode]
	}
	for _, meta := range []string{
		`{"service_mode":"observe"}`, `{"service_mode":"guard"}`, `{"service_mode":"verify"}`, `{"service_mode":"full"}`,
		`{"service_mode":"other"}`, `{"service_mode":""}`, `{"service_mode":"obs\u0065rve"}`, `{"service_mode":"gu\"ard"}`,
		`{"service_mode":"observe","service_mode":"full"}`, `{"service_mode":"observe","x":"y"}`, `{ "service_mode":"guard"}`,
		`{"Service_Mode":"guard"}`, `{"service_mode":"full\x01"}`, "{\"service_mode\":\"\xff\"}", `{"service_mode":"observe"`,
		`{}`, ``, `null`, `{"service_mode":1}`, `{"service_mode":"observe"}x`,
	} {
		require.Equal(t, viaJSON([]byte(meta)), proxyPriceMode([]byte(meta)), meta)
	}
}
