package httpapi

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/auth"
)

// keyChatShape marks a Full Control request that came in on
// /v1/chat/completions: its answer is a chat.completion (DESIGN.md 5).
const keyChatShape = "chat_shape_openai"

// postChatCompletions is POST /v1/chat/completions. With X-Service-Api-Key
// or X-API-Key it is the proxy (proxy.go). With only
// `Authorization: Bearer <service key>` it is Full Control in the
// chat-completions shape, so the official OpenAI clients work unchanged with
// base_url <gateway>/v1 and the service key as their API key.
func (s *Server) postChatCompletions(c echo.Context) error {
	h := c.Request().Header
	if h.Get("X-Service-Api-Key") != "" || h.Get("X-API-Key") != "" {
		return s.proxyChat(c)
	}
	c.Set(keyChatShape, true)
	if auth.BearerToken(h) == "" {
		return fail(http.StatusUnauthorized, chatShapeKeyMissing)
	}
	return s.postChat(c)
}

// chatShapeKeyMissing is the 401 of /v1/chat/completions without a valid
// service key. Both meanings of the path are named (spec 7: the proxy's
// 401 says the service API key is required): a proxy user who sent only
// the upstream key must not be told to put the service key in
// Authorization, where it would replace that upstream key.
const chatShapeKeyMissing = "invalid or missing service API key: for the proxy send it in X-Service-Api-Key (your upstream key stays in Authorization: Bearer); for Full Control send it as Authorization: Bearer"

// completionGovernance is the extra `governance` object of a Full Control
// chat.completion.
type completionGovernance struct {
	Action     governance.Action    `json:"action"`
	Stage      string               `json:"stage,omitempty"`
	Reasons    []chatReason         `json:"reasons"`
	RequestID  string               `json:"request_id"`
	RiskScore  float64              `json:"risk_score"`
	PolicyHits []governance.Finding `json:"policy_hits"`
}

type completionMessage struct {
	Role      string  `json:"role"`
	Content   *string `json:"content"`
	ToolCalls any     `json:"tool_calls,omitempty"`
}

type completionChoice struct {
	Index        int               `json:"index"`
	Message      completionMessage `json:"message"`
	FinishReason string            `json:"finish_reason"`
}

type completionUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

type completion struct {
	ID         string               `json:"id"`
	Object     string               `json:"object"`
	Created    int64                `json:"created"`
	Model      string               `json:"model"`
	Choices    []completionChoice   `json:"choices"`
	Usage      completionUsage      `json:"usage"`
	Governance completionGovernance `json:"governance"`
}

// asCompletion renders a Full Control decision as an OpenAI chat.completion:
// a block is a normal completion whose content is the fallback text and
// whose finish_reason is content_filter.
func asCompletion(resp chatResponse, created int64, fallback string) completion {
	content := fallback
	if resp.Answer != nil && resp.Governance != governance.ActionBlock {
		content = *resp.Answer
	}
	finish := "stop"
	switch {
	case resp.Governance == governance.ActionBlock:
		finish = "content_filter"
	case len(resp.ToolCalls) > 0:
		finish = "tool_calls"
	}
	msg := completionMessage{Role: "assistant", Content: &content}
	if len(resp.ToolCalls) > 0 && resp.Governance != governance.ActionBlock {
		msg.ToolCalls = resp.ToolCalls
		if strings.TrimSpace(content) == "" {
			msg.Content = nil
		}
	}
	return completion{
		ID: "chatcmpl-gw-" + resp.RequestID, Object: "chat.completion", Created: created, Model: resp.Model,
		Choices: []completionChoice{{Index: 0, Message: msg, FinishReason: finish}},
		Usage: completionUsage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
			TotalTokens: resp.Usage.PromptTokens + resp.Usage.CompletionTokens},
		Governance: completionGovernance{Action: resp.Governance, Stage: resp.Stage, Reasons: resp.Reasons,
			RequestID: resp.RequestID, RiskScore: resp.RiskScore, PolicyHits: resp.PolicyHits},
	}
}
