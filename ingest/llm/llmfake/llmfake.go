// Package llmfake is a TEST DOUBLE of an LLM vendor: an OpenAI-compatible
// Chat Completions server with deterministic answers, for tests and for
// `gateway dev-llm` (so `make run` can demonstrate Full Control without a
// vendor key). It is not an LLM.
package llmfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Server answers POST /chat/completions (and /v1/chat/completions).
type Server struct {
	// FirstChunkGap is a pause after a streamed answer's first chunk, before
	// the rest follows at once (0: no pause). A real LLM's tokens come
	// tens of milliseconds apart; bursting the whole answer right behind
	// the first chunk makes a time-to-first-byte measure, on a small
	// machine, the CPU contention of the burst rather than the first byte.
	FirstChunkGap time.Duration
	// NoRecord keeps no request bodies (Received stays empty): a long-running
	// demo or benchmark upstream would otherwise grow without bound.
	NoRecord bool

	mu sync.Mutex
	// Script, when non-empty, is answered in order (then the default).
	script   []Reply
	requests [][]byte
}

// Received returns a copy of the request bodies received so far.
func (s *Server) Received() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.requests...)
}

// Reply is one scripted answer: Content (and ToolCalls, an OpenAI
// tool_calls JSON array), or Status+Body for an error. Truncate cuts a
// streamed answer off before its [DONE] marker.
type Reply struct {
	Content   string
	ToolCalls string
	Status    int
	Body      string
	Truncate  bool
}

// Push queues scripted replies.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	s.script = append(s.script, r...)
	s.mu.Unlock()
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"You didn't provide an API key.","type":"invalid_request_error"}}`)
		return
	}
	var req struct {
		Stream   bool   `json:"stream"`
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	var raw json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil || json.Unmarshal(raw, &req) != nil || len(req.Messages) == 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"messages is required","type":"invalid_request_error"}}`)
		return
	}
	s.mu.Lock()
	if !s.NoRecord {
		s.requests = append(s.requests, raw)
	}
	var reply Reply
	if len(s.script) > 0 {
		reply, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()
	if reply.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		fmt.Fprint(w, reply.Body)
		return
	}
	content := reply.Content
	if content == "" && reply.ToolCalls == "" {
		last := req.Messages[len(req.Messages)-1].Content
		content = "You said: " + last
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Content)) + 3
	}
	completion := len(strings.Fields(content))
	if req.Stream {
		streamReply(w, req.Model, content, prompt, completion, reply.Truncate, s.FirstChunkGap)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []any{choice(content, reply.ToolCalls)},
		"usage":   map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
}

func choice(content, toolCalls string) map[string]any {
	msg := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	if toolCalls != "" {
		msg["tool_calls"] = json.RawMessage(toolCalls)
		finish = "tool_calls"
		if content == "" {
			msg["content"] = nil
		}
	}
	return map[string]any{"index": 0, "message": msg, "finish_reason": finish}
}

// streamReply writes content as OpenAI chat.completion.chunk events, one
// per word, then a usage chunk and [DONE] (unless truncate).
func streamReply(w http.ResponseWriter, model, content string, prompt, completion int, truncate bool, gap time.Duration) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	sent := 0
	send := func(v any) {
		if sent == 1 && gap > 0 {
			time.Sleep(gap)
		}
		sent++
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	words := strings.SplitAfter(content, " ")
	for i, wd := range words {
		if truncate && i == len(words)/2 {
			return
		}
		send(chunk(map[string]any{"content": wd}, nil))
	}
	send(chunk(map[string]any{}, "stop"))
	send(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}
