// Package analyse is the processors' asynchronous analysis stage for
// simple-form Events records: it fills risk_score and policy_hits off the
// request path with the governance engine, observe only (the trace's
// final_decision stays "pass" whatever fires).
//
// It applies the default policy, not the application's: the stage must be
// deterministic so that a replay of the log writes identical rows and
// Parquet bytes, and an application's policy changes over time. The default
// policy addresses every scanner family (PII and secrets in prompts and
// answers, prompt injection in prompts), so every finding is recorded.
package analyse

import (
	"fmt"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/schemas"
)

// Governance scores events with the shipped scanners. Safe for concurrent
// use.
type Governance struct{ c *governance.Compiled }

// New builds the analyser on eng (nil: governance.New()).
func New(eng *governance.Engine) (*Governance, error) {
	if eng == nil {
		eng = governance.New()
	}
	c, err := eng.Compile(governance.DefaultPolicy())
	if err != nil {
		return nil, fmt.Errorf("analyse: compile default policy: %w", err)
	}
	return &Governance{c: c}, nil
}

// Analyse returns the risk score in [0, 1] and the policy hits of the
// prompt (stage pre-flight) and the answer (stage post-flight). No finding:
// risk 0 and no hits.
func (g *Governance) Analyse(prompt, answer string) (float64, []schemas.PolicyHit) {
	var hits []schemas.PolicyHit
	var all []governance.Finding
	for _, st := range []struct {
		stage governance.Stage
		text  string
	}{{governance.StagePre, prompt}, {governance.StagePost, answer}} {
		for _, f := range g.c.Findings(st.stage, st.text) {
			all = append(all, f)
			h := schemas.PolicyHit{Policy: f.Policy, Severity: string(f.Severity), Confidence: f.Confidence, Stage: string(f.Stage)}
			for _, sp := range f.Spans {
				h.Spans = append(h.Spans, schemas.Span{Start: sp.Start, End: sp.End})
			}
			hits = append(hits, h)
		}
	}
	if len(hits) == 0 {
		return 0, nil
	}
	return governance.RiskScore(all), hits
}
