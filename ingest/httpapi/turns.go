package httpapi

import "github.com/governance-gateway/gateway/governance"

// earlierTurns judges, one by one, the user messages a client sends before
// the last one, with the pre-flight rules. A client sends the whole
// conversation each time, and an attack placed in an earlier turn reaches
// the LLM as surely as one in the last. Only what changes the request
// counts: the first block (nil when none), and the redacted contents of
// rewritten turns (by their index in turns) with their findings.
// Record-only findings of old turns are left out: they were recorded when
// those turns were new, and repeating them on every later turn would bury
// the new ones.
func earlierTurns(pol judge, turns []string) (*governance.Decision, map[int]string, []governance.Finding) {
	var redacted map[int]string
	var findings []governance.Finding
	for i, t := range turns {
		if t == "" {
			continue
		}
		d := pol.Verify(governance.Input{Prompt: t})
		switch {
		case d.Governance == governance.ActionBlock:
			return &d, nil, nil
		case d.Prompt != t:
			if redacted == nil {
				redacted = map[int]string{}
			}
			redacted[i] = d.Prompt
			findings = append(findings, d.Findings...)
		}
	}
	return nil, redacted, findings
}
