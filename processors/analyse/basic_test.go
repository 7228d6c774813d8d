package analyse

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/schemas"
)

func TestBasicAnalyse(t *testing.T) {
	tests := []struct {
		name     string
		prompt   string
		answer   string
		wantRisk float64
		wantHits []schemas.PolicyHit
	}{
		{name: "clean", prompt: "hello", answer: "hi there", wantRisk: 0},
		{name: "at sign alone is not an address", prompt: "meet @ noon", answer: "a@b", wantRisk: 0},
		{
			name: "prompt only", prompt: "mail bob@example.com please", answer: "ok", wantRisk: 0.5,
			wantHits: []schemas.PolicyHit{{Policy: PolicyEmail, Severity: "medium", Confidence: 0.9, Stage: StagePrompt,
				Spans: []schemas.Span{{Start: 5, End: 20}}}},
		},
		{
			name: "both texts, two addresses", prompt: "a.b@c.io", answer: "x x@y.org and z@w.net", wantRisk: 0.7,
			wantHits: []schemas.PolicyHit{
				{Policy: PolicyEmail, Severity: "medium", Confidence: 0.9, Stage: StagePrompt, Spans: []schemas.Span{{Start: 0, End: 8}}},
				{Policy: PolicyEmail, Severity: "medium", Confidence: 0.9, Stage: StageAnswer, Spans: []schemas.Span{{Start: 2, End: 9}, {Start: 14, End: 21}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			risk, hits := Basic{}.Analyse(tc.prompt, tc.answer)
			require.Equal(t, tc.wantRisk, risk)
			require.Equal(t, tc.wantHits, hits)
			for _, h := range hits {
				text := tc.prompt
				if h.Stage == StageAnswer {
					text = tc.answer
				}
				for _, s := range h.Spans {
					require.Contains(t, text[s.Start:s.End], "@")
				}
			}
		})
	}
}
