// Package analyse is the processors' asynchronous analysis stage for
// simple-form Events records: it fills risk_score and policy_hits off the
// request path.
//
// Basic is a deliberately small placeholder: it only detects e-mail
// addresses. The governance engine (governance/) replaces it with the real
// policy set; the processors depend only on the Analyse method, so the swap
// needs no change there.
package analyse

import (
	"regexp"

	"github.com/governance-gateway/gateway/schemas"
)

// PolicyEmail is the policy id Basic reports for e-mail addresses.
const PolicyEmail = "pii.email"

// Stages of a hit: which text its spans index into.
const (
	StagePrompt = "prompt"
	StageAnswer = "answer"
)

// Risk scores Basic assigns: an address in one text, or in both.
const (
	riskOneText  = 0.5
	riskBothText = 0.7
)

// emailRE is a pragmatic address shape (local@domain.tld), not RFC 5322:
// good enough to flag PII, cheap enough to run on every simple event.
var emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)

// Basic flags e-mail addresses in the prompt and the answer. The zero value
// is ready to use; it is stateless, deterministic (a replay yields the same
// hits, hence the same rows and Parquet bytes) and safe for concurrent use.
type Basic struct{}

// Analyse returns the risk score in [0, 1] and one pii.email hit per text
// (stage "prompt" or "answer") that contains addresses, with the byte spans
// of every address in that text. No address: risk 0 and no hits.
func (Basic) Analyse(prompt, answer string) (risk float64, hits []schemas.PolicyHit) {
	for _, in := range []struct{ stage, text string }{{StagePrompt, prompt}, {StageAnswer, answer}} {
		locs := emailRE.FindAllStringIndex(in.text, -1)
		if len(locs) == 0 {
			continue
		}
		spans := make([]schemas.Span, len(locs))
		for i, l := range locs {
			spans[i] = schemas.Span{Start: l[0], End: l[1]}
		}
		hits = append(hits, schemas.PolicyHit{
			Policy:     PolicyEmail,
			Severity:   "medium",
			Confidence: 0.9,
			Stage:      in.stage,
			Spans:      spans,
		})
	}
	switch len(hits) {
	case 0:
		return 0, nil
	case 1:
		return riskOneText, hits
	default:
		return riskBothText, hits
	}
}
