//go:build gitleaksvectors

// Replaces gitleaks' cmd/generate/config/utils/validate.go in the scratch copy
// made by gen.sh: the same checks against gitleaks' own detector, and every
// rule's true and false positives recorded for the gateway's secrets eval.

package utils

import (
	"sort"
	"strings"

	"github.com/zricethezav/gitleaks/v8/cmd/generate/config/base"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// Vector is one test text of a rule; Path is set for ValidateWithPaths
// rules, Template for a text GenerateSampleSecret(s) rendered: the syntax
// it used, with {i}, {I} and {s} for identifier, upper-cased identifier and
// secret.
type Vector struct {
	Text     string `json:"text"`
	Path     string `json:"path,omitempty"`
	Template string `json:"template,omitempty"`
}

// rendered maps each text GenerateSampleSecret(s) returned to its template.
var rendered = map[string]string{}

// templates renders gitleaks' syntaxes with markers for identifier and
// secret, then names each of out by the syntax that renders it.
func templates(out []string, identifier, secret string) {
	const mi, ms = "\x00i\x00", "\x00s\x00"
	marked := generateSampleSecrets(mi, ms)
	for _, o := range out {
		for _, m := range marked {
			t := strings.NewReplacer(strings.ToUpper(mi), "{I}", mi, "{i}", ms, "{s}").Replace(m)
			r := strings.NewReplacer("{I}", strings.ToUpper(identifier), "{i}", identifier, "{s}", secret).Replace(t)
			if r == o {
				rendered[o] = t
				break
			}
		}
	}
}

// GenerateSampleSecrets is gitleaks' (renamed generateSampleSecrets by
// gen.sh), its texts remembered with their syntax.
func GenerateSampleSecrets(identifier string, secret string) []string {
	out := generateSampleSecrets(identifier, secret)
	templates(out, identifier, secret)
	return out
}

// GenerateSampleSecret: as GenerateSampleSecrets.
func GenerateSampleSecret(identifier string, secret string) string {
	s := generateSampleSecret(identifier, secret)
	rendered[s] = generateSampleSecret("{i}", "{s}")
	return s
}

// Recorded holds one rule's vectors, as validated.
type Recorded struct {
	TPs []Vector
	FPs []Vector
}

// Records maps rule id to its vectors (the last Validate call of an id wins).
var Records = map[string]*Recorded{}

func sortedVectors(m map[string]string) []Vector {
	out := make([]Vector, 0, len(m))
	for p, s := range m {
		out = append(out, Vector{Text: s, Path: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func plainVectors(ss []string) []Vector {
	out := make([]Vector, 0, len(ss))
	for _, s := range ss {
		out = append(out, Vector{Text: s, Template: rendered[s]})
	}
	// GenerateSampleSecrets ranges over a map: sort for a stable file.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return out
}

func Validate(rule config.Rule, truePositives []string, falsePositives []string) *config.Rule {
	r := &rule
	d := createSingleRuleDetector(r)
	for _, tp := range truePositives {
		if len(d.DetectString(tp)) < 1 {
			logging.Fatal().Str("rule", r.RuleID).Str("value", tp).Msg("Failed to Validate. True positive was not detected by regex.")
		}
	}
	for _, fp := range falsePositives {
		if len(d.DetectString(fp)) != 0 {
			logging.Fatal().Str("rule", r.RuleID).Str("value", fp).Msg("Failed to Validate. False positive was detected by regex.")
		}
	}
	Records[r.RuleID] = &Recorded{TPs: plainVectors(truePositives), FPs: plainVectors(falsePositives)}
	return r
}

func ValidateWithPaths(rule config.Rule, truePositives map[string]string, falsePositives map[string]string) *config.Rule {
	r := &rule
	d := createSingleRuleDetector(r)
	for path, tp := range truePositives {
		if len(d.Detect(detect.Fragment{Raw: tp, FilePath: path})) != 1 {
			logging.Fatal().Str("rule", r.RuleID).Str("value", tp).Msg("Failed to Validate. True positive was not detected by regex and/or path.")
		}
	}
	for path, fp := range falsePositives {
		if len(d.Detect(detect.Fragment{Raw: fp, FilePath: path})) != 0 {
			logging.Fatal().Str("rule", r.RuleID).Str("value", fp).Msg("Failed to Validate. False positive was detected by regex and/or path.")
		}
	}
	Records[r.RuleID] = &Recorded{TPs: sortedVectors(truePositives), FPs: sortedVectors(falsePositives)}
	return r
}

func createSingleRuleDetector(r *config.Rule) *detect.Detector {
	var (
		uniqueKeywords = make(map[string]struct{})
		keywords       []string
	)
	for _, keyword := range r.Keywords {
		k := strings.ToLower(keyword)
		if _, ok := uniqueKeywords[k]; ok {
			continue
		}
		keywords = append(keywords, k)
		uniqueKeywords[k] = struct{}{}
	}
	r.Keywords = keywords
	cfg := base.CreateGlobalConfig()
	cfg.Rules = map[string]config.Rule{r.RuleID: *r}
	cfg.Keywords = uniqueKeywords
	for _, a := range cfg.Allowlists {
		if err := a.Validate(); err != nil {
			logging.Fatal().Err(err).Msg("invalid global allowlist")
		}
	}
	return detect.NewDetector(cfg)
}
