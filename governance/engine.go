package governance

import (
	"github.com/governance-gateway/gateway/governance/scan"
)

// Input is what the engine judges: the user's prompt, the answer of the
// caller's (or our) LLM and the optional grounding source.
type Input struct {
	Prompt     string
	Answer     string
	ToolResult string
}

// Reason is one rule that shaped the decision (spec: {policy, severity, stage}).
type Reason struct {
	Policy   string        `json:"policy"`
	Severity scan.Severity `json:"severity"`
	Stage    Stage         `json:"stage"`
}

// Finding is the merged hits of one policy in one stage's text.
type Finding struct {
	Policy     string        `json:"policy"`
	Severity   scan.Severity `json:"severity"`
	Confidence float64       `json:"confidence"`
	Stage      Stage         `json:"stage"`
	Action     Action        `json:"action"`
	Spans      []scan.Span   `json:"spans,omitempty"`
}

// Evidence is one grounding finding: which answer span, which source span, why.
type Evidence struct {
	AnswerSpan scan.Span  `json:"answer_span"`
	AnswerText string     `json:"answer_text"`
	SourceSpan *scan.Span `json:"source_span,omitempty"`
	SourceText string     `json:"source_text,omitempty"`
	Reason     string     `json:"reason"`
}

// Explanation is the Verify `explanation` object.
type Explanation struct {
	Summary   string     `json:"summary"`
	Grounding []Evidence `json:"grounding,omitempty"`
	// Rewrites lists the redactions applied to the answer, in the answer's
	// original byte offsets.
	Rewrites []Rewrite `json:"rewrites,omitempty"`
}

// Rewrite is one replacement made to the answer.
type Rewrite struct {
	Policy      string    `json:"policy"`
	Span        scan.Span `json:"span"`
	Replacement string    `json:"replacement"`
}

// Mismatch types of the grounding checker (spec 2).
const (
	MismatchNone          = "none"
	MismatchNumeric       = "numeric"
	MismatchContradiction = "contradiction"
	MismatchUnsupported   = "unsupported"
)

// Decision is the engine's verdict on one Input.
type Decision struct {
	Governance    Action `json:"governance"`
	Answer        string `json:"answer"` // final text: original, rewritten or fallback
	AnswerChanged bool   `json:"answer_changed"`
	// Stage of the strongest reason ("" when nothing fired).
	Stage        Stage       `json:"stage,omitempty"`
	Reasons      []Reason    `json:"reasons"`
	Findings     []Finding   `json:"policy_hits"`
	RiskScore    float64     `json:"risk_score"`
	MismatchType string      `json:"mismatch_type"`
	Explanation  Explanation `json:"explanation"`
}
