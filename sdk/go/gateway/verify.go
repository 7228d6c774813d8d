package gateway

import (
	"context"
	"encoding/json"
	"fmt"
)

// VerifyRequest is the body of POST /v1/verify.
type VerifyRequest struct {
	Prompt     string `json:"prompt,omitempty"`
	Answer     string `json:"answer"`
	ToolResult string `json:"tool_result,omitempty"`
	Model      string `json:"model,omitempty"`
	Provider   string `json:"provider,omitempty"`
	Dimensions `json:"-"`
}

// Reason is one rule that shaped a decision.
type Reason struct {
	Policy   string `json:"policy"`
	Severity string `json:"severity"`
	Stage    string `json:"stage"`
}

// VerifyResult is the decision on an answer.
type VerifyResult struct {
	RequestID     string          `json:"request_id"`
	Answer        string          `json:"answer"`
	AnswerChanged bool            `json:"answer_changed"`
	Governance    string          `json:"governance"`
	MismatchType  string          `json:"mismatch_type"`
	PolicyHits    json.RawMessage `json:"policy_hits"`
	Explanation   json.RawMessage `json:"explanation"`
	Reasons       []Reason        `json:"reasons"`
	RiskScore     float64         `json:"risk_score"`
}

// Verify checks an answer your own LLM produced. A block is a result, not
// an error: show Answer (the fallback text) instead.
func (c *Client) Verify(ctx context.Context, req VerifyRequest) (VerifyResult, error) {
	_, body, err := c.do(ctx, ChatTimeout, "/v1/verify", req, req.Dimensions.headers())
	if err != nil {
		return VerifyResult{}, err
	}
	var r VerifyResult
	if err := json.Unmarshal(body, &r); err != nil {
		return VerifyResult{}, fmt.Errorf("gateway: decode verify answer: %w", err)
	}
	return r, nil
}
