// Package rules compiles an application's own detectors: regular
// expressions (RE2), keywords and banned topics (case-insensitive whole words
// or phrases). Hits carry "custom.<name>" (regex, keyword) or
// "topic.<name>" (topic).
package rules

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/governance-gateway/gateway/governance/scan"
)

// Spec is one custom detector (governance.CustomRule without the import).
type Spec struct {
	Name     string
	Kind     string // regex | keyword | topic
	Patterns []string
	Severity scan.Severity
}

// MaxTotalPatternBytes bounds the compiled size of one application's rules.
const MaxTotalPatternBytes = 64 << 10

type keyword struct {
	phrase string // folded
	rule   int
}

type compiledRule struct {
	policy, placeholder string
	sev                 scan.Severity
	// res are compiled one per pattern: a single alternation would lose each
	// pattern's literal prefix, which lets Go's regexp skip ahead.
	res []*regexp.Regexp
	// need[i] is a lower-case literal every match of res[i] contains ("" if
	// none): when the folded text lacks it, the regexp is not run.
	need []string
}

// Set is a compiled rule set; safe for concurrent use.
type Set struct {
	rules    []compiledRule
	keywords []keyword
	needFold bool // some regexp has a required literal
}

// Compile validates and compiles specs.
func Compile(specs []Spec) (*Set, error) {
	s := &Set{}
	total := 0
	for i, sp := range specs {
		if sp.Name == "" {
			return nil, fmt.Errorf("rule %d: empty name", i)
		}
		sev := sp.Severity
		if sev == "" {
			sev = scan.SeverityMedium
		}
		cr := compiledRule{policy: "custom." + sp.Name, placeholder: "[REDACTED]", sev: sev}
		if sp.Kind == "topic" {
			cr.policy, cr.placeholder = "topic."+sp.Name, ""
		}
		idx := len(s.rules)
		switch sp.Kind {
		case "regex":
			for _, p := range sp.Patterns {
				if strings.TrimSpace(p) == "" {
					return nil, fmt.Errorf("rule %q: empty pattern", sp.Name)
				}
				total += len(p)
			}
			for _, p := range sp.Patterns {
				re, err := regexp.Compile(p)
				if err != nil {
					return nil, fmt.Errorf("rule %q: %w", sp.Name, err)
				}
				cr.res = append(cr.res, re)
				cr.need = append(cr.need, requiredLiteral(p))
			}
		case "keyword", "topic":
			for _, p := range sp.Patterns {
				f := strings.TrimSpace(fold(p))
				if f == "" {
					return nil, fmt.Errorf("rule %q: empty pattern", sp.Name)
				}
				total += len(f)
				s.keywords = append(s.keywords, keyword{phrase: f, rule: idx})
			}
		default:
			return nil, fmt.Errorf("rule %q: kind %q: want regex, keyword or topic", sp.Name, sp.Kind)
		}
		if total > MaxTotalPatternBytes {
			return nil, errors.New("rules: patterns exceed 64 KiB in total")
		}
		for _, n := range cr.need {
			s.needFold = s.needFold || n != ""
		}
		s.rules = append(s.rules, cr)
	}
	return s, nil
}

// fold lower-cases s rune by rune, keeping every rune's byte length so that
// offsets into the folded text are offsets into s.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError {
			if l := unicode.ToLower(r); utf8.RuneLen(l) == n {
				b.WriteRune(l)
				i += n
				continue
			}
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// wholeWord reports whether [st, en) of text is not glued to word characters.
func wholeWord(text string, st, en int) bool {
	if st > 0 {
		r, _ := utf8.DecodeLastRuneInString(text[:st])
		if wordRune(r) {
			return false
		}
	}
	if en < len(text) {
		r, _ := utf8.DecodeRuneInString(text[en:])
		if wordRune(r) {
			return false
		}
	}
	return true
}

// Scan appends one hit per rule that matched, with every matching span.
func (s *Set) Scan(text string, dst []scan.Hit) []scan.Hit {
	if s == nil || text == "" {
		return dst
	}
	spans := make([][]scan.Span, len(s.rules))
	var f string
	if len(s.keywords) > 0 || s.needFold {
		f = fold(text)
	}
	if len(s.keywords) > 0 {
		for _, k := range s.keywords {
			for i := 0; i < len(f); {
				j := strings.Index(f[i:], k.phrase)
				if j < 0 {
					break
				}
				st, en := i+j, i+j+len(k.phrase)
				if wholeWord(f, st, en) {
					spans[k.rule] = append(spans[k.rule], scan.Span{Start: st, End: en})
				}
				i = en
			}
		}
	}
	for i, r := range s.rules {
		for j, re := range r.res {
			if r.need[j] != "" && !strings.Contains(f, r.need[j]) {
				continue
			}
			for _, m := range re.FindAllStringIndex(text, -1) {
				if m[1] > m[0] {
					spans[i] = append(spans[i], scan.Span{Start: m[0], End: m[1]})
				}
			}
		}
	}
	for i, r := range s.rules {
		if len(spans[i]) == 0 {
			continue
		}
		dst = append(dst, scan.Hit{Policy: r.policy, Severity: r.sev, Confidence: 1, Spans: spans[i], Placeholder: r.placeholder})
	}
	return dst
}

// requiredLiteral returns the longest lower-cased literal that every match of
// pattern contains, or "" when there is none of at least 3 bytes.
func requiredLiteral(pattern string) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return ""
	}
	lit := required(re.Simplify())
	if len(lit) < 3 {
		return ""
	}
	return lit
}

func required(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		return fold(string(re.Rune))
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				run += fold(string(sub.Rune))
			} else {
				if len(run) > len(best) {
					best = run
				}
				run = ""
				if r := required(sub); len(r) > len(best) {
					best = r
				}
			}
		}
		if len(run) > len(best) {
			best = run
		}
		return best
	}
	return ""
}
