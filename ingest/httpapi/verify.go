package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/llm/tokens"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// Limits of POST /v1/verify (docs/api.md).
const (
	VerifyBodyLimit   = 1 << 20   // whole body: 413 above
	MaxVerifyAnswer   = 256 << 10 // bytes of answer: 400 above
	MaxVerifyPrompt   = 256 << 10
	MaxVerifyTool     = 512 << 10
	maxDimensionChars = 256 // X-Use-Case and the other dimension headers
)

// Header defaults of spec 4.2.
const (
	defaultUseCase           = "default"
	defaultVerifyIntegration = "api:v1_verify"
)

type verifyResponse struct {
	OK            bool                   `json:"ok"`
	RequestID     string                 `json:"request_id"`
	Answer        string                 `json:"answer"`
	AnswerChanged bool                   `json:"answer_changed"`
	Governance    governance.Action      `json:"governance"`
	MismatchType  string                 `json:"mismatch_type"`
	PolicyHits    []governance.Finding   `json:"policy_hits"`
	Explanation   governance.Explanation `json:"explanation"`
	Reasons       []chatReason           `json:"reasons"`
	RiskScore     float64                `json:"risk_score"`
}

// verifyBody is decoded in one pass: pointers tell an absent or null field
// (nil) from an empty string, and a value of the wrong type is an
// UnmarshalTypeError naming its field.
type verifyBody struct {
	Prompt     *string `json:"prompt"`
	Answer     *string `json:"answer"`
	ToolResult *string `json:"tool_result"`
	Model      *string `json:"model"`
	Provider   *string `json:"provider"`
}

// optString checks an optional string field's size: absent and null are "".
func optString(name string, v *string, limit int) (string, error) {
	if v == nil {
		return "", nil
	}
	if len(*v) > limit {
		return "", fail(http.StatusBadRequest, "%s is %d bytes, the limit is %d", name, len(*v), limit)
	}
	return *v, nil
}

// dimension reads an optional dimension header.
func dimension(c echo.Context, name, def string) (string, error) {
	v := c.Request().Header.Get(name)
	if v == "" {
		return def, nil
	}
	if !utf8.ValidString(v) || utf8.RuneCountInString(v) > maxDimensionChars {
		return "", fail(http.StatusBadRequest, "header %s must be valid UTF-8 of at most %d characters", name, maxDimensionChars)
	}
	return v, nil
}

// postVerify is POST /v1/verify (spec 4.2, DESIGN.md section 5): the
// governance engine judges the caller's answer under the application's
// policy (an application with an LLM may regenerate it, verifyregen.go);
// the decision is produced to the log as a trace (mode sdk) before the
// response is written, so an acknowledged decision is never lost.
func (s *Server) postVerify(c echo.Context) error {
	start := s.now()
	app, err := s.serviceApp(c, query.AppModeVerify, "POST /v1/verify")
	if err != nil {
		return err
	}
	if err := requireJSON(c); err != nil {
		return err
	}
	body, err := readBody(c, VerifyBodyLimit)
	if err != nil {
		return err
	}
	if !utf8.Valid(body) {
		return fail(http.StatusBadRequest, "request body is not valid UTF-8")
	}
	var vb verifyBody
	if !decodeVerifyBody(body, &vb) {
		vb = verifyBody{} // the fast path may have set some fields
		if err = json.Unmarshal(body, &vb); err == nil {
			// encoding/json keeps the last of {"answer":…,"Answer":…};
			// the caller's own reader may keep another: one text would
			// be judged and another used.
			if path, dup := governance.DuplicateKey(body); dup {
				return fail(http.StatusBadRequest, "member %q is given twice (names match case-insensitively): send each field once", path)
			}
		}
	}
	if err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field == "answer":
			return fail(http.StatusBadRequest, "answer is required and must be a string")
		case errors.As(err, &te) && te.Field != "":
			return fail(http.StatusBadRequest, "%s must be a string", te.Field)
		}
		return fail(http.StatusBadRequest, "request body must be a JSON object: %v", jsonProblem(err))
	}
	if vb.Answer == nil {
		return fail(http.StatusBadRequest, "answer is required and must be a string")
	}
	answer, err := optString("answer", vb.Answer, MaxVerifyAnswer)
	if err != nil {
		return err
	}
	prompt, err := optString("prompt", vb.Prompt, MaxVerifyPrompt)
	if err != nil {
		return err
	}
	tool, err := optString("tool_result", vb.ToolResult, MaxVerifyTool)
	if err != nil {
		return err
	}
	model, err := optString("model", vb.Model, maxDimensionChars)
	if err != nil {
		return err
	}
	provider, err := optString("provider", vb.Provider, maxDimensionChars)
	if err != nil {
		return err
	}
	var dims [5]string
	for i, h := range []struct{ name, def string }{
		{"X-Use-Case", defaultUseCase}, {"X-Team-Id", ""}, {"X-Integration-Id", defaultVerifyIntegration},
		{"X-End-User-Id", ""}, {"X-Session-Id", ""},
	} {
		if dims[i], err = dimension(c, h.name, h.def); err != nil {
			return err
		}
	}

	pol, err := s.policies.get(c.Request().Context(), app)
	if err != nil {
		if errors.Is(err, query.ErrNotFound) {
			return fail(http.StatusUnauthorized, "invalid or missing API key: send the application's key in X-API-Key or Authorization: Bearer")
		}
		return unavailable("cannot load the application's policy right now; retry", err)
	}
	// Verify is billed by tokens (spec section 1: 90 USD per 1,000,000) but
	// no LLM reports any usage: the gateway counts the texts it checked,
	// beside the policy so that a long text adds no latency of its own.
	usage := make(chan verifyUsage, 1)
	go func() { usage <- countVerifyUsage(model, prompt, answer, tool) }()
	in := governance.Input{Prompt: prompt, Answer: answer, ToolResult: tool, CanRegenerate: canRegenerateVerify(app, prompt)}
	dec, regen := s.judgeVerify(c, app, pol, in)
	u := <-usage

	finished := s.now()
	env := schemas.Envelope{Kind: schemas.KindDecision, Trace: decisionTrace(dec, s.newID(), start, finished)}
	tr := &env.Trace
	tr.PromptTokens, tr.CompletionTokens, tr.TotalTokens = u.prompt, u.completion, u.prompt+u.completion
	tr.Provider, tr.Model = provider, model
	tr.UseCase, tr.TeamID, tr.IntegrationID, tr.EndUserID, tr.SessionID = dims[0], dims[1], dims[2], dims[3], dims[4]
	if regen != nil {
		regen.record(tr)
	}
	s.stamp(&env, app, finished)
	if err := s.produce(c, []schemas.Envelope{env}); err != nil {
		return err
	}
	return writeVerifyResponse(c, &verifyResponse{
		OK: true, RequestID: tr.RequestID, Answer: dec.Answer, AnswerChanged: dec.AnswerChanged,
		Governance: dec.Governance, MismatchType: dec.MismatchType, PolicyHits: nonNil(dec.Findings),
		Explanation: dec.Explanation, Reasons: chatReasons(dec.Reasons), RiskScore: dec.RiskScore,
	})
}

// verifyUsage is what a Verify request is billed for: prompt_tokens the
// prompt and tool_result (the input the answer was produced from), and
// completion_tokens the answer, each as sent.
type verifyUsage struct{ prompt, completion int64 }

// countVerifyUsage counts with the request model's tokenizer (o200k_base
// for a model without a known one, as the proxy does).
func countVerifyUsage(model, prompt, answer, tool string) verifyUsage {
	p, _ := tokens.Count(model, prompt)
	t, _ := tokens.Count(model, tool)
	a, _ := tokens.Count(model, answer)
	return verifyUsage{prompt: int64(p + t), completion: int64(a)}
}

func nonNil(f []governance.Finding) []governance.Finding {
	if f == nil {
		return []governance.Finding{}
	}
	return f
}

// decisionTrace is the trace a verify decision is recorded as. It holds the
// FINAL texts: a redacted or blocked answer's original may carry the very
// PII or secret the policy removed, and must not reach the store or lake.
func decisionTrace(dec governance.Decision, requestID string, start, finished time.Time) schemas.Trace {
	latency := finished.Sub(start).Milliseconds()
	risk := dec.RiskScore
	fin := finished
	tr := schemas.Trace{
		RequestID: requestID, Mode: schemas.ModeSDK, StartedAt: start, FinishedAt: &fin, LatencyMs: &latency,
		Status: statusOf(dec.Governance), FinalDecision: string(dec.Governance), RiskScore: &risk,
		PolicyHits: policyHits(dec.Findings), Prompt: dec.RecordPrompt, Answer: dec.Answer,
	}
	tr.Metadata = decisionMeta(dec)
	return tr
}

// decisionMeta is json.Marshal of the map {answer_changed, mismatch_type,
// stage (if any), usage_source} the metadata was built from before: keys
// in sorted order, as encoding/json writes a map (TestVerifyGolden).
func decisionMeta(dec governance.Decision) json.RawMessage {
	b := make([]byte, 0, 128)
	b = append(b, `{"answer_changed":`...)
	b = strconv.AppendBool(b, dec.AnswerChanged)
	b = append(b, `,"mismatch_type":`...)
	b = schemas.AppendJSONString(b, dec.MismatchType)
	if dec.Stage != "" {
		b = append(b, `,"stage":`...)
		b = schemas.AppendJSONString(b, string(dec.Stage))
	}
	b = append(b, `,"usage_source":`...)
	b = schemas.AppendJSONString(b, usageSourceCounted)
	return append(b, '}')
}

// statusOf maps a governance decision to the trace status (spec 3).
func statusOf(a governance.Action) string {
	switch a {
	case governance.ActionBlock:
		return schemas.StatusBlocked
	case governance.ActionRewrite:
		return schemas.StatusRewritten
	case governance.ActionRegenerate:
		return schemas.StatusRegenerated
	}
	return schemas.StatusOK
}

// policyHits converts findings to the trace's policy_hits.
func policyHits(f []governance.Finding) []schemas.PolicyHit {
	out := make([]schemas.PolicyHit, len(f))
	for i, x := range f {
		h := policyHit(x)
		for _, sp := range x.Spans {
			h.Spans = append(h.Spans, schemas.Span{Start: sp.Start, End: sp.End})
		}
		out[i] = h
	}
	return out
}

// policyHit is the trace's record of finding x, without its spans.
func policyHit(x governance.Finding) schemas.PolicyHit {
	return schemas.PolicyHit{Policy: x.Policy, Severity: string(x.Severity), Confidence: x.Confidence, Stage: string(x.Stage)}
}

// withheldHits are the findings that had an answer regenerated, for the
// trace of the request that replaced it (spec 2: policy_hits are the
// policies that fired). Their spans are dropped: they index the withheld
// answer, which the trace does not keep.
func withheldHits(f []governance.Finding) []schemas.PolicyHit {
	var out []schemas.PolicyHit
	for _, x := range f {
		if x.Action == governance.ActionRegenerate {
			out = append(out, policyHit(x))
		}
	}
	return out
}

// jsonProblem makes a decoder error readable without echoing the body.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("expected an object, got %s", te.Value)
	}
	return "invalid JSON"
}
