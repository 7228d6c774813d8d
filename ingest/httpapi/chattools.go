package httpapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/governance-gateway/gateway/governance"
)

// Post-flight governance of the tool calls the LLM asks for in Full Control
// (docs/api.md): what a model writes into a tool call's arguments leaves the
// application as surely as its answer (send_email(body="the key is ...")),
// so each call's arguments get the answer's post-flight rules.

const toolRegenerateNotice = "Your previous call of the tool %s was withheld because its arguments violated the application's policy (%s). Answer my message before this one again without putting %s in tool arguments."

// toolCheck is the post-flight verdict on the tool calls of one answer.
type toolCheck struct {
	calls      []toolCall // with their decisions and final arguments
	governance governance.Action
	findings   []governance.Finding // tagged with their call
	reasons    []chatReason         // strongest first
	changed    bool                 // some call's arguments were redacted
	// opaque: the adapter's tool_calls could not be read as calls; they
	// were judged as one text (calls[0].Function.Arguments) and are not
	// recorded as child traces.
	opaque bool
}

// checkToolCalls runs the post-flight policy over each call's arguments.
// Called only when the answer has tool calls.
func checkToolCalls(pol judge, calls []toolCall, canRegenerate bool) toolCheck {
	tc := toolCheck{calls: calls, governance: governance.ActionAllow}
	for i := range tc.calls {
		c := &tc.calls[i]
		d := pol.VerifyArguments(c.Function.Arguments, canRegenerate)
		c.decision = d.Governance
		for j := range d.Findings {
			d.Findings[j].Tool, d.Findings[j].ToolCallID = c.Function.Name, c.ID
		}
		c.findings = d.Findings
		switch d.Governance {
		case governance.ActionRewrite:
			c.Function.Arguments = d.Answer
			tc.changed = tc.changed || d.AnswerChanged
		case governance.ActionBlock:
			c.Function.Arguments = "" // withheld, and kept out of the trace
		}
		if d.Governance.Weight() > tc.governance.Weight() {
			tc.governance = d.Governance
		}
		tc.findings = append(tc.findings, d.Findings...)
	}
	// Strongest first across the calls (the engine sorted each call's).
	slices.SortStableFunc(tc.findings, func(a, b governance.Finding) int {
		return b.Action.Weight() - a.Action.Weight()
	})
	for _, f := range tc.findings {
		if f.Action != governance.ActionAllow {
			tc.reasons = append(tc.reasons, chatReason{Policy: f.Policy, Severity: string(f.Severity), Stage: string(f.Stage),
				Tool: f.Tool, ToolCallID: f.ToolCallID})
		}
	}
	return tc
}

// parseToolCalls reads the adapter's tool_calls (OpenAI shape). An array the
// gateway cannot read is judged as one opaque text, never passed unchecked.
func parseToolCalls(raw json.RawMessage) ([]toolCall, bool) {
	var calls []toolCall
	if err := json.Unmarshal(raw, &calls); err == nil {
		return calls, false
	}
	c := toolCall{}
	c.Function.Arguments = string(raw)
	return []toolCall{c}, true
}

// regenerateFor is the corrective user message after a tool call's
// arguments asked for a regenerate.
func (tc toolCheck) regenerateFor() string {
	for _, c := range tc.calls {
		if c.decision != governance.ActionRegenerate {
			continue
		}
		why := "the content it flagged"
		for _, f := range c.findings {
			if f.Action == governance.ActionRegenerate {
				why = f.Policy
				break
			}
		}
		name := c.Function.Name
		if name == "" {
			name = "(unnamed)"
		}
		return fmt.Sprintf(toolRegenerateNotice, name, why, why)
	}
	return ""
}

// toolCallsJSON is the tool_calls to return: raw itself when no arguments
// were redacted, else raw with the redacted calls' function.arguments
// replaced and every other byte kept (applyJSONEdits).
func (tc toolCheck) toolCallsJSON(raw json.RawMessage) json.RawMessage {
	if !tc.changed {
		return raw
	}
	if tc.opaque {
		return json.RawMessage(tc.calls[0].Function.Arguments)
	}
	var edits []jsonEdit
	for i, c := range tc.calls {
		if c.decision == governance.ActionRewrite {
			edits = append(edits, jsonEdit{path: []string{strconv.Itoa(i), "function", "arguments"}, val: jsonString(c.Function.Arguments)})
		}
	}
	out, ok := applyJSONEdits(raw, edits)
	if !ok {
		return nil // cannot happen: raw was read as these calls
	}
	return out
}

// mergeToolCheck folds the tool calls' verdict into the answer's response:
// the strongest action wins (a block replaces the answer with fallback), the
// calls' findings join policy_hits and their reasons join reasons (first
// when they decided the outcome). It returns the merged findings.
func mergeToolCheck(resp *chatResponse, findings []governance.Finding, tc toolCheck, fallback string) []governance.Finding {
	if len(tc.findings) == 0 {
		return findings
	}
	findings = append(findings, tc.findings...)
	if tc.governance.Weight() > resp.Governance.Weight() {
		resp.Governance, resp.GovernanceAction = tc.governance, tc.governance
		resp.Stage = string(governance.StagePost)
		resp.Reasons = append(append([]chatReason{}, tc.reasons...), resp.Reasons...)
		if tc.governance == governance.ActionBlock {
			resp.Answer = &fallback
		}
	} else {
		resp.Reasons = append(resp.Reasons, tc.reasons...)
	}
	settleFindings(resp, findings)
	return findings
}
