// Package rules compiles an application's own detectors: regular
// expressions (RE2), keywords and banned topics (case-insensitive whole words
// or phrases, compared after normalize: any run of blanks, hyphens or
// underscores between words is one space, invisible characters are
// ignored). Hits carry "custom.<name>" (regex, keyword) or
// "topic.<name>" (topic).
package rules

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
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

type compiledRule struct {
	policy, placeholder string
	sev                 scan.Severity
	// res are compiled one per pattern: a single alternation would lose each
	// pattern's literal prefix, which lets Go's regexp skip ahead.
	res []*regexp.Regexp
	// need[i] is a lower-case literal every match of res[i] contains ("" if
	// none): when the folded text lacks it, the regexp is not run.
	need  []string
	needB [][]byte // need as bytes
}

// Set is a compiled rule set; safe for concurrent use.
type Set struct {
	rules []compiledRule
	// keywords are the rule set's distinct folded phrases (Phrase): a
	// phrase given twice (in one rule, or in several, or differing only in
	// case or separators) is searched once. Its duplicates would each add
	// the same spans again: 20,000 copies of "a" on "a a a ..." were 2.6
	// billion spans per 256 KiB field, an out-of-memory crash for every
	// tenant.
	keywords []string
	// ruleKw[r] are rule r's keywords, each once, in the order of their
	// first pattern: its spans come keyword by keyword in that order.
	ruleKw   [][]int32
	needFold bool // some regexp has a required literal
	// acs find the keywords in one pass each, acs[i] those from acs[i].lo
	// on; several when one automaton would exceed maxAutomatonCells. nil:
	// one search per keyword (tests' reference).
	acs     []*automaton
	scratch sync.Pool // *scanScratch
}

// scanScratch is the pooled state of one Scan.
type scanScratch struct {
	folded []byte
	offs   []int32 // normText's offsets
	next   []int   // per keyword: where its next occurrence may start
	found  []kwHit
	sorted []kwHit
	off    []int32 // per keyword: where its hits start in sorted
	count  []int32
}

// kwHit is one whole-word occurrence of keyword k at start.
type kwHit struct{ k, start int32 }

// Compile validates and compiles specs.
func Compile(specs []Spec) (*Set, error) {
	s := &Set{}
	total := 0
	kwIndex := map[string]int32{} // phrase -> its index in s.keywords
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
				cr.need = append(cr.need, normalize(requiredLiteral(p)))
				cr.needB = append(cr.needB, []byte(cr.need[len(cr.need)-1]))
			}
		case "keyword", "topic":
			for _, p := range sp.Patterns {
				f := Phrase(p)
				if f == "" {
					return nil, fmt.Errorf("rule %q: empty pattern", sp.Name)
				}
				total += len(f)
				k, ok := kwIndex[f]
				if !ok {
					k = int32(len(s.keywords))
					kwIndex[f] = k
					s.keywords = append(s.keywords, f)
				}
				for len(s.ruleKw) <= idx {
					s.ruleKw = append(s.ruleKw, nil)
				}
				if !slices.Contains(s.ruleKw[idx], k) {
					s.ruleKw[idx] = append(s.ruleKw[idx], k)
				}
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
	for len(s.ruleKw) < len(s.rules) {
		s.ruleKw = append(s.ruleKw, nil)
	}
	s.acs = buildAutomata(s.keywords, maxAutomatonCells)
	return s, nil
}

// Phrase is the phrase a keyword or topic pattern searches for: normalize
// (folded, separators as one space, invisible characters dropped),
// trimmed. Two patterns with the same Phrase find the same spans.
func Phrase(pattern string) string { return strings.TrimSpace(normalize(pattern)) }

// fold lower-cases s rune by rune, keeping every rune's byte length.
func fold(s string) string { return string(appendFold(nil, s)) }

// appendFold appends fold(s) to dst.
func appendFold(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError {
			if l := unicode.ToLower(r); utf8.RuneLen(l) == n {
				dst = utf8.AppendRune(dst, l)
				i += n
				continue
			}
		}
		dst = append(dst, s[i:i+n]...)
		i += n
	}
	return dst
}

// normalize is what keywords and the text are compared in: fold(s), with
// every run of joiners (blanks, line breaks, Unicode spaces, hyphens and
// dashes, underscores) turned into one space and invisible characters
// (zero-width space and joiners, soft hyphen, BOM, bidi marks) dropped.
// "PROJECT  Falcon", "project\nfalcon", "project-falcon" and
// "pro\u200bject falcon" all read "project falcon".
func normalize(s string) string {
	b, _, _ := appendNorm(nil, nil, s)
	return string(b)
}

// joinerASCII marks the ASCII joiners.
var joinerASCII = [utf8.RuneSelf]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true, '-': true, '_': true}

// normASCII maps an ASCII byte to its normalised byte (joiners to a space,
// upper case to lower); 0 for control characters (NUL included) and
// non-ASCII bytes, which take the general path.
var normASCII = func() (t [256]byte) {
	for c := 1; c < utf8.RuneSelf; c++ {
		t[c] = byte(c)
		if c >= 'A' && c <= 'Z' {
			t[c] = byte(c) + 'a' - 'A'
		}
		if joinerASCII[c] {
			t[c] = ' '
		}
		if scan.Control(rune(c)) { // read through, on the general path
			t[c] = 0
		}
	}
	return t
}()

func joinerRune(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Pd, r) }

// appendNorm appends normalize(s) to dst. Output byte j (counted from the
// end of dst as given) comes from byte j of s up to shift (-1: for every byte); from shift on, offs[j-shift] is
// the offset in s of the byte output byte j comes from (a joiner run's
// space: its first byte). Text without runs, invisible or multi-byte
// joiners keeps every offset and records none.
func appendNorm(dst []byte, offs []int32, s string) ([]byte, []int32, int) {
	// While output byte i comes from byte i (no run of two joiners, no
	// non-ASCII byte yet), one table lookup per byte.
	n0 := len(dst)
	dst = slices.Grow(dst, len(s))
	d := dst[n0 : n0+len(s)]
	i := 0
	for ; i < len(s); i++ {
		m := normASCII[s[i]]
		if m == 0 || m == ' ' && i > 0 && d[i-1] == ' ' {
			break
		}
		d[i] = m
	}
	dst = dst[:n0+i]
	if i == len(s) {
		return dst, offs, -1
	}
	shift := -1
	inRun := i > 0 && d[i-1] == ' '
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if scan.Control(rune(c)) { // renders as nothing, like the invisible characters
				i++
				continue
			}
			if joinerASCII[c] {
				if inRun {
					i++
					continue
				}
				inRun, c = true, ' '
			} else {
				inRun = false
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
			}
			if shift < 0 && len(dst)-n0 != i {
				shift = len(dst) - n0
			}
			if shift >= 0 {
				offs = append(offs, int32(i))
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case scan.Invisible(r), scan.Control(r):
			i += n
			continue
		case joinerRune(r):
			if !inRun {
				if shift < 0 && len(dst)-n0 != i {
					shift = len(dst) - n0
				}
				if shift >= 0 {
					offs = append(offs, int32(i))
				}
				dst = append(dst, ' ')
				inRun = true
			}
			i += n
			continue
		}
		inRun = false
		if shift < 0 && len(dst)-n0 != i {
			shift = len(dst) - n0
		}
		start := len(dst)
		if l := unicode.ToLower(r); r != utf8.RuneError && utf8.RuneLen(l) == n {
			dst = utf8.AppendRune(dst, l)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		if shift >= 0 {
			for k := range len(dst) - start {
				offs = append(offs, int32(i+k))
			}
		}
		i += n
	}
	return dst, offs, shift
}

// origin maps a span of the normalised text back to s: from the byte its
// first byte comes from to the byte after the one its last byte comes from
// (a phrase starts and ends with a letter, so that covers its last rune,
// and everything dropped or collapsed inside it).
func origin(st, en, shift int, offs []int32) scan.Span {
	at := func(j int) int {
		if shift < 0 || j < shift {
			return j
		}
		return int(offs[j-shift])
	}
	return scan.Span{Start: at(st), End: at(en-1) + 1}
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// wholeWord reports whether [st, en) of text is not glued to word characters.
func wholeWord(text []byte, st, en int) bool {
	if st > 0 {
		r, _ := utf8.DecodeLastRune(text[:st])
		if wordRune(r) {
			return false
		}
	}
	if en < len(text) {
		r, _ := utf8.DecodeRune(text[en:])
		if wordRune(r) {
			return false
		}
	}
	return true
}

// Scan appends one hit per rule that matched, with every matching span: a
// rule's keyword spans keyword by keyword (each keyword's non-overlapping
// occurrences left to right, whole words only; a phrase the rule gives
// twice, after normalize, once), then its regexp matches.
func (s *Set) Scan(text string, dst []scan.Hit) []scan.Hit {
	if s == nil || text == "" {
		return dst
	}
	sc, _ := s.scratch.Get().(*scanScratch)
	if sc == nil {
		sc = &scanScratch{}
	}
	defer func() {
		if cap(sc.folded) <= 1<<20 && cap(sc.offs) <= 1<<20 && cap(sc.found) <= 1<<16 {
			s.scratch.Put(sc)
		}
	}()
	spans := make([][]scan.Span, len(s.rules))
	var f []byte
	shift := -1
	if len(s.keywords) > 0 || s.needFold {
		sc.folded, sc.offs, shift = appendNorm(sc.folded[:0], sc.offs[:0], text)
		f = sc.folded
	}
	if len(s.keywords) > 0 {
		if s.acs != nil {
			s.keywordsOnePass(f, sc)
		} else {
			found := sc.found[:0]
			for k, kw := range s.keywords {
				for i := 0; i < len(f); {
					j := bytes.Index(f[i:], []byte(kw))
					if j < 0 {
						break
					}
					st, en := i+j, i+j+len(kw)
					if wholeWord(f, st, en) {
						found = append(found, kwHit{int32(k), int32(st)})
					}
					i = en
				}
			}
			sc.found = found
		}
		if len(sc.found) > 0 {
			sorted, off := s.byKeyword(sc)
			for r, kws := range s.ruleKw {
				for _, k := range kws {
					n := len(s.keywords[k])
					for _, h := range sorted[off[k]:off[k+1]] {
						st := int(h.start)
						sp := scan.Span{Start: st, End: st + n}
						if shift >= 0 {
							sp = origin(sp.Start, sp.End, shift, sc.offs)
						}
						spans[r] = append(spans[r], sp)
					}
				}
			}
		}
	}
	for i, r := range s.rules {
		for j, re := range r.res {
			if r.need[j] != "" && !bytes.Contains(f, r.needB[j]) {
				continue
			}
			for _, m := range re.FindAllStringIndex(text, -1) {
				if m[1] <= m[0] {
					continue
				}
				// Touching matches are one span: a pattern matching every
				// letter (`\pL`) would otherwise list every byte, 16
				// bytes a span and GBs per max-size request
				// (BenchmarkScanAtBudget/many-matching).
				if n := len(spans[i]); n > 0 && spans[i][n-1].End == m[0] {
					spans[i][n-1].End = m[1]
					continue
				}
				spans[i] = append(spans[i], scan.Span{Start: m[0], End: m[1]})
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

// keywordsOnePass finds every keyword in f, one pass per automaton, and
// leaves in sc.found what the search per keyword would: for each keyword
// the occurrences left to right, each starting at or after the end of the
// one before (whole word or not), keeping the whole words.
func (s *Set) keywordsOnePass(f []byte, sc *scanScratch) {
	nk := len(s.keywords)
	if cap(sc.next) < nk {
		sc.next = make([]int, nk)
	}
	next := sc.next[:nk]
	clear(next)
	found := sc.found[:0]
	for _, a := range s.acs {
		found = s.pass(a, f, next, found)
	}
	sc.found = found
}

// pass is keywordsOnePass for the keywords of one automaton.
func (s *Set) pass(a *automaton, f []byte, next []int, found []kwHit) []kwHit {
	state := int32(0)
	for i := 0; i < len(f); i++ {
		if state == 0 {
			for i < len(f) && !a.first[f[i]] {
				i++
			}
			if i == len(f) {
				break
			}
		}
		state = a.delta[int(state)*a.nclass+int(a.class[f[i]])]
		for _, k := range a.out[a.outOff[state]:a.outOff[state+1]] {
			k += a.lo
			en := i + 1
			st := en - len(s.keywords[k])
			if st < next[k] {
				continue
			}
			next[k] = en
			if wholeWord(f, st, en) {
				found = append(found, kwHit{k, int32(st)})
			}
		}
	}
	return found
}

// byKeyword sorts sc.found by keyword, text order kept within a keyword (a
// counting sort): keyword k's hits are sorted[off[k]:off[k+1]].
func (s *Set) byKeyword(sc *scanScratch) (sorted []kwHit, off []int32) {
	nk := len(s.keywords)
	if cap(sc.off) < nk+1 {
		sc.off = make([]int32, nk+1)
		sc.count = make([]int32, nk+1)
	}
	off, count := sc.off[:nk+1], sc.count[:nk+1]
	clear(off)
	for _, h := range sc.found {
		off[h.k+1]++
	}
	for k := 1; k <= nk; k++ {
		off[k] += off[k-1]
	}
	copy(count, off)
	if cap(sc.sorted) < len(sc.found) {
		sc.sorted = make([]kwHit, len(sc.found))
	}
	sorted = sc.sorted[:len(sc.found)]
	for _, h := range sc.found {
		sorted[count[h.k]] = h
		count[h.k]++
	}
	return sorted, off
}

// automaton is an Aho-Corasick automaton over the folded keywords, as a
// dense table over byte classes (the bytes the keywords use, and one class
// for all others).
type automaton struct {
	lo     int32 // its keywords are lo, lo+1, ... of the Set
	class  [256]uint8
	first  [256]bool // bytes that leave the root
	nclass int
	delta  []int32 // state*nclass + class -> state
	outOff []int32 // state -> its keywords (those ending there): out[outOff[s]:outOff[s+1]]
	out    []int32
}

// maxAutomatonCells bounds one table (4 MiB); larger keyword sets are
// split into several. Searching them one keyword at a time instead cost
// 0.66 s per 256 KiB field for 64 KiB of keywords, 10 ms in 5 tables
// (BenchmarkScanKeywordsAtLimits); 64 KiB need at most about 17, a pass
// each.
const maxAutomatonCells = 1 << 20

// buildAutomata splits kws into runs whose table fits maxCells
// (scan.NewAutomaton's estimate: (bytes+1) x (distinct bytes+1)) and
// builds one automaton per run; nil when there are no keywords, or when
// one phrase alone does not fit (then each keyword is searched alone).
func buildAutomata(kws []string, maxCells int) []*automaton {
	var out []*automaton
	for lo := 0; lo < len(kws); {
		var used [256]bool
		cols, total, hi := 1, 0, lo
		for ; hi < len(kws); hi++ {
			p := kws[hi]
			c := cols
			var seen [256]bool
			for i := 0; i < len(p); i++ {
				if !used[p[i]] && !seen[p[i]] {
					seen[p[i]] = true
					c++
				}
			}
			if hi > lo && (total+len(p)+1)*c > maxCells {
				break
			}
			for i := 0; i < len(p); i++ {
				used[p[i]] = true
			}
			cols, total = c, total+len(p)
		}
		a := buildAutomaton(kws[lo:hi], int32(lo), maxCells)
		if a == nil {
			return nil
		}
		out = append(out, a)
		lo = hi
	}
	return out
}

func buildAutomaton(kws []string, lo int32, maxCells int) *automaton {
	ac, ok := scan.NewAutomaton(kws, maxCells)
	if !ok {
		return nil
	}
	a := &automaton{lo: lo, class: ac.Class, nclass: ac.Cols, delta: ac.Delta}
	a.outOff = make([]int32, len(ac.Out)+1)
	for st, o := range ac.Out {
		a.outOff[st+1] = a.outOff[st] + int32(len(o))
		a.out = append(a.out, o...)
	}
	for b := 0; b < 256; b++ {
		a.first[b] = a.delta[int(a.class[b])] != 0
	}
	return a
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
