package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/auth"
	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/tokens"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// Proxy modes (spec 4.1).
const (
	modeObserve = "observe"
	modeGuard   = "guard"
	modeVerify  = "verify"
	modeFull    = "full"
)

var proxyModes = map[string]bool{modeObserve: true, modeGuard: true, modeVerify: true, modeFull: true}

// proxyBlockNotice is the fixed text of a blocked proxied completion.
const proxyBlockNotice = "This request was blocked by the governance gateway's policy."

// forwardedHeaders go to the upstream verbatim (Authorization included:
// the proxy never reads, stores or logs it beyond forwarding).
var forwardedHeaders = []string{"Authorization", "Content-Type", "Accept", "OpenAI-Organization", "OpenAI-Project", "User-Agent"}

type proxyRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// text of an OpenAI message content: a string, or the "text" members of an
// array's parts joined. Parts are read whatever their type: OpenAI takes
// text only from "text" parts and refuses unknown types, but a compatible
// upstream may read "input_text" or its own kinds, and the guard must judge
// every text the upstream could read.
func contentText(raw json.RawMessage) string {
	if s, ok := contentTextFast(raw); ok {
		return s
	}
	return contentTextJSON(raw)
}

// contentTextJSON is contentText with encoding/json, for what
// contentTextFast leaves to it.
func contentTextJSON(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// decodeRequest decodes a chat-completions request body: with the fast
// path (fast true) or encoding/json; ok false for invalid UTF-8 or JSON
// that is not such a request.
func decodeRequest(body []byte, pr *proxyRequest) (fast, ok bool) {
	if !utf8.Valid(body) {
		return false, false
	}
	if decodeProxyRequest(body, pr) {
		return true, true
	}
	return false, json.Unmarshal(body, pr) == nil
}

// proxyBodyFields are the members the proxy reads, with the type each must
// have, for the message of a body it cannot read.
var proxyBodyFields = map[string]string{"model": "a string", "stream": "a boolean",
	"messages": "an array of message objects", "messages.role": "a string"}

// proxyBodyProblem says why decodeRequest refused body, naming the member
// and the rule where there is one (docs/api.md: errors name the field).
func proxyBodyProblem(body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return "the body is empty"
	}
	if !utf8.Valid(body) {
		return "the body is not valid UTF-8"
	}
	var pr proxyRequest
	err := json.Unmarshal(body, &pr)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		name := strings.Replace(te.Field, "messages.", "messages[].", 1)
		if want, ok := proxyBodyFields[te.Field]; ok {
			return fmt.Sprintf("%s must be %s", name, want)
		}
		return fmt.Sprintf("%s has the wrong type (%s)", name, te.Value)
	}
	if err == nil { // cannot happen: decodeRequest accepted what json.Unmarshal accepts
		return "unreadable"
	}
	return jsonProblem(err)
}

// contentEdits redacts message i's content in the request body: a string
// content becomes redacted (the policy's redaction of its text); an array
// of parts has each part's text redacted on its own (the parts' text joined
// is what the policy judged, but a redaction must stay inside its part).
func contentEdits(pol judge, raw json.RawMessage, i int, redacted string) []jsonEdit {
	path := []string{"messages", strconv.Itoa(i), "content"}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return []jsonEdit{{path: path, val: jsonString(redacted)}}
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var edits []jsonEdit
	for k, p := range parts {
		if p.Text == "" {
			continue
		}
		if d := pol.Verify(governance.Input{Prompt: p.Text}); d.Prompt != p.Text {
			edits = append(edits, jsonEdit{path: append(slices.Clone(path), strconv.Itoa(k), "text"), val: jsonString(d.Prompt)})
		}
	}
	return edits
}

// redactedAsJudged: in the edited body, the user messages at idx leave
// nothing more for the policy to redact. Each text part is redacted on its
// own (contentEdits), so an entity spanning two parts would otherwise go
// out whole while the trace says rewritten.
func redactedAsJudged(pol judge, body []byte, idx []int) bool {
	var pr proxyRequest
	if _, ok := decodeRequest(body, &pr); !ok {
		return false
	}
	for _, i := range idx {
		if i < 0 || i >= len(pr.Messages) {
			continue
		}
		text := contentText(pr.Messages[i].Content)
		if pol.Verify(governance.Input{Prompt: text}).Prompt != text {
			return false
		}
	}
	return true
}

// proxyHealth is GET /v1/chat/completions/health (no auth, no upstream call).
func (s *Server) proxyHealth(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "upstream": withoutUserinfo(s.cfg.UpstreamURL),
		"endpoint": "/v1/chat/completions", "modes": []string{"non-stream", "stream"}})
}

// withoutUserinfo drops the user and password of a URL: the health answer
// is public, and an operator may have put a credential there.
func withoutUserinfo(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil: // forwarding fails too (502); the text may still hold a credential
		return "(not a valid URL)"
	case u.User == nil:
		return raw
	}
	u.User = nil
	return u.String()
}

// proxyChat is the OpenAI-compatible proxy (spec 4.1): the service key is
// checked before any upstream contact; bodies are forwarded byte for byte
// and answered byte for byte unless governance changes them; the trace is
// emitted off the response path.
func (s *Server) proxyChat(c echo.Context) error {
	start := s.now()
	h := c.Request().Header
	key := strings.TrimSpace(h.Get("X-Service-Api-Key"))
	if key == "" {
		key = strings.TrimSpace(h.Get("X-API-Key"))
	}
	app, err := s.keys.Resolve(c.Request().Context(), key)
	switch {
	case errors.Is(err, auth.ErrInvalidKey):
		return fail(http.StatusUnauthorized, "the service API key is required: send a valid X-Service-Api-Key (or X-API-Key)")
	case err != nil:
		return unavailable("cannot check the API key right now; retry", err)
	}
	c.Set(keyOrgID, app.OrgID)
	c.Set(keyAppID, app.ID)
	// From here the request is the application's: a refusal leaves an
	// error trace, found by the X-Service-Request-Id it answers with.
	requestID := s.newID()
	resp := c.Response()
	resp.Header().Set("X-Service-Request-Id", requestID)
	var pr proxyRequest
	base := schemas.Trace{RequestID: requestID, Mode: schemas.ModeProxy, StartedAt: start, Provider: s.proxyProvider(),
		UseCase: defaultUseCase, IntegrationID: s.cfg.ProxyIntegrationID}
	reject := func(err error) error {
		if status, msg, ok := refusal(err); ok {
			tr := base
			tr.Model = pr.Model
			s.emitRefusal(app, tr, status, msg)
		}
		return err
	}
	switch bearer := auth.BearerToken(h); {
	case bearer == "":
		return reject(fail(http.StatusUnauthorized, "the upstream API key is required: send Authorization: Bearer <UPSTREAM_API_KEY>; nothing was forwarded"))
	case strings.HasPrefix(bearer, auth.APIKeyPrefix):
		// Authorization is forwarded verbatim: a service key there (a client
		// that sends its key both ways) would be handed to the vendor.
		return reject(fail(http.StatusUnauthorized, "Authorization carries a service API key ("+auth.APIKeyPrefix+"…), which the proxy would forward to the upstream: send the upstream vendor's key as Authorization: Bearer, or drop X-Service-Api-Key / X-API-Key to use Full Control; nothing was forwarded"))
	case strings.HasPrefix(bearer, auth.ConsoleTokenPrefix):
		// A console token opens the whole organisation: never to a vendor.
		return reject(fail(http.StatusUnauthorized, "Authorization carries a console token ("+auth.ConsoleTokenPrefix+"…), which the proxy would forward to the upstream: send the upstream vendor's key as Authorization: Bearer; nothing was forwarded"))
	}
	// Header values are matched as HTTP tokens usually are: "Guard" is guard.
	mode := strings.ToLower(strings.TrimSpace(h.Get("X-Service-Mode")))
	if mode == "" { // the tenant's default (spec 4.1), else the operator's
		if mode, err = s.orgModes.get(c.Request().Context(), app.OrgID); err != nil {
			return reject(unavailable("cannot read the organisation's default mode right now; retry", err))
		}
		if mode == "" {
			mode = s.cfg.ProxyDefaultMode
		}
	}
	if !proxyModes[mode] {
		return reject(fail(http.StatusBadRequest, "X-Service-Mode must be observe, guard, verify or full"))
	}
	body, err := readBody(c, s.cfg.BodyLimit)
	if err != nil {
		return reject(err)
	}
	fast, ok := decodeRequest(body, &pr)
	if !ok {
		return reject(fail(http.StatusBadRequest, "the body must be a JSON chat-completions request: %s", proxyBodyProblem(body)))
	}
	if !fast && mode != modeObserve {
		// encoding/json reads {"content":"…","Content":"…"} as the last
		// member, the upstream as the exact one: the gateway would judge
		// one text and forward another.
		if _, dup := governance.DuplicateKey(body); dup {
			return reject(fail(http.StatusBadRequest, "the body has member names that differ only in case (or repeat): the gateway cannot judge what the upstream would read"))
		}
	}
	if pr.Stream { // DESIGN.md 5: streaming downgrades the post-flight modes
		switch mode {
		case modeVerify:
			mode = modeObserve
		case modeFull:
			mode = modeGuard
		}
	}
	resp.Header().Set("X-Service-Mode", mode)

	var prompt string
	var earlier, tools []string
	var earlierIdx []int // messages index of each earlier user turn
	promptIdx := -1
	for i, m := range pr.Messages {
		switch m.Role {
		case "user":
			if promptIdx >= 0 {
				earlier, earlierIdx = append(earlier, prompt), append(earlierIdx, promptIdx)
			}
			prompt, promptIdx = contentText(m.Content), i
		case "tool", "function": // function: the legacy form of a tool result, still accepted upstream
			tools = append(tools, contentText(m.Content))
		}
	}
	tr := base
	tr.Model, tr.Prompt, tr.Status, tr.FinalDecision = pr.Model, prompt, schemas.StatusOK, "pass"
	if mode != modeObserve {
		tr.FinalDecision = string(governance.ActionAllow) // judged and let through; "pass" means not judged
	}
	// The effective mode prices the call (DESIGN.md 5: proxy billing).
	tr.Metadata = json.RawMessage(`{"service_mode":"` + mode + `"}`) // mode is one of the four names
	for _, d := range []struct {
		name string
		dst  *string
	}{{"X-Use-Case", &tr.UseCase}, {"X-Team-Id", &tr.TeamID}, {"X-Integration-Id", &tr.IntegrationID}, {"X-End-User-Id", &tr.EndUserID}, {"X-Session-Id", &tr.SessionID}} {
		v, err := dimension(c, d.name, *d.dst)
		if err != nil {
			return reject(err)
		}
		*d.dst = v
	}

	var pol judge
	if mode != modeObserve {
		if pol, err = s.policies.get(c.Request().Context(), app); err != nil {
			return reject(unavailable("cannot load the application's policy right now; retry", err))
		}
	}
	var findings []governance.Finding
	if mode == modeGuard || mode == modeFull {
		pre := pol.Verify(governance.Input{Prompt: prompt, ToolResult: strings.Join(tools, "\n\n")})
		tr.Prompt = pre.RecordPrompt // a blocked secret is not recorded either
		var redacted map[int]string
		if pre.Governance != governance.ActionBlock {
			// Earlier user turns: an attack there reaches the LLM as surely
			// as one in the last turn; a rewrite rule redacts them too.
			var blocked *governance.Decision
			var found []governance.Finding
			if blocked, redacted, found = earlierTurns(pol, earlier); blocked != nil {
				pre = *blocked
			} else {
				pre.Findings = append(pre.Findings, found...)
			}
		}
		findings = pre.Findings
		if pre.Governance != governance.ActionBlock && (pre.Prompt != prompt || len(redacted) > 0) {
			// A pre-flight rewrite redacts what the upstream receives, as
			// in Full Control; every other byte of the body stays.
			var edits []jsonEdit
			if pre.Prompt != prompt {
				edits = append(edits, contentEdits(pol, pr.Messages[promptIdx].Content, promptIdx, pre.Prompt)...)
			}
			for k, v := range redacted {
				edits = append(edits, contentEdits(pol, pr.Messages[earlierIdx[k]].Content, earlierIdx[k], v)...)
			}
			out, ok := applyJSONEdits(body, edits)
			ok = ok && len(edits) > 0 && redactedAsJudged(pol, out, append([]int{promptIdx}, earlierIdx...))
			if ok {
				body = out
				tr.Status, tr.FinalDecision = schemas.StatusRewritten, string(governance.ActionRewrite)
			} else { // never forward what the policy redacts unredacted
				pre = governance.Decision{Governance: governance.ActionBlock, Findings: findings}
			}
		}
		if pre.Governance == governance.ActionBlock {
			tr.CostUSD = new(float64) // the upstream is never called: no LLM cost
			s.queueTrace(app, tr, findings, governance.ActionBlock, "")
			if pr.Stream {
				return writeBlockStream(c, requestID, pr.Model, pre, start)
			}
			return c.JSON(http.StatusOK, blockCompletion(requestID, pr.Model, pre, start, false))
		}
	}

	up, err := s.forward(c, body, pr.Stream)
	if err != nil {
		tr.Status, tr.FinalDecision = schemas.StatusError, "error"
		s.queueTrace(app, tr, findings, "", "")
		return err
	}
	defer up.Body.Close()
	if pr.Stream && up.StatusCode < 400 {
		msgs := make([]tokens.Message, len(pr.Messages))
		for i, m := range pr.Messages {
			msgs[i] = tokens.Message{Role: m.Role, Content: contentText(m.Content)}
		}
		return s.proxyStream(c, app, tr, up, findings, msgs)
	}
	// The upstream timeout still runs (forward): a body that stalls after
	// its headers is a 504 like headers that never come.
	raw, err := io.ReadAll(io.LimitReader(up.Body, 64<<20))
	if err != nil {
		tr.Status, tr.FinalDecision = schemas.StatusError, "error"
		s.queueTrace(app, tr, findings, "", "")
		if le := (*llm.Error)(nil); errors.Is(err, errUpstreamTimeout) || errors.As(err, &le) && le.Type == llm.ErrTimeout {
			return upstreamJSONError(http.StatusGatewayTimeout, "upstream_timeout", "the upstream did not answer in time")
		}
		return upstreamJSONError(http.StatusBadGateway, "upstream_error", "the upstream connection broke while reading the answer")
	}
	if up.StatusCode >= 400 {
		tr.Status, tr.FinalDecision = schemas.StatusError, "error"
		s.queueTrace(app, tr, findings, "", "")
		return s.writeUpstream(c, up, raw)
	}
	contents, usage, upModel, readable := completionText(raw)
	if !readable {
		tr.Status, tr.FinalDecision = schemas.StatusError, "error"
		s.queueTrace(app, tr, findings, "", "")
		if mode == modeVerify || mode == modeFull {
			// An answer the gateway cannot read is one it cannot judge:
			// never passed on unchecked.
			return upstreamJSONError(http.StatusBadGateway, "upstream_error", "the upstream answered with an unreadable chat completion")
		}
		return s.writeUpstream(c, up, raw) // observe and guard: as it came
	}
	answer := ""
	if len(contents) > 0 {
		answer = contents[0]
	}
	if usage != nil {
		tr.PromptTokens, tr.CompletionTokens = usage.PromptTokens, usage.CompletionTokens
		if usd, ok := s.callCost(tr.Provider, tr.Model, upModel, usage.PromptTokens, usage.CompletionTokens); ok {
			tr.CostUSD = &usd
		}
	}
	action := governance.Action("")
	if mode == modeVerify || mode == modeFull {
		// Every choice is judged ("n": 2 must not pass a second answer
		// unchecked); the trace keeps the first.
		toolText := strings.Join(tools, "\n\n")
		var edits []jsonEdit
		var blocked governance.Decision
		rewritten0 := answer
		for i, content := range contents {
			if i > 0 && content == "" {
				continue // a tool-call-only choice: its calls are judged below
			}
			post := pol.Verify(governance.Input{Answer: content, ToolResult: toolText})
			findings = append(findings, withoutStage(post.Findings, governance.StageTool)...)
			switch {
			case post.Governance == governance.ActionBlock && blocked.Governance == "":
				blocked = post
			case post.Governance == governance.ActionRewrite:
				edits = append(edits, jsonEdit{path: choicePath(i, "content"), val: jsonString(post.Answer)})
				if i == 0 {
					rewritten0 = post.Answer
				}
			}
		}
		// The tool calls' arguments (proxytools.go); nothing to do without any.
		calls := reviewProxyToolCalls(pol, raw)
		findings = append(findings, calls.findings...)
		edits = append(edits, calls.edits...)
		if blocked.Governance == "" && calls.governance == governance.ActionBlock {
			blocked = governance.Decision{Governance: governance.ActionBlock, Findings: calls.findings}
		}
		if blocked.Governance != governance.ActionBlock && len(edits) > 0 {
			if rewritten, ok := applyJSONEdits(raw, edits); ok {
				raw, action, answer = rewritten, governance.ActionRewrite, rewritten0
			} else { // cannot happen (the paths were read from raw): never pass it unredacted
				blocked = governance.Decision{Governance: governance.ActionBlock, Findings: findings}
			}
		}
		if blocked.Governance == governance.ActionBlock {
			// The trace keeps no answer on a block (queueTrace); a tool-call
			// answer's arguments are never in the trace (it stores the content).
			s.queueTrace(app, tr, findings, governance.ActionBlock, answer)
			s.renewWriteDeadline(c) // as writeUpstream
			return c.JSON(http.StatusOK, blockCompletion(requestID, pr.Model, blocked, start, false))
		}
	}
	s.queueTrace(app, tr, findings, action, answer)
	return s.writeUpstream(c, up, raw)
}

// forward sends body to the upstream with the forwarded headers. Errors are
// the spec's 504 / 502 shapes. The upstream timeout does not stop at the
// answer's headers: it bounds the whole exchange of an answer read at once
// (upstreamBody), and each read of a stream (llm.OpenStream's idle timeout),
// so a stream may run as long as the upstream keeps sending.
func (s *Server) forward(c echo.Context, body []byte, stream bool) (*http.Response, error) {
	send := func(ctx context.Context) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.UpstreamURL+"/chat/completions", bytes.NewReader(body))
		if err != nil {
			return nil, upstreamJSONError(http.StatusBadGateway, "upstream_error", "the upstream URL is invalid")
		}
		for _, name := range forwardedHeaders {
			if v := c.Request().Header.Values(name); len(v) > 0 {
				req.Header[name] = v
			}
		}
		return s.upstream.Do(req)
	}
	if stream {
		res, cancel, err := llm.OpenStream(c.Request().Context(), s.cfg.UpstreamTimeout, send)
		if err != nil {
			return nil, forwardError(err, false)
		}
		res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: cancel}
		return res, nil
	}
	ctx, cancel := context.WithCancel(c.Request().Context())
	expired := new(atomic.Bool)
	timer := time.AfterFunc(s.cfg.UpstreamTimeout, func() {
		expired.Store(true)
		cancel()
	})
	res, err := send(ctx)
	if err != nil {
		timer.Stop()
		cancel()
		return nil, forwardError(err, expired.Load())
	}
	res.Body = &upstreamBody{rc: res.Body, cancel: cancel, timer: timer, expired: expired}
	return res, nil
}

// forwardError is the spec's shape of a failed forward: 504 for a timeout
// (expired: the upstream timeout cancelled the request), else 502.
func forwardError(err error, expired bool) error {
	var ue *upstreamError
	var le *llm.Error
	var ne net.Error
	switch {
	case errors.As(err, &ue):
		return err
	case expired || errors.As(err, &le) && le.Type == llm.ErrTimeout || errors.As(err, &ne) && ne.Timeout():
		return upstreamJSONError(http.StatusGatewayTimeout, "upstream_timeout", "the upstream did not answer in time")
	}
	return upstreamJSONError(http.StatusBadGateway, "upstream_error", "cannot reach the upstream")
}

// cancelOnClose ends a stream's upstream request when the stream is closed
// (a client that left mid-stream cancels the upstream too).
type cancelOnClose struct {
	io.ReadCloser
	cancel func()
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// errUpstreamTimeout is a read of the upstream's answer cut by
// Config.UpstreamTimeout.
var errUpstreamTimeout = errors.New("the upstream did not answer in time")

// upstreamBody is a non-streamed answer's body under the upstream timeout
// that forward started: the whole exchange is bounded. Close cancels the
// upstream request.
type upstreamBody struct {
	rc      io.ReadCloser
	cancel  context.CancelFunc
	timer   *time.Timer
	expired *atomic.Bool // the timer fired (the request was cancelled by it)
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && b.expired.Load() {
		return n, fmt.Errorf("%w (%w)", errUpstreamTimeout, err)
	}
	return n, err
}

func (b *upstreamBody) Close() error {
	b.timer.Stop()
	err := b.rc.Close()
	b.cancel()
	return err
}

// upstreamError is a response written verbatim in the proxy's error shapes.
type upstreamError struct {
	status int
	body   map[string]any
}

func (e *upstreamError) Error() string { return fmt.Sprint(e.body) }

func upstreamJSONError(status int, typ, msg string) error {
	return &upstreamError{status: status, body: map[string]any{"error": map[string]string{"message": msg, "type": typ}}}
}

// writeUpstream answers with the upstream's status, headers (copyUpstreamHeaders)
// and raw, its bytes as governance left them.
func (s *Server) writeUpstream(c echo.Context, up *http.Response, raw []byte) error {
	h := c.Response().Header()
	copyUpstreamHeaders(h, up)
	h.Set("Content-Length", strconv.Itoa(len(raw)))
	ct := up.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/json"
	}
	// The server's write deadline runs from the request's headers: a slow
	// upload plus the upstream's time must not cut the answer the gateway
	// waited (and the client paid) for.
	s.renewWriteDeadline(c)
	return c.Blob(up.StatusCode, ct, raw)
}

// notPassedBack are the upstream's response headers the proxy drops:
// hop-by-hop headers (RFC 9110 7.6.1) describe the upstream connection;
// Content-Length is recomputed (a rewrite changes the length); Set-Cookie
// and Alt-Svc speak for the upstream's origin, not the gateway's.
var notPassedBack = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Te": true, "Trailer": true, "Transfer-Encoding": true,
	"Upgrade": true, "Content-Length": true, "Set-Cookie": true, "Alt-Svc": true,
	// Set by the gateway itself: one Content-Type (echo adds none over an
	// existing one), and X-Upstream-Request-Id from the upstream's X-Request-Id.
	"Content-Type": true, "X-Upstream-Request-Id": true,
	// Policies of the upstream's origin, not of the gateway's (whose console
	// shares it): transport security, cross-origin access, data clearing.
	"Strict-Transport-Security": true, "Clear-Site-Data": true,
}

// copyUpstreamHeaders passes the upstream's response headers on (spec 4.1:
// the upstream response plus the gateway's headers), so a client sees the
// vendor's Retry-After, x-ratelimit-* and processing time as if it called
// the vendor. Headers already set on dst are the gateway's
// (X-Service-Request-Id, X-Service-Mode, X-Request-Id) and win; the
// upstream's own X-Request-Id comes back as X-Upstream-Request-Id.
//
// The value slices are shared, not copied: the upstream's header map is
// read only here and dropped with the response.
func copyUpstreamHeaders(dst http.Header, up *http.Response) {
	var named map[string]bool // headers the upstream's Connection names are hop-by-hop too
	for _, v := range up.Header.Values("Connection") {
		for tok := range strings.SplitSeq(v, ",") {
			if named == nil {
				named = map[string]bool{}
			}
			named[http.CanonicalHeaderKey(strings.TrimSpace(tok))] = true
		}
	}
	for k, v := range up.Header {
		switch {
		case notPassedBack[k] || named[k] || strings.HasPrefix(k, "Proxy-") || strings.HasPrefix(k, "Access-Control-"):
		case k == "Content-Encoding" && up.Uncompressed:
			// The transport decoded the body: the bytes are not so encoded.
		case k == echo.HeaderXRequestID:
			if len(dst["X-Upstream-Request-Id"]) == 0 {
				dst["X-Upstream-Request-Id"] = v
			}
		case len(dst[k]) > 0:
		default:
			dst[k] = v
		}
	}
}

// extendWriteDeadline gives the next write to the client d from now
// (http.Server.WriteTimeout would otherwise bound the whole response).
// Writers without deadlines (a test recorder) need none.
func extendWriteDeadline(rc *http.ResponseController, d time.Duration) {
	_ = rc.SetWriteDeadline(time.Now().Add(d))
}

// renewWriteDeadline gives the answer about to be written to c the whole
// write timeout: it comes after waiting for an upstream or the LLM, which
// may have outlasted the deadline that started with the request.
func (s *Server) renewWriteDeadline(c echo.Context) {
	extendWriteDeadline(http.NewResponseController(c.Response()), s.cfg.WriteTimeout)
}

type proxyUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// completionText reads the message content of every choice ("" for none
// or null), the usage (nil when the body has none) and the model of a
// chat.completion; false when raw is not one (not JSON, or a member of
// another type).
func completionText(raw []byte) ([]string, *proxyUsage, string, bool) {
	if contents, usage, model, ok := completionTextFast(raw); ok {
		return contents, usage, model, true
	}
	return completionTextJSON(raw)
}

// completionTextJSON is completionText with encoding/json, for what
// completionTextFast leaves to it.
func completionTextJSON(raw []byte) ([]string, *proxyUsage, string, bool) {
	var r struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Usage *proxyUsage `json:"usage"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return nil, nil, "", false
	}
	contents := make([]string, len(r.Choices))
	for i, ch := range r.Choices {
		if ch.Message.Content != nil {
			contents[i] = *ch.Message.Content
		}
	}
	return contents, r.Usage, r.Model, true
}

// proxyProvider is the vendor of the proxy's upstream as its configured
// integration id names it ("proxy:<vendor>", default proxy:openai): the
// provider of proxied traces and of their prices. Anything else is openai,
// whose chat-completions API the proxy speaks. X-Integration-Id (a
// caller's dashboard tag) does not change it.
func (s *Server) proxyProvider() string {
	if v, ok := strings.CutPrefix(s.cfg.ProxyIntegrationID, "proxy:"); ok && slices.Contains(llm.Vendors(), v) {
		return v
	}
	return llm.OpenAI
}

// blockCompletion is the exact block body of spec 4.1; as a stream chunk
// (object chat.completion.chunk, the notice in delta) for a blocked
// stream:true request.
func blockCompletion(requestID, model string, d governance.Decision, start time.Time, chunk bool) map[string]any {
	object, msgKey := "chat.completion", "message"
	if chunk {
		object, msgKey = "chat.completion.chunk", "delta"
	}
	return map[string]any{
		"id": "chatcmpl-svc-" + requestID, "object": object, "created": start.Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, msgKey: map[string]any{"role": "assistant", "content": proxyBlockNotice},
			"finish_reason": "content_filter"}},
		"usage":              map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
		"system_fingerprint": "service_blocked",
		"svc_block":          map[string]string{"reason": blockReason(d)},
	}
}

// writeBlockStream answers a blocked stream:true request with the block as
// an event stream: its one chunk, then [DONE]. A streaming client iterates
// chunks; a JSON body would reach it as a stream with no chunk at all.
func writeBlockStream(c echo.Context, requestID, model string, d governance.Decision, start time.Time) error {
	chunk, _ := json.Marshal(blockCompletion(requestID, model, d, start, true))
	w := c.Response()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_, err := fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", chunk)
	return err
}

// blockReason names the blocking policy and its confidence (spec 4.1). A
// block no rule asked for (a redaction that could not be applied) names the
// finding that was to be redacted.
func blockReason(d governance.Decision) string {
	for _, want := range []func(governance.Action) bool{
		func(a governance.Action) bool { return a == governance.ActionBlock },
		func(a governance.Action) bool { return a != governance.ActionAllow },
	} {
		for _, f := range d.Findings {
			if want(f.Action) {
				return fmt.Sprintf("%s (confidence %.2f)", f.Policy, f.Confidence)
			}
		}
	}
	return "blocked by policy"
}

// proxyStream copies the upstream's event stream to the client as it
// arrives, reading the usage and the answer text on the way for the trace.
// Each upstream read waits at most Config.UpstreamTimeout, and each write
// to the client gets Config.WriteTimeout from its start, so a stream lasts
// as long as both sides keep up. A stream whose body breaks (or goes idle)
// is traced as an error and aborted: the client sees a broken response (an
// incomplete chunked body on HTTP/1.1, a reset stream on HTTP/2), as it
// would from the upstream, never a clean end. One the upstream ends
// cleanly without [DONE] is passed on as it came, its trace an error.
func (s *Server) proxyStream(c echo.Context, app query.App, tr schemas.Trace, up *http.Response, findings []governance.Finding, msgs []tokens.Message) error {
	w := c.Response()
	copyUpstreamHeaders(w.Header(), up)
	ct := up.Header.Get("Content-Type")
	if ct == "" {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	if w.Header().Get("Cache-Control") == "" {
		w.Header().Set("Cache-Control", "no-cache")
	}
	body := up.Body // each read bounded by the upstream timeout (forward)
	rc := http.NewResponseController(w)
	w.WriteHeader(up.StatusCode)
	var text, others strings.Builder
	var usage *proxyUsage
	var upModel string
	var line []byte
	bp := streamBufs.Get().(*[]byte)
	defer streamBufs.Put(bp)
	buf := *bp
	sawDone := false
	var readErr error
	for {
		n, err := body.Read(buf)
		if n > 0 {
			extendWriteDeadline(rc, s.cfg.WriteTimeout)
			if _, werr := w.Write(buf[:n]); werr != nil {
				err = werr
			}
			w.Flush()
			// Parse complete lines for the trace, after the bytes left.
			line = append(line, buf[:n]...)
			for {
				i := bytes.IndexByte(line, '\n')
				if i < 0 {
					break
				}
				ev := bytes.TrimSpace(line[:i])
				line = line[i+1:]
				data, ok := bytes.CutPrefix(ev, []byte("data:"))
				if !ok {
					continue
				}
				data = bytes.TrimSpace(data)
				if string(data) == "[DONE]" {
					sawDone = true
					continue
				}
				var ch struct {
					Model   string `json:"model"`
					Choices []struct {
						Index int `json:"index"`
						Delta struct {
							Content string `json:"content"`
						} `json:"delta"`
					} `json:"choices"`
					Usage *proxyUsage `json:"usage"`
				}
				if json.Unmarshal(data, &ch) == nil {
					// The trace keeps choice 0; the other choices ("n": 2)
					// only count their tokens.
					for _, c := range ch.Choices {
						if c.Index == 0 {
							text.WriteString(c.Delta.Content)
						} else {
							others.WriteString(c.Delta.Content)
						}
					}
					if ch.Usage != nil {
						usage = ch.Usage
					}
					if ch.Model != "" {
						upModel = ch.Model
					}
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) || !sawDone {
				tr.Status, tr.FinalDecision = schemas.StatusError, "error"
			}
			if !errors.Is(err, io.EOF) {
				// A broken body is passed on broken. A clean end without
				// [DONE] is passed on as it came (the trace says error): a
				// client reading the upstream directly would see it end.
				readErr = err
			}
			break
		}
	}
	switch {
	case usage != nil && (usage.CompletionTokens > 0 || text.Len()+others.Len() == 0):
		tr.PromptTokens, tr.CompletionTokens = usage.PromptTokens, usage.CompletionTokens
		if usd, ok := s.callCost(tr.Provider, tr.Model, upModel, usage.PromptTokens, usage.CompletionTokens); ok {
			tr.CostUSD = &usd
		}
	case text.Len()+others.Len() > 0:
		// No usage chunk (the client did not ask for stream_options.
		// include_usage): the gateway counts with the model's tokenizer, and
		// prices the call only when that is the model's own vocabulary.
		model := cmp.Or(upModel, tr.Model)
		completion, exact := tokens.Count(model, text.String())
		if others.Len() > 0 {
			n, _ := tokens.Count(model, others.String())
			completion += n
		}
		prompt, promptExact := tokens.CountMessages(model, msgs)
		if usage != nil && usage.PromptTokens > 0 {
			prompt, promptExact = int(usage.PromptTokens), true
		}
		tr.PromptTokens, tr.CompletionTokens = int64(prompt), int64(completion)
		tr.Metadata = mergeMeta(tr.Metadata, usageCounted)
		if exact && promptExact {
			if usd, ok := s.callCost(tr.Provider, tr.Model, upModel, tr.PromptTokens, tr.CompletionTokens); ok {
				tr.CostUSD = &usd
			}
		}
	}
	s.queueTrace(app, tr, findings, "", text.String())
	if readErr != nil {
		// The trace is queued; the request log line (observe) is not
		// written for an aborted handler, so this line stands for it.
		s.logger.Warn("proxy stream aborted: the stream did not complete", "request_id", c.Get(keyRequestID),
			"trace_id", tr.RequestID, "org_id", app.OrgID, "app_id", app.ID, "err", readErr)
		panic(http.ErrAbortHandler) // net/http closes the connection without ending the body; recover re-panics it
	}
	return nil
}

// streamBufs are the read buffers of proxied streams: each read is
// written to the client at once, so one buffer per stream, reused.
var streamBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// queueTrace completes the trace and queues it for the log.
func (s *Server) queueTrace(app query.App, tr schemas.Trace, findings []governance.Finding, action governance.Action, answer string) {
	finished := s.now()
	lat := finished.Sub(tr.StartedAt).Milliseconds()
	tr.FinishedAt, tr.LatencyMs = &finished, &lat
	tr.TotalTokens = tr.PromptTokens + tr.CompletionTokens
	tr.PolicyHits = policyHits(findings)
	if len(findings) > 0 {
		risk := governance.RiskScore(findings)
		tr.RiskScore = &risk
	}
	switch action {
	case governance.ActionBlock:
		tr.Status, tr.FinalDecision, answer = schemas.StatusBlocked, "block", ""
	case governance.ActionRewrite:
		tr.Status, tr.FinalDecision = schemas.StatusRewritten, "rewrite"
	}
	tr.Answer = answer
	capTraceText(&tr)
	env := schemas.Envelope{Kind: schemas.KindDecision, Trace: tr}
	s.stamp(&env, app, finished)
	s.emitter.Emit(env)
}

// traceTextCap bounds the prompt and the answer a proxy trace keeps: the
// proxy forwards bodies up to Config.BodyLimit, but a trace must fit one log
// record (topics.MaxRecordBytes, about 1 MB). The cut is marked in
// metadata.trace_truncated; the upstream still got everything.
const traceTextCap = 256 << 10

func capTraceText(tr *schemas.Trace) {
	cut := false
	for _, s := range []*string{&tr.Prompt, &tr.Answer} {
		if len(*s) > traceTextCap {
			n := traceTextCap
			for n > 0 && !utf8.RuneStart((*s)[n]) {
				n--
			}
			*s, cut = (*s)[:n], true
		}
	}
	if cut {
		tr.Metadata = mergeMeta(tr.Metadata, map[string]any{"trace_truncated": true})
	}
}
