package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// Client speaks the gateway's HTTP API as a test client. Methods fail the
// test on transport errors; status codes are returned for the test to check.
type Client struct {
	BaseURL string
	HTTP    *http.Client
}

// NewClient returns a client for the gateway at baseURL.
func NewClient(baseURL string) *Client {
	return &Client{BaseURL: baseURL, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// Do sends method path with body JSON-encoded (nil: no body) and headers
// (key, value pairs), decodes a JSON answer into out when out is not nil and
// the answer has a body, and returns the status code.
func (c *Client) Do(t testing.TB, method, path string, body, out any, headers ...string) int {
	t.Helper()
	status, raw, err := c.Try(method, path, body, headers...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: status %d, decode %q: %v", method, path, status, truncate(raw), err)
		}
	}
	return status
}

// Try is Do without the test: it returns the status, the raw body and any
// transport error (used while a process is being killed).
func (c *Client) Try(method, path string, body any, headers ...string) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, fmt.Errorf("encode body: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.BaseURL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, raw, fmt.Errorf("read body: %w", err)
	}
	return resp.StatusCode, raw, nil
}

// Signup is the answer of POST /api/console/signup.
type Signup struct {
	Token     string  `json:"token"`
	OrgID     string  `json:"org_id"`
	CreditUSD float64 `json:"credit_usd"`
}

// App is the answer of POST /api/console/apps.
type App struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Mode   string `json:"mode"`
	APIKey string `json:"api_key"`
}

// SignupAndApp signs a new organisation up and creates an application of
// mode in it; it fails the test unless both answer 201.
func (c *Client) SignupAndApp(t testing.TB, email, mode string) (Signup, App) {
	t.Helper()
	var s Signup
	st := c.Do(t, http.MethodPost, "/api/console/signup",
		map[string]string{"email": email, "password": "correct horse battery", "organization": "IT " + email}, &s)
	if st != http.StatusCreated || s.Token == "" || s.OrgID == "" {
		t.Fatalf("signup %s: status %d, answer %+v", email, st, s)
	}
	var a App
	st = c.Do(t, http.MethodPost, "/api/console/apps", map[string]string{"name": "it " + mode, "mode": mode}, &a,
		"Authorization", "Bearer "+s.Token)
	if st != http.StatusCreated || a.APIKey == "" || a.ID == "" {
		t.Fatalf("create app: status %d, answer %+v", st, a)
	}
	return s, a
}

// RequestRow is the part of a console trace the suite checks.
type RequestRow struct {
	RequestID string `json:"request_id"`
	AppID     string `json:"app_id"`
	Model     string `json:"model"`
}

// AwaitRequest waits (up to 2 minutes) until the console shows the trace
// of requestID, then decodes it into out: the trace travels through the
// log and the processors first.
func (c *Client) AwaitRequest(t testing.TB, token, requestID string, out any) {
	t.Helper()
	path := "/api/console/requests/" + url.PathEscape(requestID)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		st, raw, err := c.Try("GET", path, nil, "Authorization", "Bearer "+token)
		if err == nil && st == http.StatusOK {
			if err := json.Unmarshal(raw, out); err != nil {
				t.Fatalf("GET %s: decode %q: %v", path, truncate(raw), err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the trace of %s never reached the console (last: status %d, err %v)", requestID, st, err)
		}
	}
}

// ListRequests pages through GET /api/console/requests with limit 1000 and
// returns every row; it fails the test on any error. Inside
// require.Eventually (another goroutine) use TryListRequests.
func (c *Client) ListRequests(t testing.TB, token string, filter url.Values) []RequestRow {
	t.Helper()
	rows, err := c.TryListRequests(token, filter)
	if err != nil {
		t.Fatalf("list requests: %v", err)
	}
	return rows
}

// TryListRequests is ListRequests returning its error: a non-200 answer, an
// undecodable page or a repeated cursor.
func (c *Client) TryListRequests(token string, filter url.Values) ([]RequestRow, error) {
	var all []RequestRow
	cursor := ""
	seen := map[string]bool{}
	for {
		q := url.Values{}
		for k, v := range filter {
			q[k] = v
		}
		q.Set("limit", "1000")
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		st, raw, err := c.Try(http.MethodGet, "/api/console/requests?"+q.Encode(), nil, "Authorization", "Bearer "+token)
		if err != nil {
			return nil, fmt.Errorf("GET /api/console/requests: %w", err)
		}
		if st != http.StatusOK {
			return nil, fmt.Errorf("GET /api/console/requests: status %d: %s", st, truncate(raw))
		}
		var page struct {
			Data       []RequestRow `json:"data"`
			NextCursor string       `json:"next_cursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("GET /api/console/requests: decode %q: %w", truncate(raw), err)
		}
		all = append(all, page.Data...)
		if page.NextCursor == "" || len(page.Data) == 0 {
			return all, nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("GET /api/console/requests: cursor %q repeats", page.NextCursor)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
}

// EventsResult is the answer of a POST /v1/events batch.
type EventsResult struct {
	OK       bool `json:"ok"`
	Accepted int  `json:"accepted"`
	Skipped  int  `json:"skipped"`
	Total    int  `json:"total"`
	Rejected []struct {
		Index     int    `json:"index"`
		RequestID string `json:"request_id"`
		Error     string `json:"error"`
	} `json:"rejected"`
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
