package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Message is one chat message.
type Message struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	Name       string `json:"name,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ChatRequest is the body of POST /v1/chat (Full Control). Extra holds any
// other LLM parameter, forwarded unchanged.
type ChatRequest struct {
	Messages    []Message      `json:"messages,omitempty"`
	Prompt      string         `json:"prompt,omitempty"`
	Model       string         `json:"model,omitempty"`
	Provider    string         `json:"provider,omitempty"`
	Temperature *float64       `json:"temperature,omitempty"`
	MaxTokens   *int           `json:"max_tokens,omitempty"`
	UserID      string         `json:"user_id,omitempty"`
	SessionID   string         `json:"session_id,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Extra       map[string]any `json:"-"`
}

func (r ChatRequest) body(stream bool) (map[string]any, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range r.Extra {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	if stream {
		m["stream"] = true
	}
	return m, nil
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// ChatResult is a Full Control answer. Answer is nil on a pre-flight block.
type ChatResult struct {
	RequestID  string   `json:"request_id"`
	Governance string   `json:"governance"`
	Stage      string   `json:"stage"`
	Reasons    []Reason `json:"reasons"`
	Model      string   `json:"model"`
	Answer     *string  `json:"answer"`
	Usage      Usage    `json:"usage"`
	RiskScore  float64  `json:"risk_score"`
}

// Chat runs one Full Control request.
func (c *Client) Chat(ctx context.Context, req ChatRequest) (ChatResult, error) {
	b, err := req.body(false)
	if err != nil {
		return ChatResult{}, err
	}
	_, body, err := c.do(ctx, ChatTimeout, "/v1/chat", b, nil)
	if err != nil {
		return ChatResult{}, err
	}
	var r ChatResult
	if err := json.Unmarshal(body, &r); err != nil {
		return ChatResult{}, fmt.Errorf("gateway: decode chat answer: %w", err)
	}
	return r, nil
}

// StreamEvent is one event of a streamed chat: a text Delta, or the final
// governance decision (Final set). When Final.AnswerChanged is true, the
// caller must replace the text it already rendered with Final.Answer.
type StreamEvent struct {
	Delta string
	Final *StreamDecision
}

// StreamDecision is the governance event that ends a stream.
type StreamDecision struct {
	Action        string   `json:"action"`
	Stage         string   `json:"stage"`
	Reasons       []Reason `json:"reasons"`
	RequestID     string   `json:"request_id"`
	RiskScore     float64  `json:"risk_score"`
	AnswerChanged bool     `json:"answer_changed"`
	Answer        *string  `json:"answer"`
}

// ChatStream is an open streamed answer; Next returns io.EOF after the
// final event. Close it when done.
type ChatStream struct {
	body io.ReadCloser
	sc   *bufio.Scanner
	err  error
}

// ChatStream starts a streamed Full Control request. Errors before the
// stream opens are *Error (with the one retry of idempotent failures).
func (c *Client) ChatStream(ctx context.Context, req ChatRequest) (*ChatStream, error) {
	b, err := req.body(true)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(b)
	var res *http.Response
	for attempt := 0; attempt < 2; attempt++ {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/chat", bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("X-API-Key", c.key)
		res, err = c.http.Do(hr)
		if err == nil && res.StatusCode < 500 {
			break
		}
		if err == nil && attempt == 0 {
			res.Body.Close()
		}
		if attempt == 0 {
			if err := sleepCtx(ctx, c.retryDelay); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, &Error{Message: "cannot reach the gateway: " + err.Error(), Err: err}
		}
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		return nil, apiError(res.StatusCode, body, res.Header.Get("X-Service-Request-Id"))
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	return &ChatStream{body: res.Body, sc: sc}, nil
}

// Next returns the next event.
func (s *ChatStream) Next() (StreamEvent, error) {
	for s.sc.Scan() {
		data, ok := strings.CutPrefix(strings.TrimSpace(s.sc.Text()), "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			return StreamEvent{}, io.EOF
		}
		var ev struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Governance *StreamDecision `json:"governance"`
			Error      *struct {
				Message string `json:"message"`
			} `json:"error"`
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			continue
		}
		switch {
		case ev.Error != nil:
			return StreamEvent{}, &Error{Status: http.StatusBadGateway, Message: ev.Error.Message, RequestID: ev.RequestID}
		case ev.Governance != nil:
			return StreamEvent{Final: ev.Governance}, nil
		case len(ev.Choices) > 0 && ev.Choices[0].Delta.Content != "":
			return StreamEvent{Delta: ev.Choices[0].Delta.Content}, nil
		}
	}
	if err := s.sc.Err(); err != nil {
		return StreamEvent{}, &Error{Message: "the stream broke off: " + err.Error(), Err: err}
	}
	return StreamEvent{}, &Error{Message: "the stream ended without its final governance event"}
}

// Close releases the connection.
func (s *ChatStream) Close() error { return s.body.Close() }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
