// Package injection detects prompt injection and jailbreaks: direct and
// indirect instruction overrides, system-prompt extraction, persona
// ("DAN", "developer mode") jailbreaks, fake role markers and payloads hidden
// in encodings or Unicode tricks. Heuristic signals (structure and phrase
// families) and hashed word / character n-grams feed one logistic
// regression that ships inside the binary (model.bin, trained by
// `make train-injection` from the development sets plus the project's own
// corpus). Nothing is downloaded at run time.
package injection

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/governance-gateway/gateway/governance/scan"
)

// Policy ids.
const (
	PolicyInjection = "security.prompt_injection"
	PolicyJailbreak = "security.jailbreak"
)

// Threshold is the score from which Scan reports a hit.
const Threshold = 0.5

//go:embed model.bin
var modelBin []byte

// Scanner scores texts with the embedded model; safe for concurrent use.
type Scanner struct{ m *Model }

// New loads the embedded model. It panics only if the embedded file is
// corrupt, which TestEmbeddedModel guards.
func New() *Scanner {
	s, err := NewWithModel(modelBin)
	if err != nil {
		panic(fmt.Sprintf("injection: embedded model: %v", err))
	}
	return s
}

// NewWithModel loads a model encoded by Model.MarshalBinary.
func NewWithModel(b []byte) (*Scanner, error) {
	m := &Model{}
	if err := m.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return &Scanner{m: m}, nil
}

// FromModel wraps a trained model (cross-validation).
func FromModel(m *Model) *Scanner { return &Scanner{m: m} }

// Score returns the attack score of text (0..1) and its signals. Without
// any heuristic signal (bare_trigger, a trigger word without attack
// structure, is none) the model alone must be confident: its raw
// probability p is mapped to (p-NoSignalFloor)/(1-NoSignalFloor), so plain
// questions that merely resemble the attack sets' wording ("what is our
// policy?") stay below the threshold.
func (s *Scanner) Score(text string) (float64, []string) {
	sc := scratchPool.Get().(*scratch)
	// n may alias sc.norm: it must not outlive sc's return to the pool.
	// Nothing keeps it: signals are names, features indices.
	var n string
	n, sc.norm = normalizeScratch(sc.norm, text)
	var sig []string
	sig, sc.leet = signals(sc.leet, text, n)
	var p float64
	p, sc.compact = s.m.scoreFeatures(sc.compact, n, sig)
	if cap(sc.compact) <= 1<<20 && cap(sc.norm) <= 1<<20 && cap(sc.leet) <= 1<<20 {
		scratchPool.Put(sc)
	}
	if !Evidence(sig) {
		p = max(0, (p-NoSignalFloor)/(1-NoSignalFloor))
	}
	return p, sig
}

type scratch struct {
	compact []byte
	norm    []byte // plain-ASCII normalised text
	leet    []byte // its de-leeted view
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// NoSignalFloor is the share of the model's probability scale ignored when
// no heuristic signal fired (see train.Config.PosWeight).
const NoSignalFloor = 0.4

// Scan appends a hit when the text scores at or above Threshold. The span
// is the whole text: an injection is a property of the message, and it is
// never redacted (no placeholder), only blocked or recorded.
func (s *Scanner) Scan(text string, dst []scan.Hit) []scan.Hit {
	if text == "" {
		return dst
	}
	score, sig := s.Score(text)
	if score < Threshold {
		return dst
	}
	policy := PolicyInjection
	if contains(sig, "persona") && !contains(sig, "override") && !contains(sig, "extraction") {
		policy = PolicyJailbreak
	}
	sev := scan.SeverityHigh
	if score >= 0.9 {
		sev = scan.SeverityCritical
	}
	return append(dst, scan.Hit{Policy: policy, Severity: sev, Confidence: score,
		Spans: []scan.Span{{Start: 0, End: len(text)}}})
}
