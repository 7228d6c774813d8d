package bedrock

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// Stream implements llm.Streamer: ConverseStream (POST
// /model/{modelId}/converse-stream, the Converse body, SigV4-signed), read
// as an application/vnd.amazon.eventstream until messageStop and metadata.
// The timeout (and the one retry of a transient failure) covers the wait for
// the response headers, then bounds each silence of the upstream; the
// caller's context bounds the rest.
func (a *Adapter) Stream(ctx context.Context, req llm.Request, cred llm.Credentials) (llm.Stream, error) {
	keys, body, err := prepare(req, cred)
	if err != nil {
		return nil, err
	}
	res, cancel, err := llm.OpenStream(ctx, a.cfg.Timeout, func(ctx context.Context) (*http.Response, error) {
		return llm.Retry(ctx, a.cfg.RetryDelay, func() (*http.Response, error) {
			return a.post(ctx, req.Model, "converse-stream", body, keys, "application/vnd.amazon.eventstream")
		})
	})
	if err != nil {
		return nil, err
	}
	return &stream{body: res.Body, cancel: cancel}, nil
}

type stream struct {
	body             io.ReadCloser
	cancel           func()
	stopped, metered bool // messageStop, metadata seen
	// tools maps the contentBlockIndex of each toolUse block to its tool
	// call (the toolUse blocks counted from 0).
	tools map[int]*toolBlock
}

// toolBlock is a toolUse block being streamed.
type toolBlock struct {
	index   int  // the tool call index
	hasArgs bool // a delta carried some input JSON
}

// exceptionStatus is the HTTP status ConverseStream documents for each
// exception, keyed by the lower-cased :exception-type.
var exceptionStatus = map[string]int{"validationexception": 400, "accessdeniedexception": 403, "resourcenotfoundexception": 404,
	"modeltimeoutexception": 408, "modelstreamerrorexception": 424, "modelerrorexception": 424, "throttlingexception": 429,
	"modelnotreadyexception": 429, "internalserverexception": 500, "serviceunavailableexception": 503}

// Next returns one chunk per event, its JSON payload in Raw: the
// messageStop chunk carries the finish reason, the metadata chunk (the
// last) the usage. The body ending before both is a truncated answer. A
// toolUse block becomes a tool call: its contentBlockStart the call's first
// piece (id, name), each contentBlockDelta's toolUse.input a fragment of
// its arguments.
func (s *stream) Next() (llm.Chunk, error) {
	f, err := readFrame(s.body)
	var le *llm.Error
	switch {
	case errors.As(err, &le): // the idle timeout of llm.OpenStream's body
		return llm.Chunk{}, le
	case errors.Is(err, io.EOF) && s.stopped && s.metered:
		return llm.Chunk{}, io.EOF
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream stream ended before messageStop and metadata (truncated)"}
	case errors.Is(err, errCorrupt):
		return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream stream is unreadable: " + err.Error()}
	case err != nil:
		return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "the upstream stream broke off: " + err.Error()}
	}
	switch f.headers[":message-type"] {
	case "exception":
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(f.payload, &e)
		typ := f.headers[":exception-type"]
		status, ok := exceptionStatus[strings.ToLower(typ)]
		if !ok {
			status = http.StatusBadGateway
		}
		return llm.Chunk{}, &llm.Error{Status: status, Type: llm.ErrStatus, Message: "the upstream stream failed: " + typ + ": " + e.Message}
	case "error":
		return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrStatus,
			Message: "the upstream stream failed: " + f.headers[":error-code"] + ": " + f.headers[":error-message"]}
	}
	var w struct {
		ContentBlockIndex int `json:"contentBlockIndex"`
		Start             struct {
			ToolUse *struct {
				ToolUseID string `json:"toolUseId"`
				Name      string `json:"name"`
			} `json:"toolUse"`
		} `json:"start"` // contentBlockStart
		Delta struct {
			Text    string `json:"text"`
			ToolUse *struct {
				Input string `json:"input"` // a fragment of the input JSON
			} `json:"toolUse"`
		} `json:"delta"`
		StopReason string `json:"stopReason"`
		Usage      *struct {
			InputTokens  int64 `json:"inputTokens"`
			OutputTokens int64 `json:"outputTokens"`
		} `json:"usage"`
	}
	event := f.headers[":event-type"]
	if err := json.Unmarshal(f.payload, &w); err != nil {
		return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream stream carried an unreadable " + event + " event"}
	}
	c := llm.Chunk{Raw: f.payload}
	switch event {
	case "contentBlockStart":
		if tu := w.Start.ToolUse; tu != nil {
			if s.tools == nil {
				s.tools = map[int]*toolBlock{}
			}
			tb := &toolBlock{index: len(s.tools)}
			s.tools[w.ContentBlockIndex] = tb
			c.ToolCalls = []llm.ToolCallDelta{{Index: tb.index, ID: tu.ToolUseID, Name: tu.Name}}
		}
	case "contentBlockDelta":
		c.Delta = w.Delta.Text
		if tb := s.tools[w.ContentBlockIndex]; tb != nil && w.Delta.ToolUse != nil && w.Delta.ToolUse.Input != "" {
			tb.hasArgs = true
			c.ToolCalls = []llm.ToolCallDelta{{Index: tb.index, Arguments: w.Delta.ToolUse.Input}}
		}
	case "contentBlockStop":
		// A tool without input may stream no JSON at all: its arguments
		// are then "{}", as in a complete answer.
		if tb := s.tools[w.ContentBlockIndex]; tb != nil && !tb.hasArgs {
			tb.hasArgs = true
			c.ToolCalls = []llm.ToolCallDelta{{Index: tb.index, Arguments: "{}"}}
		}
	case "messageStop":
		s.stopped = true
		c.FinishReason = finish[w.StopReason]
	case "metadata":
		s.metered = true
		if w.Usage != nil {
			c.Usage = &llm.Usage{PromptTokens: w.Usage.InputTokens, CompletionTokens: w.Usage.OutputTokens}
		}
	}
	return c, nil
}

// Close releases the connection; closing before the end cancels the
// upstream request.
func (s *stream) Close() error {
	err := s.body.Close()
	s.cancel()
	return err
}
