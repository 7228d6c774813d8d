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
// "after", "above" / "below" and the comparatives "more" / "less" /
// "fewer" are flipped by their opposite; the words around "before", "after" and "than" may be
// swapped ("B before A" for "A before B", "rainy more than cloudy" for
// "cloudy nicer than rainy").
var orderWords = [...]struct {
	w, opp1, opp2 string
	swap          bool
}{
	{"before", "after", "", true},
	{"after", "before", "", true},
	{"than", "", "", true},
	{"above", "below", "", false},
	{"below", "above", "", false},
	{"more", "less", "fewer", false},
	{"less", "more", "", false},
	{"fewer", "more", "", false},
}

// orderWordsIn returns the set of orderWords (bit i: orderWords[i]) that
// the lower-case text la has as whole words, in one pass.
func orderWordsIn(la string) uint16 {
	var has uint16
	for i := 0; i < len(la); {
		c := la[i]
		if c < 'a' || c > 'z' {
			i++
			continue
		}
		j := i + 1
		for j < len(la) && la[j] >= 'a' && la[j] <= 'z' {
			j++
		}
		if n := j - i; n >= 4 && n <= 6 && orderFirst[c] && (i == 0 || !isWordByte(la[i-1])) && (j == len(la) || !isWordByte(la[j])) {
			for k, ow := range orderWords {
				if ow.w == la[i:j] {
					has |= 1 << k
				}
			}
		}
		i = j
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

func shareID(a, b []int32) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// shareDistinct: a and b share a word, and c and d share another one.
func shareDistinct(a, b, c, d []int32) bool {
	for _, x := range a {
		if !containsID(b, x) {
			continue
		}
		for _, y := range c {
			if y != x && containsID(d, y) {
				return true
			}
		}
	}
	return false
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

// orderFlip: a connective of the answer between two words the source has
// on either side of its opposite ("restarts his computer after launching"
// where the source says "restart your computer before launching") and
// never of the answer's connective, or between two words the source has
// the other way round around the same connective ("liked rainy weather
// more than cloudy" where the source says "cloudy is nicer than rainy").
func (s *state) orderFlip(answer, source string) (Evidence, bool) {
	la, ls := s.lowerAnswer(answer), ""
	has := orderWordsIn(la)
	if has == 0 {
		return Evidence{}, false
	}
	var b0, a0, b1, a1 [orderCtx]int32
	for oi, ow := range orderWords {
		if has&(1<<oi) == 0 {
			continue
		}
		if ls == "" {
			ls = s.lowerSource()
		}
		for at := wordAt(la, ow.w, 0); at >= 0; at = wordAt(la, ow.w, at+1) {
			before := ctxIDs(s.atoks, answer, at, at+len(ow.w), -1, b0[:0])
			after := ctxIDs(s.atoks, answer, at, at+len(ow.w), 1, a0[:0])
			if len(before) == 0 || len(after) == 0 {
				continue
			}
			// The source states the answer's order: nothing to flag.
			same, swapped := false, -1
			for st := wordAt(ls, ow.w, 0); st >= 0 && !same; st = wordAt(ls, ow.w, st+1) {
				sb := ctxIDs(s.stoks, source, st, st+len(ow.w), -1, b1[:0])
				sa := ctxIDs(s.stoks, source, st, st+len(ow.w), 1, a1[:0])
				if shareID(before, sb) && shareID(after, sa) {
					same = true
				} else if ow.swap && swapped < 0 && shareDistinct(before, sa, after, sb) {
					swapped = st
				}
			}
			if same {
				continue
			}
			if swapped >= 0 {
				return orderEvidence(answer, source, at, ow.w, swapped, ow.w,
					fmt.Sprintf("the answer has the words around %q the other way round", ow.w)), true
			}
			for _, opp := range [...]string{ow.opp1, ow.opp2} {
				if opp == "" {
					continue
				}
				for st := wordAt(ls, opp, 0); st >= 0; st = wordAt(ls, opp, st+1) {
					sb := ctxIDs(s.stoks, source, st, st+len(opp), -1, b1[:0])
					sa := ctxIDs(s.stoks, source, st, st+len(opp), 1, a1[:0])
					if shareID(before, sb) && shareID(after, sa) {
						return orderEvidence(answer, source, at, ow.w, st, opp,
							fmt.Sprintf("the answer says %q where the source says %q", answer[at:at+len(ow.w)], source[st:st+len(opp)])), true
					}
				}
			}
		}
	}
	return Evidence{}, false
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
