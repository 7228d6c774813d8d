package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// Stream implements llm.Streamer: the same request with "stream": true and
// stream_options.include_usage, read as server-sent events until "data:
// [DONE]". The timeout (and the one retry of a transient failure) covers the
// wait for the response headers, then bounds each silence of the upstream;
// the caller's context bounds the rest.
func (a *Adapter) Stream(ctx context.Context, req llm.Request, cred llm.Credentials) (llm.Stream, error) {
	if req.Extra == nil {
		req.Extra = map[string]json.RawMessage{}
	} else {
		extra := make(map[string]json.RawMessage, len(req.Extra)+2)
		for k, v := range req.Extra {
			extra[k] = v
		}
		req.Extra = extra
	}
	req.Extra["stream"] = json.RawMessage(`true`)
	req.Extra["stream_options"] = json.RawMessage(`{"include_usage":true}`)
	body, err := Body(req)
	if err != nil {
		return nil, &llm.Error{Status: http.StatusBadRequest, Type: llm.ErrBadResponse, Message: "cannot encode the request: " + err.Error()}
	}
	res, cancel, err := llm.OpenStream(ctx, a.cfg.Timeout, func(ctx context.Context) (*http.Response, error) {
		return llm.Retry(ctx, a.cfg.RetryDelay, func() (*http.Response, error) { return a.open(ctx, req.Model, body, cred) })
	})
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	return &stream{body: res.Body, sc: sc, cancel: cancel}, nil
}

// open sends the streaming request and returns the response of a
// successful status; the caller closes its body.
func (a *Adapter) open(ctx context.Context, model string, body []byte, cred llm.Credentials) (*http.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url(model), bytes.NewReader(body))
	if err != nil {
		return nil, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "bad upstream URL"}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	a.auth(hr.Header, cred.APIKey)
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

type stream struct {
	body   io.ReadCloser
	sc     *bufio.Scanner
	done   bool
	cancel func()
}

type wireChunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

func (s *stream) Next() (llm.Chunk, error) {
	if s.done {
		return llm.Chunk{}, io.EOF
	}
	for s.sc.Scan() {
		line := s.sc.Bytes()
		if !bytes.HasPrefix(line, []byte("data:")) {
			continue // comments, event names, blank separators
		}
		data := bytes.TrimSpace(line[len("data:"):])
		if string(data) == "[DONE]" {
			s.done = true
			return llm.Chunk{}, io.EOF
		}
		var w wireChunk
		if err := json.Unmarshal(data, &w); err != nil {
			return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream stream carried an unreadable event"}
		}
		c := llm.Chunk{Raw: append([]byte(nil), data...)}
		if len(w.Choices) > 0 {
			c.Delta = w.Choices[0].Delta.Content
			if w.Choices[0].FinishReason != nil {
				c.FinishReason = *w.Choices[0].FinishReason
			}
		}
		if w.Usage != nil {
			c.Usage = &llm.Usage{PromptTokens: w.Usage.PromptTokens, CompletionTokens: w.Usage.CompletionTokens}
		}
		return c, nil
	}
	err := s.sc.Err()
	var le *llm.Error
	if errors.As(err, &le) { // the idle timeout of llm.OpenStream's body
		return llm.Chunk{}, le
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "the upstream stream broke off"}
	}
	return llm.Chunk{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream stream ended without [DONE] (truncated)"}
}

// Close releases the connection; closing before the end cancels the
// upstream request.
func (s *stream) Close() error {
	err := s.body.Close()
	s.cancel()
	return err
}
