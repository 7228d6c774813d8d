package governance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/governance-gateway/gateway/governance/grounding"
	"github.com/governance-gateway/gateway/governance/scan"
)

// Input is what the engine judges: the user's prompt, the answer of the
// caller's (or our) LLM and the optional grounding source.
type Input struct {
	Prompt     string
	Answer     string
	ToolResult string
	// CanRegenerate says the caller can produce a new answer (an LLM is
	// configured for regeneration). Without it a regenerate rule falls back
	// to the strongest applicable of rewrite / block (DESIGN.md section 5).
	// A new answer cures only what is in the answer: a regenerate rule's
	// hit in the prompt or the tool result falls back the same way.
	CanRegenerate bool
}

// Reason is one rule that shaped the decision (spec: {policy, severity, stage}).
type Reason struct {
	Policy   string        `json:"policy"`
	Severity scan.Severity `json:"severity"`
	Stage    Stage         `json:"stage"`
}

// Finding is the merged hits of one policy in one stage's text.
type Finding struct {
	Policy     string        `json:"policy"`
	Severity   scan.Severity `json:"severity"`
	Confidence float64       `json:"confidence"`
	Stage      Stage         `json:"stage"`
	// Action is what the engine did about the finding after escalation (a
	// rewrite of something that cannot be redacted becomes a block).
	Action Action      `json:"action"`
	Spans  []scan.Span `json:"spans,omitempty"`
	// Tool and ToolCallID name the tool call whose arguments the finding is
	// in (Full Control sets them on VerifyArguments' findings); empty for
	// the prompt, the answer and tool output.
	Tool       string `json:"tool,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`

	placeholder string
}

// Evidence is one grounding finding: which answer span, which source span, why.
type Evidence = grounding.Evidence

// Explanation is the Verify `explanation` object.
type Explanation struct {
	Summary   string     `json:"summary"`
	Grounding []Evidence `json:"grounding,omitempty"`
	// Rewrites lists the redactions applied to the answer, in the byte
	// offsets of the text they were applied to (the answer, or the answer
	// after a grounding correction).
	Rewrites []Rewrite `json:"rewrites,omitempty"`
}

// Rewrite is one replacement made to the answer.
type Rewrite struct {
	Policy      string    `json:"policy"`
	Span        scan.Span `json:"span"`
	Replacement string    `json:"replacement"`
}

// Mismatch types of the grounding checker (spec 2).
const (
	MismatchNone          = "none"
	MismatchNumeric       = "numeric"
	MismatchContradiction = "contradiction"
	MismatchUnsupported   = "unsupported"
)

// Decision is the engine's verdict on one Input.
type Decision struct {
	Governance    Action `json:"governance"`
	Answer        string `json:"answer"` // final text: original, rewritten or fallback
	AnswerChanged bool   `json:"answer_changed"`
	// Prompt is the prompt after pre-flight redactions (equal to the input
	// when nothing was redacted); Full Control forwards this one to the LLM.
	Prompt string `json:"-"`
	// RecordPrompt is the prompt a trace may keep: Prompt, and on a block
	// also without what the blocking rules found (a secret that stopped the
	// request is not stored either).
	RecordPrompt string `json:"-"`
	// Stage of the strongest reason ("" when nothing fired).
	Stage        Stage       `json:"stage,omitempty"`
	Reasons      []Reason    `json:"reasons"`
	Findings     []Finding   `json:"policy_hits"`
	RiskScore    float64     `json:"risk_score"`
	MismatchType string      `json:"mismatch_type"`
	Explanation  Explanation `json:"explanation"`
}

// Scanner finds policy hits in one text. Implementations append to dst, are
// deterministic, linear in the input and safe for concurrent use.
type Scanner interface {
	Scan(text string, dst []scan.Hit) []scan.Hit
}

// ScannerFunc adapts a function to Scanner.
type ScannerFunc func(text string, dst []scan.Hit) []scan.Hit

// Scan calls f.
func (f ScannerFunc) Scan(text string, dst []scan.Hit) []scan.Hit { return f(text, dst) }

// GroundingResult is the grounding checker's verdict on an answer against
// its source.
type GroundingResult struct {
	Mismatch   string
	Confidence float64
	Evidence   []Evidence
	// Rewritten is the answer with every numeric mismatch corrected to its
	// one unambiguous source value; "" when no such correction exists.
	Rewritten string
}

// Grounder checks an answer against its source (tool_result).
type Grounder interface {
	Check(answer, source string) GroundingResult
}

// Family is a built-in scanner and the policy family its hits belong to.
// The engine skips a scanner in every stage where no rule addresses its
// family or one of its policies.
type Family struct {
	Name    string // "pii", "secrets", "security"
	Scanner Scanner
}

// Options builds an Engine. governance.New fills it with the shipped
// scanners; tests pass their own.
type Options struct {
	Families []Family
	Grounder Grounder // nil disables grounding
	// CompileCustom turns an application's custom rules into one scanner
	// whose hits carry "custom.<name>" or "topic.<name>" policies.
	CompileCustom func([]CustomRule) (Scanner, error)
}

// Engine holds the scanners shared by every application. It has no state per
// request and is safe for concurrent use; build one per process.
type Engine struct {
	opts Options
	pool sync.Pool // *[]scan.Hit scratch buffers
}

// NewWith builds an engine from explicit scanners.
func NewWith(opts Options) (*Engine, error) {
	for i, f := range opts.Families {
		if f.Scanner == nil || f.Name == "" {
			return nil, fmt.Errorf("governance: family %d: name and scanner are required", i)
		}
		if f.Name == "custom" || f.Name == "topic" || f.Name == "grounding" {
			return nil, fmt.Errorf("governance: family %q is reserved", f.Name)
		}
	}
	e := &Engine{opts: opts}
	e.pool.New = func() any { s := make([]scan.Hit, 0, 16); return &s }
	return e, nil
}

// Compiled is one application's policy bound to the engine's scanners:
// build it once per policy version and share it between requests.
type Compiled struct {
	eng      *Engine
	policy   Policy
	custom   Scanner
	stages   [3]stageRules
	fallback string
}

type stageRules struct {
	stage    Stage
	exact    map[string]Rule // by policy id
	family   map[string]Rule // by family
	families []Family        // built-in scanners that can fire here
	custom   bool            // whether custom/topic hits can fire here
}

func stageIndex(s Stage) int {
	switch s {
	case StagePre:
		return 0
	case StagePost:
		return 1
	}
	return 2
}

// Compile validates p and prepares it for Verify. The error is a user error
// (the policy document), suitable for a 400.
func (e *Engine) Compile(p Policy) (*Compiled, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c := &Compiled{eng: e, policy: p, fallback: p.FallbackText}
	if c.fallback == "" {
		c.fallback = DefaultFallbackText
	}
	if len(p.Custom) > 0 {
		if e.opts.CompileCustom == nil {
			return nil, errors.New("policy: custom rules are not supported by this engine")
		}
		s, err := e.opts.CompileCustom(p.Custom)
		if err != nil {
			return nil, fmt.Errorf("policy: custom: %w", err)
		}
		c.custom = s
	}
	for i, st := range []Stage{StagePre, StagePost, StageTool} {
		sr := stageRules{stage: st, exact: map[string]Rule{}, family: map[string]Rule{}}
		addressed := map[string]bool{}
		for _, r := range p.Rules {
			if !r.appliesTo(st) {
				continue
			}
			fam, _, dotted := strings.Cut(r.Match, ".")
			addressed[fam] = true
			// The first rule listed for a match wins.
			if dotted {
				if _, ok := sr.exact[r.Match]; !ok {
					sr.exact[r.Match] = r
				}
			} else if _, ok := sr.family[r.Match]; !ok {
				sr.family[r.Match] = r
			}
		}
		for _, f := range e.opts.Families {
			if addressed[f.Name] {
				sr.families = append(sr.families, f)
			}
		}
		sr.custom = c.custom != nil && (addressed["custom"] || addressed["topic"])
		c.stages[i] = sr
	}
	return c, nil
}

func (r Rule) appliesTo(s Stage) bool {
	if len(r.Stages) == 0 {
		return true
	}
	for _, x := range r.Stages {
		if x == s {
			return true
		}
	}
	return false
}

// rule returns the most specific rule for policy id in this stage: an exact
// id beats its family.
func (sr *stageRules) rule(policy string) (Rule, bool) {
	if r, ok := sr.exact[policy]; ok {
		return r, true
	}
	fam, _, _ := strings.Cut(policy, ".")
	r, ok := sr.family[fam]
	return r, ok
}

// DefaultMinConfidence applies to rules that leave min_confidence at 0.
const DefaultMinConfidence = 0.5

func (r Rule) minConfidence() float64 {
	if r.MinConfidence == 0 {
		return DefaultMinConfidence
	}
	return r.MinConfidence
}

// Policy returns the policy c was compiled from.
func (c *Compiled) Policy() Policy { return c.policy }

// FallbackText is the text that replaces a blocked answer: the policy's, or
// DefaultFallbackText.
func (c *Compiled) FallbackText() string { return c.fallback }

// Findings scans one text at one stage and returns its merged findings with
// the actions the policy assigns (before escalation). Full Control uses it
// for tool-role messages; Verify uses it for every stage.
func (c *Compiled) Findings(stage Stage, text string) []Finding {
	if text == "" {
		return nil
	}
	sr := &c.stages[stageIndex(stage)]
	if len(sr.families) == 0 && !sr.custom {
		return nil
	}
	bufp := c.eng.pool.Get().(*[]scan.Hit)
	hits := (*bufp)[:0]
	for _, f := range sr.families {
		hits = f.Scanner.Scan(text, hits)
	}
	if sr.custom {
		hits = c.custom.Scan(text, hits)
	}
	var out []Finding
	for i := range hits {
		h := &hits[i]
		r, ok := sr.rule(h.Policy)
		if !ok || h.Confidence < r.minConfidence() {
			continue
		}
		out = mergeHit(out, h, stage, r.Action, len(text))
	}
	clear(hits)
	*bufp = hits[:0]
	c.eng.pool.Put(bufp)
	for i := range out {
		out[i].Spans = normaliseSpans(out[i].Spans)
	}
	return out
}

func mergeHit(out []Finding, h *scan.Hit, stage Stage, a Action, n int) []Finding {
	spans := make([]scan.Span, 0, len(h.Spans))
	for _, sp := range h.Spans {
		// Scanners are trusted, but a bad span must never panic a redaction.
		if sp.Start >= 0 && sp.Start < sp.End && sp.End <= n {
			spans = append(spans, sp)
		}
	}
	for i := range out {
		f := &out[i]
		if f.Policy != h.Policy {
			continue
		}
		if h.Severity.Weight() > f.Severity.Weight() {
			f.Severity = h.Severity
		}
		f.Confidence = max(f.Confidence, h.Confidence)
		f.Spans = append(f.Spans, spans...)
		if f.placeholder == "" {
			f.placeholder = h.Placeholder
		}
		return out
	}
	return append(out, Finding{
		Policy: h.Policy, Severity: h.Severity, Confidence: h.Confidence,
		Stage: stage, Action: a, Spans: spans, placeholder: h.Placeholder,
	})
}

// normaliseSpans sorts spans and merges overlapping ones.
func normaliseSpans(s []scan.Span) []scan.Span {
	if len(s) < 2 {
		return s
	}
	sort.Slice(s, func(i, j int) bool {
		if s[i].Start != s[j].Start {
			return s[i].Start < s[j].Start
		}
		return s[i].End > s[j].End
	})
	out := s[:1]
	for _, sp := range s[1:] {
		last := &out[len(out)-1]
		if sp.Start < last.End {
			last.End = max(last.End, sp.End)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// Verify judges an answer under the policy: pre-flight on the prompt,
// post-flight on the answer, the tool stage on the tool_result, and
// grounding of the answer against the tool_result. Pure: the same input and
// policy always give the same decision.
func (c *Compiled) Verify(in Input) Decision {
	grounded := c.policy.Grounding.Enabled && c.eng.opts.Grounder != nil && in.ToolResult != "" && in.Answer != ""
	var g GroundingResult
	var wait func()
	if grounded {
		wait = c.startGrounding(&g, in.Answer, in.ToolResult)
	}
	var findings []Finding
	findings = append(findings, c.Findings(StagePre, in.Prompt)...)
	findings = append(findings, c.Findings(StagePost, in.Answer)...)
	findings = append(findings, c.Findings(StageTool, in.ToolResult)...)

	d := Decision{Governance: ActionAllow, Answer: in.Answer, Prompt: in.Prompt, MismatchType: MismatchNone}
	if grounded {
		wait()
		if g.Mismatch != "" && g.Mismatch != MismatchNone {
			// mismatch_type is the checker's verdict whatever the policy
			// does with it: under the rule's min_confidence no policy fires
			// and the answer is not acted on, but the verdict and its
			// evidence are still the caller's to see.
			d.MismatchType = g.Mismatch
			d.Explanation.Grounding = g.Evidence
		}
		if f, ok := c.groundingFinding(g); ok {
			findings = append(findings, f)
		}
	}

	// Escalate what cannot be done, then pick the strongest action.
	for i := range findings {
		f := &findings[i]
		f.Action = c.effective(f, g, in.CanRegenerate)
		if f.Action.Weight() > d.Governance.Weight() && !(f.Action == ActionRewrite && f.Stage != StagePost) {
			d.Governance = f.Action
		}
	}
	sortFindings(findings)
	d.setFindings(findings)

	switch d.Governance {
	case ActionBlock:
		d.Answer = c.fallback
		d.AnswerChanged = d.Answer != in.Answer
	case ActionRewrite:
		d.Answer, d.Explanation.Rewrites = c.rewriteAnswer(in.Answer, findings, g)
		d.AnswerChanged = d.Answer != in.Answer
	}
	d.Prompt = redact(in.Prompt, findings, StagePre, nil)
	d.RecordPrompt = d.Prompt
	if d.Governance == ActionBlock {
		d.RecordPrompt = redactBlocked(in.Prompt, findings)
	}
	d.Explanation.Summary = summary(d)
	return d
}

// ParallelGroundingBytes is the answer plus source size from which Verify
// checks grounding on a goroutine of its own while this one runs the
// scanners. The two halves cost about the same on large inputs (an 8 KB
// source: ~2M instructions each), so a request that finds a core idle is
// answered in about half the time; under full load the hand-off costs a
// goroutine start, ~1 µs against ~500 µs of work. Below this size the check
// takes a few microseconds and a hand-off would cost more than it saves.
const ParallelGroundingBytes = 2 << 10

// startGrounding checks answer against source into *dst, on a goroutine of
// its own when they are large. The returned wait must be called before *dst
// is read; it re-raises a panic of the checker on the caller's goroutine,
// where the server's recovery handles it as it would an inline one. If the
// caller panics first and never waits, the goroutine still ends on its own.
func (c *Compiled) startGrounding(dst *GroundingResult, answer, source string) (wait func()) {
	if len(answer)+len(source) < ParallelGroundingBytes {
		*dst = c.eng.opts.Grounder.Check(answer, source)
		return func() {}
	}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		*dst = c.eng.opts.Grounder.Check(answer, source)
	}()
	return func() {
		if p := <-done; p != nil {
			panic(p)
		}
	}
}

// redactBlocked redacts from prompt, for the record, what the pre-flight
// findings of a blocking rule found that has a placeholder (a secret, an
// e-mail): a block removes nothing from the prompt, yet what the policy
// refused to pass must not reach the log, the store or the lake either.
// prompt is the original (the findings' spans index it); it is redacted
// by the rewrite and the blocking findings in one pass.
func redactBlocked(prompt string, findings []Finding) string {
	both := make([]Finding, 0, len(findings))
	for _, f := range findings {
		if f.Action == ActionBlock {
			f.Action = ActionRewrite
		}
		both = append(both, f)
	}
	return redact(prompt, both, StagePre, nil)
}

// RedactTool returns a tool output with the tool stage's rewrite rules
// applied: what Full Control sends back to the LLM and keeps in a session.
// Without such a rule it returns text unscanned.
func (c *Compiled) RedactTool(text string) string {
	if text == "" || !slices.ContainsFunc(c.policy.Rules, func(r Rule) bool {
		return r.appliesTo(StageTool) && (r.Action == ActionRewrite || r.Action == ActionRegenerate)
	}) {
		return text
	}
	fs := c.Findings(StageTool, text)
	for i := range fs {
		fs[i].Action = c.effective(&fs[i], GroundingResult{}, false)
	}
	return redact(text, fs, StageTool, nil)
}

// setFindings records the sorted findings of d with what follows from
// them: the risk score, the reasons and the stage of the strongest.
func (d *Decision) setFindings(findings []Finding) {
	d.Findings = findings
	d.RiskScore = RiskScore(findings)
	d.Reasons = reasons(findings)
	if len(d.Reasons) > 0 {
		d.Stage = d.Reasons[0].Stage
	}
}

// groundingFinding maps a grounding result to a finding, or false when the
// answer is grounded or the policy ignores this mismatch.
func (c *Compiled) groundingFinding(g GroundingResult) (Finding, bool) {
	if g.Mismatch == "" || g.Mismatch == MismatchNone {
		return Finding{}, false
	}
	policy := "grounding." + g.Mismatch
	action := c.policy.Grounding.Action
	if action == "" {
		action = ActionRewrite
	}
	minConf := DefaultMinConfidence
	if r, ok := c.stages[stageIndex(StagePost)].rule(policy); ok {
		action, minConf = r.Action, r.minConfidence()
	}
	if g.Confidence < minConf {
		return Finding{}, false
	}
	sev := scan.SeverityHigh
	if g.Mismatch == MismatchUnsupported {
		sev = scan.SeverityMedium
	}
	f := Finding{Policy: policy, Severity: sev, Confidence: g.Confidence, Stage: StagePost, Action: action}
	for _, ev := range g.Evidence {
		f.Spans = append(f.Spans, ev.AnswerSpan)
	}
	f.Spans = normaliseSpans(f.Spans)
	return f, true
}

// effective is the action the engine can carry out for f: a rewrite needs
// something to rewrite with (a placeholder, or a grounding correction), a
// regenerate needs a caller that can regenerate.
func (c *Compiled) effective(f *Finding, g GroundingResult, canRegenerate bool) Action {
	canRegenerate = canRegenerate && f.Stage == StagePost
	rewritable := f.placeholder != "" && len(f.Spans) > 0
	if strings.HasPrefix(f.Policy, "grounding.") {
		rewritable = f.Policy == "grounding."+MismatchNumeric && g.Rewritten != ""
	}
	switch f.Action {
	case ActionRewrite:
		if rewritable {
			return ActionRewrite
		}
		if canRegenerate {
			return ActionRegenerate
		}
		return ActionBlock
	case ActionRegenerate:
		if canRegenerate {
			return ActionRegenerate
		}
		if rewritable {
			return ActionRewrite
		}
		return ActionBlock
	}
	return f.Action
}

// rewriteAnswer applies the grounding correction, then the redactions of the
// answer's rewrite findings.
func (c *Compiled) rewriteAnswer(answer string, findings []Finding, g GroundingResult) (string, []Rewrite) {
	corrected := false
	for _, f := range findings {
		if f.Action == ActionRewrite && f.Policy == "grounding."+MismatchNumeric {
			corrected = true
		}
	}
	if !corrected {
		var rw []Rewrite
		out := redact(answer, findings, StagePost, &rw)
		return out, rw
	}
	// The correction moves offsets: redact the corrected text by scanning it
	// again with the post-flight rewrite policies.
	text := g.Rewritten
	var again []Finding
	for _, f := range c.Findings(StagePost, text) {
		if f.Action == ActionRewrite && f.placeholder != "" {
			again = append(again, f)
		}
	}
	rw := []Rewrite{}
	for _, ev := range g.Evidence {
		if ev.SourceText != "" {
			rw = append(rw, Rewrite{Policy: "grounding." + MismatchNumeric, Span: ev.AnswerSpan, Replacement: ev.SourceText})
		}
	}
	var red []Rewrite
	text = redact(text, again, StagePost, &red)
	return text, append(rw, red...)
}

// redact replaces the spans of the stage's rewrite findings with their
// placeholders; overlapping spans of different policies merge and keep the
// placeholder of the earliest, longest one.
func redact(text string, findings []Finding, stage Stage, log *[]Rewrite) string {
	type cut struct {
		scan.Span
		ph, policy string
	}
	var cuts []cut
	for _, f := range findings {
		if f.Stage != stage || f.Action != ActionRewrite || f.placeholder == "" {
			continue
		}
		for _, sp := range f.Spans {
			cuts = append(cuts, cut{sp, f.placeholder, f.Policy})
		}
	}
	if len(cuts) == 0 {
		return text
	}
	sort.Slice(cuts, func(i, j int) bool {
		if cuts[i].Start != cuts[j].Start {
			return cuts[i].Start < cuts[j].Start
		}
		return cuts[i].End > cuts[j].End
	})
	var b strings.Builder
	b.Grow(len(text))
	pos := 0
	for i := 0; i < len(cuts); {
		cu := cuts[i]
		end := cu.End
		j := i + 1
		for ; j < len(cuts) && cuts[j].Start < end; j++ {
			end = max(end, cuts[j].End)
		}
		if cu.Start < pos || end > len(text) {
			i = j
			continue
		}
		b.WriteString(text[pos:cu.Start])
		b.WriteString(cu.ph)
		if log != nil {
			*log = append(*log, Rewrite{Policy: cu.policy, Span: scan.Span{Start: cu.Start, End: end}, Replacement: cu.ph})
		}
		pos = end
		i = j
	}
	b.WriteString(text[pos:])
	return b.String()
}

func sortFindings(f []Finding) {
	sort.SliceStable(f, func(i, j int) bool {
		a, b := f[i], f[j]
		if a.Action.Weight() != b.Action.Weight() {
			return a.Action.Weight() > b.Action.Weight()
		}
		if a.Severity.Weight() != b.Severity.Weight() {
			return a.Severity.Weight() > b.Severity.Weight()
		}
		if a.Stage != b.Stage {
			return stageIndex(a.Stage) < stageIndex(b.Stage)
		}
		return a.Policy < b.Policy
	})
}

// reasons are the findings that changed the outcome (anything but allow),
// strongest first.
func reasons(f []Finding) []Reason {
	out := []Reason{}
	for _, x := range f {
		if x.Action != ActionAllow {
			out = append(out, Reason{Policy: x.Policy, Severity: x.Severity, Stage: x.Stage})
		}
	}
	return out
}

// RiskScore combines findings as independent evidence: 1 - prod(1 - c*w),
// with w the severity weight (low 0.25 .. critical 1), rounded to 4 decimals.
func RiskScore(f []Finding) float64 {
	p := 1.0
	for _, x := range f {
		w := float64(x.Severity.Weight()) / 4
		if w == 0 {
			w = 0.5
		}
		c := min(max(x.Confidence, 0), 1)
		p *= 1 - c*w
	}
	r := 1 - p
	// Round to 4 decimals so the stored value is stable across platforms.
	return float64(int(r*10000+0.5)) / 10000
}

func summary(d Decision) string {
	if len(d.Reasons) == 0 {
		s := "allowed: no policy fired"
		if len(d.Findings) > 0 {
			s = fmt.Sprintf("allowed: %d finding(s) recorded, none requires action", len(d.Findings))
		}
		if !slices.ContainsFunc(d.Findings, func(f Finding) bool { return f.Policy == "grounding."+d.MismatchType }) && len(d.Explanation.Grounding) > 0 {
			s += fmt.Sprintf("; a possible %s mismatch under the policy's min_confidence: %s", d.MismatchType, d.Explanation.Grounding[0].Reason)
		}
		return s
	}
	r := d.Reasons[0]
	verb := map[Action]string{
		ActionRewrite: "rewritten", ActionRegenerate: "regenerate requested", ActionBlock: "blocked",
	}[d.Governance]
	if verb == "" {
		verb = "allowed"
	}
	s := fmt.Sprintf("%s: %s (%s) in %s", verb, r.Policy, r.Severity, r.Stage)
	if n := len(d.Reasons) - 1; n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	if len(d.Explanation.Grounding) > 0 {
		s += "; " + d.Explanation.Grounding[0].Reason
	}
	return s
}

// VerifyArguments judges the arguments of one tool call an LLM asked for
// with the post-flight rules (what the model writes into a tool call leaves
// the application as surely as its answer). When args is valid JSON, every
// string literal (values and object keys) is decoded, scanned and, under a
// rewrite, redacted in place with its placeholder: the result stays valid
// JSON and everything but the redacted strings keeps its bytes. Other text
// is judged as one string. Decision.Answer is the arguments to forward:
// args itself when nothing is redacted, "" on block. The findings carry no
// spans (their offsets would point into the decoded strings, not args).
// No grounding: arguments are not claims about a source.
func (c *Compiled) VerifyArguments(args string, canRegenerate bool) Decision {
	d := Decision{Governance: ActionAllow, Answer: args, MismatchType: MismatchNone, Reasons: []Reason{}}
	sr := &c.stages[stageIndex(StagePost)]
	if args == "" || (len(sr.families) == 0 && !sr.custom) {
		d.Explanation.Summary = summary(d)
		return d
	}
	lits, ok := jsonStringLiterals(args)
	text := args
	if ok {
		var b strings.Builder
		for i := range lits {
			if i > 0 {
				b.WriteByte('\n')
			}
			lits[i].off = b.Len()
			b.WriteString(lits[i].value)
		}
		text = b.String()
	}
	findings := c.Findings(StagePost, text)
	for i := range findings {
		f := &findings[i]
		f.Action = c.effective(f, GroundingResult{}, canRegenerate)
		if f.Action.Weight() > d.Governance.Weight() {
			d.Governance = f.Action
		}
	}
	sortFindings(findings)
	switch d.Governance {
	case ActionBlock:
		d.Answer = ""
	case ActionRewrite:
		if !ok {
			d.Answer = redact(text, findings, StagePost, &d.Explanation.Rewrites)
		} else {
			d.Answer = redactLiterals(args, lits, findings)
		}
	}
	for i := range findings {
		findings[i].Spans = nil
	}
	d.AnswerChanged = d.Answer != args
	d.setFindings(findings)
	d.Explanation.Summary = summary(d)
	return d
}

// jsonLiteral is one string literal of a JSON text: its byte range in the
// text (quotes included), its decoded value, and the value's offset in the
// scanned concatenation.
type jsonLiteral struct {
	start, end int
	value      string
	off        int
}

// jsonStringLiterals lists the string literals of s, or false when s is not
// valid JSON.
func jsonStringLiterals(s string) ([]jsonLiteral, bool) {
	if !json.Valid([]byte(s)) {
		return nil, false
	}
	var out []jsonLiteral
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := i + 1
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' {
				j++ // valid JSON: the escaped byte is never the closing quote
			}
		}
		lit := jsonLiteral{start: i, end: j + 1}
		if err := json.Unmarshal([]byte(s[i:j+1]), &lit.value); err != nil {
			return nil, false
		}
		out = append(out, lit)
		i = j
	}
	return out, true
}

// redactLiterals applies the rewrite findings (offsets in the concatenation
// of the literals' values) to each literal and re-encodes the changed ones.
func redactLiterals(args string, lits []jsonLiteral, findings []Finding) string {
	var b strings.Builder
	pos := 0
	for _, lit := range lits {
		end := lit.off + len(lit.value)
		var local []Finding
		for _, f := range findings {
			if f.Action != ActionRewrite || f.placeholder == "" {
				continue
			}
			g := f
			g.Spans = nil
			for _, sp := range f.Spans {
				s, e := max(sp.Start, lit.off), min(sp.End, end)
				if s < e {
					g.Spans = append(g.Spans, scan.Span{Start: s - lit.off, End: e - lit.off})
				}
			}
			if len(g.Spans) > 0 {
				local = append(local, g)
			}
		}
		if len(local) == 0 {
			continue
		}
		red := redact(lit.value, local, StagePost, nil)
		if red == lit.value {
			continue
		}
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		_ = e.Encode(red) // a string always encodes
		b.WriteString(args[pos:lit.start])
		b.Write(bytes.TrimSuffix(enc.Bytes(), []byte("\n")))
		pos = lit.end
	}
	if pos == 0 {
		return args
	}
	b.WriteString(args[pos:])
	return b.String()
}
