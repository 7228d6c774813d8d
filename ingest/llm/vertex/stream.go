package vertex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// Stream implements llm.Streamer: streamGenerateContent?alt=sse, each
// server-sent event a GenerateContentResponse, until the body ends. The
// timeout (token minting and the one retry of a transient failure included)
// covers the wait for the response headers, then bounds each silence of the
// upstream; the caller's context bounds the rest.
func (a *Adapter) Stream(ctx context.Context, req llm.Request, cred llm.Credentials) (llm.Stream, error) {
	body, err := a.body(req)
	if err != nil {
		return nil, err
	}
	res, cancel, err := llm.OpenStream(ctx, a.cfg.Timeout, func(ctx context.Context) (*http.Response, error) {
		token, err := a.token(ctx, cred.APIKey)
		if err != nil {
			return nil, err
		}
		u := a.endpoint(req.Model, "streamGenerateContent?alt=sse")
		return llm.Retry(ctx, a.cfg.RetryDelay, func() (*http.Response, error) { return a.post(ctx, u, body, token) })
	})
	if err != nil {
		return nil, err
	}
	return &stream{body: res.Body, events: llm.NewSSE(res.Body), cancel: cancel}, nil
}

type stream struct {
	body     io.ReadCloser
	events   *llm.SSE
	cancel   func()
	finished bool // a chunk carried a finishReason (or the prompt was blocked)
	calls    int  // functionCall parts so far: the next call's index
}

// Next returns one chunk per event, its data in Raw. The stream has no end
// marker: it ends with the body, and only after a chunk with a finishReason
// is that the answer's end rather than a cut. A functionCall part arrives
// whole: one tool call piece with its id (call_<n>_<name>, as Complete
// names it), name and arguments; an answer with calls that finishes with
// STOP finishes with tool_calls.
func (s *stream) Next() (llm.Chunk, error) {
	_, data, err := s.events.Next()
	if errors.Is(err, io.EOF) && !s.finished {
		return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream stream ended without a finishReason (truncated)"}
	}
	if err != nil {
		return llm.Chunk{}, err
	}
	var w struct {
		wireResponse
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream stream carried an unreadable GenerateContentResponse"}
	}
	if w.Error != nil { // an error after the 200, in the stream itself
		status := w.Error.Code
		if status < 400 || status > 599 {
			status = http.StatusBadGateway
		}
		return llm.Chunk{}, &llm.Error{Status: status, Type: llm.ErrStatus, Message: "the upstream stream failed: " + w.Error.Message}
	}
	c := llm.Chunk{Raw: data}
	if len(w.Candidates) > 0 {
		var text strings.Builder
		for _, p := range w.Candidates[0].Content.Parts {
			text.WriteString(p.Text)
			if fc := p.FunctionCall; fc != nil {
				args := string(fc.Args)
				if args == "" {
					args = "{}"
				}
				c.ToolCalls = append(c.ToolCalls, llm.ToolCallDelta{Index: s.calls, ID: fmt.Sprintf("call_%d_%s", s.calls, fc.Name),
					Name: fc.Name, Arguments: args})
				s.calls++
			}
		}
		c.Delta = text.String()
		if r := w.Candidates[0].FinishReason; r != "" {
			s.finished = true
			c.FinishReason = finish[r]
			if s.calls > 0 && c.FinishReason == "stop" {
				c.FinishReason = "tool_calls" // Gemini says STOP; OpenAI clients look for tool_calls
			}
		}
	}
	if w.PromptFeedback.BlockReason != "" { // the prompt was refused: no candidates at all
		s.finished = true
		c.FinishReason = "content_filter"
	}
	// Intermediate chunks may carry an empty usageMetadata; the final one
	// has the counts.
	if u := w.UsageMetadata; u.PromptTokenCount > 0 || u.CandidatesTokenCount > 0 {
		c.Usage = &llm.Usage{PromptTokens: u.PromptTokenCount, CompletionTokens: u.CandidatesTokenCount}
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
