package llm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// errSlow cancels a stream whose response headers took longer than the
// adapter's timeout; errIdle one whose upstream then went silent for as long.
var (
	errSlow = errors.New("no response headers within the timeout")
	errIdle = errors.New("no stream data within the timeout")
)

// OpenStream runs open, which sends a streaming request under the context
// it is given and returns the response of a successful status. timeout
// bounds the wait for the response headers, then each wait for more of the
// body: an upstream silent that long ends the stream with an ErrTimeout
// *Error (504) from a read of res.Body, instead of holding the client
// until the upstream gives up. The caller's ctx bounds the whole. On
// success the caller reads res.Body and calls cancel when done with it
// (closing before the end cancels the upstream request).
func OpenStream(ctx context.Context, timeout time.Duration, open func(ctx context.Context) (*http.Response, error)) (res *http.Response, cancel func(), err error) {
	rctx, cancelCause := context.WithCancelCause(ctx)
	timer := time.AfterFunc(timeout, func() { cancelCause(errSlow) })
	res, err = open(rctx)
	inTime := timer.Stop()
	if err == nil && !inTime {
		res.Body.Close() // its context is cancelled: the body is unreadable
	}
	if err != nil || !inTime {
		cancelCause(nil)
		if !inTime {
			return nil, nil, &Error{Status: http.StatusGatewayTimeout, Type: ErrTimeout, Message: "the upstream LLM did not answer in time"}
		}
		return nil, nil, err
	}
	idle := time.AfterFunc(timeout, func() { cancelCause(errIdle) })
	idle.Stop()
	res.Body = &idleBody{ReadCloser: res.Body, ctx: rctx, idle: timeout, timer: idle}
	return res, func() { cancelCause(nil) }, nil
}

// idleBody arms its timer only while a Read waits for the upstream, so a
// slow caller (a slow client downstream) never counts as upstream silence.
type idleBody struct {
	io.ReadCloser
	ctx   context.Context
	idle  time.Duration
	timer *time.Timer // cancels ctx with errIdle
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.timer.Reset(b.idle)
	n, err := b.ReadCloser.Read(p)
	b.timer.Stop()
	if err != nil && errors.Is(context.Cause(b.ctx), errIdle) {
		return n, &Error{Status: http.StatusGatewayTimeout, Type: ErrTimeout,
			Message: fmt.Sprintf("the upstream LLM stream sent nothing for %s", b.idle)}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.ReadCloser.Close()
}

// SSE reads server-sent events.
type SSE struct{ sc *bufio.Scanner }

// NewSSE reads events from r; an event over 4 MiB is an error.
func NewSSE(r io.Reader) *SSE {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	return &SSE{sc: sc}
}

// Next returns the next event: its name ("" without an event: line) and its
// data lines joined by "\n" (a fresh slice, safe to keep). io.EOF when the
// body ends with no event pending; a last event that lacks its blank line
// is still returned. A broken or oversized body is an *Error.
func (s *SSE) Next() (name string, data []byte, err error) {
	seen := false
	for s.sc.Scan() {
		line := s.sc.Bytes()
		switch {
		case len(line) == 0:
			if seen {
				return name, data, nil
			}
			name = ""
		case bytes.HasPrefix(line, []byte("event:")):
			name = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			if seen {
				data = append(data, '\n')
			}
			seen = true
			data = append(data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
		}
	}
	err = s.sc.Err()
	var le *Error
	switch {
	case errors.As(err, &le): // the idle timeout of OpenStream's body
		return "", nil, le
	case errors.Is(err, bufio.ErrTooLong):
		return "", nil, &Error{Status: http.StatusBadGateway, Type: ErrBadResponse, Message: "the upstream stream carried an event over 4 MiB"}
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return "", nil, &Error{Status: http.StatusBadGateway, Type: ErrNetwork, Message: "the upstream stream broke off: " + err.Error()}
	case seen:
		return name, data, nil
	}
	return "", nil, io.EOF
}
