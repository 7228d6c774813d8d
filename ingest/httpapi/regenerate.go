package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/llm"
)

// Regeneration, shared by Full Control (postChat) and Verify
// (verifyregen.go): the corrective turns after a withheld answer, one
// counted LLM call, and what a failed regenerate call leaves on the trace.

// regenerateTurns is msgs followed by the withheld answer (an assistant turn)
// and the instruction to answer again without what d found. The
// instruction is the last turn, and a user one: Anthropic and Bedrock
// continue a final assistant turn as a prefill, and move system messages
// out of the conversation.
func regenerateTurns(msgs []llm.Message, answer string, d governance.Decision) []llm.Message {
	why := "the content it flagged"
	if len(d.Reasons) > 0 {
		why = d.Reasons[0].Policy
	}
	return append(slices.Clone(msgs),
		llm.Message{Role: "assistant", Content: answer},
		llm.Message{Role: "user", Content: fmt.Sprintf(regenerateNotice, why, why)})
}

// llmCall is one application's LLM as a request calls it, with what its
// calls used and cost so far.
type llmCall struct {
	adapter  llm.Provider
	cred     llm.Credentials
	provider string
	model    string
	usage    llm.Usage
	cost     llmCost
	calls    int // calls that answered
}

// complete sends req, scrubs the key from an upstream's error message and
// adds the answered call's usage and price.
func (s *Server) complete(ctx context.Context, lc *llmCall, req llm.Request) (llm.Response, error) {
	out, err := lc.adapter.Complete(ctx, req, lc.cred)
	if err != nil {
		return out, llm.Scrub(err, lc.cred) // an upstream may echo the key in its message
	}
	lc.calls++
	lc.usage.PromptTokens += out.Usage.PromptTokens
	lc.usage.CompletionTokens += out.Usage.CompletionTokens
	lc.cost.add(s.callCost(lc.provider, lc.model, out.Model, out.Usage.PromptTokens, out.Usage.CompletionTokens))
	return out, nil
}

// regenerateFailure is the trace metadata of a failed regenerate call:
// the upstream's failure, or the refusal that kept the call from being
// made (a provider or key the server lacks).
func regenerateFailure(err error) map[string]any {
	status, msg, typ := upstreamFailure(err)
	var ae *apiError
	if errors.As(err, &ae) {
		status, msg, typ = ae.status, ae.msg, errLLMUnavailable
	}
	return map[string]any{"regenerate_error": msg, "regenerate_http_status": status, "regenerate_error_type": typ}
}

// errLLMUnavailable is the error type of a regenerate call the server could
// not make (no adapter or key for the application's provider).
const errLLMUnavailable = "llm_unavailable"

// errNoProvider refuses a provider without an adapter on this server.
func errNoProvider(provider string) error {
	return fail(http.StatusNotImplemented, "provider %q is not available on this server", provider)
}
