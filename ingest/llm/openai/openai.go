// Package openai is the OpenAI Chat Completions adapter (POST
// {base}/chat/completions, Authorization: Bearer).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// Adapter talks to one OpenAI-compatible endpoint.
type Adapter struct {
	cfg    llm.Config
	client *http.Client
	name   string
	url    func(model string) string
	auth   func(h http.Header, key string)
}

// New returns the OpenAI adapter; cfg.BaseURL defaults to
// https://api.openai.com/v1.
func New(cfg llm.Config) *Adapter {
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.openai.com/v1"
	}
	base := cfg.BaseURL
	return NewCompatible(llm.OpenAI, cfg,
		func(string) string { return base + "/chat/completions" },
		func(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) })
}

// NewCompatible returns an adapter for a vendor that speaks the Chat
// Completions body and response with its own URL layout and auth header
// (Azure OpenAI).
func NewCompatible(name string, cfg llm.Config, url func(model string) string, auth func(h http.Header, key string)) *Adapter {
	cfg.Defaults()
	return &Adapter{cfg: cfg, name: name, url: url, auth: auth, client: &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second,
		ForceAttemptHTTP2: true,
	}}}
}

// Name implements llm.Provider.
func (a *Adapter) Name() string { return a.name }

type wireRequest struct {
	Model          string          `json:"model"`
	Messages       []llm.Message   `json:"messages"`
	Temperature    *float64        `json:"temperature,omitempty"`
	MaxTokens      *int            `json:"max_tokens,omitempty"`
	Tools          json.RawMessage `json:"tools,omitempty"`
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
}

type wireResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   *string         `json:"content"`
			ToolCalls json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// Body encodes req in the Chat Completions wire format: the known fields
// plus every Extra parameter, unchanged.
func Body(req llm.Request) ([]byte, error) {
	b, err := json.Marshal(wireRequest{Model: req.Model, Messages: req.Messages, Temperature: req.Temperature,
		MaxTokens: req.MaxTokens, Tools: req.Tools, ResponseFormat: req.ResponseFormat})
	if err != nil || len(req.Extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range req.Extra {
		if _, known := m[k]; !known {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// Complete implements llm.Provider.
func (a *Adapter) Complete(ctx context.Context, req llm.Request, cred llm.Credentials) (llm.Response, error) {
	body, err := Body(req)
	if err != nil {
		return llm.Response{}, &llm.Error{Status: http.StatusBadRequest, Type: llm.ErrBadResponse, Message: "cannot encode the request: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	return llm.Retry(ctx, a.cfg.RetryDelay, func() (llm.Response, error) { return a.once(ctx, req.Model, body, cred) })
}

func (a *Adapter) once(ctx context.Context, model string, body []byte, cred llm.Credentials) (llm.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url(model), bytes.NewReader(body))
	if err != nil {
		return llm.Response{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "bad upstream URL"}
	}
	hr.Header.Set("Content-Type", "application/json")
	a.auth(hr.Header, cred.APIKey)
	res, err := a.client.Do(hr)
	if err != nil {
		return llm.Response{}, llm.TransportError(ctx, err)
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		return llm.Response{}, llm.StatusError(res)
	}
	raw, err := llm.ReadAnswer(ctx, res.Body)
	if err != nil {
		return llm.Response{}, err
	}
	var w wireResponse
	if err := json.Unmarshal(raw, &w); err != nil || len(w.Choices) == 0 {
		return llm.Response{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream answered with an unreadable chat completion"}
	}
	c := w.Choices[0]
	out := llm.Response{FinishReason: c.FinishReason, Model: w.Model,
		Usage: llm.Usage{PromptTokens: w.Usage.PromptTokens, CompletionTokens: w.Usage.CompletionTokens}}
	if c.Message.Content != nil {
		out.Content = *c.Message.Content
	}
	if len(c.Message.ToolCalls) > 0 && string(c.Message.ToolCalls) != "null" {
		out.ToolCalls = c.Message.ToolCalls
	}
	return out, nil
}
