// Package gateway is the Go SDK of the Governance Gateway: Events (single,
// batch and a background exporter), Verify, Full Control chat (with
// streaming) and a helper for pointing an OpenAI client at the proxy.
//
//	c := gateway.New("http://127.0.0.1:8080", os.Getenv("GATEWAY_API_KEY"))
//	d, err := c.Verify(ctx, gateway.VerifyRequest{Answer: answer, ToolResult: source})
//	if d.Governance == gateway.Block { show(fallback) }
//
// Behaviour from the spec: idempotent failures (5xx, network) are retried
// once after 100 ms; a block is not an error; any status >= 400 is an
// *Error carrying status, message and request id.
package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Governance decisions.
const (
	Allow      = "allow"
	Rewrite    = "rewrite"
	Regenerate = "regenerate"
	Block      = "block"
)

// Recommended timeouts (spec section 8).
const (
	ChatTimeout   = 30 * time.Second
	EventsTimeout = 5 * time.Second
	RetryDelay    = 100 * time.Millisecond
)

// Client talks to one gateway with one application key. Safe for
// concurrent use.
type Client struct {
	base string
	key  string
	http *http.Client
	// retryDelay is RetryDelay; tests shorten it.
	retryDelay time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient replaces the HTTP client (timeouts are set per call).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// New returns a client for the gateway at baseURL (e.g.
// http://127.0.0.1:8080) with an application's API key.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), key: apiKey, http: &http.Client{}, retryDelay: RetryDelay}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Error is a failed call: an HTTP status >= 400, or a network failure
// (Status 0) after the retry.
type Error struct {
	Status    int
	Message   string
	RequestID string
	Body      []byte
	Err       error // the network error, when Status is 0
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return "gateway: " + e.Message
	}
	s := fmt.Sprintf("gateway: HTTP %d: %s", e.Status, e.Message)
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// do posts body to path and returns the response bytes of a 2xx. One retry
// after retryDelay for 5xx and network errors. A 207 is a success here.
func (c *Client) do(ctx context.Context, timeout time.Duration, path string, body any, hdr map[string]string) (int, []byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, nil, fmt.Errorf("gateway: encode request: %w", err)
	}
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		if attempt == 1 {
			select {
			case <-time.After(c.retryDelay):
			case <-ctx.Done():
				return 0, nil, ctx.Err()
			}
		}
		status, resp, err := c.once(ctx, timeout, path, raw, hdr)
		if err == nil {
			return status, resp, nil
		}
		lastErr = err
		var ge *Error
		if errors.As(err, &ge) && ge.Status != 0 && ge.Status < 500 {
			return status, nil, err // not idempotent-failure: no retry
		}
	}
	return 0, nil, lastErr
}

func (c *Client) once(ctx context.Context, timeout time.Duration, path string, raw []byte, hdr map[string]string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(raw))
	if err != nil {
		return 0, nil, &Error{Message: err.Error(), Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", c.key)
	for k, v := range hdr {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, &Error{Message: "cannot reach the gateway: " + err.Error(), Err: err}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return 0, nil, &Error{Message: "the answer broke off: " + err.Error(), Err: err}
	}
	if res.StatusCode >= 400 {
		return res.StatusCode, nil, apiError(res.StatusCode, body, res.Header.Get("X-Service-Request-Id"))
	}
	return res.StatusCode, body, nil
}

// apiError reads {ok:false, error, request_id} or {error:{message}}.
func apiError(status int, body []byte, requestID string) *Error {
	e := &Error{Status: status, Body: body, RequestID: requestID, Message: http.StatusText(status)}
	var m struct {
		Error     json.RawMessage `json:"error"`
		RequestID string          `json:"request_id"`
	}
	if json.Unmarshal(body, &m) == nil {
		var s string
		var o struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(m.Error, &s) == nil && s != "":
			e.Message = s
		case json.Unmarshal(m.Error, &o) == nil && o.Message != "":
			e.Message = o.Message
		}
		if m.RequestID != "" {
			e.RequestID = m.RequestID
		}
	}
	return e
}

// Dimensions are the optional dashboard headers of verify (and the proxy).
type Dimensions struct {
	UseCase, TeamID, IntegrationID, EndUserID, SessionID string
}

func (d Dimensions) headers() map[string]string {
	return map[string]string{"X-Use-Case": d.UseCase, "X-Team-Id": d.TeamID, "X-Integration-Id": d.IntegrationID,
		"X-End-User-Id": d.EndUserID, "X-Session-Id": d.SessionID}
}
