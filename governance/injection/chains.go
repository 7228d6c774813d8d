package injection

import (
	"fmt"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/governance-gateway/gateway/governance/scan"
)

// A chainMatcher decides a signal regexp without running Go's regexp on
// the branches it can read as chains S0 G1 S1 ... Gk Sk: finite sets Si of
// literals (which may carry \b or \B at their ends) separated by gaps Gi,
// runs of min to max runes of one class ("[^.\n]{0,40}", "\s+", ".{1,250}?").
// Go's regexp runs such alternations of a hundred literals at up to 2.5 µs
// per byte, and a flood of trigger words makes a signal search all of a
// 256 KiB text; this finds every literal in one pass of an Aho-Corasick
// automaton and keeps, per stage, only the literal ends that can still
// continue a match. Branches of any other form are left to an automaton
// (runeDFA) or failing that a regexp of just those branches.
//
// It gives MatchString's answer on every input, valid UTF-8 or not: the
// literals are matched byte for byte (a literal's bytes decode to its runes
// wherever they occur, and start and end at rune boundaries), \b is Go's
// ASCII word boundary, and gaps count runes as the regexp decodes them, an
// invalid byte being one rune U+FFFD.
type chainMatcher struct {
	class  [256]uint8 // byte -> column of delta
	ncol   int
	delta  []int32   // state*ncol+column -> 2*next*ncol, +1 if next has out (full DFA)
	out    [][]int32 // state -> indices of lits ending there
	lits   []chainLit
	stages []chainStage
	// gaps are the distinct gap classes (range pairs), asciiBad[b] has bit
	// c set when ASCII byte b is outside gaps[c].
	gaps     [][]rune
	asciiBad [utf8.RuneSelf]uint64
	ring     int // capacity of a stage's ring of ends
	// preGaps are the pre classes of stages (chainStage.pre), whose
	// counts the cursor keeps for the last hist runes.
	preGaps []int32
	hist    int
	// The branches of no chain form: their automaton, or where that is too
	// large their regexp.
	dfa      *runeDFA
	residual *regexp.Regexp
	pool     sync.Pool // *chainState
}

// chainLit is one literal, the assertions at its ends, and the stages it
// is a literal of.
type chainLit struct {
	s          string
	start, end assertion
	runes      int32
	bad        []int32 // per gap class, its runes outside the class
	stages     []int32
}

// chainStage is one literal set Si of a chain and the gap before it.
type chainStage struct {
	first, last bool
	// The gap before a stage that is not first: min to max runes (max < 0:
	// unbounded) of gaps[cls]; cls < 0 for literals that must touch.
	min, max int32
	cls      int32
	// pre >= 0 when the gap is gaps[pre]* then gaps[cls]{min,max}, the
	// first a subset of the second: every rune but the last max in pre.
	// preSlot is its row of chainState.hist.
	pre, preSlot int32
	// next and nextPre are cls and pre of the stage after (-1: none).
	next, nextPre int32
}

// assertion is the empty-width condition at a literal's end.
type assertion uint8

const (
	anyBoundary assertion = iota
	wordBoundary
	nonWordBoundary
	contradiction
)

// Limits of what newChainMatcher accepts: literals per set, bytes per
// literal, branches after distributing alternations over their
// neighbours, runes a small class may expand to, gap classes, the min of
// a gap (rings hold 4*min bytes more), the literals a set may reach
// before the next piece starts a stage of its own, and those of an
// alternation that is not split into branches (which can then split
// into stages).
const (
	maxLiterals     = 4096
	maxChainLiteral = 64
	maxBranches     = 256
	maxSmallClass   = 64
	maxGapClasses   = 64
	maxGapMin       = 8
	stageSplit      = 64
	maxAlternation  = 1024
)

// newChainMatcher compiles expr (syntax.Perl, as regexp.Compile parses);
// it returns nil when no branch of expr is a chain.
func newChainMatcher(expr string) *chainMatcher {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(err)
	}
	// The top-level alternatives are chains of their own even when they
	// are all literals: a set too large for one stage splits into several.
	tops := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		tops = re.Sub
	}
	var bs [][]*syntax.Regexp
	for _, t := range tops {
		if bs = append(bs, branches(t)...); len(bs) > maxBranches {
			return nil
		}
	}
	m := &chainMatcher{}
	index := map[string]int32{}
	var rest []*syntax.Regexp
	maxMin, maxPreMax := int32(0), int32(0)
	for _, b := range bs {
		chain, ok := chainOf(b)
		if !ok {
			rest = append(rest, &syntax.Regexp{Op: syntax.OpConcat, Sub: b})
			continue
		}
		for i, c := range chain {
			g := int32(len(m.stages))
			st := chainStage{first: i == 0, last: i == len(chain)-1, min: c.min, max: c.max, cls: -1, pre: -1, next: -1, nextPre: -1}
			if i > 0 && c.max != 0 {
				st.cls = m.gapClass(c.class)
			}
			if c.pre != nil {
				st.pre = m.gapClass(c.pre)
				st.preSlot = int32(len(m.preGaps))
				m.preGaps = append(m.preGaps, st.pre)
				maxPreMax = max(maxPreMax, c.max)
			}
			if i > 0 {
				m.stages[g-1].next, m.stages[g-1].nextPre = st.cls, st.pre
			}
			maxMin = max(maxMin, c.min)
			m.stages = append(m.stages, st)
			for _, l := range c.lits {
				key := fmt.Sprintf("%d %d %s", l.start, l.end, l.s)
				li, seen := index[key]
				if !seen {
					li = int32(len(m.lits))
					index[key] = li
					m.lits = append(m.lits, l)
				}
				m.lits[li].stages = append(m.lits[li].stages, g)
			}
		}
	}
	if len(m.stages) == 0 {
		return nil
	}
	if len(rest) > 0 {
		expr := (&syntax.Regexp{Op: syntax.OpAlternate, Sub: rest}).String()
		if m.dfa = newRuneDFA(expr); m.dfa == nil {
			m.residual = regexp.MustCompile(expr)
		}
	}
	maxLen := 0
	for i := range m.lits {
		l := &m.lits[i]
		l.bad = make([]int32, len(m.gaps))
		for _, r := range l.s {
			l.runes++
			for c, cls := range m.gaps {
				if !inClass(cls, r) {
					l.bad[c]++
				}
			}
		}
		maxLen = max(maxLen, len(l.s))
	}
	m.ring = maxLen + 4*int(maxMin) + 1
	m.hist = maxLen + int(maxPreMax) + 2
	m.build()
	m.pool.New = func() any {
		return &chainState{marks: make([]chainMark, len(m.stages)*m.ring), n: make([]int, len(m.stages)),
			bad: make([]int32, len(m.gaps)), hist: make([]int32, len(m.preGaps)*m.hist)}
	}
	return m
}

// gapClass returns the index of class in m.gaps, adding it.
func (m *chainMatcher) gapClass(class []rune) int32 {
	for c, g := range m.gaps {
		if slices.Equal(g, class) {
			return int32(c)
		}
	}
	if len(m.gaps) == maxGapClasses {
		panic("injection: too many gap classes")
	}
	c := len(m.gaps)
	m.gaps = append(m.gaps, class)
	for b := range rune(utf8.RuneSelf) {
		if !inClass(class, b) {
			m.asciiBad[b] |= 1 << c
		}
	}
	return int32(c)
}

// branches lists the alternatives of re as sequences of pieces,
// distributing concatenation over the alternations that hold a gap (and
// so cannot be one literal set) and over small repeats of a group with a
// gap ("(?: [a-z]+){0,2}": none, one or two). What would make more than
// maxBranches stays one piece, which no chain reads.
func branches(re *syntax.Regexp) [][]*syntax.Regexp {
	one := [][]*syntax.Regexp{{re}}
	var out [][]*syntax.Regexp
	switch re.Op {
	case syntax.OpCapture:
		return branches(re.Sub[0])
	case syntax.OpAlternate:
		if !hasGap(re) && expandCount(re) <= maxAlternation {
			return one
		}
		for _, s := range re.Sub {
			out = append(out, branches(s)...)
		}
	case syntax.OpConcat:
		out = [][]*syntax.Regexp{nil}
		for _, s := range re.Sub {
			if out = crossBranches(out, branches(s)); out == nil {
				return one
			}
		}
	case syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 1
		if re.Op == syntax.OpRepeat {
			lo, hi = re.Min, re.Max
		}
		if classRunes(re.Sub[0]) != nil || !hasGap(re.Sub[0]) || hi < 0 {
			return one // a gap, or literals expand lists
		}
		sub, k := branches(re.Sub[0]), [][]*syntax.Regexp{nil}
		for n := 0; n <= hi && k != nil; n++ {
			if n >= lo {
				out = append(out, k...)
			}
			k = crossBranches(k, sub)
		}
	default:
		return one
	}
	if len(out) > maxBranches {
		return one
	}
	return out
}

// expandCount is len(expand(re)) (at most maxLiterals+1) without listing
// them; 0 when expand would refuse re.
func expandCount(re *syntax.Regexp) int {
	n := 0
	switch re.Op {
	case syntax.OpLiteral, syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 1
	case syntax.OpCharClass:
		if smallClass(re) {
			r := classRunes(re)
			for i := 0; i < len(r); i += 2 {
				n += int(r[i+1] - r[i] + 1)
			}
		}
	case syntax.OpCapture:
		n = expandCount(re.Sub[0])
	case syntax.OpQuest:
		n = 1 + expandCount(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			n += expandCount(s)
		}
	case syntax.OpConcat:
		n = 1
		for _, s := range re.Sub {
			n = min(n*expandCount(s), maxLiterals+1)
		}
	}
	return min(n, maxLiterals+1)
}

// crossBranches concatenates every head with every tail; nil when there
// would be more than maxBranches.
func crossBranches(heads, tails [][]*syntax.Regexp) [][]*syntax.Regexp {
	if len(heads)*len(tails) > maxBranches {
		return nil
	}
	var out [][]*syntax.Regexp
	for _, h := range heads {
		for _, t := range tails {
			out = append(out, append(slices.Clip(h), t...))
		}
	}
	return out
}

// hasGap reports whether re repeats something or has an optional large
// class: what expand would not list.
func hasGap(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		return true
	case syntax.OpQuest:
		if !smallClass(re.Sub[0]) && classRunes(re.Sub[0]) != nil {
			return true
		}
	}
	return slices.ContainsFunc(re.Sub, hasGap)
}

// classRunes returns the range pairs of a class, any-char or
// any-char-but-newline, or nil for anything else.
func classRunes(re *syntax.Regexp) []rune {
	switch re.Op {
	case syntax.OpCharClass:
		return re.Rune
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}
	case syntax.OpAnyChar:
		return []rune{0, utf8.MaxRune}
	}
	return nil
}

// smallClass reports a class expand lists rune by rune.
func smallClass(re *syntax.Regexp) bool {
	r := classRunes(re)
	if r == nil {
		return false
	}
	n := 0
	for i := 0; i < len(r); i += 2 {
		n += int(r[i+1] - r[i] + 1)
	}
	return n <= maxSmallClass
}

// chainPart is a stage of a chain being compiled: the gap before it and
// its literals.
type chainPart struct {
	min, max int32
	class    []rune
	pre      []rune // see chainStage.pre
	lits     []chainLit
}

// chainOf reads a branch's pieces as a chain; false when it is none.
func chainOf(pieces []*syntax.Regexp) (_ []chainPart, ok bool) {
	defer func() {
		if recover() != nil { // expand or literals refused a piece
			ok = false
		}
	}()
	var out []chainPart
	cur := chainPart{}
	seqs := [][]rune{nil}
	closeStage := func() bool {
		ls := literals(seqs)
		if len(ls) == 0 {
			return false
		}
		cur.lits = ls
		out = append(out, cur)
		return true
	}
	for _, p := range plusSplit(pieces) {
		if gmin, gmax, class, isGap := gapOf(p); isGap {
			if len(seqs) == 1 && len(seqs[0]) == 0 && len(out) == 1 && cur.min == 0 && cur.max < 0 && cur.pre == nil {
				// A second gap right after the first ("[.\n]\s*[^.\n]{0,40}").
				pre, ok := preClass(cur.class, class, out[0].lits)
				if !ok {
					return nil, false
				}
				cur = chainPart{min: gmin, max: gmax, class: class, pre: pre}
				continue
			}
			if !closeStage() {
				return nil, false
			}
			cur, seqs = chainPart{min: gmin, max: gmax, class: class}, [][]rune{nil}
			continue
		}
		add := expand(p)
		if len(seqs)*len(add) > stageSplit && !nullable(seqs) && !nullable(add) {
			// Literals that must touch: a stage of their own, gap {0,0}.
			if !closeStage() {
				return nil, false
			}
			cur, seqs = chainPart{}, [][]rune{nil}
		}
		if seqs = cross(seqs, add); len(seqs) > maxLiterals {
			return nil, false
		}
	}
	if !closeStage() {
		return nil, false
	}
	return out, true
}

// preClass reads the gap pre* just before a gap of class, after a first
// stage of lits, as (pre ∩ class)*: a rune of pre outside class must be
// one of the first stage's literals (single runes without assertions), so
// a match whose pre* holds one also matches from its last such rune on.
// Then every rune of the gaps is in class, and every one but the last
// max in pre ∩ class.
func preClass(pre, class []rune, lits []chainLit) ([]rune, bool) {
	var out []rune
	for i := 0; i < len(pre); i += 2 {
		for r := pre[i]; r <= pre[i+1]; r++ {
			if r-pre[i] > maxSmallClass {
				return nil, false
			}
			if inClass(class, r) {
				out = append(out, r, r)
				continue
			}
			if !slices.ContainsFunc(lits, func(l chainLit) bool {
				return l.s == string(r) && l.start == anyBoundary && l.end == anyBoundary
			}) {
				return nil, false
			}
		}
	}
	return out, true
}

// plusSplit rewrites x+ of a small class x as x x*: the x is literals
// (the stage "\b[a-z]+'s" after a gap then starts with a literal).
func plusSplit(pieces []*syntax.Regexp) []*syntax.Regexp {
	var out []*syntax.Regexp
	for _, p := range pieces {
		if p.Op == syntax.OpPlus && smallClass(p.Sub[0]) {
			out = append(out, p.Sub[0], &syntax.Regexp{Op: syntax.OpStar, Sub: p.Sub})
			continue
		}
		out = append(out, p)
	}
	return out
}

// gapOf reads p as a gap: a repeat of a class, unless the class is small
// and the repeat a ? (expand lists that).
func gapOf(p *syntax.Regexp) (gmin, gmax int32, class []rune, ok bool) {
	if len(p.Sub) != 1 {
		return 0, 0, nil, false
	}
	class = classRunes(p.Sub[0])
	if class == nil {
		return 0, 0, nil, false
	}
	switch p.Op {
	case syntax.OpStar:
		return 0, -1, class, true
	case syntax.OpPlus:
		return 1, -1, class, true
	case syntax.OpQuest:
		return 0, 1, class, !smallClass(p.Sub[0])
	case syntax.OpRepeat:
		if p.Min <= maxGapMin {
			return int32(p.Min), int32(p.Max), class, true
		}
	}
	return 0, 0, nil, false
}

func nullable(seqs [][]rune) bool {
	return slices.ContainsFunc(seqs, func(s []rune) bool { return !slices.ContainsFunc(s, func(r rune) bool { return r >= 0 }) })
}

func cross(heads, tails [][]rune) [][]rune {
	var out [][]rune
	for _, h := range heads {
		for _, t := range tails {
			out = append(out, append(slices.Clip(h), t...))
		}
	}
	return out
}

func inClass(ranges []rune, r rune) bool {
	for i := 0; i < len(ranges); i += 2 {
		if r < ranges[i] {
			return false
		}
		if r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// Sentinels of expand's rune sequences for the word-boundary assertions.
const (
	seqWordBoundary    rune = -1
	seqNonWordBoundary rune = -2
)

// literals returns the literals of the rune sequences, with the
// assertions at their ends; an assertion between two runes is decided by
// them. It panics on a sequence without runes (a stage must consume).
func literals(seqs [][]rune) []chainLit {
	var out []chainLit
	type key struct {
		s          string
		start, end assertion
	}
	seen := map[key]bool{}
	for _, seq := range seqs {
		var l chainLit
		i, j := 0, len(seq)
		for ; i < j && seq[i] < 0; i++ {
			l.start = l.start.and(seq[i])
		}
		for ; j > i && seq[j-1] < 0; j-- {
			l.end = l.end.and(seq[j-1])
		}
		if i == j {
			panic("injection: empty literal")
		}
		if l.start == contradiction || l.end == contradiction || !interiorHolds(seq[i:j]) {
			continue // an assertion that never holds
		}
		var b []byte
		for _, r := range seq[i:j] {
			if r >= 0 {
				if r == utf8.RuneError {
					panic("injection: U+FFFD in a literal (invalid bytes would match it)")
				}
				b = utf8.AppendRune(b, r)
			}
		}
		if len(b) > maxChainLiteral {
			panic("injection: literal too long")
		}
		l.s = string(b)
		if k := (key{l.s, l.start, l.end}); !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// and combines an assertion with another at the same position.
func (a assertion) and(r rune) assertion {
	b := wordBoundary
	if r == seqNonWordBoundary {
		b = nonWordBoundary
	}
	switch a {
	case anyBoundary, b:
		return b
	}
	return contradiction
}

// interiorHolds reports whether every assertion inside seq (between two
// runes, as runes come first and last) holds.
func interiorHolds(seq []rune) bool {
	for i, r := range seq {
		if r >= 0 {
			continue
		}
		prev, next := seq[i-1], seq[i+1]
		for k := i - 1; prev < 0; k-- {
			prev = seq[k-1]
		}
		for k := i + 1; next < 0; k++ {
			next = seq[k+1]
		}
		at := syntax.IsWordChar(prev) != syntax.IsWordChar(next)
		if at != (r == seqWordBoundary) {
			return false
		}
	}
	return true
}

// expand lists the rune sequences re matches (assertions as sentinels); re
// may use only literals, small classes, ?, alternation, concatenation and
// word-boundary assertions. It panics on anything else.
func expand(re *syntax.Regexp) [][]rune {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			break
		}
		return [][]rune{slices.Clone(re.Rune)}
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		if !smallClass(re) {
			break
		}
		var out [][]rune
		r := classRunes(re)
		for i := 0; i < len(r); i += 2 {
			for c := r[i]; c <= r[i+1]; c++ {
				out = append(out, []rune{c})
			}
		}
		return out
	case syntax.OpEmptyMatch:
		return [][]rune{nil}
	case syntax.OpWordBoundary:
		return [][]rune{{seqWordBoundary}}
	case syntax.OpNoWordBoundary:
		return [][]rune{{seqNonWordBoundary}}
	case syntax.OpCapture:
		return expand(re.Sub[0])
	case syntax.OpQuest:
		return append([][]rune{nil}, expand(re.Sub[0])...)
	case syntax.OpAlternate:
		var out [][]rune
		for _, s := range re.Sub {
			out = append(out, expand(s)...)
		}
		if len(out) <= maxLiterals {
			return out
		}
	case syntax.OpConcat:
		out := [][]rune{nil}
		for _, s := range re.Sub {
			if out = cross(out, expand(s)); len(out) > maxLiterals {
				panic("injection: literal set too large")
			}
		}
		return out
	}
	panic(fmt.Sprintf("injection: %v is not a small set of literals", re))
}

// build makes the automaton of m.lits (scan.NewAutomaton).
func (m *chainMatcher) build() {
	words := make([]string, len(m.lits))
	for i, l := range m.lits {
		words[i] = l.s
	}
	ac, ok := scan.NewAutomaton(words, 0)
	if !ok {
		panic("injection: the literals use every byte value") // TestFastSignalsRunNoRegexp builds them all
	}
	m.class, m.ncol, m.out = ac.Class, ac.Cols, ac.Out
	// Entries become the next state's row, doubled, plus one when
	// literals end there: no multiply per byte, and the common case (none)
	// decided without loading out.
	nc := int32(m.ncol)
	m.delta = make([]int32, len(ac.Delta))
	for i, nx := range ac.Delta {
		m.delta[i] = nx * nc << 1
		if len(m.out[nx]) > 0 {
			m.delta[i] |= 1
		}
	}
}

// chainMark is where a literal that completes a stage ended: its byte
// offset, the runes before it and the runes before it outside the classes
// of the gap after the stage (cls and pre).
type chainMark struct{ pos, runes, bad, pre int32 }

// chainState is one match's scratch: per stage a ring of its last m.ring
// distinct ends (marks[g*m.ring:], n[g] ends recorded), and the cursor's
// counts per gap class.
//
// A later stage's literal ending at t and starting at s needs the last
// end e of the stage before with runes(e) <= runes(s)-min (any earlier
// one spans more runes and every gap rune of it); fewer than m.ring ends
// lie after that (they are within 4*min+len bytes before t), so it is
// still in the ring. hist[slot*m.hist+i%m.hist] is how many of the first
// i runes are outside the pre class m.preGaps[slot], for the last m.hist
// values of i.
type chainState struct {
	marks []chainMark
	n     []int
	bad   []int32
	hist  []int32
}

// match reports whether the regexp m was compiled from matches text.
func (m *chainMatcher) match(text string) bool {
	switch {
	case m.matchChains(text):
		return true
	case m.dfa != nil:
		return m.dfa.match(text)
	}
	return m.residual != nil && m.residual.MatchString(text)
}

func (m *chainMatcher) matchChains(text string) bool {
	cs := m.pool.Get().(*chainState)
	defer m.pool.Put(cs)
	clear(cs.n)
	clear(cs.bad)
	pos, runes := 0, int32(0)
	row := int32(0) // the state's first entry in delta
	for i := 0; i < len(text); i++ {
		v := m.delta[row+int32(m.class[text[i]])]
		if row = v >> 1; v&1 == 0 {
			continue
		}
		end := i + 1
		// Walk runes up to end, a rune boundary at or after pos.
		for pos < end {
			b := text[pos]
			if b < utf8.RuneSelf {
				for c := m.asciiBad[b]; c != 0; c &= c - 1 {
					cs.bad[bits.TrailingZeros64(c)]++
				}
				pos++
			} else {
				r, n := utf8.DecodeRuneInString(text[pos:])
				for c, cls := range m.gaps {
					if !inClass(cls, r) {
						cs.bad[c]++
					}
				}
				pos += n
			}
			runes++
			for slot, c := range m.preGaps {
				cs.hist[slot*m.hist+int(runes)%m.hist] = cs.bad[c]
			}
		}
		for _, li := range m.out[row/int32(m.ncol)] {
			l := &m.lits[li]
			start := end - len(l.s)
			if !l.start.holds(text, start) || !l.end.holds(text, end) {
				continue
			}
			for _, g := range l.stages {
				s := &m.stages[g]
				if !s.first && !m.follows(cs, g, l, runes) {
					continue
				}
				if s.last {
					return true
				}
				mk := chainMark{int32(end), runes, 0, 0}
				if s.next >= 0 {
					mk.bad = cs.bad[s.next]
				}
				if s.nextPre >= 0 {
					mk.pre = cs.bad[s.nextPre]
				}
				m.push(cs, g, mk)
			}
		}
	}
	return false
}

// follows reports whether literal l, just found ending after runes runes,
// continues a match of the stages before stage g.
func (m *chainMatcher) follows(cs *chainState, g int32, l *chainLit, runes int32) bool {
	s := &m.stages[g]
	at := runes - l.runes // runes before l
	ring, n := cs.marks[int(g-1)*m.ring:int(g)*m.ring], cs.n[g-1]
	for k := n - 1; k >= max(0, n-m.ring); k-- {
		mk := ring[k%m.ring]
		if mk.runes > at-s.min {
			continue
		}
		if s.cls >= 0 && cs.bad[s.cls]-l.bad[s.cls] != mk.bad {
			return false
		}
		switch {
		case s.max < 0:
			return true
		case s.pre < 0:
			return at-mk.runes <= s.max
		}
		// The gap's runes before its last max are all in pre: as many
		// outside pre before them as before the gap.
		lim := at - s.max
		return lim <= mk.runes || cs.hist[int(s.preSlot)*m.hist+int(lim)%m.hist] == mk.pre
	}
	return false
}

// push records an end of stage g, once per position.
func (m *chainMatcher) push(cs *chainState, g int32, mk chainMark) {
	ring, n := cs.marks[int(g)*m.ring:int(g+1)*m.ring], cs.n[g]
	if n > 0 && ring[(n-1)%m.ring].pos == mk.pos {
		return
	}
	ring[n%m.ring] = mk
	cs.n[g] = n + 1
}

// holds reports whether the assertion holds at byte i of text, as Go's
// regexp decides \b: ASCII word characters on either side differ.
func (a assertion) holds(text string, i int) bool {
	if a == anyBoundary {
		return true
	}
	at := (i > 0 && isRegexpWordByte(text[i-1])) != (i < len(text) && isRegexpWordByte(text[i]))
	return at == (a == wordBoundary)
}

// isRegexpWordByte: [0-9A-Za-z_], regexp's \w; no byte of a multi-byte
// rune (nor an invalid byte, U+FFFD) is one.
func isRegexpWordByte(b byte) bool { return b < utf8.RuneSelf && syntax.IsWordChar(rune(b)) }
