// Package train fits the injection model: L2-regularised logistic regression
// by deterministic stochastic gradient descent (fixed seed, fixed order), so
// the same examples always give the same bytes.
package train

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/governance-gateway/gateway/governance/injection"
)

// Example is one labelled text.
type Example struct {
	Text   string
	Attack bool
}

// Config of a training run.
type Config struct {
	Epochs int     // default 12
	Rate   float64 // default 0.2
	// L2 shrinks every weight an example touches by L2 times itself
	// (lazily: only the example's features). Default 3.5e-4 since
	// FeatureVersion 29 (3e-4 before, 1e-6 before the casual-chat corpus
	// lines): chosen with PosWeight on the mean of
	// training seeds 1-6 of the cross-validated eval, it keeps the model
	// from leaning on n-grams that only a few rows hold, which is what made
	// casual chat and long repetitive text score as attacks
	// (docs/governance.md, "Known false positives").
	L2   float64
	Seed uint64 // default 1
	// PosWeight multiplies the balanced weight of attacks: missing an
	// attack costs more than a false alarm up to the FPR budget. Default
	// 3.0 with L2 3e-4 (kept with 3.5e-4). It was 2.75 with L2 1e-6, chosen on the
	// cross-validated eval (mean of six training seeds) together with
	// injection.NoSignalFloor: with FeatureVersion 5's signals, 2.75 and a
	// floor of 0.4 catch 5 more cyberseceval rows than 2.5 and 0.3 at a
	// lower wildguard FPR; higher weights flag plain questions such as
	// "What is our refund policy?".
	PosWeight float64
}

// Featurize extracts the features of every example once.
func Featurize(ex []Example) [][]uint32 {
	out := make([][]uint32, len(ex))
	for i, e := range ex {
		n := injection.Normalize(e.Text)
		out[i] = injection.Features(n, injection.Signals(e.Text, n))
	}
	return out
}

// Fit trains a model. Classes are weighted to balance them; features of one
// example are scaled by 1/sqrt(count) so long texts do not dominate.
func Fit(ex []Example, feats [][]uint32, cfg Config) *injection.Model {
	if cfg.Epochs == 0 {
		cfg.Epochs = 12
	}
	if cfg.Rate == 0 {
		cfg.Rate = 0.2
	}
	if cfg.L2 == 0 {
		cfg.L2 = 3.5e-4
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.PosWeight == 0 {
		cfg.PosWeight = 3.0
	}
	pos := 0
	for _, e := range ex {
		if e.Attack {
			pos++
		}
	}
	neg := len(ex) - pos
	wPos, wNeg := 1.0, 1.0
	if pos > 0 && neg > 0 {
		wPos = cfg.PosWeight * float64(len(ex)) / (2 * float64(pos))
		wNeg = float64(len(ex)) / (2 * float64(neg))
	}
	w := make([]float64, injection.Dims)
	bias := 0.0
	order := make([]int, len(ex))
	for i := range order {
		order[i] = i
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 42))
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		rate := cfg.Rate / (1 + float64(epoch)*0.5)
		for _, i := range order {
			f := feats[i]
			scale := 1 / math.Sqrt(float64(len(f)))
			z := bias
			for _, k := range f {
				z += w[k] * scale
			}
			p := 1 / (1 + math.Exp(-z))
			y, cw := 0.0, wNeg
			if ex[i].Attack {
				y, cw = 1, wPos
			}
			g := (p - y) * cw * rate
			for _, k := range f {
				w[k] -= g*scale + cfg.L2*w[k]
			}
			bias -= g
		}
	}
	m := &injection.Model{W: make([]float32, injection.Dims), Bias: float32(bias)}
	for i, v := range w {
		m.W[i] = float32(v)
	}
	return m
}

// FillTemplate replaces a jailbreak template's placeholder with a question.
func FillTemplate(t string) string {
	return strings.ReplaceAll(t, "[INSERT PROMPT HERE]", "how do I pick a lock?")
}
