package injection

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"sort"
	"unicode/utf8"
)

// A runeDFA decides MatchString of a regexp with a deterministic
// automaton over runes, built whole when the regexp is compiled: one
// table lookup per rune where Go's regexp steps every live thread of its
// NFA. The branches no chain reads (override's runs of qualifiers) are
// small word grammars whose automaton has a few hundred states; a
// regexp whose automaton would exceed maxDFAStates gets none.
//
// A state is the set of NFA instructions waiting for the next rune and
// the kind of the rune before it (none yet, newline, word character,
// other), which with the next rune's kind decides the empty-width
// assertions (\b, ^, $ of (?m)) exactly as regexp's EmptyOpContext does.
// Runes are grouped into classes no instruction tells apart; an invalid
// byte is U+FFFD, as the regexp reads it.
type runeDFA struct {
	ascii   [utf8.RuneSelf]uint8 // ASCII rune -> class
	starts  []rune               // non-ASCII: class of r is classOf[i] for the last starts[i] <= r
	classOf []uint8
	nclass  int
	// next[s*nclass+c] is the state after a rune of class c in state s;
	// matched marks the states whose closure holds a match, end the
	// states that match at the end of the text.
	next    []int32
	matched []bool
	end     []bool
}

// maxDFAStates and maxDFAClasses bound the automaton (a few MiB at most).
const (
	maxDFAStates  = 4096
	maxDFAClasses = 255
)

// Kinds of the rune before a position.
const (
	kindStart = iota
	kindNewline
	kindWord
	kindOther
)

// newRuneDFA builds the automaton of expr (syntax.Perl, as
// regexp.Compile), or returns nil when it would be too large.
func newRuneDFA(expr string) *runeDFA {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		panic(err)
	}
	d := &runeDFA{}
	reps, ok := d.classes(prog)
	if !ok {
		return nil
	}
	b := dfaBuilder{prog: prog, index: map[string]int32{}}
	b.state(nil, kindStart)
	for s := 0; s < len(b.sets); s++ {
		if len(b.sets) > maxDFAStates {
			return nil
		}
		set, kind := b.sets[s], b.kinds[s]
		// The closure depends on the next rune only through its kind.
		var closures [kindOther + 1][]uint32
		var matches [kindOther + 1]bool
		for k := kindNewline; k <= kindOther && kind >= 0; k++ {
			closures[k], matches[k] = b.closure(set, kind, kindRune[k])
		}
		for c := range d.nclass {
			k := runeKind(reps[c])
			b.next = append(b.next, b.step(closures[k], matches[k] || kind < 0, reps[c]))
		}
		_, atEnd := b.closure(set, max(kind, 0), -1)
		b.end = append(b.end, atEnd || kind < 0)
	}
	d.next, d.end = b.next, b.end
	d.matched = make([]bool, len(b.sets))
	for s := range b.sets {
		// A state reached right after a match: its closure held Match
		// whatever rune came next; step marks it with a negative set.
		d.matched[s] = b.kinds[s] < 0
	}
	return d
}

// classes groups runes by what every rune instruction, \b and ^/$ of
// (?m) make of them, and returns a representative rune per class.
func (d *runeDFA) classes(prog *syntax.Prog) (reps []rune, ok bool) {
	cuts := []rune{0, utf8.RuneSelf, '\n', '\n' + 1}
	for c := range rune(utf8.RuneSelf) {
		if syntax.IsWordChar(c) != syntax.IsWordChar(c-1) {
			cuts = append(cuts, c)
		}
	}
	for _, in := range prog.Inst {
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1:
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				return nil, false
			}
			if len(in.Rune) == 1 {
				cuts = append(cuts, in.Rune[0], in.Rune[0]+1)
				continue
			}
			for i, r := range in.Rune {
				if i%2 == 1 {
					r++ // ranges are closed
				}
				cuts = append(cuts, r)
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	sig := map[string]uint8{}
	classOf := func(r rune) uint8 {
		var key []byte
		key = append(key, byte(runeKind(r)))
		for _, in := range prog.Inst {
			switch in.Op {
			case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
				m := byte(0)
				if in.MatchRune(r) {
					m = 1
				}
				key = append(key, m)
			}
		}
		c, seen := sig[string(key)]
		if !seen {
			c = uint8(len(reps))
			sig[string(key)] = c
			reps = append(reps, r)
		}
		return c
	}
	for i, r := range cuts {
		if r > utf8.MaxRune {
			break
		}
		if len(reps) >= maxDFAClasses {
			return nil, false
		}
		if r < utf8.RuneSelf {
			hi := rune(utf8.RuneSelf)
			if i+1 < len(cuts) {
				hi = min(cuts[i+1], utf8.RuneSelf)
			}
			for a := r; a < hi; a++ {
				d.ascii[a] = classOf(a)
			}
			continue
		}
		d.starts = append(d.starts, r)
		d.classOf = append(d.classOf, classOf(r))
	}
	d.nclass = len(reps)
	return reps, true
}

func runeKind(r rune) int {
	switch {
	case r < 0:
		return kindStart
	case r == '\n':
		return kindNewline
	case syntax.IsWordChar(r):
		return kindWord
	}
	return kindOther
}

// kindRune is a rune of each kind, for EmptyOpContext.
var kindRune = [...]rune{kindStart: -1, kindNewline: '\n', kindWord: 'a', kindOther: ' '}

// dfaBuilder explores the automaton breadth first.
type dfaBuilder struct {
	prog  *syntax.Prog
	seen  []uint32 // closure's visited marks: the closure count when visited
	calls uint32
	index map[string]int32
	sets  [][]uint32
	kinds []int // kind of the previous rune; -1 for the match state
	next  []int32
	end   []bool
}

// state returns the id of (set, kind), adding it.
func (b *dfaBuilder) state(set []uint32, kind int) int32 {
	key := make([]byte, 1, 1+4*len(set))
	key[0] = byte(kind + 1)
	for _, pc := range set {
		key = binary.LittleEndian.AppendUint32(key, pc)
	}
	if id, ok := b.index[string(key)]; ok {
		return id
	}
	id := int32(len(b.sets))
	b.index[string(key)] = id
	b.sets = append(b.sets, set)
	b.kinds = append(b.kinds, kind)
	return id
}

// closure returns the instructions reachable from set plus the start
// (the search is unanchored) without consuming a rune, between a rune of
// kind kind and next (-1: end of text), and whether a match is among them.
func (b *dfaBuilder) closure(set []uint32, kind int, next rune) (runes []uint32, match bool) {
	flag := syntax.EmptyOpContext(kindRune[kind], next)
	if b.seen == nil {
		b.seen = make([]uint32, len(b.prog.Inst))
	}
	b.calls++
	stack := append([]uint32{uint32(b.prog.Start)}, set...)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b.seen[pc] == b.calls {
			continue
		}
		b.seen[pc] = b.calls
		in := &b.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flag == 0 {
				stack = append(stack, in.Out)
			}
		case syntax.InstMatch:
			match = true
		case syntax.InstFail:
		default:
			runes = append(runes, pc)
		}
	}
	return runes, match
}

// step returns the state after rune r (a class representative) given
// the closure before it; the match state once a match is found.
func (b *dfaBuilder) step(closure []uint32, match bool, r rune) int32 {
	if match {
		return b.state(nil, -1)
	}
	var out []uint32
	for _, pc := range closure {
		if in := &b.prog.Inst[pc]; in.MatchRune(r) {
			out = append(out, in.Out)
		}
	}
	slices.Sort(out)
	return b.state(slices.Compact(out), runeKind(r))
}

// match reports whether the regexp d was built from matches text.
func (d *runeDFA) match(text string) bool {
	s := int32(0)
	for i := 0; i < len(text); {
		var c uint8
		if b := text[i]; b < utf8.RuneSelf {
			c = d.ascii[b]
			i++
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			c = d.classOf[sort.Search(len(d.starts), func(k int) bool { return d.starts[k] > r })-1]
			i += n
		}
		s = d.next[int(s)*d.nclass+int(c)]
		if d.matched[s] {
			return true
		}
	}
	return d.end[s]
}
