package governance

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/governance-gateway/gateway/governance/grounding"
	"github.com/governance-gateway/gateway/governance/injection"
	"github.com/governance-gateway/gateway/governance/pii"
	"github.com/governance-gateway/gateway/governance/rules"
	"github.com/governance-gateway/gateway/governance/scan"
	"github.com/governance-gateway/gateway/governance/secrets"
)

// Action is what the engine does when a rule fires.
type Action string

const (
	// ActionAllow records the hit and lets the text through (allow-and-record).
	ActionAllow Action = "allow"
	// ActionRewrite redacts the hit's spans with typed placeholders ([EMAIL]).
	ActionRewrite Action = "rewrite"
	// ActionRegenerate asks for a new answer; without an LLM configured for
	// regeneration the engine falls back to the strongest of rewrite / block.
	ActionRegenerate Action = "regenerate"
	// ActionBlock replaces the answer with the policy's fallback text.
	ActionBlock Action = "block"
)

// Weight orders the actions by strength: allow 0, rewrite 1, regenerate 2,
// block 3; -1 for anything else. The strongest applicable action wins.
func (a Action) Weight() int {
	switch a {
	case ActionAllow:
		return 0
	case ActionRewrite:
		return 1
	case ActionRegenerate:
		return 2
	case ActionBlock:
		return 3
	}
	return -1
}

// Stage says which text a scan runs on.
type Stage string

const (
	StagePre  Stage = "pre-flight"  // the prompt
	StagePost Stage = "post-flight" // the answer
	StageTool Stage = "tool"        // tool output (tool_result)
)

func validStage(s Stage) bool { return s == StagePre || s == StagePost || s == StageTool }

// Scanner families a Rule can name, besides full policy ids.
var families = []string{"pii", "secrets", "security", "custom", "topic", "grounding"}

// knownPolicies lists, per built-in family, the policy ids its scanner can
// emit: a rule naming another id would never fire. custom.<name> and
// topic.<name> are checked against the document's own custom rules.
var knownPolicies = map[string][]string{
	"pii":       {pii.Email, pii.Phone, pii.CreditCard, pii.USSSN, pii.IBAN, pii.IPAddress},
	"secrets":   secrets.Policies(),
	"security":  {injection.PolicyInjection, injection.PolicyJailbreak},
	"grounding": {"grounding." + grounding.Numeric, "grounding." + grounding.Contradiction, "grounding." + grounding.Unsupported},
}

// Rule maps hits to an action. Match is a policy id ("pii.email") or a
// family ("pii"); the most specific matching rule of a stage wins.
type Rule struct {
	Match string `json:"match"`
	// Stages the rule applies to; empty means every stage.
	Stages []Stage `json:"stages,omitempty"`
	Action Action  `json:"action"`
	// MinConfidence: hits below it are ignored by this rule (0..1; 0 means
	// the default 0.5). ParsePolicy rejects an explicit 0 in a document.
	MinConfidence float64 `json:"min_confidence,omitempty"`
}

// CustomRule is an application's own detector. Kind "regex" (RE2 syntax),
// "keyword" (case-insensitive whole words or phrases) or "topic" (a banned
// topic: any of its phrases). Its hits carry policy "custom.<name>" (kinds
// regex, keyword) or "topic.<name>" (kind topic).
type CustomRule struct {
	Name     string        `json:"name"`
	Kind     string        `json:"kind"`
	Patterns []string      `json:"patterns"`
	Severity scan.Severity `json:"severity,omitempty"`
}

// Policy is one application's governance configuration, stored as JSON in
// the query store and edited through GET/PUT /api/console/apps/{id}/policy.
type Policy struct {
	Rules  []Rule       `json:"rules"`
	Custom []CustomRule `json:"custom,omitempty"`
	// Grounding enables the answer-vs-tool_result check and its action on a
	// mismatch (rewrite corrects a numeric mismatch with one unambiguous
	// source value; otherwise the strongest of regenerate / block applies).
	Grounding GroundingPolicy `json:"grounding"`
	// FallbackText replaces a blocked answer.
	FallbackText string `json:"fallback_text,omitempty"`
}

// GroundingPolicy configures the grounding checker.
type GroundingPolicy struct {
	Enabled bool   `json:"enabled"`
	Action  Action `json:"action,omitempty"`
}

// DefaultFallbackText is the safe answer of a block when the policy has none.
const DefaultFallbackText = "I can't share that answer because it violates this application's content policy."

// Limits on a policy document, so one tenant cannot make every request slow.
const (
	MaxRules         = 200
	MaxCustomRules   = 100
	MaxPatterns      = 200
	MaxPatternLen    = 1000
	MaxFallbackBytes = 4096
	// MaxPatternInsts bounds one regexp's compiled program. Go's regexp
	// runs in time proportional to text size times program size, and a
	// counted repetition multiplies a program: `(a*){1000}` is 4,002
	// instructions, ten nested stars repeated {1000} are 40,002 (minutes of
	// CPU per 256 KiB answer). A pattern without such a repetition compiles
	// to about one instruction per byte, well under this.
	MaxPatternInsts = 2000
	// MaxRegexpCost bounds the cost of all of a policy's regexps together
	// (CheckBudget), each costing its compiled instructions plus
	// RegexpPatternCost. Every regexp is one pass over every scanned text:
	// on text chosen to keep its threads alive Go's regexp costs about
	// 20-30 ns per instruction per byte, and a regexp matching every byte
	// about 0.15 s per 256 KiB for its matches alone, as much as 24
	// instructions (BenchmarkScanWorstPattern, BenchmarkScanAtBudget).
	// 1,000 holds the worst policies found to seconds of CPU per 256 KiB
	// field (docs/benchmarks.md, stop 18), where the per-pattern limits
	// alone allowed days; and holds twenty-odd ordinary structured
	// patterns (a ticket id, a UUID, a card number: 10 to 60 instructions
	// each): 200, measured first, refused five ordinary patterns together.
	// Word lists belong in keyword and topic rules, which the budget does
	// not count.
	MaxRegexpCost = 1000
	// RegexpPatternCost is what each regexp costs on top of its
	// instructions: without it, 42 copies of `\pL` (3 instructions, a
	// match per letter) fitted 128 instructions and cost 5-7 s and 2.6 GB
	// per 256 KiB field.
	RegexpPatternCost = 24
	// MaxRulesPerPhrase bounds how many custom rules may give one keyword
	// or topic phrase (compared as the rules compare it: case, separators
	// and invisible characters aside). Each rule is a hit of its own with
	// every occurrence, and the engine copies each hit's spans: 100 rules
	// sharing the 25 phrases "a", "a a", ... made 50 million spans, 4.3 GB
	// for one 256 KiB field of "a a a ...". Three leaves room for a word in
	// a keyword rule and a topic; one rule may list a phrase many times.
	MaxRulesPerPhrase = 3
)

// DefaultPolicy is what an application gets until its owner edits it:
// PII in answers is redacted (recorded in prompts and tool output), secrets
// are blocked everywhere, prompt injection and jailbreaks in prompts and tool
// output are blocked. Answers are not scanned for injection by default: an
// answer quoting an attack is not one, and the classifier is trained on
// inputs. Grounding runs when a tool_result is given and corrects or
// blocks a contradicted answer.
func DefaultPolicy() Policy {
	return Policy{
		Rules: []Rule{
			{Match: "pii", Stages: []Stage{StagePre, StageTool}, Action: ActionAllow},
			{Match: "pii", Stages: []Stage{StagePost}, Action: ActionRewrite},
			{Match: "secrets", Action: ActionBlock},
			{Match: "security", Stages: []Stage{StagePre, StageTool}, Action: ActionBlock, MinConfidence: 0.5},
			{Match: "custom", Action: ActionBlock},
			{Match: "topic", Action: ActionBlock},
		},
		Grounding:    GroundingPolicy{Enabled: true, Action: ActionRewrite},
		FallbackText: DefaultFallbackText,
	}
}

// ParsePolicy decodes and validates a policy document. Unknown fields and
// policy ids are errors, so a typo never silently disables a rule. The
// document must be an object with "rules" (an empty list [] turns every
// scanner off, deliberately; null, {} or a document without "rules" is an
// error, not a way to turn governance off by accident). An absent or null
// "grounding", and fields left out of it, take DefaultPolicy's values
// (enabled, rewrite). "min_confidence": 0 is an error: 0 in a Rule means
// the default 0.5, which is not what a document saying 0 asks for. So is a
// member name given twice in one object (DuplicateKey): encoding/json
// would silently keep the last.
//
// A new document must also fit the regexp budget (CheckBudget): ParsePolicy
// is what a PUT runs. A stored document is read with ParseStoredPolicy.
func ParsePolicy(data []byte) (Policy, error) {
	p, err := parsePolicy(data)
	if err != nil {
		return Policy{}, err
	}
	if err := p.CheckBudget(); err != nil {
		return Policy{}, err
	}
	return p, nil
}

// ParseStoredPolicy reads a document the store holds: ParsePolicy, except
// that a policy over CheckBudget's limits still loads, with the overrun
// returned apart for the caller to log. The limits came after documents
// were stored under the per-pattern limits alone, and an application
// whose policy was accepted must neither stop answering nor run with rules
// other than its own; its next PUT must fit.
func ParseStoredPolicy(data []byte) (Policy, *BudgetError, error) {
	p, err := parsePolicy(data)
	if err != nil {
		return Policy{}, nil, err
	}
	var be *BudgetError
	errors.As(p.CheckBudget(), &be) // its only error
	return p, be, nil
}

// BudgetError is a policy whose regexps together cost more than
// MaxRegexpCost, or which gives one phrase in more than MaxRulesPerPhrase
// rules.
type BudgetError struct {
	Cost     int    // Insts + Patterns x RegexpPatternCost
	Insts    int    // the policy's regexps' instructions, in total
	Patterns int    // its regexps
	Budget   int    // MaxRegexpCost
	Largest  string // the pattern with the most instructions, as custom[i].patterns[j]
	Of       int    // its instructions
	// Phrase is the first phrase given by more than MaxRulesPerPhrase
	// rules ("" if none), PhraseRules those rules' names.
	Phrase      string
	PhraseRules []string
}

func (e *BudgetError) Error() string {
	if e.Cost > e.Budget {
		return fmt.Sprintf("policy: the custom regexps cost %d (%d instructions, plus %d for each of %d patterns), over the budget of %d per policy (each regexp is a pass over every text, its time in proportion to its instructions; the largest is %s, %d instructions); keep word lists in keyword or topic rules, which the budget does not count",
			e.Cost, e.Insts, RegexpPatternCost, e.Patterns, e.Budget, e.Largest, e.Of)
	}
	return fmt.Sprintf("policy: the phrase %q is given by %d custom rules (%s), at most %d: each rule lists every occurrence of it apart, so sharing a phrase multiplies what a request carries; keep it in fewer rules",
		e.Phrase, len(e.PhraseRules), strings.Join(e.PhraseRules, ", "), MaxRulesPerPhrase)
}

// CheckBudget returns a *BudgetError when p's regexps cost more than
// MaxRegexpCost together, or one keyword or topic phrase is given by more
// than MaxRulesPerPhrase rules. Validate leaves this out, so that a stored
// policy saved before these limits still compiles.
func (p Policy) CheckBudget() error {
	e := BudgetError{Budget: MaxRegexpCost}
	var order []string                // phrases, first seen first
	byPhrase := map[string][]string{} // phrase -> the rules giving it
	for i, c := range p.Custom {
		for j, pat := range c.Patterns {
			if c.Kind != "regex" {
				ph := rules.Phrase(pat)
				rs := byPhrase[ph]
				if len(rs) == 0 {
					order = append(order, ph)
				}
				if !slices.Contains(rs, c.Name) {
					byPhrase[ph] = append(rs, c.Name)
				}
				continue
			}
			n := regexpInsts(pat)
			e.Insts += n
			e.Patterns++
			if n > e.Of {
				e.Of, e.Largest = n, fmt.Sprintf("custom[%d].patterns[%d]", i, j)
			}
		}
	}
	e.Cost = e.Insts + e.Patterns*RegexpPatternCost
	for _, ph := range order {
		if len(byPhrase[ph]) > MaxRulesPerPhrase {
			e.Phrase, e.PhraseRules = ph, byPhrase[ph]
			break
		}
	}
	if e.Cost > e.Budget || e.Phrase != "" {
		return &e
	}
	return nil
}

// parsePolicy is ParsePolicy without the regexp budget.
func parsePolicy(data []byte) (Policy, error) {
	pp := &Policy{Grounding: DefaultPolicy().Grounding}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pp); err != nil {
		return Policy{}, fmt.Errorf("policy: %w", err)
	}
	if dec.More() {
		return Policy{}, errors.New("policy: trailing data after the JSON object")
	}
	if path, dup := DuplicateKey(data); dup {
		return Policy{}, fmt.Errorf("policy: %q is given twice (member names match case-insensitively); keep one", path)
	}
	if pp == nil {
		return Policy{}, errors.New(`policy: the document is null; want an object with "rules" (DELETE the policy to go back to the default)`)
	}
	p := *pp
	if p.Rules == nil {
		return Policy{}, errors.New(`policy: "rules" is required; [] (no rules) turns every scanner off, leave the policy unset (DELETE) for the default`)
	}
	// Which rules set min_confidence, and to what: 0 and absent both
	// decode to 0.
	var raw struct {
		Rules []struct {
			MinConfidence *float64 `json:"min_confidence"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Policy{}, fmt.Errorf("policy: %w", err)
	}
	for i, r := range raw.Rules {
		if r.MinConfidence != nil && *r.MinConfidence == 0 {
			return Policy{}, fmt.Errorf("policy: rules[%d].min_confidence 0: not allowed (it would read as the default 0.5); leave it out for 0.5, or give a value above 0 such as 0.01 to act on almost every hit", i)
		}
	}
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	return p, nil
}

// regexpInsts is the size of pat's compiled program, as regexp.Compile
// builds it (0 when it does not compile).
func regexpInsts(pat string) int {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return 0
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0
	}
	return len(prog.Inst)
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_\-]{0,62}$`)

// Validate reports the first problem of p as an error a user can act on.
func (p Policy) Validate() error {
	if len(p.Rules) > MaxRules {
		return fmt.Errorf("policy: %d rules, at most %d", len(p.Rules), MaxRules)
	}
	for i, r := range p.Rules {
		if err := p.validMatch(r.Match); err != nil {
			return fmt.Errorf("policy: rules[%d].match: %w", i, err)
		}
		if r.Action.Weight() < 0 {
			return fmt.Errorf("policy: rules[%d].action %q: want allow, rewrite, regenerate or block", i, r.Action)
		}
		for _, s := range r.Stages {
			if !validStage(s) {
				return fmt.Errorf("policy: rules[%d].stages: %q: want pre-flight, post-flight or tool", i, s)
			}
		}
		if r.MinConfidence < 0 || r.MinConfidence > 1 {
			return fmt.Errorf("policy: rules[%d].min_confidence %v: want 0..1", i, r.MinConfidence)
		}
	}
	if len(p.Custom) > MaxCustomRules {
		return fmt.Errorf("policy: %d custom rules, at most %d", len(p.Custom), MaxCustomRules)
	}
	seen := map[string]bool{}
	for i, c := range p.Custom {
		if !nameRE.MatchString(c.Name) {
			return fmt.Errorf("policy: custom[%d].name %q: want 1-63 of a-z 0-9 _ - starting with a letter or digit", i, c.Name)
		}
		if seen[c.Name] {
			return fmt.Errorf("policy: custom[%d].name %q is used twice", i, c.Name)
		}
		seen[c.Name] = true
		switch c.Kind {
		case "regex", "keyword", "topic":
		default:
			return fmt.Errorf("policy: custom[%d].kind %q: want regex, keyword or topic", i, c.Kind)
		}
		if len(c.Patterns) == 0 || len(c.Patterns) > MaxPatterns {
			return fmt.Errorf("policy: custom[%d].patterns: want 1 to %d", i, MaxPatterns)
		}
		for j, pat := range c.Patterns {
			if strings.TrimSpace(pat) == "" || len(pat) > MaxPatternLen {
				return fmt.Errorf("policy: custom[%d].patterns[%d]: want 1 to %d bytes", i, j, MaxPatternLen)
			}
			if c.Kind == "regex" {
				if _, err := regexp.Compile(pat); err != nil {
					return fmt.Errorf("policy: custom[%d].patterns[%d]: %w", i, j, err)
				}
				if n := regexpInsts(pat); n > MaxPatternInsts {
					return fmt.Errorf("policy: custom[%d].patterns[%d]: compiles to %d instructions, at most %d (a counted repetition such as {1000} multiplies what it repeats)", i, j, n, MaxPatternInsts)
				}
			}
		}
		if c.Severity != "" && c.Severity.Weight() == 0 {
			return fmt.Errorf("policy: custom[%d].severity %q: want low, medium, high or critical", i, c.Severity)
		}
	}
	if p.Grounding.Action != "" && p.Grounding.Action.Weight() < 0 {
		return fmt.Errorf("policy: grounding.action %q: want allow, rewrite, regenerate or block", p.Grounding.Action)
	}
	if len(p.FallbackText) > MaxFallbackBytes {
		return fmt.Errorf("policy: fallback_text over %d bytes", MaxFallbackBytes)
	}
	return nil
}

// validMatch checks a rule's match: a family, a policy id its scanner can
// emit, or custom.<name> / topic.<name> naming a custom rule of p of that
// kind (regex and keyword rules are custom, topic rules topic).
func (p Policy) validMatch(m string) error {
	if m == "" {
		return errors.New("empty")
	}
	fam, rest, dotted := strings.Cut(m, ".")
	ok := false
	for _, f := range families {
		if fam == f {
			ok = true
		}
	}
	if !ok {
		return fmt.Errorf("%q: want a policy id or one of %s", m, strings.Join(families, ", "))
	}
	if !dotted {
		return nil
	}
	if rest == "" {
		return fmt.Errorf("%q: empty policy name after the dot", m)
	}
	var valid []string
	switch fam {
	case "custom", "topic":
		for _, c := range p.Custom {
			if (c.Kind == "topic") == (fam == "topic") {
				valid = append(valid, fam+"."+c.Name)
			}
		}
	default:
		valid = knownPolicies[fam]
	}
	if slices.Contains(valid, m) {
		return nil
	}
	hint := ""
	if strings.ContainsAny(rest, "*?") {
		hint = fmt.Sprintf(" (no wildcards: the family %q matches all of them)", fam)
	}
	switch {
	case fam == "custom" || fam == "topic":
		other := map[string]string{"custom": "topic", "topic": "custom"}[fam]
		for _, c := range p.Custom {
			if c.Name == rest && (c.Kind == "topic") != (fam == "topic") {
				hint = fmt.Sprintf(" (custom rule %q has kind %s: its hits are %s.%s)", c.Name, c.Kind, other, c.Name)
			}
		}
		if len(valid) == 0 {
			return fmt.Errorf("%q: unknown policy id: no custom rule of this document produces %s.* hits%s", m, fam, hint)
		}
		return fmt.Errorf("%q: unknown policy id: want %q (the family) or one of %s, the %s rules of this document%s", m, fam, strings.Join(valid, ", "), fam, hint)
	}
	return fmt.Errorf("%q: unknown policy id%s; want %q (the whole family) or one of %s", m, hint, fam, strings.Join(valid, ", "))
}
