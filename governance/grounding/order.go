package grounding

import (
	"fmt"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// OrderConfidence is the confidence of a contradiction resting on an order
// word ("before" / "after", "more" / "less") or on the words around one
// swapped: as a WordNet antonym, above the default min_confidence.
const OrderConfidence = 0.6

// breakBetween: a sentence or clause end (. ! ? , ; : or a bracket) lies
// between offsets i and j of text.
func breakBetween(text string, i, j int) bool {
	for k := i; k < j; k++ {
		if clausePunct[text[k]] {
			return true
		}
	}
	return false
}

var clausePunct = [256]bool{'\n': true, '!': true, '?': true, '.': true, ',': true, ';': true, ':': true, '(': true, ')': true}

// orderWords are the connectives the order check reads: "before" /
// "after" / "during" (one of the three in place of another orders two
// events differently: "restarts his computer during launching them" where
// the source says "before launching them"), "above" / "below" and the
// comparatives "more" / "less" / "fewer" are flipped by their opposite;
// the words around "before", "after" and "than" may be swapped ("B before
// A" for "A before B", "rainy more than cloudy" for "cloudy nicer than
// rainy"). "during" is not swapped: "A during B" and "B during A" often
// say the same.
var orderWords = [...]struct {
	w    string
	opp  []string
	swap bool
}{
	{"before", []string{"after", "during"}, true},
	{"after", []string{"before", "during"}, true},
	{"during", []string{"before", "after"}, false},
	{"than", nil, true},
	{"above", []string{"below"}, false},
	{"below", []string{"above"}, false},
	{"more", []string{"less", "fewer"}, false},
	{"less", []string{"more"}, false},
	{"fewer", []string{"more"}, false},
}

// eachOrderWord calls f for each whole word of the lower-case text l that
// is one of orderWords (k its index), at [i, j).
func eachOrderWord(l string, f func(k, i, j int)) {
	for i := 0; i < len(l); {
		c := l[i]
		if c < 'a' || c > 'z' {
			i++
			continue
		}
		j := i + 1
		for j < len(l) && l[j] >= 'a' && l[j] <= 'z' {
			j++
		}
		if k := orderWordAt(l, i, j); k >= 0 {
			f(k, i, j)
		}
		i = j
	}
}

// orderWordAt returns the index in orderWords of the run of lower-case
// letters l[i:j] (no letter either side), -1 when it is none or not a
// whole word. No two orderWords are the same.
func orderWordAt(l string, i, j int) int {
	if n := j - i; n >= 4 && n <= 6 && orderFirst[l[i]] && (i == 0 || !isWordByte(l[i-1])) && (j == len(l) || !isWordByte(l[j])) {
		for k, ow := range orderWords {
			if ow.w == l[i:j] {
				return k
			}
		}
	}
	return -1
}

// orderWordsIn returns the set of orderWords (bit i: orderWords[i]) that
// the lower-case answer la has as whole words: runs are the answer's
// answerRuns (the same offsets in la), which hold every run of letters
// eachOrderWord would look up.
func orderWordsIn(la string, runs []int32) uint16 {
	var has uint16
	for r := 0; r+1 < len(runs); r += 2 {
		if n := runs[r+1] - runs[r]; n < 4 || n > 6 {
			continue // orderWordAt's first test, without the call
		}
		if k := orderWordAt(la, int(runs[r]), int(runs[r+1])); k >= 0 {
			has |= 1 << k
		}
	}
	return has
}

// orderFirst marks the first letters of orderWords.
var orderFirst = func() (t [256]bool) {
	for _, ow := range orderWords {
		t[ow.w[0]] = true
	}
	return t
}()

// orderCtx is how many content words either side of a connective are its
// context.
const orderCtx = 2

// ctxIDs appends the ids of up to orderCtx content tokens of toks before
// (dir -1) or after (dir 1) the connective at [c0, c1) of text, in the same
// clause.
func ctxIDs(toks []tok, text string, c0, c1, dir int, out []int32) []int32 {
	if dir < 0 {
		k := tokAt(toks, c0) - 1
		for n := 0; k >= 0 && n < orderCtx; k, n = k-1, n+1 {
			if breakBetween(text, toks[k].end, c0) {
				break
			}
			out = append(out, toks[k].id)
		}
		return out
	}
	k := tokAt(toks, c1)
	for n := 0; k < len(toks) && n < orderCtx; k, n = k+1, n+1 {
		if breakBetween(text, c1, toks[k].start) {
			break
		}
		out = append(out, toks[k].id)
	}
	return out
}

// wordAt returns the offset of the first whole word w in the lower-cased
// text ls from offset from on, -1 when there is none.
func wordAt(ls, w string, from int) int {
	for i := from; ; {
		k := strings.Index(ls[i:], w)
		if k < 0 {
			return -1
		}
		k += i
		if (k == 0 || !isWordByte(ls[k-1])) && (k+len(w) == len(ls) || !isWordByte(ls[k+len(w)])) {
			return k
		}
		i = k + 1
	}
}

// orderKey is a connective of the source (its index in orderWords) with
// a content word before it and one after it, in its clause.
type orderKey struct {
	w             uint8
	before, after int32
}

// indexOrder maps each connective of the lower-cased source ls, with every
// pair of its context words, to the offset of its first occurrence: one
// pass, so that orderFlip looks each answer connective up instead of
// comparing it with every source connective (quadratic on a long text).
func (s *state) indexOrder(source, ls string) map[orderKey]int {
	if s.orderIdx == nil {
		s.orderIdx = map[orderKey]int{}
	}
	idx := s.orderIdx
	clear(idx)
	var b1, a1 [orderCtx]int32
	eachOrderWord(ls, func(k, i, j int) {
		sb := ctxIDs(s.stoks, source, i, j, -1, b1[:0])
		sa := ctxIDs(s.stoks, source, i, j, 1, a1[:0])
		for _, y := range sa {
			// The connective with what follows it alone (anyBefore):
			// orderFlip's one-sided reading.
			if _, ok := idx[orderKey{uint8(k), anyBefore, y}]; !ok {
				idx[orderKey{uint8(k), anyBefore, y}] = i
			}
		}
		for _, x := range sb {
			for _, y := range sa {
				if _, ok := idx[orderKey{uint8(k), x, y}]; !ok {
					idx[orderKey{uint8(k), x, y}] = i
				}
			}
		}
	})
	return idx
}

// anyBefore stands for any word before a connective in indexOrder's keys;
// anyOne is it as firstPair's before words.
const anyBefore = -1

var anyOne = [1]int32{anyBefore}

// orderDuring is the index in orderWords of "during", after "before" and
// "after", each the other's first opposite.
const orderDuring = 2

// orderIndex returns the index of the word w in orderWords.
func orderIndex(w string) uint8 {
	for k, ow := range orderWords {
		if ow.w == w {
			return uint8(k)
		}
	}
	panic("grounding: not an order word: " + w)
}

// firstPair returns the earliest source offset of connective k with a
// word of before before it and a word of after after it (distinct words
// when distinct), -1 when the source has none.
func firstPair(idx map[orderKey]int, k uint8, before, after []int32, distinct bool) int {
	first := -1
	for _, x := range before {
		for _, y := range after {
			if distinct && x == y {
				continue
			}
			if at, ok := idx[orderKey{k, x, y}]; ok && (first < 0 || at < first) {
				first = at
			}
		}
	}
	return first
}

// orderFlip: a connective of the answer between two words the source has
// on either side of its opposite ("restarts his computer after launching"
// where the source says "restart your computer before launching") and
// never of the answer's connective, or between two words the source has
// the other way round around the same connective ("liked rainy weather
// more than cloudy" where the source says "cloudy is nicer than rainy").
func (s *state) orderFlip(answer, source string) (Evidence, bool) {
	la := s.lowerAnswer(answer)
	has := orderWordsIn(la, s.answerRuns(answer))
	if has == 0 {
		return Evidence{}, false
	}
	var idx map[orderKey]int
	var b0, a0 [orderCtx]int32
	for oi, ow := range orderWords {
		if has&(1<<oi) == 0 {
			continue
		}
		if idx == nil {
			idx = s.indexOrder(source, s.lowerSource())
		}
		for at := wordAt(la, ow.w, 0); at >= 0; at = wordAt(la, ow.w, at+1) {
			before := ctxIDs(s.atoks, answer, at, at+len(ow.w), -1, b0[:0])
			after := ctxIDs(s.atoks, answer, at, at+len(ow.w), 1, a0[:0])
			if len(before) == 0 || len(after) == 0 {
				continue
			}
			// The source states the answer's order: nothing to flag.
			if firstPair(idx, uint8(oi), before, after, false) >= 0 {
				continue
			}
			if ow.swap {
				if st := firstPair(idx, uint8(oi), after, before, true); st >= 0 {
					return orderEvidence(answer, source, at, ow.w, st, ow.w,
						fmt.Sprintf("the answer has the words around %q the other way round", ow.w)), true
				}
			}
			for _, opp := range ow.opp {
				if st := firstPair(idx, orderIndex(opp), before, after, false); st >= 0 {
					return oppositeOrder(answer, source, at, ow.w, st, opp), true
				}
			}
			// One-sided, for the order words of events: the source has the
			// opposite before the same word and never the answer's ("built
			// in 1858 before two wrecks" where the source says "In 1858,
			// after two ships were wrecked": a comma leaves its "after"
			// nothing before it in its clause).
			// "during" neither way: "after an inspection found" for
			// "during an inspection" is the same order.
			if oi >= orderDuring || firstPair(idx, uint8(oi), anyOne[:], after, false) >= 0 {
				continue
			}
			opp := ow.opp[0]
			if st := firstPair(idx, orderIndex(opp), anyOne[:], after, false); st >= 0 {
				return oppositeOrder(answer, source, at, ow.w, st, opp), true
			}
		}
	}
	return Evidence{}, false
}

// oppositeOrder is orderEvidence for the answer's connective w at at where
// the source has its opposite opp at st.
func oppositeOrder(answer, source string, at int, w string, st int, opp string) Evidence {
	return orderEvidence(answer, source, at, w, st, opp,
		fmt.Sprintf("the answer says %q where the source says %q", answer[at:at+len(w)], source[st:st+len(opp)]))
}

func orderEvidence(answer, source string, at int, w string, st int, sw, why string) Evidence {
	a0, a1 := clauseAround(answer, at, at+len(w))
	s0, s1 := clauseAround(source, st, st+len(sw))
	return Evidence{AnswerSpan: scan.Span{Start: a0, End: a1}, AnswerText: answer[a0:a1],
		SourceSpan: &scan.Span{Start: s0, End: s1}, SourceText: source[s0:s1], Reason: why}
}

// clauseAround widens [i, j) of text to its clause.
func clauseAround(text string, i, j int) (int, int) {
	for i > 0 && !clausePunct[text[i-1]] {
		i--
	}
	for j < len(text) && !clausePunct[text[j]] {
		j++
	}
	sp := trimSpan(text, i, j)
	return sp.Start, sp.End
}
