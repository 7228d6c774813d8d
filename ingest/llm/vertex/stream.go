package vertex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// errSlow cancels a stream whose response headers took longer than the
// adapter's timeout.
var errSlow = errors.New("no response headers within the timeout")

// Stream implements llm.Streamer: streamGenerateContent?alt=sse, each
// server-sent event a GenerateContentResponse, until the body ends. The
// timeout (token minting and the one retry of a transient failure included)
// covers the wait for the response headers; the caller's context bounds the
// rest.
func (a *Adapter) Stream(ctx context.Context, req llm.Request, cred llm.Credentials) (llm.Stream, error) {
	body, err := a.body(req)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(a.cfg.Timeout, func() { cancel(errSlow) })
	res, err := func() (*http.Response, error) {
		token, err := a.token(rctx, cred.APIKey)
		if err != nil {
			return nil, err
		}
		u := a.endpoint(req.Model, "streamGenerateContent?alt=sse")
		return llm.Retry(rctx, a.cfg.RetryDelay, func() (*http.Response, error) { return a.post(rctx, u, body, token) })
	}()
	inTime := timer.Stop()
	if err == nil && !inTime {
		res.Body.Close() // its context is cancelled: the body is unreadable
	}
	if err != nil || !inTime {
		cancel(nil)
		if !inTime {
			return nil, &llm.Error{Status: http.StatusGatewayTimeout, Type: llm.ErrTimeout, Message: "the upstream LLM did not answer in time"}
		}
		return nil, err
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	return &stream{body: res.Body, sc: sc, cancel: func() { cancel(nil) }}, nil
}

type stream struct {
	body     io.ReadCloser
	sc       *bufio.Scanner
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
	data, err := s.event()
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

// event reads the data of the next server-sent event (data lines joined by
// "\n", a fresh slice, safe to keep), or io.EOF when the body ends cleanly.
func (s *stream) event() ([]byte, error) {
	var data []byte
	seen := false
	for s.sc.Scan() {
		line := s.sc.Bytes()
		switch {
		case len(line) == 0 && seen:
			return data, nil
		case bytes.HasPrefix(line, []byte("data:")):
			if seen {
				data = append(data, '\n')
			}
			seen = true
			data = append(data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
		}
	}
	err := s.sc.Err()
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream stream carried an event over 4 MiB"}
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "the upstream stream broke off: " + err.Error()}
	case seen: // the last event lacks its blank line: still parse it
		return data, nil
	}
	return nil, io.EOF
}

// Close releases the connection; closing before the end cancels the
// upstream request.
func (s *stream) Close() error {
	err := s.body.Close()
	s.cancel()
	return err
}
