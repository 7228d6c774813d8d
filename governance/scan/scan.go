// Package scan holds the types every governance scanner shares: a finding
// (Hit) with its byte spans. Scanners live in sibling packages (pii, secrets,
// injection, rules) and import only this one, so the engine in governance/
// composes them without import cycles.
package scan

// Severity ranks how bad a finding is. The engine maps it into the risk score
// and the default actions.
type Severity string

const (
	SeverityLow      Severity = "low"
	SeverityMedium   Severity = "medium"
	SeverityHigh     Severity = "high"
	SeverityCritical Severity = "critical"
)

// Weight orders severities (low 1 .. critical 4); unknown values weigh 0.
func (s Severity) Weight() int {
	switch s {
	case SeverityLow:
		return 1
	case SeverityMedium:
		return 2
	case SeverityHigh:
		return 3
	case SeverityCritical:
		return 4
	}
	return 0
}

// Span is a half-open byte range [Start, End) of the scanned text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Hit is one finding of one policy in one text. Scanners return one Hit per
// occurrence (usually one span); the engine merges hits of the same policy.
type Hit struct {
	// Policy is the dotted policy id, e.g. "pii.email", "secrets.aws_access_key",
	// "security.prompt_injection". The first segment is the policy family the
	// application policy can address as a whole ("pii", "secrets", "security").
	Policy     string   `json:"policy"`
	Severity   Severity `json:"severity"`
	Confidence float64  `json:"confidence"` // 0..1
	Spans      []Span   `json:"spans,omitempty"`
	// Placeholder replaces the spans when the action is rewrite, e.g.
	// "[EMAIL]". Empty means the hit cannot be redacted (the engine then
	// escalates a rewrite to block).
	Placeholder string `json:"-"`
}
