// Package bedrock is the Amazon Bedrock adapter on the Converse API:
// POST {endpoint}/model/{modelId}/converse, signed with AWS Signature
// Version 4 (service "bedrock"). Credentials are
// "ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]".
package bedrock

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

// Adapter talks to the Bedrock runtime of one region.
type Adapter struct {
	cfg    llm.Config
	client *http.Client
	now    func() time.Time
}

// New returns the adapter; cfg.Region defaults to us-east-1 and
// cfg.BaseURL to https://bedrock-runtime.{region}.amazonaws.com.
func New(cfg llm.Config) *Adapter {
	cfg.Defaults()
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://bedrock-runtime." + cfg.Region + ".amazonaws.com"
	}
	return &Adapter{cfg: cfg, now: time.Now, client: &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second, ForceAttemptHTTP2: true}}}
}

// Name implements llm.Provider.
func (a *Adapter) Name() string { return llm.Bedrock }

type content struct {
	Text       string          `json:"text,omitempty"`
	ToolUse    *toolUse        `json:"toolUse,omitempty"`
	ToolResult *toolResult     `json:"toolResult,omitempty"`
	Extra      json.RawMessage `json:"-"`
}

type toolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type toolResult struct {
	ToolUseID string    `json:"toolUseId"`
	Content   []content `json:"content"`
}

type message struct {
	Role    string    `json:"role"`
	Content []content `json:"content"`
}

type wireRequest struct {
	Messages        []message         `json:"messages"`
	System          []content         `json:"system,omitempty"`
	InferenceConfig map[string]any    `json:"inferenceConfig,omitempty"`
	ToolConfig      map[string]any    `json:"toolConfig,omitempty"`
	Extra           map[string]string `json:"-"`
}

// Body translates req to a Converse request.
func Body(req llm.Request) ([]byte, error) {
	var w wireRequest
	add := func(role string, c content) {
		if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == role {
			w.Messages[n-1].Content = append(w.Messages[n-1].Content, c)
			return
		}
		w.Messages = append(w.Messages, message{Role: role, Content: []content{c}})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			w.System = append(w.System, content{Text: m.Content})
		case "tool":
			add("user", content{ToolResult: &toolResult{ToolUseID: m.ToolCallID, Content: []content{{Text: m.Content}}}})
		case "assistant":
			if m.Content != "" {
				add("assistant", content{Text: m.Content})
			}
			if len(m.ToolCalls) > 0 {
				calls, err := llm.ParseToolCalls(m.ToolCalls)
				if err != nil {
					return nil, err
				}
				for _, c := range calls {
					add("assistant", content{ToolUse: &toolUse{ToolUseID: c.ID, Name: c.Name, Input: c.Arguments}})
				}
			}
		default:
			add("user", content{Text: m.Content})
		}
	}
	ic := map[string]any{}
	if req.MaxTokens != nil {
		ic["maxTokens"] = *req.MaxTokens
	}
	if req.Temperature != nil {
		ic["temperature"] = *req.Temperature
	}
	if len(req.Tools) > 0 {
		tools, err := llm.ParseTools(req.Tools)
		if err != nil {
			return nil, err
		}
		var specs []any
		for _, t := range tools {
			schema := t.Parameters
			if len(schema) == 0 {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			spec := map[string]any{"name": t.Name, "inputSchema": map[string]any{"json": schema}}
			if t.Description != "" {
				spec["description"] = t.Description
			}
			specs = append(specs, map[string]any{"toolSpec": spec})
		}
		w.ToolConfig = map[string]any{"tools": specs}
	}
	if err := params(&w, ic, req); err != nil {
		return nil, err
	}
	if len(ic) > 0 {
		w.InferenceConfig = ic
	}
	return json.Marshal(w)
}

// params translates the parameters beyond messages and tools into the
// inferenceConfig ic (top_p, stop, max_completion_tokens) and
// toolConfig.toolChoice (tool_choice auto, required, a named function). A
// parameter Converse cannot honour (a JSON response_format, seed,
// tool_choice none, parallel_tool_calls false, penalties...) is an
// llm.Unsupported error unless it is sent at its default.
func params(w *wireRequest, ic map[string]any, req llm.Request) error {
	if err := llm.RefuseResponseFormat(llm.Bedrock, req.ResponseFormat, "Converse has no JSON mode"); err != nil {
		return err
	}
	return llm.EachParam(llm.Bedrock, req.Extra, nil, func(k string, v json.RawMessage) error {
		var err error
		switch k {
		case "top_p":
			var p float64
			if err = json.Unmarshal(v, &p); err == nil {
				ic["topP"] = p
			}
		case "stop":
			ic["stopSequences"], err = llm.Stop(v)
		case "max_completion_tokens":
			var n int
			if err = json.Unmarshal(v, &n); err == nil && req.MaxTokens == nil {
				ic["maxTokens"] = n
			}
		case "tool_choice":
			var mode, name string
			if mode, name, err = llm.ToolChoice(v); err != nil {
				break
			}
			switch {
			case mode == "none" && w.ToolConfig == nil: // no tools: nothing to refrain from
			case mode == "none":
				return llm.Unsupported(llm.Bedrock, k, `Converse has no "none"`)
			case w.ToolConfig == nil && mode != "auto":
				return llm.NeedsTools(llm.Bedrock)
			case w.ToolConfig == nil: // auto without tools asks for nothing
			case mode == "auto":
				w.ToolConfig["toolChoice"] = map[string]any{"auto": map[string]any{}}
			case mode == "required":
				w.ToolConfig["toolChoice"] = map[string]any{"any": map[string]any{}}
			default:
				w.ToolConfig["toolChoice"] = map[string]any{"tool": map[string]any{"name": name}}
			}
		default:
			return llm.Unsupported(llm.Bedrock, k, "")
		}
		return err
	})
}

var finish = map[string]string{"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls",
	"guardrail_intervened": "content_filter", "content_filtered": "content_filter"}

// Complete implements llm.Provider.
func (a *Adapter) Complete(ctx context.Context, req llm.Request, cred llm.Credentials) (llm.Response, error) {
	keys, body, err := prepare(req, cred)
	if err != nil {
		return llm.Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	return llm.Retry(ctx, a.cfg.RetryDelay, func() (llm.Response, error) { return a.once(ctx, req.Model, body, keys) })
}

// prepare parses the credentials and translates req.
func prepare(req llm.Request, cred llm.Credentials) (Keys, []byte, error) {
	keys, ok := ParseKeys(cred.APIKey)
	if !ok {
		return Keys{}, nil, &llm.Error{Status: http.StatusBadRequest, Type: llm.ErrStatus, Message: "Bedrock credentials must be ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]"}
	}
	body, err := Body(req)
	var le *llm.Error
	if errors.As(err, &le) {
		return Keys{}, nil, le
	}
	if err != nil {
		return Keys{}, nil, &llm.Error{Status: http.StatusBadRequest, Type: llm.ErrBadResponse, Message: "cannot translate the request for Bedrock: " + err.Error()}
	}
	return keys, body, nil
}

// post sends a SigV4-signed request to the model's operation (converse,
// converse-stream) and returns the response of a successful status; the
// caller closes its body.
func (a *Adapter) post(ctx context.Context, model, op string, body []byte, keys Keys, accept string) (*http.Response, error) {
	// The model id goes out percent-encoded as botocore sends it (":" as
	// %3A, "/" of an ARN as %2F): url.Parse keeps that spelling as RawPath
	// and the request line uses it, so Sign sees exactly the wire path.
	u := a.cfg.BaseURL + "/model/" + uriEncode(model) + "/" + op
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "bad upstream URL"}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", accept)
	Sign(hr, body, keys, a.cfg.Region, "bedrock", a.now())
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

func (a *Adapter) once(ctx context.Context, model string, body []byte, keys Keys) (llm.Response, error) {
	res, err := a.post(ctx, model, "converse", body, keys, "application/json")
	if err != nil {
		return llm.Response{}, err
	}
	defer res.Body.Close()
	raw, err := llm.ReadAnswer(ctx, res.Body)
	if err != nil {
		return llm.Response{}, err
	}
	var w struct {
		Output struct {
			Message message `json:"message"`
		} `json:"output"`
		StopReason string `json:"stopReason"`
		Usage      struct {
			InputTokens  int64 `json:"inputTokens"`
			OutputTokens int64 `json:"outputTokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(raw, &w); err != nil || w.Output.Message.Role == "" {
		return llm.Response{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream answered with an unreadable Converse response"}
	}
	out := llm.Response{Model: model, FinishReason: finish[w.StopReason],
		Usage: llm.Usage{PromptTokens: w.Usage.InputTokens, CompletionTokens: w.Usage.OutputTokens}}
	var text strings.Builder
	var calls []map[string]any
	for _, c := range w.Output.Message.Content {
		text.WriteString(c.Text)
		if c.ToolUse != nil {
			calls = append(calls, map[string]any{"id": c.ToolUse.ToolUseID, "type": "function",
				"function": map[string]any{"name": c.ToolUse.Name, "arguments": string(c.ToolUse.Input)}})
		}
	}
	out.Content = text.String()
	if len(calls) > 0 {
		out.ToolCalls, _ = json.Marshal(calls)
	}
	return out, nil
}
