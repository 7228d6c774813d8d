package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/integration/harness"
)

const testModel = "gpt-4o-mini"

// events returns n canonical events with request ids prefix-<from..from+n-1>.
func events(prefix string, from, n int) []map[string]any {
	out := make([]map[string]any, n)
	start := time.Now().UTC().Add(-time.Second).Format(time.RFC3339Nano)
	for i := range out {
		out[i] = map[string]any{
			"request_id":        fmt.Sprintf("%s-%06d", prefix, from+i),
			"model":             testModel,
			"provider":          "openai",
			"started_at":        start,
			"prompt_tokens":     3,
			"completion_tokens": 2,
			"use_case":          "integration",
		}
	}
	return out
}

func ids(evs []map[string]any) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e["request_id"].(string)
	}
	return out
}

// sendBatch posts one {"events": [...]} batch; it does not fail the test on
// transport errors, so callers can send while a process is being killed.
func sendBatch(c *harness.Client, apiKey string, evs []map[string]any) (int, harness.EventsResult, error) {
	st, raw, err := c.Try(http.MethodPost, "/v1/events", map[string]any{"events": evs}, "X-API-Key", apiKey)
	var res harness.EventsResult
	if err == nil && len(raw) > 0 {
		if jerr := json.Unmarshal(raw, &res); jerr != nil {
			return st, res, fmt.Errorf("status %d, decode %q: %w", st, raw, jerr)
		}
	}
	return st, res, err
}

// requireBatch sends a batch and requires a 200 with the given outcome.
func requireBatch(t *testing.T, c *harness.Client, apiKey string, evs []map[string]any, accepted, skipped int) {
	t.Helper()
	st, res, err := sendBatch(c, apiKey, evs)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, st, "events batch status; answer %+v", res)
	require.Equal(t, accepted, res.Accepted, "accepted; answer %+v", res)
	require.Equal(t, skipped, res.Skipped, "skipped; answer %+v", res)
	require.Empty(t, res.Rejected)
}

// countByID returns how many times each request id appears in rows.
func countByID(rows []harness.RequestRow) map[string]int {
	m := make(map[string]int, len(rows))
	for _, r := range rows {
		m[r.RequestID]++
	}
	return m
}

// requireExactlyOnce fails unless every id of want appears exactly once in
// rows and rows hold nothing else.
func requireExactlyOnce(t *testing.T, rows []harness.RequestRow, want []string) {
	t.Helper()
	got := countByID(rows)
	var missing, dup []string
	for _, id := range want {
		switch got[id] {
		case 0:
			missing = append(missing, id)
		case 1:
		default:
			dup = append(dup, id)
		}
	}
	require.Empty(t, missing, "acknowledged ids missing from the store")
	require.Empty(t, dup, "ids stored more than once")
	require.Len(t, rows, len(want), "the store holds rows that were never sent")
}

// lakeRows is the lake expectation: every id once, with its model and
// computed total_tokens.
func lakeRows(orgID string, want []string) harness.LakeExpect {
	rows := make(map[string]map[string]any, len(want))
	for _, id := range want {
		rows[orgID+"/"+id] = map[string]any{"model": testModel, "total_tokens": 5}
	}
	return harness.LakeExpect{Count: len(want), Rows: rows}
}

// listed returns the organisation's console rows for use inside
// require.Eventually: errors are logged and read as "not yet".
func listed(t *testing.T, c *harness.Client, token string) ([]harness.RequestRow, bool) {
	rows, err := c.TryListRequests(token, nil)
	if err != nil {
		t.Logf("list requests (will retry): %v", err)
		return nil, false
	}
	return rows, true
}
