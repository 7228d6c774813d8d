package grounding

import (
	"fmt"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// QuantifierConfidence is the confidence of a contradiction resting on a
// quantifier of the other kind than the source's on the same words
// (quantifierChange): as an antonym, above the default min_confidence.
const QuantifierConfidence = 0.6

// Quantifier kinds: universal ("all examples") and partial ("many
// examples"). "most" is left out: "the most effective methods" is a
// superlative as often, and "at most" a bound. "any" and "no" are the
// negation checks' and "none" a pronoun.
const (
	quantUniversal = 1
	quantPartial   = 2
)

// quantifiers maps each quantifier word to its kind.
var quantifiers = map[string]int{
	"all": quantUniversal, "every": quantUniversal, "each": quantUniversal,
	"many": quantPartial, "some": quantPartial, "few": quantPartial, "several": quantPartial,
}

// maxQuantifiers bounds the quantifiers read in a text: an answer or a
// source repeating "all" more often says nothing more, and each answer
// quantifier is compared with each source one.
const maxQuantifiers = 16

// quant is a quantifier in a text: its kind and the ids of the (at most
// two) content words after it in its clause, 0-padded with -1.
type quant struct {
	at, end int
	kind    int
	next    [2]int32
}

// quantsOf appends the quantifiers of the lower-case text l, whose content
// tokens are toks, to out (at most maxQuantifiers). A quantifier under
// "not" ("not all") is partial, and "all" after "at", "after" or "above"
// ("at all", "after all") or "each" before "other" is none.
func quantsOf(l string, toks []tok, out []quant) []quant {
	for i := 0; i < len(l) && len(out) < maxQuantifiers; {
		if !asciiLetter(l[i]) {
			i++
			continue
		}
		j := i
		for j < len(l) && asciiLetter(l[j]) {
			j++
		}
		st := i
		w := l[i:j]
		i = j
		kind, ok := quantifiers[w]
		if !ok || st > 0 && isWordByte(l[st-1]) || j < len(l) && isWordByte(l[j]) {
			continue
		}
		switch p := prevWord(l, st); {
		case w == "all" && (p == "at" || p == "after" || p == "above"):
			continue
		case p == "not":
			kind = quantPartial
		}
		q := quant{at: st, end: j, kind: kind, next: [2]int32{-1, -1}}
		k := tokAt(toks, j)
		for n := 0; n < 2 && k+n < len(toks); n++ {
			t := toks[k+n]
			if strings.ContainsAny(l[j:t.start], ".,;:!?()") {
				break
			}
			q.next[n] = t.id
		}
		if w == "each" && strings.HasPrefix(strings.TrimLeft(l[j:], " "), "other") || q.next[0] < 0 {
			continue
		}
		out = append(out, q)
	}
	return out
}

// shares: the two quantifiers have a following content word in common.
func (q *quant) shares(o *quant) bool {
	for _, a := range q.next {
		if a >= 0 && (a == o.next[0] || a == o.next[1]) {
			return true
		}
	}
	return false
}

// quantifierChange looks for an answer quantifier of one kind ("all
// generated adversarial examples") on words the source quantifies only
// with the other kind ("many of these adversarial examples"): the answer
// widened or narrowed the claim. Words quantified are the (at most two)
// content words right after the quantifier in its clause, one of them
// shared. A source that quantifies those words both ways says both, so is
// no finding.
func (s *state) quantifierChange(answer string) (Evidence, bool) {
	la := s.lowerAnswer(answer)
	s.aquants = quantsOf(la, s.atoks, s.aquants[:0])
	if len(s.aquants) == 0 {
		return Evidence{}, false
	}
	ls := s.lowerSource()
	s.squants = quantsOf(ls, s.stoks, s.squants[:0])
	for a := range s.aquants {
		aq := &s.aquants[a]
		other, same := -1, false
		for k := range s.squants {
			sq := &s.squants[k]
			if !aq.shares(sq) {
				continue
			}
			if sq.kind == aq.kind {
				same = true
				break
			}
			if other < 0 {
				other = k
			}
		}
		if same || other < 0 {
			continue
		}
		sq := &s.squants[other]
		return Evidence{AnswerSpan: scan.Span{Start: aq.at, End: aq.end}, AnswerText: answer[aq.at:aq.end],
			SourceSpan: &scan.Span{Start: sq.at, End: sq.end}, SourceText: s.source[sq.at:sq.end],
			Reason: fmt.Sprintf("the answer says %q where the source says %q", answer[aq.at:aq.end], s.source[sq.at:sq.end])}, true
	}
	return Evidence{}, false
}
