package injection

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// A pairMatcher decides, without running it, a regexp that is an
// alternation of clauses "(?:A)[C]{0,n}(?:B)": a literal of the finite set
// A, at most n runes of the class C, a literal of the finite set B, where
// the literals may carry \b or \B at their ends. Go's regexp runs such an
// alternation of a hundred literals at up to 2.5 µs per byte, and a flood
// of trigger words makes the signals search all of a 256 KiB text; this
// finds every literal in one pass of an Aho-Corasick automaton and keeps,
// per clause, only the A occurrences that can still start a match.
//
// It gives MatchString's answer on every input, valid UTF-8 or not: the
// literals are matched byte for byte (a literal's bytes decode to its runes
// wherever they occur, and start at a rune boundary), \b is Go's ASCII
// word boundary, and the gap counts runes as the regexp decodes them, an
// invalid byte being one rune U+FFFD.
type pairMatcher struct {
	class   [256]uint8 // byte -> column of delta
	ncol    int
	delta   []int32   // state*ncol+column -> next state (full DFA)
	out     [][]int32 // state -> indices of lits ending there
	lits    []pairLit
	clauses []pairClause
	maxLen  int // bytes of the longest literal
}

// maxClauses bounds the clauses of a pairMatcher (fixed-size match state).
const maxClauses = 4

// pairLit is one literal of the clauses' sets with the assertions at its
// ends and, per clause, whether it is that clause's first or second part.
type pairLit struct {
	s           string
	start, end  assertion
	runes       int32
	bad         [maxClauses]int32 // its runes outside clause k's gap class
	first, last uint8             // bit k: in clause k's set A, set B
}

// pairClause is "A[C]{0,max}B": the gap class C and its bound.
type pairClause struct {
	max      int32
	asciiBad [utf8.RuneSelf]bool // ASCII runes outside C
	ranges   []rune              // C as syntax.Regexp.Rune pairs
}

// assertion is the empty-width condition at a literal's end.
type assertion uint8

const (
	anyBoundary assertion = iota
	wordBoundary
	nonWordBoundary
)

// maxPairLiteral bounds a literal's bytes (fixed-size rings in match).
const maxPairLiteral = 63

// maxLiterals bounds the expansion of a literal set (a guard against a
// pattern that is not the small finite set it should be).
const maxLiterals = 4096

// newPairMatcher compiles expr, which must be such an alternation of
// clauses (syntax.Perl flags, as regexp.Compile parses); it panics on any
// other form, as regexp.MustCompile does on a bad pattern.
func newPairMatcher(expr string) *pairMatcher {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(err)
	}
	branches := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		branches = re.Sub
	}
	if len(branches) > maxClauses {
		panic(fmt.Sprintf("injection: %d clauses in pair pattern %q", len(branches), expr))
	}
	m := &pairMatcher{}
	index := map[pairLit]int{}
	add := func(l pairLit, k int, second bool) {
		key := pairLit{s: l.s, start: l.start, end: l.end}
		i, ok := index[key]
		if !ok {
			i = len(m.lits)
			index[key] = i
			m.lits = append(m.lits, key)
		}
		if second {
			m.lits[i].last |= 1 << k
		} else {
			m.lits[i].first |= 1 << k
		}
	}
	for k, b := range branches {
		a, gap, z := splitClause(b, expr)
		c := pairClause{max: int32(gap.Max), ranges: gapClass(gap.Sub[0], expr)}
		for r := range rune(utf8.RuneSelf) {
			c.asciiBad[r] = !inClass(c.ranges, r)
		}
		m.clauses = append(m.clauses, c)
		for _, l := range literals(a, expr) {
			add(l, k, false)
		}
		for _, l := range literals(z, expr) {
			add(l, k, true)
		}
	}
	for i := range m.lits {
		l := &m.lits[i]
		for _, r := range l.s {
			l.runes++
			for k := range m.clauses {
				if !inClass(m.clauses[k].ranges, r) {
					l.bad[k]++
				}
			}
		}
		m.maxLen = max(m.maxLen, len(l.s))
	}
	if m.maxLen > maxPairLiteral {
		panic(fmt.Sprintf("injection: literal of more than %d bytes in %q", maxPairLiteral, expr))
	}
	m.build()
	return m
}

// splitClause splits a clause at its one gap, a repeat {0,n} of a class:
// the pieces before it are the first literal set, those after the second.
func splitClause(b *syntax.Regexp, expr string) (first *syntax.Regexp, gap *syntax.Regexp, second *syntax.Regexp) {
	if b.Op == syntax.OpConcat {
		for i, p := range b.Sub {
			if p.Op != syntax.OpRepeat || p.Min != 0 || p.Max < 0 {
				continue
			}
			return &syntax.Regexp{Op: syntax.OpConcat, Sub: b.Sub[:i]}, p,
				&syntax.Regexp{Op: syntax.OpConcat, Sub: b.Sub[i+1:]}
		}
	}
	panic(fmt.Sprintf("injection: clause %q of %q has no gap {0,n}", b, expr))
}

// gapClass returns the runes a gap may hold as sorted range pairs.
func gapClass(re *syntax.Regexp, expr string) []rune {
	switch re.Op {
	case syntax.OpCharClass:
		return re.Rune
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}
	case syntax.OpAnyChar:
		return []rune{0, utf8.MaxRune}
	}
	panic(fmt.Sprintf("injection: gap %q of %q is not a class", re, expr))
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

// literals returns the literals re matches, with the assertions at their
// ends; an assertion between two runes is decided by them and kept out.
func literals(re *syntax.Regexp, expr string) []pairLit {
	var out []pairLit
	for _, seq := range expand(re, expr) {
		var l pairLit
		i, j := 0, len(seq)
		for ; i < j && seq[i] < 0; i++ {
			if l.start = l.start.and(seq[i]); l.start > nonWordBoundary {
				break
			}
		}
		for ; j > i && seq[j-1] < 0; j-- {
			if l.end = l.end.and(seq[j-1]); l.end > nonWordBoundary {
				break
			}
		}
		if l.start > nonWordBoundary || l.end > nonWordBoundary || !interiorHolds(seq[i:j]) {
			continue // an assertion that never holds
		}
		var b []byte
		for _, r := range seq[i:j] {
			if r >= 0 {
				if r == utf8.RuneError {
					panic(fmt.Sprintf("injection: U+FFFD in literal of %q (invalid bytes would match it)", expr))
				}
				b = utf8.AppendRune(b, r)
			}
		}
		if len(b) == 0 {
			panic(fmt.Sprintf("injection: empty literal in %q", expr))
		}
		l.s = string(b)
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// and combines an assertion with another at the same position; a result
// above nonWordBoundary means they contradict.
func (a assertion) and(r rune) assertion {
	b := wordBoundary
	if r == seqNonWordBoundary {
		b = nonWordBoundary
	}
	switch a {
	case anyBoundary, b:
		return b
	}
	return nonWordBoundary + 1
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
// word-boundary assertions.
func expand(re *syntax.Regexp, expr string) [][]rune {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			break
		}
		return [][]rune{slices.Clone(re.Rune)}
	case syntax.OpCharClass:
		var out [][]rune
		for i := 0; i < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && len(out) <= maxLiterals; r++ {
				out = append(out, []rune{r})
			}
		}
		if len(out) <= maxLiterals {
			return out
		}
	case syntax.OpEmptyMatch:
		return [][]rune{nil}
	case syntax.OpWordBoundary:
		return [][]rune{{seqWordBoundary}}
	case syntax.OpNoWordBoundary:
		return [][]rune{{seqNonWordBoundary}}
	case syntax.OpCapture:
		return expand(re.Sub[0], expr)
	case syntax.OpQuest:
		return append([][]rune{nil}, expand(re.Sub[0], expr)...)
	case syntax.OpAlternate:
		var out [][]rune
		for _, s := range re.Sub {
			out = append(out, expand(s, expr)...)
		}
		if len(out) <= maxLiterals {
			return out
		}
	case syntax.OpConcat:
		out := [][]rune{nil}
		for _, s := range re.Sub {
			var next [][]rune
			for _, tail := range expand(s, expr) {
				for _, head := range out {
					next = append(next, append(slices.Clip(head), tail...))
				}
			}
			if out = next; len(out) > maxLiterals {
				break
			}
		}
		if len(out) <= maxLiterals {
			return out
		}
	}
	panic(fmt.Sprintf("injection: %q in %q is not a small set of literals", re, expr))
}

// build makes the automaton of m.lits: a trie over byte columns (bytes no
// literal uses share column 0), completed breadth first into a DFA whose
// states list the literals ending there, their failure states' included.
func (m *pairMatcher) build() {
	var used [256]bool
	total := 0
	for _, l := range m.lits {
		for i := 0; i < len(l.s); i++ {
			used[l.s[i]] = true
		}
		total += len(l.s)
	}
	m.ncol = 1
	for b, u := range used {
		if u {
			m.class[b] = uint8(m.ncol)
			m.ncol++
		}
	}
	nc := m.ncol
	delta := make([]int32, nc, (total+1)*nc)
	ends := [][]int32{nil}
	for li, l := range m.lits {
		st := int32(0)
		for i := 0; i < len(l.s); i++ {
			c := int(m.class[l.s[i]])
			nx := delta[int(st)*nc+c]
			if nx == 0 {
				nx = int32(len(ends))
				ends = append(ends, nil)
				delta = append(delta, make([]int32, nc)...)
				delta[int(st)*nc+c] = nx
			}
			st = nx
		}
		ends[st] = append(ends[st], int32(li))
	}
	fail := make([]int32, len(ends))
	m.out = make([][]int32, len(ends))
	var queue []int32
	for c := range nc {
		if nx := delta[c]; nx != 0 {
			queue = append(queue, nx)
		}
	}
	for qi := 0; qi < len(queue); qi++ {
		st := queue[qi]
		m.out[st] = append(slices.Clip(ends[st]), m.out[fail[st]]...)
		for c := range nc {
			if nx := delta[int(st)*nc+c]; nx != 0 {
				fail[nx] = delta[int(fail[st])*nc+c]
				queue = append(queue, nx)
			} else {
				delta[int(st)*nc+c] = delta[int(fail[st])*nc+c]
			}
		}
	}
	m.delta = delta
}

// pairMark is where an occurrence of a clause's first literal ended: its
// byte offset, and the runes and gap-class misses before it.
type pairMark struct{ pos, runes, bad int32 }

// pairRing holds a clause's last len(marks) distinct first-literal ends.
// A second literal starting at s ends at most m.maxLen bytes later, so
// fewer than m.maxLen+1 recorded ends lie after s: the last end at or
// before s, the only candidate for a match (any earlier one spans more
// runes and every gap rune of it), is still in the ring.
type pairRing struct {
	marks []pairMark
	n     int // ends recorded
}

func (r *pairRing) push(mk pairMark) {
	if r.n > 0 && r.marks[(r.n-1)%len(r.marks)].pos == mk.pos {
		return
	}
	r.marks[r.n%len(r.marks)] = mk
	r.n++
}

// before returns the last recorded end at or before pos.
func (r *pairRing) before(pos int32) (pairMark, bool) {
	for i := r.n - 1; i >= max(0, r.n-len(r.marks)); i-- {
		if mk := r.marks[i%len(r.marks)]; mk.pos <= pos {
			return mk, true
		}
	}
	return pairMark{}, false
}

// runeCursor walks text rune by rune as the regexp decodes it, counting
// runes and, per clause, the runes outside its gap class.
type runeCursor struct {
	pos, runes int32
	bad        [maxClauses]int32
}

// advance moves the cursor to to, a rune boundary at or after it.
func (c *runeCursor) advance(m *pairMatcher, text string, to int32) {
	for c.pos < to {
		b := text[c.pos]
		if b < utf8.RuneSelf {
			for k := range m.clauses {
				if m.clauses[k].asciiBad[b] {
					c.bad[k]++
				}
			}
			c.pos++
			c.runes++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[c.pos:])
		for k := range m.clauses {
			if !inClass(m.clauses[k].ranges, r) {
				c.bad[k]++
			}
		}
		c.pos += int32(n)
		c.runes++
	}
}

// match reports whether the regexp m was compiled from matches text.
func (m *pairMatcher) match(text string) bool {
	var ring [maxClauses]pairRing
	var buf [maxClauses * (maxPairLiteral + 1)]pairMark
	size := m.maxLen + 1
	for k := range m.clauses {
		ring[k].marks = buf[k*size : (k+1)*size]
	}
	var cur runeCursor
	st := int32(0)
	for i := 0; i < len(text); i++ {
		st = m.delta[int(st)*m.ncol+int(m.class[text[i]])]
		if len(m.out[st]) == 0 {
			continue
		}
		end := int32(i + 1)
		cur.advance(m, text, end)
		for _, li := range m.out[st] {
			l := &m.lits[li]
			start := end - int32(len(l.s))
			if !l.start.holds(text, int(start)) || !l.end.holds(text, int(end)) {
				continue
			}
			for k := range m.clauses {
				if l.last&(1<<k) == 0 {
					continue
				}
				mk, ok := ring[k].before(start)
				if ok && cur.bad[k]-l.bad[k] == mk.bad && cur.runes-l.runes-mk.runes <= m.clauses[k].max {
					return true
				}
			}
			for k := range m.clauses {
				if l.first&(1<<k) != 0 {
					ring[k].push(pairMark{end, cur.runes, cur.bad[k]})
				}
			}
		}
	}
	return false
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
