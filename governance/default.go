package governance

import (
	"github.com/governance-gateway/gateway/governance/grounding"
	"github.com/governance-gateway/gateway/governance/injection"
	"github.com/governance-gateway/gateway/governance/pii"
	"github.com/governance-gateway/gateway/governance/rules"
	"github.com/governance-gateway/gateway/governance/secrets"
)

// New builds the engine with the shipped scanners: PII, secrets, prompt
// injection / jailbreak (embedded model), the grounding checker and
// per-application custom rules. Build one per process and share it.
func New() *Engine {
	e, err := NewWith(Options{
		Families: []Family{
			{Name: "secrets", Scanner: secrets.New()},
			{Name: "pii", Scanner: pii.New()},
			{Name: "security", Scanner: injection.New()},
		},
		Grounder:      grounder{grounding.New()},
		CompileCustom: compileCustom,
	})
	if err != nil {
		panic(err) // the families above are static and valid
	}
	return e
}

// Preload builds what the engine otherwise builds on first use (the
// grounding checker's WordNet lexicon, the injection signals' matchers), so
// that a server's first request does not wait for them. An error means the
// binary is broken.
func Preload() error {
	injection.Preload()
	return grounding.Preload()
}

type grounder struct{ c *grounding.Checker }

func (g grounder) Check(answer, source string) GroundingResult {
	r := g.c.Check(answer, source)
	return GroundingResult{Mismatch: r.Mismatch, Confidence: r.Confidence, Evidence: r.Evidence, Rewritten: r.Rewritten}
}

func compileCustom(cr []CustomRule) (Scanner, error) {
	specs := make([]rules.Spec, len(cr))
	for i, c := range cr {
		specs[i] = rules.Spec{Name: c.Name, Kind: c.Kind, Patterns: c.Patterns, Severity: c.Severity}
	}
	return rules.Compile(specs)
}
