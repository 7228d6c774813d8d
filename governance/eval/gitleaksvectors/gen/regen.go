//go:build gitleaksvectors

// Replaces gitleaks' cmd/generate/secrets/regen.go in the scratch copy made by
// gen.sh: the same reggen generator, seeded from a call counter instead of the
// clock, so that a regeneration renders the same secrets.

package secrets

import (
	"github.com/lucasjones/reggen"
)

var calls int64

func NewSecret(regex string) string {
	g, err := reggen.NewGenerator(regex)
	if err != nil {
		panic(err)
	}
	calls++
	g.SetSeed(20261125*1000 + calls)
	return g.Generate(1)
}
