// Package anthropic is the Anthropic Messages API adapter: POST
// {base}/v1/messages with x-api-key and anthropic-version headers. System
// messages move to the top-level `system`, OpenAI-style tools become
// {name, description, input_schema}, tool calls and tool results become
// tool_use / tool_result content blocks, and the answer's stop_reason maps
// to the OpenAI finish_reason vocabulary.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// Version is the anthropic-version header value.
const Version = "2023-06-01"

// DefaultMaxTokens is sent when the request has none (the API requires it).
const DefaultMaxTokens = 1024

// Adapter talks to the Messages API.
type Adapter struct {
	cfg    llm.Config
	client *http.Client
}

// New returns the adapter; cfg.BaseURL defaults to https://api.anthropic.com.
func New(cfg llm.Config) *Adapter {
	cfg.Defaults()
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.anthropic.com"
	}
	return &Adapter{cfg: cfg, client: &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second, ForceAttemptHTTP2: true}}}
}

// Name implements llm.Provider.
func (a *Adapter) Name() string { return llm.Anthropic }

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type wireRequest struct {
	Model       string            `json:"model"`
	System      string            `json:"system,omitempty"`
	Messages    []message         `json:"messages"`
	MaxTokens   int               `json:"max_tokens"`
	Temperature *float64          `json:"temperature,omitempty"`
	Tools       []tool            `json:"tools,omitempty"`
	TopP        *float64          `json:"top_p,omitempty"`
	StopSeqs    []string          `json:"stop_sequences,omitempty"`
	ToolChoice  map[string]any    `json:"tool_choice,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Stream      bool              `json:"stream,omitempty"`
}

// Body translates req to the Messages API request.
func Body(req llm.Request) ([]byte, error) { return body(req, false) }

func body(req llm.Request, stream bool) ([]byte, error) {
	w := wireRequest{Model: req.Model, MaxTokens: DefaultMaxTokens, Temperature: req.Temperature, Stream: stream}
	if req.MaxTokens != nil {
		w.MaxTokens = *req.MaxTokens
	}
	var system []string
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = append(system, m.Content)
		case "tool":
			w.Messages = appendTurn(w.Messages, "user", block{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content})
		case "assistant":
			var blocks []block
			if m.Content != "" {
				blocks = append(blocks, block{Type: "text", Text: m.Content})
			}
			if len(m.ToolCalls) > 0 {
				calls, err := llm.ParseToolCalls(m.ToolCalls)
				if err != nil {
					return nil, err
				}
				for _, c := range calls {
					blocks = append(blocks, block{Type: "tool_use", ID: c.ID, Name: c.Name, Input: c.Arguments})
				}
			}
			w.Messages = appendTurn(w.Messages, "assistant", blocks...)
		default:
			w.Messages = appendTurn(w.Messages, "user", block{Type: "text", Text: m.Content})
		}
	}
	w.System = strings.Join(system, "\n\n")
	if len(req.Tools) > 0 {
		tools, err := llm.ParseTools(req.Tools)
		if err != nil {
			return nil, err
		}
		for _, t := range tools {
			schema := t.Parameters
			if len(schema) == 0 {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			w.Tools = append(w.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
		}
	}
	if err := params(&w, req); err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// params translates the parameters beyond messages and tools: top_p, stop
// (stop_sequences), tool_choice and parallel_tool_calls (tool_choice with
// disable_parallel_tool_use), user (metadata.user_id),
// max_completion_tokens. A parameter the Messages API cannot honour (a
// JSON response_format, seed, penalties, logprobs...) is an
// llm.Unsupported error unless it is sent at its default.
func params(w *wireRequest, req llm.Request) error {
	if err := llm.RefuseResponseFormat(llm.Anthropic, req.ResponseFormat, "the Messages API has no JSON mode"); err != nil {
		return err
	}
	choice, parallel := "", true
	var name string
	err := llm.EachParam(llm.Anthropic, req.Extra, map[string]bool{"user": true}, func(k string, v json.RawMessage) error {
		var err error
		switch k {
		case "parallel_tool_calls":
			err = json.Unmarshal(v, &parallel)
		case "top_p":
			w.TopP = new(float64)
			err = json.Unmarshal(v, w.TopP)
		case "stop":
			w.StopSeqs, err = llm.Stop(v)
		case "tool_choice":
			choice, name, err = llm.ToolChoice(v)
		case "user":
			var u string
			if err = json.Unmarshal(v, &u); err == nil {
				w.Metadata = map[string]string{"user_id": u}
			}
		case "max_completion_tokens":
			if req.MaxTokens == nil {
				err = json.Unmarshal(v, &w.MaxTokens)
			}
		default:
			return llm.Unsupported(llm.Anthropic, k, "")
		}
		return err
	})
	if err != nil {
		return err
	}
	if len(w.Tools) == 0 {
		if choice == "required" || choice == "function" {
			return llm.NeedsTools(llm.Anthropic)
		}
		return nil
	}
	switch choice {
	case "none":
		w.ToolChoice = map[string]any{"type": "none"}
		return nil
	case "required":
		w.ToolChoice = map[string]any{"type": "any"}
	case "function":
		w.ToolChoice = map[string]any{"type": "tool", "name": name}
	case "auto":
		w.ToolChoice = map[string]any{"type": "auto"}
	}
	if !parallel {
		if w.ToolChoice == nil {
			w.ToolChoice = map[string]any{"type": "auto"}
		}
		w.ToolChoice["disable_parallel_tool_use"] = true
	}
	return nil
}

// appendTurn merges consecutive blocks of the same role: the API wants
// alternating user / assistant turns.
func appendTurn(ms []message, role string, blocks ...block) []message {
	if len(blocks) == 0 {
		return ms
	}
	if n := len(ms); n > 0 && ms[n-1].Role == role {
		ms[n-1].Content = append(ms[n-1].Content, blocks...)
		return ms
	}
	return append(ms, message{Role: role, Content: blocks})
}

type wireResponse struct {
	Model      string  `json:"model"`
	Content    []block `json:"content"`
	StopReason string  `json:"stop_reason"`
	Usage      struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
}

var finish = map[string]string{"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls", "refusal": "content_filter"}

// Complete implements llm.Provider.
func (a *Adapter) Complete(ctx context.Context, req llm.Request, cred llm.Credentials) (llm.Response, error) {
	body, err := Body(req)
	if err != nil {
		return llm.Response{}, translateError(err)
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	return llm.Retry(ctx, a.cfg.RetryDelay, func() (llm.Response, error) { return a.once(ctx, body, cred) })
}

// translateError is the error of a request Body cannot translate: its own
// *llm.Error (an unsupported parameter), or a 400 saying why.
func translateError(err error) error {
	var le *llm.Error
	if errors.As(err, &le) {
		return le
	}
	return &llm.Error{Status: http.StatusBadRequest, Type: llm.ErrBadResponse, Message: "cannot translate the request for Anthropic: " + err.Error()}
}

// post sends a Messages API request and returns the response of a
// successful status; the caller closes its body.
func (a *Adapter) post(ctx context.Context, body []byte, cred llm.Credentials, stream bool) (*http.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, a.cfg.BaseURL+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "bad upstream URL"}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("x-api-key", cred.APIKey)
	hr.Header.Set("anthropic-version", Version)
	if stream {
		hr.Header.Set("Accept", "text/event-stream")
	}
	res, err := a.client.Do(hr)
	if err != nil {
		return nil, llm.TransportError(ctx, err)
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		return nil, llm.StatusError(res)
	}
	return res, nil
}

func (a *Adapter) once(ctx context.Context, body []byte, cred llm.Credentials) (llm.Response, error) {
	res, err := a.post(ctx, body, cred, false)
	if err != nil {
		return llm.Response{}, err
	}
	defer res.Body.Close()
	raw, err := llm.ReadAnswer(ctx, res.Body)
	if err != nil {
		return llm.Response{}, err
	}
	var w wireResponse
	if err := json.Unmarshal(raw, &w); err != nil || w.Content == nil {
		return llm.Response{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream answered with an unreadable message"}
	}
	out := llm.Response{Model: w.Model, FinishReason: finish[w.StopReason],
		Usage: llm.Usage{PromptTokens: w.Usage.InputTokens, CompletionTokens: w.Usage.OutputTokens}}
	var calls []map[string]any
	var text strings.Builder
	for _, b := range w.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			args := string(b.Input)
			if args == "" {
				args = "{}"
			}
			calls = append(calls, map[string]any{"id": b.ID, "type": "function", "function": map[string]any{"name": b.Name, "arguments": args}})
		}
	}
	out.Content = text.String()
	if len(calls) > 0 {
		out.ToolCalls, _ = json.Marshal(calls)
	}
	return out, nil
}
