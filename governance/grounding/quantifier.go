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

// quantifierWords are the quantifier words with their kinds, each as
// written in lower case and capitalised: the source is searched for each
// (strings.Index, no pass of its own over the source's bytes).
var quantifierWords = [...]struct {
	w, title string
	kind     int
}{
	{"all", "All", quantUniversal}, {"every", "Every", quantUniversal}, {"each", "Each", quantUniversal},
	{"many", "Many", quantPartial}, {"some", "Some", quantPartial}, {"few", "Few", quantPartial}, {"several", "Several", quantPartial},
}

// quantKind returns the kind of the word w (any case), 0 for none.
func quantKind(w string) int {
	if len(w) < 3 || len(w) > 7 || !quantFirst[w[0]] {
		return 0
	}
	for _, q := range quantifierWords {
		if len(q.w) == len(w) && strings.EqualFold(w, q.w) {
			return q.kind
		}
	}
	return 0
}

// quantFirst marks the first letters of quantifierWords, both cases.
var quantFirst = func() (t [256]bool) {
	for _, q := range quantifierWords {
		t[q.w[0]], t[q.title[0]] = true, true
	}
	return t
}()

// maxQuantifiers and maxSourceQuants bound the quantifiers read in the
// answer and in the source: a text repeating "all" more often says
// nothing more, and each answer quantifier is compared with each source
// one.
const (
	maxQuantifiers  = 16
	maxSourceQuants = 64
)

// quant is a quantifier in a text: its kind and the ids of the (at most
// two) content words after it in its clause, -1 where there is none.
type quant struct {
	at, end int
	kind    int
	next    [2]int32
}

// quantAt reads the quantifier of the given kind at text[st:j], whose
// content tokens are toks. A quantifier under "not" ("not all") is
// partial; "all" after "at", "after" or "above" ("at all", "after all"),
// "each" before "other", and a quantifier with no content word after it in
// its clause are none.
func quantAt(text string, toks []tok, st, j, kind int) (quant, bool) {
	if st > 0 && isWordByte(text[st-1]) || j < len(text) && isWordByte(text[j]) {
		return quant{}, false
	}
	switch p := prevWord(text, st); {
	case j-st == 3 && (text[st]|0x20) == 'a' && (strings.EqualFold(p, "at") || strings.EqualFold(p, "after") || strings.EqualFold(p, "above")):
		return quant{}, false
	case strings.EqualFold(p, "not"):
		kind = quantPartial
	}
	rest := strings.TrimLeft(text[j:], " ")
	if len(rest) >= 5 && strings.EqualFold(text[st:j], "each") && strings.EqualFold(rest[:5], "other") {
		return quant{}, false
	}
	q := quant{at: st, end: j, kind: kind, next: [2]int32{-1, -1}}
	k := tokAt(toks, j)
	for n := 0; n < 2 && k+n < len(toks); n++ {
		t := toks[k+n]
		if t.start-j > 80 || strings.ContainsAny(text[j:t.start], ".,;:!?()") {
			break
		}
		q.next[n] = t.id
	}
	return q, q.next[0] >= 0
}

// answerQuants appends the quantifiers of the answer to out (at most
// maxQuantifiers): runs are answerRuns of text, the candidates among its
// words, in text order.
func answerQuants(text string, runs []int32, toks []tok, out []quant) []quant {
	for r := 0; r+1 < len(runs) && len(out) < maxQuantifiers; r += 2 {
		i, j := int(runs[r]), int(runs[r+1])
		if kind := quantKind(text[i:j]); kind != 0 {
			if q, ok := quantAt(text, toks, i, j, kind); ok {
				out = append(out, q)
			}
		}
	}
	return out
}

// answerRuns returns the answer's runs of ASCII letters (each a whole run:
// no ASCII letter either side) that may be a quantifier word (quantKind),
// a connective (eachOrderWord) or a fraction word (fractionAt): of a
// length, first letter and last letter (lowered) that one of them has
// (runShape), as [start, end) offsets (two entries each), in text order.
// Made in one pass on first use in a Check, for all three.
func (s *state) answerRuns(answer string) []int32 {
	if s.arunsOK {
		return s.aruns
	}
	// Read in the lowered answer (the same offsets and letter runs): a
	// letter is one range test there.
	la := s.lowerAnswer(answer)
	runs := s.aruns[:0]
	for i := 0; i < len(la); {
		if la[i]-'a' > 'z'-'a' {
			i++
			continue
		}
		j := i + 1
		for j < len(la) && la[j]-'a' <= 'z'-'a' {
			j++
		}
		if n := j - i; n < 16 && runShape[0][la[i]]>>n&1 != 0 && runShape[1][la[j-1]]>>n&1 != 0 {
			runs = append(runs, int32(i), int32(j))
		}
		i = j
	}
	s.aruns, s.arunsOK = runs, true
	return runs
}

// runShape has bit n set, for the first byte ([0]) and the last byte
// ([1]) of each quantifier word, connective and fraction word of n bytes,
// lowered: a run must match both to be looked up.
var runShape = func() (t [2][256]uint16) {
	add := func(w string) {
		for k, c := range [2]byte{w[0], w[len(w)-1]} {
			t[k][c|0x20] |= 1 << len(w)
		}
	}
	for _, q := range quantifierWords {
		add(q.w)
	}
	for _, ow := range orderWords {
		add(ow.w)
	}
	for _, w := range fractionWords {
		add(w)
	}
	return t
}()

// sourceQuants appends the quantifiers of the source to out (at most
// maxSourceQuants), searching it for each quantifier word.
func sourceQuants(text string, toks []tok, out []quant) []quant {
	for _, qw := range quantifierWords {
		for _, v := range [2]string{qw.w, qw.title} {
			for i := 0; len(out) < maxSourceQuants; {
				k := strings.Index(text[i:], v)
				if k < 0 {
					break
				}
				k += i
				i = k + len(v)
				if q, ok := quantAt(text, toks, k, i, qw.kind); ok {
					out = append(out, q)
				}
			}
		}
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
	s.aquants = answerQuants(answer, s.answerRuns(answer), s.atoks, s.aquants[:0])
	if len(s.aquants) == 0 {
		return Evidence{}, false
	}
	s.squants = sourceQuants(s.source, s.stoks, s.squants[:0])
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
