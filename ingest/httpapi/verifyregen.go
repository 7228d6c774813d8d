package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// Verify regenerates (DESIGN.md section 5) only for an application with an
// LLM configured (provider_option byok or managed, provider and model, set
// in the console) and a request with a prompt to answer again: the
// application's LLM gets the prompt (after pre-flight redactions), the
// tool_result as context, the withheld answer and the corrective notice
// Full Control sends (regenerateTurns), and each new answer is judged
// again, at most MaxRegenerations times.

// verifyToolContext introduces a request's tool_result to the LLM: Verify
// has no tool call for it to answer, so it goes in a system message.
const verifyToolContext = "Source material for the user's question (a tool result):\n\n"

// canRegenerateVerify: the application has an LLM for regeneration and the
// request a prompt to regenerate from.
func canRegenerateVerify(app query.App, prompt string) bool {
	return app.ProviderOption != "" && app.Provider != "" && app.Model != "" && strings.TrimSpace(prompt) != ""
}

// appLLM is the application's configured LLM with its key (BYOK opened, or
// the operator's Managed key).
func (s *Server) appLLM(app query.App) (*llmCall, error) {
	adapter := s.providers[app.Provider]
	if adapter == nil {
		return nil, errNoProvider(app.Provider)
	}
	cred, err := s.credentials(app, app.Provider)
	if err != nil {
		return nil, err
	}
	return &llmCall{adapter: adapter, cred: cred, provider: app.Provider, model: app.Model}, nil
}

// verifyMessages is the conversation a Verify answer is regenerated in:
// the tool_result as context, then the prompt.
func verifyMessages(prompt, tool string) []llm.Message {
	var msgs []llm.Message
	if tool != "" {
		msgs = append(msgs, llm.Message{Role: "system", Content: verifyToolContext + tool})
	}
	return append(msgs, llm.Message{Role: "user", Content: prompt})
}

// verifyRegen is what regenerating a Verify answer did.
type verifyRegen struct {
	llm         *llmCall // the application's LLM; nil when it could not be called
	regenerated bool     // the answer judged last is the LLM's
	failure     map[string]any
	triggered   []governance.Reason // why the caller's answer was withheld
	withheld    []schemas.PolicyHit // the findings that withheld it
}

// judgeVerify is the decision on in; when the policy asks for a regenerate
// (in.CanRegenerate allowed it), the application's LLM answers again.
func (s *Server) judgeVerify(c echo.Context, app query.App, pol judge, in governance.Input) (governance.Decision, *verifyRegen) {
	dec := pol.Verify(in)
	if dec.Governance != governance.ActionRegenerate {
		return dec, nil
	}
	dec, rg := s.regenerateVerify(c.Request().Context(), app, pol, in, dec)
	// The LLM calls may have outlasted the write deadline that started
	// with the request.
	s.renewWriteDeadline(c)
	return rg.deliver(dec, in.Answer), &rg
}

// regenerateVerify replaces the answer of in, which dec (a regenerate)
// withheld, by the application's LLM's, judging each new answer, at most
// MaxRegenerations calls. A failed call ends it: the answer in hand is
// judged again without the regenerate option (rewrite or block), as in
// Full Control.
func (s *Server) regenerateVerify(ctx context.Context, app query.App, pol judge, in governance.Input, dec governance.Decision) (governance.Decision, verifyRegen) {
	rg := verifyRegen{triggered: dec.Reasons, withheld: withheldHits(dec.Findings)}
	lc, err := s.appLLM(app)
	if err != nil {
		return s.regenerateFallback(ctx, app, pol, in, &rg, err), rg
	}
	rg.llm = lc
	req := llm.Request{Model: app.Model, Messages: verifyMessages(dec.Prompt, pol.RedactTool(in.ToolResult))}
	for attempt := 0; dec.Governance == governance.ActionRegenerate; attempt++ {
		req.Messages = regenerateTurns(req.Messages, in.Answer, dec)
		out, err := s.complete(ctx, lc, req)
		if err == nil && strings.TrimSpace(out.Content) == "" {
			err = &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the LLM returned no answer text"}
		}
		if err != nil {
			return s.regenerateFallback(ctx, app, pol, in, &rg, err), rg
		}
		in.Answer, in.CanRegenerate = out.Content, attempt+1 < MaxRegenerations
		dec = pol.Verify(in)
		rg.regenerated = true
	}
	return dec, rg
}

// regenerateFallback judges the answer in hand without the regenerate
// option after err kept a new one from coming, and notes err for the trace.
func (s *Server) regenerateFallback(ctx context.Context, app query.App, pol judge, in governance.Input, rg *verifyRegen, err error) governance.Decision {
	s.logger.WarnContext(ctx, "verify regenerate failed; the answer in hand is judged without it", "app_id", app.ID, "err", err)
	rg.failure = regenerateFailure(err)
	in.CanRegenerate = false
	return pol.Verify(in)
}

// deliver is the decision the caller gets: a regenerated answer that passes
// is regenerate (the withheld answer's reasons say why); one that ends
// redacted or blocked keeps that decision, as in Full Control. original is
// the caller's answer.
func (rg verifyRegen) deliver(dec governance.Decision, original string) governance.Decision {
	if rg.regenerated && dec.Governance == governance.ActionAllow {
		dec.Governance, dec.Stage = governance.ActionRegenerate, governance.StagePost
		dec.Reasons = append(append([]governance.Reason{}, rg.triggered...), dec.Reasons...)
		if len(rg.triggered) > 0 {
			r := rg.triggered[0]
			dec.Explanation.Summary = fmt.Sprintf("regenerated: %s (%s) in %s; the new answer passed", r.Policy, r.Severity, r.Stage)
		}
	}
	dec.AnswerChanged = dec.Answer != original
	return dec
}

// record puts the regeneration on the trace: the LLM's provider, model,
// calls and usage in metadata (the trace's tokens stay Verify's counted
// ones, which are what Verify bills), its price as cost_usd, and a failure.
func (rg verifyRegen) record(tr *schemas.Trace) {
	meta := map[string]any{}
	if lc := rg.llm; lc != nil {
		meta["regenerate_provider"], meta["regenerate_model"], meta["regenerate_calls"] = lc.provider, lc.model, lc.calls
		meta["regenerate_usage"] = lc.usage
		tr.CostUSD = lc.cost.usd()
	}
	for k, v := range rg.failure {
		meta[k] = v
	}
	tr.Metadata = mergeMeta(tr.Metadata, meta)
	if rg.regenerated {
		tr.PolicyHits = append(slices.Clone(rg.withheld), tr.PolicyHits...)
	}
	capTraceText(tr) // an LLM's answer is not bounded by MaxVerifyAnswer
}
