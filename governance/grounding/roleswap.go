package grounding

import (
	"fmt"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// RoleSwapConfidence is the confidence of a contradiction resting on two
// source words that trade places in the answer (roleSwap): as an antonym
// or an order word, above the default min_confidence (0.5).
const RoleSwapConfidence = 0.6

// maxSwapPostings bounds the source occurrences roleSwap visits per
// Check: an answer whose words all stand next to a frequent source word
// stays linear.
const maxSwapPostings = 4096

// roleSwap looks for two source words that trade places in the answer:
// the answer has word a between two words that the source has around
// word b, and b between two words that the source has around a, with the
// same words between ("The landlord pays the cleaner and the tenant pays
// the plumber" against "The landlord pays the plumber and the tenant pays
// the cleaner"). Each word keeps the source's words but takes the other's
// part, which no paraphrase does; a faithful reordering moves a word with
// its neighbours ("the tenant pays the cleaner and the landlord pays the
// plumber").
func (s *state) roleSwap(answer, source string) (Evidence, bool) {
	budget := maxSwapPostings
	for i := range s.atoks {
		t := &s.atoks[i]
		if !s.vocab(t.id) {
			continue
		}
		k, ok := s.placeOf(answer, source, i, -1, &budget)
		if !ok {
			continue
		}
		b := &s.stoks[k]
		for _, j := range s.answerToks(b.id) {
			u := &s.atoks[j]
			if s.aroundVerb(answer, i, int(j)) {
				continue
			}
			if _, ok := s.placeOf(answer, source, int(j), t.id, &budget); ok {
				sp := scan.Span{Start: b.start, End: b.end}
				return Evidence{AnswerSpan: scan.Span{Start: t.start, End: t.end}, AnswerText: answer[t.start:t.end],
					SourceSpan: &sp, SourceText: source[sp.Start:sp.End],
					Reason: fmt.Sprintf("the answer says %q where the source says %q, and %q where it says %q",
						answer[t.start:t.end], source[sp.Start:sp.End], answer[u.start:u.end], answer[t.start:t.end])}, true
			}
		}
	}
	return Evidence{}, false
}

// aroundVerb: answer tokens i and j are the two words either side of one
// verb ("the plumber met the landlord"). Turned round a symmetric verb
// ("meet", "marry", "play") the statement says the same, and the lexicon
// does not say which verbs are symmetric: such a trade is not reported
// ("Alice paid Bob" for "Bob paid Alice" is missed with it).
func (s *state) aroundVerb(answer string, i, j int) bool {
	if i-j != 2 && j-i != 2 {
		return false
	}
	l := lex()
	if l == nil {
		return true
	}
	m := &s.atoks[(i+j)/2]
	w := lowerASCII(answer, m.start, m.end, s.lex.word[:])
	if w == nil {
		return false
	}
	s.lex.bases = l.baseForms(w, s.lex.bases[:0])
	return usually(l, s.lex.bases, 1)
}

// usually: one of the lemmas is usually the part of speech pos (0 noun,
// 1 verb, 2 adjective, 3 adverb).
func usually(l *lexicon, lemmas []int32, pos uint8) bool {
	for _, b := range lemmas {
		if l.usual[b] == pos {
			return true
		}
	}
	return false
}

// answerToks returns the indexes of the answer tokens of word id, in
// order, from an index of the answer tokens by word made on first use in a
// Check.
func (s *state) answerToks(id int32) []int32 {
	return s.ansByWord.of(s.atoks, s.words.len(), id)
}

// placeOf returns the index of the source token that stands between the
// two content words around answer token i, with the same words between
// (sameGap), and that is another word than token i's; want >= 0 asks for
// that word. Each source occurrence of the left word visited costs one of
// budget.
func (s *state) placeOf(answer, source string, i int, want int32, budget *int) (int, bool) {
	if i == 0 || i+1 == len(s.atoks) {
		return 0, false
	}
	l, t, r := &s.atoks[i-1], &s.atoks[i], &s.atoks[i+1]
	lg, rg := answer[l.end:t.start], answer[t.end:r.start]
	if !s.vocab(l.id) || !s.vocab(r.id) || sentenceGap(lg) || sentenceGap(rg) {
		return 0, false
	}
	for _, k := range s.sourceToks(l.id) {
		if *budget--; *budget < 0 {
			return 0, false
		}
		k := int(k)
		if k+2 >= len(s.stoks) || s.stoks[k+2].id != r.id {
			continue
		}
		sl, sb, sr := &s.stoks[k], &s.stoks[k+1], &s.stoks[k+2]
		if sb.id == t.id || want >= 0 && sb.id != want {
			continue
		}
		if sameGap(lg, source[sl.end:sb.start]) && sameGap(rg, source[sb.end:sr.start]) {
			return k + 1, true
		}
	}
	return 0, false
}

// sentenceGap: the text between two words ends a sentence.
func sentenceGap(g string) bool { return strings.ContainsAny(g, ".!?\n") }
