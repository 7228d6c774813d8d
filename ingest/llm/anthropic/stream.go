package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// Stream implements llm.Streamer: the Messages request with "stream": true,
// read as server-sent events until message_stop. The timeout (and the one
// retry of a transient failure) covers the wait for the response headers,
// then bounds each silence of the upstream; the caller's context bounds the
// rest.
func (a *Adapter) Stream(ctx context.Context, req llm.Request, cred llm.Credentials) (llm.Stream, error) {
	body, err := body(req, true)
	if err != nil {
		return nil, translateError(err)
	}
	res, cancel, err := llm.OpenStream(ctx, a.cfg.Timeout, func(ctx context.Context) (*http.Response, error) {
		return llm.Retry(ctx, a.cfg.RetryDelay, func() (*http.Response, error) { return a.post(ctx, body, cred, true) })
	})
	if err != nil {
		return nil, err
	}
	return &stream{body: res.Body, events: llm.NewSSE(res.Body), cancel: cancel}, nil
}

type stream struct {
	body   io.ReadCloser
	events *llm.SSE
	cancel func()
	done   bool
	usage  llm.Usage // input tokens from message_start, output from message_delta
	// tools maps the content block index of each tool_use block to its
	// tool call index (the tool_use blocks counted from 0).
	tools map[int]*toolBlock
}

// toolBlock is a tool_use block being streamed.
type toolBlock struct {
	index   int  // the tool call index
	hasArgs bool // an input_json_delta carried some JSON
}

type usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// wireEvent is the union of the stream's event payloads.
type wireEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"` // content_block_start, _delta, _stop
	Message struct {
		Usage usage `json:"usage"`
	} `json:"message"` // message_start
	ContentBlock struct {
		Type string `json:"type"` // text, tool_use...
		ID   string `json:"id"`   // tool_use
		Name string `json:"name"` // tool_use
	} `json:"content_block"` // content_block_start
	Delta struct {
		Type        string `json:"type"`         // content_block_delta: text_delta, input_json_delta...
		Text        string `json:"text"`         // text_delta
		PartialJSON string `json:"partial_json"` // input_json_delta
		StopReason  string `json:"stop_reason"`  // message_delta
	} `json:"delta"`
	Usage usage `json:"usage"` // message_delta, cumulative
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// errStatus maps the error types of an `error` event to the HTTP status the
// same error has when it comes before the stream.
var errStatus = map[string]int{"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403, "not_found_error": 404,
	"request_too_large": 413, "rate_limit_error": 429, "api_error": 500, "overloaded_error": 529}

// Next returns one chunk per event, its data in Raw. Pings are skipped and
// message_stop is the end (io.EOF); the message_delta chunk, the last one
// before it, carries the finish reason and the usage. A tool_use block
// becomes a tool call: its content_block_start the call's first piece (id,
// name), each input_json_delta a fragment of its arguments.
func (s *stream) Next() (llm.Chunk, error) {
	for !s.done {
		name, data, err := s.event()
		if err != nil {
			return llm.Chunk{}, err
		}
		var ev wireEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: fmt.Sprintf("the upstream stream carried an unreadable event %q", name)}
		}
		if name == "" {
			name = ev.Type
		}
		c := llm.Chunk{Raw: data}
		switch name {
		case "ping":
			continue
		case "message_stop":
			s.done = true
			continue
		case "error":
			status, ok := errStatus[ev.Error.Type]
			if !ok {
				status = http.StatusBadGateway
			}
			return llm.Chunk{}, &llm.Error{Status: status, Type: llm.ErrStatus, Message: "the upstream stream failed: " + ev.Error.Message}
		case "message_start":
			s.usage.PromptTokens = ev.Message.Usage.InputTokens
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				if s.tools == nil {
					s.tools = map[int]*toolBlock{}
				}
				tb := &toolBlock{index: len(s.tools)}
				s.tools[ev.Index] = tb
				c.ToolCalls = []llm.ToolCallDelta{{Index: tb.index, ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}}
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				c.Delta = ev.Delta.Text
			case "input_json_delta":
				if tb := s.tools[ev.Index]; tb != nil && ev.Delta.PartialJSON != "" {
					tb.hasArgs = true
					c.ToolCalls = []llm.ToolCallDelta{{Index: tb.index, Arguments: ev.Delta.PartialJSON}}
				}
			}
		case "content_block_stop":
			// A tool without input may stream no JSON at all: its arguments
			// are then "{}", as in a complete answer.
			if tb := s.tools[ev.Index]; tb != nil && !tb.hasArgs {
				tb.hasArgs = true
				c.ToolCalls = []llm.ToolCallDelta{{Index: tb.index, Arguments: "{}"}}
			}
		case "message_delta":
			c.FinishReason = finish[ev.Delta.StopReason]
			s.usage.CompletionTokens = ev.Usage.OutputTokens
			if ev.Usage.InputTokens > 0 { // newer API versions repeat it here
				s.usage.PromptTokens = ev.Usage.InputTokens
			}
			u := s.usage
			c.Usage = &u
		}
		return c, nil
	}
	return llm.Chunk{}, io.EOF
}

// event reads the next server-sent event. A body that ends before
// message_stop is a truncated answer, never a silent end.
func (s *stream) event() (name string, data []byte, err error) {
	name, data, err = s.events.Next()
	if errors.Is(err, io.EOF) {
		return "", nil, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream stream ended without message_stop (truncated)"}
	}
	return name, data, err
}

// Close releases the connection; closing before the end cancels the
// upstream request.
func (s *stream) Close() error {
	err := s.body.Close()
	s.cancel()
	return err
}
