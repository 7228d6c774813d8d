package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/tokens"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// streamGovernance is the last event of a streamed Full Control answer
// (docs/api.md): a chat.completion.chunk with no choices and a governance
// object. When answer_changed is true, the client replaces the text it has
// rendered with answer.
type streamGovernance struct {
	ID         string         `json:"id"`
	Object     string         `json:"object"`
	Created    int64          `json:"created"`
	Model      string         `json:"model"`
	Choices    []any          `json:"choices"`
	Governance streamDecision `json:"governance"`
}

type streamDecision struct {
	Action        governance.Action    `json:"action"`
	Stage         string               `json:"stage,omitempty"`
	Reasons       []chatReason         `json:"reasons"`
	RequestID     string               `json:"request_id"`
	RiskScore     float64              `json:"risk_score"`
	AnswerChanged bool                 `json:"answer_changed"`
	Answer        *string              `json:"answer,omitempty"`
	PolicyHits    []governance.Finding `json:"policy_hits"`
}

// streamChunk is an OpenAI chat.completion.chunk the gateway writes: built
// from a non-OpenAI vendor's stream event, or the fallback of a block.
type streamChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Role string `json:"role,omitempty"`
	// Content is null on a chunk that carries only tool calls, as OpenAI
	// sends it.
	Content   *string         `json:"content"`
	ToolCalls []chunkToolCall `json:"tool_calls,omitempty"`
}

// chunkToolCall is one item of an OpenAI chunk's delta.tool_calls: the
// first piece of a call has its id, type and name, later pieces only the
// index and an arguments fragment.
type chunkToolCall struct {
	Index    int           `json:"index"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function chunkFunction `json:"function"`
}

type chunkFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// streamedCalls assembles the tool calls of a streamed answer from their
// pieces, for the trace's tool-call children.
type streamedCalls struct {
	byIndex map[int]*toolCall
}

// add records one piece and reports whether it is the call's first.
func (sc *streamedCalls) add(d llm.ToolCallDelta) bool {
	if sc.byIndex == nil {
		sc.byIndex = map[int]*toolCall{}
	}
	tc, seen := sc.byIndex[d.Index]
	if !seen {
		tc = &toolCall{}
		sc.byIndex[d.Index] = tc
	}
	if d.ID != "" {
		tc.ID = d.ID
	}
	if d.Name != "" {
		tc.Function.Name = d.Name
	}
	tc.Function.Arguments += d.Arguments
	return !seen
}

// calls are the assembled calls in index order.
func (sc *streamedCalls) calls() []toolCall {
	var out []toolCall
	for _, i := range slices.Sorted(maps.Keys(sc.byIndex)) {
		out = append(out, *sc.byIndex[i])
	}
	return out
}

// openAIToolCalls reads the tool call pieces of an OpenAI or Azure chunk
// (passed through unchanged, so only read here for the trace).
func openAIToolCalls(raw []byte) []llm.ToolCallDelta {
	if !bytes.Contains(raw, []byte(`"tool_calls"`)) {
		return nil
	}
	var w struct {
		Choices []struct {
			Delta struct {
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(raw, &w) != nil || len(w.Choices) == 0 {
		return nil
	}
	var out []llm.ToolCallDelta
	for _, tc := range w.Choices[0].Delta.ToolCalls {
		out = append(out, llm.ToolCallDelta{Index: tc.Index, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out
}

// sse writes a Full Control event stream. Each write gets the server's
// write timeout afresh (http.Server.WriteTimeout would otherwise bound the
// whole stream, and a long answer was cut at 60 s).
type sse struct {
	w       *echo.Response
	rc      *http.ResponseController
	timeout time.Duration
	ok      bool // headers sent
}

func (s *Server) newSSE(c echo.Context) *sse {
	return &sse{w: c.Response(), rc: http.NewResponseController(c.Response()), timeout: s.cfg.WriteTimeout}
}

func (s *sse) start(requestID string) {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Service-Request-Id", requestID)
	s.w.WriteHeader(http.StatusOK)
	s.ok = true
}

func (s *sse) data(b []byte) {
	extendWriteDeadline(s.rc, s.timeout)
	_, _ = s.w.Write([]byte("data: "))
	_, _ = s.w.Write(b)
	_, _ = s.w.Write([]byte("\n\n"))
	s.w.Flush()
}

func (s *sse) json(v any) {
	b, _ := json.Marshal(v)
	s.data(b)
}

func (s *sse) done() { s.data([]byte("[DONE]")) }

// streamChat streams the upstream's chunks to the client as they arrive (in
// the upstream's format), then runs post-flight on the completed answer,
// records the trace, and sends the governance event. Regenerate is not
// possible once text is on the wire: it acts as rewrite or block.
func (s *Server) streamChat(c echo.Context, app query.App, tr schemas.Trace, pol judge, st llm.Streamer,
	req llm.Request, cred llm.Credentials, pre governance.Decision, toolText string, turn sessionTurn) error {
	stream, err := st.Stream(c.Request().Context(), req, cred)
	if err != nil {
		return s.chatUpstreamError(c, app, tr, tr.StartedAt, llm.Scrub(err, cred))
	}
	defer stream.Close()
	out := s.newSSE(c)
	out.start(tr.RequestID)
	var text strings.Builder
	var usage llm.Usage
	// OpenAI and Azure chunks go out byte for byte; the other vendors' events
	// are translated to the same chat.completion.chunk shape, so switching
	// the application's provider needs no client change.
	passThrough := tr.Provider == llm.OpenAI || tr.Provider == llm.AzureOpenAI
	chunk := streamChunk{ID: "chatcmpl-gw-" + tr.RequestID, Object: "chat.completion.chunk", Model: tr.Model,
		Choices: []chunkChoice{{Delta: chunkDelta{Role: "assistant"}}}}
	var calls streamedCalls
	// From the first tool call piece on, chunks are held back until the
	// calls are complete and checked (a client runs a call only once it is
	// complete anyway): an argument the policy blocks or redacts never
	// reaches the client.
	var held []heldChunk
	for {
		ch, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			msg, typ := "the upstream stream failed", llm.ErrNetwork
			var le *llm.Error
			if errors.As(err, &le) {
				msg, typ = llm.ScrubText(le.Message, cred), le.Type
			}
			out.json(map[string]any{"error": map[string]string{"message": msg, "type": typ}, "request_id": tr.RequestID})
			if c.Request().Context().Err() != nil { // the client left: not the upstream's failure
				msg, typ = "the client disconnected before the answer ended", "client_closed"
			}
			tr.Metadata = mergeMeta(tr.Metadata, map[string]any{"error": msg, "error_type": typ})
			s.recordStreamError(c, app, tr, text.String(), usage)
			return nil
		}
		text.WriteString(ch.Delta)
		if ch.Usage != nil {
			usage = *ch.Usage
		}
		if passThrough {
			deltas := openAIToolCalls(ch.Raw)
			for _, d := range deltas {
				calls.add(d)
			}
			if len(deltas) > 0 || held != nil {
				held = append(held, heldChunk{raw: ch.Raw, tools: len(deltas) > 0})
				continue
			}
			out.data(ch.Raw)
			continue
		}
		if ch.Delta == "" && ch.FinishReason == "" && len(ch.ToolCalls) == 0 {
			continue
		}
		chunk.Created = s.now().Unix()
		chunk.Choices[0].Delta.Content, chunk.Choices[0].Delta.ToolCalls, chunk.Choices[0].FinishReason = &ch.Delta, nil, nil
		if ch.Delta == "" && len(ch.ToolCalls) > 0 {
			chunk.Choices[0].Delta.Content = nil
		}
		for _, d := range ch.ToolCalls {
			tc := chunkToolCall{Index: d.Index, ID: d.ID, Function: chunkFunction{Name: d.Name, Arguments: d.Arguments}}
			if calls.add(d) {
				tc.Type = "function" // on the first piece of each call
			}
			chunk.Choices[0].Delta.ToolCalls = append(chunk.Choices[0].Delta.ToolCalls, tc)
		}
		if ch.FinishReason != "" {
			chunk.Choices[0].FinishReason = &ch.FinishReason
		}
		if len(ch.ToolCalls) > 0 || held != nil {
			held = append(held, heldChunk{chunk: cloneChunk(chunk), tools: len(ch.ToolCalls) > 0})
		} else {
			out.json(chunk)
		}
		chunk.Choices[0].Delta.Role = "" // only the first chunk names the role
	}
	answer := text.String()
	toolCalls := calls.calls()
	var cost llmCost
	if usage.CompletionTokens == 0 && (answer != "" || len(toolCalls) > 0) {
		// No usage from the upstream: the gateway counts with the model's
		// tokenizer, and prices the call only when that is the model's own
		// vocabulary (OpenAI models); other vendors' counts stay unpriced.
		// Tool calls are counted by their name and arguments, an
		// approximation (the vendor adds framing tokens): never priced.
		counted := answer
		for _, tc := range toolCalls {
			counted += tc.Function.Name + tc.Function.Arguments
		}
		n, exact := tokens.Count(tr.Model, counted)
		exact = exact && len(toolCalls) == 0
		usage.CompletionTokens = int64(n)
		if usage.PromptTokens == 0 {
			msgs := make([]tokens.Message, len(req.Messages))
			for i, m := range req.Messages {
				msgs[i] = tokens.Message{Role: m.Role, Content: m.Content}
			}
			p, pexact := tokens.CountMessages(tr.Model, msgs)
			usage.PromptTokens, exact = int64(p), exact && pexact
		}
		tr.Metadata = mergeMeta(tr.Metadata, usageCounted)
		if exact {
			cost.add(s.callCost(tr.Provider, tr.Model, "", usage.PromptTokens, usage.CompletionTokens))
		} else {
			cost.unknown = true
		}
	} else {
		cost.add(s.callCost(tr.Provider, tr.Model, "", usage.PromptTokens, usage.CompletionTokens))
	}
	post := pol.Verify(governance.Input{Answer: answer, ToolResult: toolText})
	// Never nil: policy_hits is an array on the wire, also when empty.
	findings := append(append([]governance.Finding{}, pre.Findings...), withoutStage(post.Findings, governance.StageTool)...)
	final := post.Answer
	resp := s.chatDecision(tr.RequestID, tr.Model, tr.StartedAt, post, &final, toolText != "", usage)
	resp.costUSD = cost.usd()
	if resp.Governance != governance.ActionAllow {
		resp.Stage = string(governance.StagePost)
	}
	resp.Reasons = chatReasons(append(pre.Reasons, post.Reasons...))
	resp.RiskScore = governance.RiskScore(findings)
	resp.PolicyHits = findings
	// The tool calls the LLM asked for get the answer's post-flight rules
	// and are child traces, as for a complete answer. Regenerate is not
	// possible once the answer's text is on the wire.
	var tools toolCheck
	if len(toolCalls) > 0 {
		tools = checkToolCalls(pol, toolCalls, false)
		findings = mergeToolCheck(&resp, findings, tools, pol.FallbackText())
		final = *resp.Answer
		resp.toolCalls = tools.calls
		if resp.Governance != governance.ActionBlock {
			resp.ToolCalls = deliveredCalls(tools.calls)
		}
	}
	resp.turn = &turn
	if err := s.recordChat(c, app, tr, resp, findings, final); err != nil {
		out.json(map[string]any{"error": map[string]string{"message": "the decision could not be recorded on the trace log; discard this answer and retry", "type": "log_unavailable"}, "request_id": tr.RequestID})
		return nil
	}
	s.saveTurn(c, app, tr, resp, final)
	if held != nil {
		s.flushHeld(out, held, tools, resp.Governance == governance.ActionBlock, final, passThrough, chunk)
	}
	ev := streamDecision{Action: resp.Governance, Stage: resp.Stage, Reasons: resp.Reasons, RequestID: tr.RequestID,
		RiskScore: resp.RiskScore, AnswerChanged: final != answer, PolicyHits: findings}
	if ev.AnswerChanged {
		ev.Answer = &final
	}
	out.json(streamGovernance{ID: "chatcmpl-gw-" + tr.RequestID, Object: "chat.completion.chunk", Created: s.now().Unix(),
		Model: tr.Model, Choices: []any{}, Governance: ev})
	out.done()
	return nil
}

// heldChunk is a chunk held back from the first tool call piece on: an
// upstream OpenAI chunk (raw) or a translated one.
type heldChunk struct {
	raw   []byte
	chunk *streamChunk
	tools bool // carries tool call pieces
}

func cloneChunk(c streamChunk) *streamChunk {
	c.Choices = slices.Clone(c.Choices)
	d := &c.Choices[0].Delta
	d.ToolCalls = slices.Clone(d.ToolCalls)
	if d.Content != nil {
		v := *d.Content
		d.Content = &v
	}
	if fr := c.Choices[0].FinishReason; fr != nil {
		v := *fr
		c.Choices[0].FinishReason = &v
	}
	return &c
}

// flushHeld sends the held chunks once the tool calls are checked. Allowed
// calls go out as received (OpenAI chunks byte for byte). Redacted calls go
// out whole, one chunk with every call at the place of the first piece, the
// pieces' chunks without their tool calls. On a block no call goes out: the
// held chunks lose their tool calls and finish_reason, and a chunk with the
// fallback text and finish_reason content_filter ends the answer.
func (s *Server) flushHeld(out *sse, held []heldChunk, tools toolCheck, blocked bool, fallback string, passThrough bool, tmpl streamChunk) {
	if !blocked && !tools.changed {
		for _, h := range held {
			if h.raw != nil {
				out.data(h.raw)
			} else {
				out.json(h.chunk)
			}
		}
		return
	}
	head := streamChunk{ID: tmpl.ID, Object: "chat.completion.chunk", Created: s.now().Unix(), Model: tmpl.Model}
	if passThrough {
		var w struct {
			ID      string `json:"id"`
			Created int64  `json:"created"`
			Model   string `json:"model"`
		}
		if json.Unmarshal(held[0].raw, &w) == nil && w.ID != "" {
			head.ID, head.Created, head.Model = w.ID, w.Created, w.Model
		}
	}
	whole := false
	for _, h := range held {
		if h.tools && !blocked && !whole {
			whole = true
			c := head
			c.Choices = []chunkChoice{{Delta: chunkDelta{Role: "assistant"}}}
			for i, tc := range tools.calls {
				c.Choices[0].Delta.ToolCalls = append(c.Choices[0].Delta.ToolCalls, chunkToolCall{Index: i, ID: tc.ID, Type: "function",
					Function: chunkFunction{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
			}
			out.json(c)
		}
		if h.raw != nil {
			if b := stripToolCalls(h.raw, blocked); b != nil {
				out.data(b)
			}
			continue
		}
		c := *h.chunk
		c.Choices = slices.Clone(c.Choices)
		c.Choices[0].Delta.ToolCalls = nil
		if blocked {
			c.Choices[0].FinishReason = nil
		}
		if (c.Choices[0].Delta.Content != nil && *c.Choices[0].Delta.Content != "") || c.Choices[0].FinishReason != nil {
			out.json(c)
		}
	}
	if blocked {
		filtered := "content_filter"
		c := head
		c.Choices = []chunkChoice{{Delta: chunkDelta{Content: &fallback}, FinishReason: &filtered}}
		out.json(c)
	}
}

// stripToolCalls is an upstream OpenAI chunk without its tool call pieces
// (and finish_reason when dropFinish); nil when nothing is left to send.
// Chunks without either are returned unchanged.
func stripToolCalls(raw []byte, dropFinish bool) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var choices []map[string]json.RawMessage
	_ = json.Unmarshal(m["choices"], &choices)
	changed, keep := false, len(m["usage"]) > 0 && string(m["usage"]) != "null"
	for _, ch := range choices {
		var delta map[string]json.RawMessage
		_ = json.Unmarshal(ch["delta"], &delta)
		if _, ok := delta["tool_calls"]; ok {
			delete(delta, "tool_calls")
			ch["delta"], _ = json.Marshal(delta)
			changed = true
		}
		if fr := ch["finish_reason"]; dropFinish && len(fr) > 0 && string(fr) != "null" {
			ch["finish_reason"] = json.RawMessage("null")
			changed = true
		}
		var content *string
		_ = json.Unmarshal(delta["content"], &content)
		if (content != nil && *content != "") || (len(ch["finish_reason"]) > 0 && string(ch["finish_reason"]) != "null") {
			keep = true
		}
	}
	if !keep {
		return nil
	}
	if !changed {
		return raw
	}
	m["choices"], _ = json.Marshal(choices)
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

// streamBlocked answers a pre-flight block of a streaming request: one
// content chunk with the fallback text (finish_reason content_filter), the
// governance event, [DONE]. The LLM is not called.
func (s *Server) streamBlocked(c echo.Context, app query.App, tr schemas.Trace, resp chatResponse, findings []governance.Finding) error {
	if err := s.recordChat(c, app, tr, resp, findings, ""); err != nil {
		return err
	}
	out := s.newSSE(c)
	out.start(tr.RequestID)
	fallback := s.blockText(c, app)
	id, filtered := "chatcmpl-gw-"+tr.RequestID, "content_filter"
	out.json(streamChunk{ID: id, Object: "chat.completion.chunk", Created: s.now().Unix(), Model: tr.Model,
		Choices: []chunkChoice{{Delta: chunkDelta{Role: "assistant", Content: &fallback}, FinishReason: &filtered}}})
	out.json(streamGovernance{ID: id, Object: "chat.completion.chunk", Created: s.now().Unix(), Model: tr.Model, Choices: []any{},
		Governance: streamDecision{Action: resp.Governance, Stage: resp.Stage, Reasons: resp.Reasons, RequestID: tr.RequestID,
			RiskScore: resp.RiskScore, AnswerChanged: true, Answer: &fallback, PolicyHits: findings}})
	out.done()
	return nil
}

// recordStreamError records a stream that failed midway (upstream cut,
// client gone) as an error trace with what was received: the usage the
// upstream reported before the failure, priced when it reported any.
func (s *Server) recordStreamError(c echo.Context, app query.App, tr schemas.Trace, partial string, usage llm.Usage) {
	finished := s.now()
	lat := finished.Sub(tr.StartedAt).Milliseconds()
	tr.FinishedAt, tr.LatencyMs, tr.Status, tr.FinalDecision = &finished, &lat, schemas.StatusError, "error"
	if usage.PromptTokens > 0 || usage.CompletionTokens > 0 {
		tr.PromptTokens, tr.CompletionTokens = usage.PromptTokens, usage.CompletionTokens
		tr.TotalTokens = tr.PromptTokens + tr.CompletionTokens
		var cost llmCost
		cost.add(s.callCost(tr.Provider, tr.Model, "", usage.PromptTokens, usage.CompletionTokens))
		tr.CostUSD = cost.usd()
	}
	tr.Metadata = mergeMeta(tr.Metadata, map[string]any{"partial_answer_bytes": len(partial)})
	capTraceText(&tr)
	env := schemas.Envelope{Kind: schemas.KindDecision, Trace: tr}
	s.stamp(&env, app, finished)
	// The client may be gone: produce on a context of our own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), s.cfg.ProduceTimeout)
	defer cancel()
	if err := s.log.Produce(ctx, []schemas.Envelope{env}); err != nil {
		s.logger.Warn("stream error trace not recorded", "request_id", tr.RequestID, "err", err)
	}
}

// usageCounted marks a trace whose tokens the gateway counted because the
// upstream reported none.
var usageCounted = map[string]any{"usage_source": usageSourceCounted}

const usageSourceCounted = "gateway_tokenizer"

func mergeMeta(raw json.RawMessage, extra map[string]any) json.RawMessage {
	m := map[string]any{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m)
	}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

// deliveredCalls is the OpenAI tool_calls JSON of streamed calls as the
// client got them (redacted arguments), for the session's stored turn.
func deliveredCalls(calls []toolCall) json.RawMessage {
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	out := make([]call, len(calls))
	for i, c := range calls {
		out[i] = call{ID: c.ID, Type: "function", Function: fn{Name: c.Function.Name, Arguments: c.Function.Arguments}}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}
