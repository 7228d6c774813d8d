package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/auth"
	"github.com/governance-gateway/gateway/ingest/events"
	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// Limits of POST /v1/chat (docs/api.md).
const (
	ChatBodyLimit   = 4 << 20
	MaxChatMessages = 500
	MaxSessionTurns = 50 // stored turns prepended to a request continuing a session
	// MaxSessionHistoryBytes bounds the stored turns (their JSON) prepended
	// to one request; the oldest of the MaxSessionTurns go first.
	MaxSessionHistoryBytes = 1 << 20
	MaxRegenerations       = 2 // extra LLM calls after a post-flight "regenerate"
	regenerateNotice       = "Your previous answer was withheld because it violated the application's policy (%s). Answer my message before this one again without %s."
	chatIntegrationID      = "api:v1_chat"
	providerManagedOpt     = "managed"
)

// chatRequest: known fields typed, the rest forwarded to the LLM unchanged.
type chatRequest struct {
	Messages       []llm.Message
	Prompt         string
	HasPrompt      bool
	Model          string
	Provider       string
	Temperature    *float64
	MaxTokens      *int
	Tools          json.RawMessage
	ResponseFormat json.RawMessage
	UserID         string
	SessionID      string
	Metadata       json.RawMessage
	Stream         bool
	Extra          map[string]json.RawMessage
}

type chatUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

type chatTokens struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
	Total      int64 `json:"total"`
}

type chatReason struct {
	Policy   string `json:"policy"`
	Severity string `json:"severity"`
	Stage    string `json:"stage"`
	// Tool and ToolCallID name the tool call whose arguments fired the
	// policy (post-flight check of the LLM's tool calls); absent otherwise.
	Tool       string `json:"tool,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// chatResponse is the union of the spec's form A and form B (DESIGN.md 5).
type chatResponse struct {
	OK         bool              `json:"ok"`
	RequestID  string            `json:"request_id"`
	Governance governance.Action `json:"governance"`
	Stage      string            `json:"stage,omitempty"`
	Reasons    []chatReason      `json:"reasons"`
	Model      string            `json:"model"`
	Answer     *string           `json:"answer"`
	Usage      chatUsage         `json:"usage"`
	// Form B.
	Confidence         string            `json:"confidence"`
	GovernanceAction   governance.Action `json:"governance_action"`
	VerifiedSourceUsed bool              `json:"verified_source_used"`
	Policy             string            `json:"policy"`
	LatencyMs          int64             `json:"latency_ms"`
	Tokens             chatTokens        `json:"tokens"`
	Matches            []string          `json:"matches"`
	// Extra, not in either form.
	PolicyHits []governance.Finding `json:"policy_hits"`
	RiskScore  float64              `json:"risk_score"`
	// ToolCalls the LLM asked for (OpenAI shape), for the client to run and
	// send back as tool messages.
	ToolCalls json.RawMessage `json:"tool_calls,omitempty"`

	toolCalls []toolCall // recorded as child traces
	// costUSD is the trace's cost_usd: the summed price of the request's LLM
	// calls, 0 when the LLM was not called, nil when a call's model has no
	// price. Not part of the answer (the spec's chat response has no cost).
	costUSD *float64
	// turn is the request's turn for its session's stored history; nil
	// for a pre-flight block (never stored).
	turn *sessionTurn
	// withheld: the trace's hits for the findings that had an answer
	// regenerated (the response's policy_hits are the delivered answer's).
	withheld []schemas.PolicyHit
}

type toolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`

	// The post-flight verdict on the arguments (chattools.go); Arguments
	// then holds the final ones: redacted on rewrite, "" on block.
	decision governance.Action
	findings []governance.Finding
}

var chatRoles = map[string]bool{"system": true, "user": true, "assistant": true, "tool": true}

// parseChat validates the body. Errors are 400 with the field named.
func parseChat(body []byte) (chatRequest, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return chatRequest{}, fail(http.StatusBadRequest, "request body must be a JSON object: %s", jsonProblem(err))
	}
	var r chatRequest
	str := func(name string, dst *string, limit int) error {
		v, ok := raw[name]
		delete(raw, name)
		if !ok || string(v) == "null" {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fail(http.StatusBadRequest, "%s must be a string", name)
		}
		if len(*dst) > limit {
			return fail(http.StatusBadRequest, "%s is over %d bytes", name, limit)
		}
		return nil
	}
	if v, ok := raw["prompt"]; ok && string(v) != "null" {
		r.HasPrompt = true
	}
	for _, f := range []struct {
		name  string
		dst   *string
		limit int
	}{{"prompt", &r.Prompt, MaxVerifyPrompt}, {"model", &r.Model, 256}, {"provider", &r.Provider, 64},
		{"user_id", &r.UserID, 256}, {"session_id", &r.SessionID, 256}} {
		if err := str(f.name, f.dst, f.limit); err != nil {
			return r, err
		}
	}
	if v, ok := raw["messages"]; ok && string(v) != "null" {
		var msgs []json.RawMessage
		if err := json.Unmarshal(v, &msgs); err != nil {
			return r, fail(http.StatusBadRequest, "messages must be an array of {role, content} objects")
		}
		if len(msgs) > MaxChatMessages {
			return r, fail(http.StatusBadRequest, "messages has %d entries, the limit is %d", len(msgs), MaxChatMessages)
		}
		for i, m := range msgs {
			// Members stay raw so that a wrong type is reported under its
			// own name.
			var mm struct {
				Role       json.RawMessage `json:"role"`
				Content    json.RawMessage `json:"content"`
				Name       json.RawMessage `json:"name"`
				ToolCallID json.RawMessage `json:"tool_call_id"`
				ToolCalls  json.RawMessage `json:"tool_calls"`
			}
			if err := json.Unmarshal(m, &mm); err != nil {
				return r, fail(http.StatusBadRequest, "messages[%d] must be an object with string role and content", i)
			}
			var msg llm.Message
			if json.Unmarshal(mm.Role, &msg.Role) != nil || !chatRoles[msg.Role] {
				return r, fail(http.StatusBadRequest, "messages[%d].role must be one of system, user, assistant, tool", i)
			}
			switch {
			case len(mm.Content) == 0 || string(mm.Content) == "null":
				if msg.Role != "assistant" || len(mm.ToolCalls) == 0 {
					return r, fail(http.StatusBadRequest, "messages[%d].content must be a string", i)
				}
			case json.Unmarshal(mm.Content, &msg.Content) != nil:
				return r, fail(http.StatusBadRequest, "messages[%d].content must be a string", i)
			}
			if len(mm.Name) > 0 && string(mm.Name) != "null" && json.Unmarshal(mm.Name, &msg.Name) != nil {
				return r, fail(http.StatusBadRequest, "messages[%d].name must be a string", i)
			}
			if len(mm.ToolCallID) > 0 && string(mm.ToolCallID) != "null" && json.Unmarshal(mm.ToolCallID, &msg.ToolCallID) != nil {
				return r, fail(http.StatusBadRequest, "messages[%d].tool_call_id must be a string", i)
			}
			if len(mm.ToolCalls) > 0 && string(mm.ToolCalls) != "null" {
				var arr []json.RawMessage
				if json.Unmarshal(mm.ToolCalls, &arr) != nil {
					return r, fail(http.StatusBadRequest, "messages[%d].tool_calls must be an array", i)
				}
				msg.ToolCalls = mm.ToolCalls
			}
			r.Messages = append(r.Messages, msg)
		}
	}
	delete(raw, "messages")
	if len(r.Messages) == 0 && !r.HasPrompt {
		return r, fail(http.StatusBadRequest, "messages or prompt is required")
	}
	if v, ok := raw["temperature"]; ok && string(v) != "null" {
		var t float64
		if json.Unmarshal(v, &t) != nil {
			return r, fail(http.StatusBadRequest, "temperature must be a number")
		}
		r.Temperature = &t
	}
	delete(raw, "temperature")
	if v, ok := raw["max_tokens"]; ok && string(v) != "null" {
		var n int
		if json.Unmarshal(v, &n) != nil || n < 1 {
			return r, fail(http.StatusBadRequest, "max_tokens must be a positive integer")
		}
		r.MaxTokens = &n
	}
	delete(raw, "max_tokens")
	if v, ok := raw["tools"]; ok && string(v) != "null" {
		var arr []map[string]json.RawMessage
		if json.Unmarshal(v, &arr) != nil {
			return r, fail(http.StatusBadRequest, "tools must be an array of tool objects")
		}
		for i, t := range arr {
			if _, ok := t["type"]; !ok {
				return r, fail(http.StatusBadRequest, "tools[%d].type is required", i)
			}
		}
		r.Tools = v
	}
	delete(raw, "tools")
	if v, ok := raw["response_format"]; ok && string(v) != "null" {
		r.ResponseFormat = v
	}
	delete(raw, "response_format")
	if v, ok := raw["metadata"]; ok && string(v) != "null" {
		if !bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) {
			return r, fail(http.StatusBadRequest, "metadata must be an object")
		}
		// The trace carries it: one too large for a log record would be
		// refused only after the LLM call was paid, and the answer lost.
		var compact bytes.Buffer
		if json.Compact(&compact, v) != nil || compact.Len() > events.MaxMetadataBytes {
			return r, fail(http.StatusBadRequest, "metadata must be at most %d bytes as compact JSON", events.MaxMetadataBytes)
		}
		r.Metadata = v
	}
	delete(raw, "metadata")
	if v, ok := raw["stream"]; ok && string(v) != "null" {
		if json.Unmarshal(v, &r.Stream) != nil {
			return r, fail(http.StatusBadRequest, "stream must be a boolean")
		}
	}
	delete(raw, "stream")
	// Full Control governs and returns one answer: several choices would be
	// paid for, and only the first judged and returned.
	if v, ok := raw["n"]; ok && string(v) != "null" {
		var n int
		if json.Unmarshal(v, &n) != nil || n != 1 {
			return r, fail(http.StatusBadRequest, "n must be 1: Full Control governs and returns one answer")
		}
	}
	// The rest goes to the LLM beside the members the gateway writes. A Go
	// upstream (encoding/json) matches names with Unicode case folding and
	// keeps the last: an extra "Messages" or "meſsages" (long s) would
	// replace the messages that were judged.
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		for _, name := range chatMembers {
			if k != name && strings.EqualFold(k, name) {
				return r, fail(http.StatusBadRequest, "member %q differs from %q only in case: the LLM could read it as %q, which the gateway did not judge", k, name, name)
			}
		}
	}
	r.Extra = raw
	return r, nil
}

// chatMembers are the request members the gateway reads or writes itself
// (parseChat, the adapters' wire requests).
var chatMembers = []string{"prompt", "model", "provider", "user_id", "session_id", "messages", "temperature",
	"max_tokens", "tools", "response_format", "metadata", "stream", "stream_options", "n"}

// postChat is POST /v1/chat (spec 4.3): pre-flight governance of the prompt
// and tool outputs, the LLM call, post-flight governance of the answer
// (rewrite, bounded regenerate, block), one trace on the log before the
// response.
func (s *Server) postChat(c echo.Context) error {
	start := s.now()
	app, err := s.serviceApp(c, query.AppModeFullControl, "POST "+c.Path())
	if err != nil {
		// A key of another mode still names an application of an
		// organisation: its refusal is recorded under that application. An
		// unknown key names no tenant to record it for.
		if status, _, ok := refusal(err); ok && status == http.StatusForbidden && app.ID != "" {
			return s.rejectChat(c, app, start, chatRequest{}, err)
		}
		return err
	}
	// From here the request is the application's: a rejection is answered
	// with a request_id and leaves an error trace.
	var req chatRequest
	reject := func(err error) error { return s.rejectChat(c, app, start, req, err) }
	if err := requireJSON(c); err != nil {
		return reject(err)
	}
	body, err := readBody(c, ChatBodyLimit)
	if err != nil {
		return reject(err)
	}
	if !utf8.Valid(body) {
		return reject(fail(http.StatusBadRequest, "request body is not valid UTF-8"))
	}
	if req, err = parseChat(body); err != nil {
		return reject(err)
	}
	model := req.Model
	switch {
	case model == "" && app.Model == "":
		return reject(fail(http.StatusBadRequest, "model is required: the application has no default model"))
	case model == "":
		model = app.Model
	case app.Model != "" && model != app.Model:
		return reject(fail(http.StatusBadRequest, "model %q is not configured for this application (it uses %q)", model, app.Model))
	}
	provider := req.Provider
	switch {
	case provider == "" && app.Provider != "":
		provider = app.Provider
	case provider == "":
		provider = llm.OpenAI
	}
	if !slices.Contains(llm.Vendors(), provider) {
		return reject(fail(http.StatusBadRequest, "provider must be one of %s", strings.Join(llm.Vendors(), ", ")))
	}
	if app.Provider != "" && provider != app.Provider {
		return reject(fail(http.StatusBadRequest, "provider %q is not configured for this application (it uses %q)", provider, app.Provider))
	}
	adapter := s.providers[provider]
	if adapter == nil {
		return reject(errNoProvider(provider))
	}
	if _, ok := adapter.(llm.Streamer); req.Stream && !ok {
		return reject(fail(http.StatusNotImplemented, "provider %q cannot stream on this server yet; send stream:false", provider))
	}
	cred, err := s.credentials(app, provider)
	if err != nil {
		return reject(err)
	}
	pol, err := s.policies.get(c.Request().Context(), app)
	if err != nil {
		return reject(unavailable("cannot load the application's policy right now; retry", err))
	}

	// X-Session-Id names the session when the body does not, as on Verify and
	// the proxy: an OpenAI client sets a header more easily than a body field.
	if req.SessionID == "" {
		if req.SessionID, err = dimension(c, "X-Session-Id", ""); err != nil {
			return reject(err)
		}
	}
	// History: a request of a session that sends only new messages (no
	// assistant turn: a prompt, a system and user message, tool results)
	// continues the application's stored turns of that session.
	//
	// A client that sends its whole conversation every turn (an OpenAI SDK
	// with X-Session-Id) would store it whole every turn, quadratic in the
	// conversation: when the stored history is the start of what it sent,
	// only the rest (from known on) is a new turn. Anything else (a
	// redacted turn, a cut history, a read error) stores the whole
	// conversation as before.
	var history []llm.Message
	known := 0
	if req.SessionID != "" {
		ownHistory := slices.ContainsFunc(req.Messages, func(m llm.Message) bool { return m.Role == "assistant" })
		stored, err := s.sessionHistory(c.Request().Context(), app, req.SessionID)
		switch {
		case !ownHistory && err != nil:
			return reject(unavailable("cannot read the session's history right now; retry", err))
		case !ownHistory:
			history = stored
		case err == nil && isPrefix(stored, req.Messages):
			known = len(stored)
		}
	}
	msgs := append(slices.Clone(history), req.Messages...)
	if req.HasPrompt {
		msgs = append(msgs, llm.Message{Role: "user", Content: req.Prompt})
	}
	userIdx := -1
	var toolOut []string
	for i, m := range msgs {
		switch m.Role {
		case "user":
			userIdx = i
		case "tool":
			toolOut = append(toolOut, m.Content)
		}
	}
	lastUser := ""
	if userIdx >= 0 {
		lastUser = msgs[userIdx].Content
	}
	toolText := strings.Join(toolOut, "\n\n")
	requestID := s.newID()
	useRequestID(c, requestID)
	tr := schemas.Trace{RequestID: requestID, Mode: schemas.ModeSDK, StartedAt: start, Provider: provider, Model: model,
		UseCase: defaultUseCase, IntegrationID: chatIntegrationID, UserID: req.UserID, SessionID: req.SessionID,
		Prompt: lastUser, Metadata: req.Metadata}
	for _, h := range []struct {
		name string
		dst  *string
	}{{"X-Use-Case", &tr.UseCase}, {"X-Team-Id", &tr.TeamID}, {"X-Integration-Id", &tr.IntegrationID}, {"X-End-User-Id", &tr.EndUserID}} {
		v, err := dimension(c, h.name, *h.dst)
		if err != nil {
			return reject(err)
		}
		*h.dst = v
	}

	// Pre-flight: the prompt and every tool output, before the LLM sees them.
	pre := pol.Verify(governance.Input{Prompt: lastUser, ToolResult: toolText})
	tr.Prompt = pre.RecordPrompt // a blocked secret is not recorded either
	if pre.Governance != governance.ActionBlock {
		// The earlier user turns, the client's and the stored session's
		// alike: a stored turn passed when it was new, but the policy may
		// have been tightened since.
		var idx []int
		var turns []string
		for i, m := range msgs {
			if m.Role == "user" && i != userIdx {
				idx, turns = append(idx, i), append(turns, m.Content)
			}
		}
		blocked, redacted, found := earlierTurns(pol, turns)
		if blocked != nil {
			pre = *blocked
		}
		for k, v := range redacted {
			msgs[idx[k]].Content = v
		}
		pre.Findings = append(pre.Findings, found...)
	}
	if pre.Governance == governance.ActionBlock {
		resp := s.chatDecision(requestID, model, start, pre, nil, false, llm.Usage{})
		resp.Stage = string(governance.StagePre)
		resp.costUSD = new(float64) // the LLM is never called: no LLM cost (spec 1)
		if req.Stream {
			return s.streamBlocked(c, app, tr, resp, pre.Findings)
		}
		return s.finishChat(c, app, tr, resp, pre.Findings, "")
	}
	// Tool outputs as the LLM gets them: the tool stage's rewrite rules
	// redact them, and a session keeps them redacted.
	for i := range msgs {
		if msgs[i].Role == "tool" {
			msgs[i].Content = pol.RedactTool(msgs[i].Content)
		}
	}
	// The answer is grounded in this exchange's tool outputs (after the last
	// user message), not in those of a session's or a conversation's
	// earlier turns, which answered other questions.
	var current []string
	for _, m := range msgs[userIdx+1:] {
		if m.Role == "tool" {
			current = append(current, m.Content)
		}
	}
	groundText := strings.Join(current, "\n\n")
	// The turn's new messages as the LLM gets them (redacted), for the
	// session's stored history.
	newMsgs := msgs[len(history):]
	if userIdx >= 0 && pre.Prompt != lastUser {
		msgs[userIdx].Content = pre.Prompt // pre-flight redaction (tr.Prompt has it: RecordPrompt)
	}

	llmReq := llm.Request{Model: model, Messages: msgs, Temperature: req.Temperature, MaxTokens: req.MaxTokens,
		Tools: req.Tools, ResponseFormat: req.ResponseFormat, Extra: req.Extra}
	turn := sessionTurn{messages: newMsgs[known:], full: len(history) == 0 && len(req.Messages) > 0 && known == 0}
	if req.Stream {
		return s.streamChat(c, app, tr, pol, adapter.(llm.Streamer), llmReq, cred, pre, groundText, turn)
	}
	lc := &llmCall{adapter: adapter, cred: cred, provider: provider, model: model}
	var post governance.Decision
	var toolCalls json.RawMessage
	var tools toolCheck
	var answer string
	regenerated := false
	// triggered: the reasons of the first withheld answer, which say why a
	// regenerated answer was asked for (as on Verify).
	var triggered []chatReason
	var withheld []schemas.PolicyHit // the findings that had it withheld, for the trace
	for attempt := 0; ; attempt++ {
		canRegen := attempt < MaxRegenerations
		out, err := s.complete(c.Request().Context(), lc, llmReq)
		switch {
		case err != nil && attempt == 0:
			return s.chatUpstreamError(c, app, tr, start, err)
		case err != nil:
			// A regenerate call failed. The withheld answer is still in
			// hand: judged again without the regenerate option it is
			// redacted or blocked by the policy, the best safe outcome there
			// is, rather than an error that throws away the paid calls.
			tr.Metadata = mergeMeta(tr.Metadata, regenerateFailure(err))
			canRegen = false
		default:
			answer = out.Content
			toolCalls = out.ToolCalls
		}
		post = pol.Verify(governance.Input{Answer: answer, ToolResult: groundText, CanRegenerate: canRegen})
		tools = toolCheck{governance: governance.ActionAllow}
		if len(toolCalls) > 0 {
			calls, opaque := parseToolCalls(toolCalls)
			tools = checkToolCalls(pol, calls, canRegen)
			tools.opaque = opaque
		}
		if err != nil {
			break
		}
		switch {
		case post.Governance == governance.ActionBlock || tools.governance == governance.ActionBlock:
		case post.Governance == governance.ActionRegenerate:
			if !regenerated {
				triggered, withheld = chatReasons(post.Reasons), withheldHits(post.Findings)
			}
			llmReq.Messages = regenerateTurns(llmReq.Messages, answer, post)
			regenerated = true
			continue
		case tools.governance == governance.ActionRegenerate:
			if !regenerated {
				triggered, withheld = tools.reasons, withheldHits(tools.findings)
			}
			// The withheld call's arguments are not sent back to the LLM.
			msgs := slices.Clone(llmReq.Messages)
			if strings.TrimSpace(answer) != "" {
				msgs = append(msgs, llm.Message{Role: "assistant", Content: answer})
			}
			llmReq.Messages = append(msgs, llm.Message{Role: "user", Content: tools.regenerateFor()})
			regenerated = true
			continue
		}
		break
	}
	// Never nil: policy_hits is an array on the wire, also when empty.
	findings := append(append([]governance.Finding{}, pre.Findings...), withoutStage(post.Findings, governance.StageTool)...)
	final := post.Answer
	resp := s.chatDecision(requestID, model, start, post, &final, groundText != "", lc.usage)
	resp.costUSD = lc.cost.usd()
	if regenerated && post.Governance == governance.ActionAllow && tools.governance == governance.ActionAllow {
		resp.Governance, resp.GovernanceAction = governance.ActionRegenerate, governance.ActionRegenerate
	}
	if resp.Governance != governance.ActionAllow {
		resp.Stage = string(governance.StagePost)
	}
	resp.Reasons = chatReasons(append(pre.Reasons, post.Reasons...))
	if resp.Governance == governance.ActionRegenerate {
		// The delivered answer passed: the withheld one's reasons say why
		// it was replaced (spec 4.3 reasons; Verify does the same).
		resp.Reasons = append(slices.Clone(triggered), resp.Reasons...)
	}
	settleFindings(&resp, findings)
	if len(tools.calls) > 0 {
		findings = mergeToolCheck(&resp, findings, tools, pol.FallbackText())
		final = *resp.Answer
		if resp.Governance != governance.ActionBlock {
			resp.ToolCalls = tools.toolCallsJSON(toolCalls)
		}
		if !tools.opaque {
			resp.toolCalls = tools.calls
		}
	}
	if resp.Governance == governance.ActionRegenerate && len(triggered) > 0 {
		// The withheld answer's findings are not the delivered answer's
		// hits, so strongestPolicy cannot weigh them: they decided.
		resp.Policy = triggered[0].Policy
	}
	resp.turn = &turn
	resp.withheld = withheld
	return s.finishChat(c, app, tr, resp, findings, final)
}

// llmCost sums the cost of a request's LLM calls; unknown as soon as one
// call's model has no price (a partial sum would understate it).
type llmCost struct {
	sum     float64
	unknown bool
}

func (c *llmCost) add(usd float64, ok bool) {
	c.sum += usd
	c.unknown = c.unknown || !ok
}

// usd is the trace's cost_usd (nil: unknown).
func (c llmCost) usd() *float64 {
	if c.unknown {
		return nil
	}
	v := c.sum
	return &v
}

// callCost prices one LLM call from the configured table: the model the
// vendor reported (the snapshot it billed, or the model behind an Azure
// deployment) when it has a price, else the requested model. ok=false:
// neither has a price, the cost stays null (never a guess).
func (s *Server) callCost(provider, requested, reported string, promptTokens, completionTokens int64) (float64, bool) {
	if reported != "" && !strings.EqualFold(reported, requested) {
		if usd, ok := s.cfg.Prices.Cost(provider, reported, promptTokens, completionTokens); ok {
			return usd, true
		}
	}
	return s.cfg.Prices.Cost(provider, requested, promptTokens, completionTokens)
}

func withoutStage(f []governance.Finding, st governance.Stage) []governance.Finding {
	var out []governance.Finding
	for _, x := range f {
		if x.Stage != st {
			out = append(out, x)
		}
	}
	return out
}

// chatReasons maps engine reasons to the spec's reason entries, for chat and
// Verify alike: a reason's stage is pre-flight or post-flight (spec 2), and
// a tool output is input to the LLM, so pre-flight. policy_hits keep the
// engine's stage, `tool` included (their shape is the project's).
func chatReasons(rs []governance.Reason) []chatReason {
	out := []chatReason{}
	for _, r := range rs {
		st := r.Stage
		if st == governance.StageTool {
			st = governance.StagePre
		}
		out = append(out, chatReason{Policy: r.Policy, Severity: string(r.Severity), Stage: string(st)})
	}
	return out
}

// settleFindings sets the members an answer derives from all of its
// findings and reasons (chatDecision saw one stage's): policy_hits, matches,
// risk_score, and form B's confidence (1 - risk_score) and policy (the
// strongest reason's), so that the two forms never disagree (spec 4.3).
func settleFindings(resp *chatResponse, findings []governance.Finding) {
	resp.PolicyHits = findings
	resp.Matches = matches(findings)
	resp.RiskScore = governance.RiskScore(findings)
	resp.Confidence = fmt.Sprintf("%.2f", 1-resp.RiskScore)
	resp.Policy = strongestPolicy(resp.Reasons, findings)
}

// strongestPolicy is the policy of the reason whose finding drew the
// strongest action (the first of equals), or "" without reasons. A reason
// with no finding of its own (the withheld answer of a regenerate) counts
// as the weakest.
func strongestPolicy(reasons []chatReason, findings []governance.Finding) string {
	best, bestWeight := "", -1
	for _, r := range reasons {
		w := 0
		for _, f := range findings {
			st := f.Stage
			if st == governance.StageTool { // reasons name it pre-flight (chatReasons)
				st = governance.StagePre
			}
			if f.Policy == r.Policy && string(st) == r.Stage {
				w = max(w, f.Action.Weight())
			}
		}
		if w > bestWeight {
			best, bestWeight = r.Policy, w
		}
	}
	return best
}

func matches(f []governance.Finding) []string {
	out := []string{}
	for _, x := range f {
		if !slices.Contains(out, x.Policy) {
			out = append(out, x.Policy)
		}
	}
	return out
}

func (s *Server) chatDecision(requestID, model string, start time.Time, d governance.Decision, answer *string, source bool, u llm.Usage) chatResponse {
	resp := chatResponse{
		OK: true, RequestID: requestID, Governance: d.Governance, GovernanceAction: d.Governance, Model: model,
		Answer: answer, Reasons: chatReasons(d.Reasons), Matches: matches(d.Findings), PolicyHits: d.Findings,
		RiskScore: d.RiskScore, VerifiedSourceUsed: source,
		Usage:  chatUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens},
		Tokens: chatTokens{Prompt: u.PromptTokens, Completion: u.CompletionTokens, Total: u.PromptTokens + u.CompletionTokens},
	}
	if resp.PolicyHits == nil {
		resp.PolicyHits = []governance.Finding{}
	}
	if len(d.Reasons) > 0 {
		resp.Policy = d.Reasons[0].Policy
	}
	resp.Confidence = fmt.Sprintf("%.2f", 1-d.RiskScore)
	resp.LatencyMs = s.now().Sub(start).Milliseconds()
	return resp
}

// rejectChat answers a Full Control request refused before the LLM call
// (bad input, a provider or key the server lacks) with {ok:false, error,
// request_id}, and queues an error trace for it. req holds what was parsed
// so far.
func (s *Server) rejectChat(c echo.Context, app query.App, start time.Time, req chatRequest, err error) error {
	status, msg, ok := refusal(err)
	if !ok {
		return err
	}
	var ae *apiError
	if errors.As(err, &ae) && ae.cause != nil { // answered here: the access line will not carry it
		s.logger.WarnContext(c.Request().Context(), "chat refused", "status", status, "err", ae.cause)
	}
	tr := schemas.Trace{RequestID: s.newID(), Mode: schemas.ModeSDK, StartedAt: start,
		Provider: cmp.Or(req.Provider, app.Provider), Model: cmp.Or(req.Model, app.Model), UseCase: defaultUseCase,
		IntegrationID: chatIntegrationID, UserID: req.UserID, SessionID: req.SessionID}
	if req.HasPrompt {
		tr.Prompt = req.Prompt
	} else {
		for _, m := range req.Messages {
			if m.Role == "user" {
				tr.Prompt = m.Content
			}
		}
	}
	s.emitRefusal(app, tr, status, msg)
	return s.chatError(c, status, msg, tr.RequestID)
}

// chatError is a Full Control error answer, {ok:false, error, request_id};
// on the chat-completions shape it also carries the X-Service-Request-Id
// header every answer of that shape has.
func (s *Server) chatError(c echo.Context, status int, msg, requestID string) error {
	// An LLM error comes after up to GATEWAY_LLM_TIMEOUT and a retry: past
	// the write deadline that started with the request.
	s.renewWriteDeadline(c)
	useRequestID(c, requestID)
	if shaped, _ := c.Get(keyChatShape).(bool); shaped {
		c.Response().Header().Set("X-Service-Request-Id", requestID)
	}
	return c.JSON(status, map[string]any{"ok": false, "error": msg, "request_id": requestID})
}

// refusal is the status and message an error answers with, when it is a
// refusal of the request (an apiError, or echo's 413).
func refusal(err error) (int, string, bool) {
	var ae *apiError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &ae):
		return ae.status, ae.msg, true
	case errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge:
		return he.Code, "request body too large", true
	}
	return 0, "", false
}

// emitRefusal queues tr as the error trace of a request refused with
// status and msg, off the response path like a proxy trace: a refusal
// neither waits for the log nor fails when the log is down.
func (s *Server) emitRefusal(app query.App, tr schemas.Trace, status int, msg string) {
	tr.Status, tr.FinalDecision, tr.CostUSD = schemas.StatusError, "error", new(float64)
	tr.Metadata = mergeMeta(tr.Metadata, map[string]any{"error": msg, "http_status": status})
	s.queueTrace(app, tr, nil, "", "")
}

// finishChat records the trace on the log, then answers.
func (s *Server) finishChat(c echo.Context, app query.App, tr schemas.Trace, resp chatResponse, findings []governance.Finding, answer string) error {
	if err := s.recordChat(c, app, tr, resp, findings, answer); err != nil {
		return err
	}
	s.saveTurn(c, app, tr, resp, answer)
	resp.LatencyMs = s.now().Sub(tr.StartedAt).Milliseconds()
	// The write deadline started with the request; the LLM calls (a retry,
	// regenerate calls) may have outlasted it, and this answer is paid for.
	s.renewWriteDeadline(c)
	if shaped, _ := c.Get(keyChatShape).(bool); shaped {
		fallback := ""
		if resp.Governance == governance.ActionBlock {
			fallback = s.blockText(c, app)
		}
		c.Response().Header().Set("X-Service-Request-Id", resp.RequestID)
		return c.JSON(http.StatusOK, asCompletion(resp, s.now().Unix(), fallback))
	}
	return c.JSON(http.StatusOK, resp)
}

// recordChat produces the request's trace (and one child trace per tool
// call) to the log; nil only once the broker acknowledged them.
func (s *Server) recordChat(c echo.Context, app query.App, tr schemas.Trace, resp chatResponse, findings []governance.Finding, answer string) error {
	finished := s.now()
	lat := finished.Sub(tr.StartedAt).Milliseconds()
	risk := resp.RiskScore
	tr.FinishedAt, tr.LatencyMs, tr.RiskScore = &finished, &lat, &risk
	tr.PromptTokens, tr.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	tr.TotalTokens = tr.PromptTokens + tr.CompletionTokens
	tr.CostUSD = resp.costUSD
	// Status follows the delivered decision: a regenerate that ends in a
	// redaction is rewritten, like its final_decision.
	tr.Status = statusOf(resp.Governance)
	tr.FinalDecision = string(resp.Governance)
	tr.PolicyHits = append(slices.Clone(resp.withheld), policyHits(findings)...)
	tr.Answer = answer
	capTraceText(&tr) // messages up to the 4 MiB body: the trace keeps a cut (one log record)
	env := schemas.Envelope{Kind: schemas.KindDecision, Trace: tr}
	s.stamp(&env, app, finished)
	envs := []schemas.Envelope{env}
	// Each tool call the LLM asked for is its own trace, linked to this
	// request; produced in the same batch, so both or neither are recorded.
	// Its decision is its arguments' post-flight verdict, or block when the
	// response was blocked (the call was not delivered); the arguments are
	// the delivered ones (redacted on rewrite, none when withheld for itself).
	for i, tc := range resp.toolCalls {
		dec := tc.decision
		if dec == "" {
			dec = governance.ActionAllow
		}
		if resp.Governance == governance.ActionBlock {
			dec = governance.ActionBlock
		}
		childRisk := governance.RiskScore(tc.findings)
		child := schemas.Trace{RequestID: fmt.Sprintf("%s-tool-%d", tr.RequestID, i+1), ParentRequestID: tr.RequestID,
			Mode: schemas.ModeSDK, StartedAt: tr.StartedAt, FinishedAt: &finished, Provider: tr.Provider, Model: tr.Model,
			UseCase: tr.UseCase, TeamID: tr.TeamID, IntegrationID: tr.IntegrationID, EndUserID: tr.EndUserID,
			UserID: tr.UserID, SessionID: tr.SessionID, Status: statusOf(dec), FinalDecision: string(dec),
			Prompt: tc.Function.Arguments, RiskScore: &childRisk, PolicyHits: policyHits(tc.findings)}
		child.Metadata, _ = json.Marshal(map[string]string{"tool_name": tc.Function.Name, "tool_call_id": tc.ID})
		capTraceText(&child)
		ce := schemas.Envelope{Kind: schemas.KindDecision, Trace: child}
		s.stamp(&ce, app, finished)
		envs = append(envs, ce)
	}
	return s.produce(c, envs)
}

// blockText is the application's fallback text for a block.
func (s *Server) blockText(c echo.Context, app query.App) string {
	if pol, err := s.policies.get(c.Request().Context(), app); err == nil {
		return pol.FallbackText()
	}
	return governance.DefaultFallbackText
}

// useRequestID makes the request's X-Request-Id (response header and
// access log line) the trace's request_id, so that a Full Control answer
// names one id wherever it is read.
func useRequestID(c echo.Context, id string) {
	c.Set(keyRequestID, id)
	c.Response().Header().Set(echo.HeaderXRequestID, id)
}

// upstreamFailure is the status, message and type an LLM failure answers
// with.
func upstreamFailure(err error) (int, string, string) {
	var le *llm.Error
	if errors.As(err, &le) {
		return le.Status, le.Message, le.Type
	}
	return http.StatusBadGateway, "the upstream LLM failed", llm.ErrNetwork
}

// chatUpstreamError answers the failure of a request's first LLM call (a
// failed regenerate call keeps the answer in hand instead) with its status
// and records the request as an error trace (best effort: the upstream
// error is the answer) saying why ({error, http_status, error_type}); no
// call answered, so there is no usage to record.
func (s *Server) chatUpstreamError(c echo.Context, app query.App, tr schemas.Trace, start time.Time, err error) error {
	status, msg, typ := upstreamFailure(err)
	finished := s.now()
	lat := finished.Sub(start).Milliseconds()
	tr.FinishedAt, tr.LatencyMs, tr.Status, tr.FinalDecision = &finished, &lat, schemas.StatusError, "error"
	tr.Metadata = mergeMeta(tr.Metadata, map[string]any{"error": msg, "http_status": status, "error_type": typ})
	capTraceText(&tr)
	env := schemas.Envelope{Kind: schemas.KindDecision, Trace: tr}
	s.stamp(&env, app, finished)
	if perr := s.produce(c, []schemas.Envelope{env}); perr != nil {
		s.logger.WarnContext(c.Request().Context(), "chat error trace not recorded", "request_id", tr.RequestID, "err", perr)
	}
	return s.chatError(c, status, msg, tr.RequestID)
}

// credentials returns the upstream key: the application's sealed BYOK key,
// or the operator's Managed key for the provider.
func (s *Server) credentials(app query.App, provider string) (llm.Credentials, error) {
	if app.ProviderOption == providerManagedOpt || len(app.LLMKeyCipher) == 0 {
		k := s.cfg.ManagedKeys[provider]
		if k == "" {
			return llm.Credentials{}, unavailable(fmt.Sprintf("no Managed key is configured for provider %s on this server", provider), nil)
		}
		return llm.Credentials{APIKey: k}, nil
	}
	key, err := s.sealer.Open(app.LLMKeyCipher, auth.SealAAD(app.OrgID, app.ID))
	if err != nil {
		return llm.Credentials{}, &apiError{status: http.StatusInternalServerError, msg: "the application's LLM key cannot be opened (GATEWAY_MASTER_KEY changed?)", cause: err}
	}
	return llm.Credentials{APIKey: string(key)}, nil
}

// isPrefix: the messages of stored start msgs, the same in every field.
func isPrefix(stored, msgs []llm.Message) bool {
	if len(stored) == 0 || len(stored) >= len(msgs) {
		return false
	}
	for i, m := range stored {
		c := msgs[i]
		if m.Role != c.Role || m.Content != c.Content || m.Name != c.Name || m.ToolCallID != c.ToolCallID || !bytes.Equal(m.ToolCalls, c.ToolCalls) {
			return false
		}
	}
	return true
}

// sessionTurn is a request's turn for the session's stored history: the
// new messages as the LLM got them; full when they are the client's whole
// conversation (sent with no stored history before it).
type sessionTurn struct {
	messages []llm.Message
	full     bool
}

// storedTurn is the JSON of a query.SessionTurn: the turn's messages, its
// answer last. Full: the turn holds the whole conversation up to it, so
// older turns are not history any more (a client that sends its own
// history does not get the stored one twice).
type storedTurn struct {
	Full     bool          `json:"full,omitempty"`
	Messages []llm.Message `json:"messages"`
}

// saveTurn stores the answered turn of a request with a session, after its
// trace is on the log and before the answer, so the next turn sees it
// however soon it comes. A block is never stored: neither its prompt nor a
// withheld answer is ever replayed to the LLM. answer is the delivered
// text (after governance). A store failure is logged and the answer still
// given: the LLM call is paid and the decision recorded; the session then
// lacks this turn.
func (s *Server) saveTurn(c echo.Context, app query.App, tr schemas.Trace, resp chatResponse, answer string) {
	if tr.SessionID == "" || resp.turn == nil || resp.Governance == governance.ActionBlock {
		return
	}
	st := storedTurn{Full: resp.turn.full, Messages: slices.Clone(resp.turn.messages)}
	reply := llm.Message{Role: "assistant", Content: answer}
	if len(resp.ToolCalls) > 0 {
		reply.ToolCalls = resp.ToolCalls
	}
	st.Messages = append(st.Messages, reply)
	b, err := json.Marshal(st)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), s.cfg.ProduceTimeout)
		defer cancel()
		err = s.store.AddSessionTurn(ctx, query.SessionTurn{OrgID: app.OrgID, AppID: app.ID, SessionID: tr.SessionID,
			RequestID: tr.RequestID, CreatedAt: tr.StartedAt, Messages: b})
	}
	if err != nil {
		s.logger.WarnContext(c.Request().Context(), "session turn not stored", "request_id", tr.RequestID, "err", err)
	}
}

// sessionHistory is the application's stored turns of the session, oldest
// first, to put before a request's new messages: at most the last
// MaxSessionTurns turns and MaxSessionHistoryBytes of them (the oldest go
// first), back to the newest turn that carried the client's whole
// conversation. A history never starts inside a tool exchange whose call
// was cut off.
func (s *Server) sessionHistory(ctx context.Context, app query.App, sessionID string) ([]llm.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.LookupTimeout)
	defer cancel()
	rows, err := s.store.SessionTurns(ctx, app.OrgID, app.ID, sessionID, MaxSessionTurns)
	if err != nil {
		return nil, fmt.Errorf("read session turns: %w", err)
	}
	var turns [][]llm.Message // newest first
	size := 0
	for i := len(rows) - 1; i >= 0; i-- {
		n := len(rows[i].Messages)
		var st storedTurn
		if n <= MaxSessionHistoryBytes && size+n > MaxSessionHistoryBytes {
			break // the oldest turns go first
		}
		if err := json.Unmarshal(rows[i].Messages, &st); err != nil {
			return nil, fmt.Errorf("decode session turn %s: %w", rows[i].RequestID, err)
		}
		if n > MaxSessionHistoryBytes {
			// A turn over the whole budget (a huge tool output) is left
			// out, not the conversation before it.
			s.logger.Warn("session turn over the history budget left out", "app_id", app.ID, "request_id", rows[i].RequestID, "bytes", n)
			if st.Full {
				break
			}
			continue
		}
		size += n
		turns = append(turns, st.Messages)
		if st.Full {
			break
		}
	}
	var out []llm.Message
	for i := len(turns) - 1; i >= 0; i-- {
		out = append(out, turns[i]...)
	}
	for len(out) > 0 && out[0].Role != "user" && out[0].Role != "system" {
		out = out[1:]
	}
	return out, nil
}
