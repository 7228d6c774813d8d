package grounding

import (
	"fmt"

	"github.com/governance-gateway/gateway/governance/scan"
)

// beforeWord reads the closed classes of words that qualify the word after
// them and that a one-detail edit swaps: the comparative stop words ("felt
// less tired" against "felt more tired"; the tokenizer drops them, so the
// word checks never see them) and the ordinals ("third-quarter sales"
// against "second quarter"). Words of one class with different values
// differ; "less" and "fewer" are one value; 0 is none.
func beforeWord(w []byte) int8 {
	switch string(w) {
	case "more":
		return 1
	case "less", "fewer":
		return -1
	case "first":
		return 11
	case "second":
		return 12
	case "third":
		return 13
	case "fourth":
		return 14
	case "fifth":
		return 15
	case "sixth":
		return 16
	case "seventh":
		return 17
	case "eighth":
		return 18
	case "ninth":
		return 19
	case "tenth":
		return 20
	}
	return 0
}

// sameClass: two beforeWord values are of one class.
func sameClass(a, b int8) bool { return (a > 10) == (b > 10) }

// comparativeFlip looks for an answer content word right after a
// comparative or an ordinal that the source has only right after another
// of its class: "reported feeling less tired" against "feeling more
// tired", "third-quarter net sales" against "second quarter". A source
// that also has the answer's word before it, or none of the class, is no
// finding.
func (s *state) comparativeFlip(answer, source string) (Evidence, bool) {
	budget := maxSwapPostings
	for i := range s.atoks {
		t := &s.atoks[i]
		ca, cs, ok := comparativeBefore(answer, t.start)
		if !ok || !s.vocab(t.id) {
			continue
		}
		opp := -1
		for _, k := range s.sourceToks(t.id) {
			if budget--; budget < 0 {
				return Evidence{}, false
			}
			st := &s.stoks[k]
			c, _, ok := comparativeBefore(source, st.start)
			if !ok || !sameClass(c, ca) {
				continue
			}
			if c == ca {
				opp = -2
				break
			}
			if opp == -1 {
				opp = int(k)
			}
		}
		if opp < 0 || !s.samePolarity(answer, i, s.stoks[opp].start) {
			continue
		}
		st := &s.stoks[opp]
		_, ss, _ := comparativeBefore(source, st.start)
		sp := scan.Span{Start: ss, End: st.end}
		return Evidence{AnswerSpan: scan.Span{Start: cs, End: t.end}, AnswerText: answer[cs:t.end],
			SourceSpan: &sp, SourceText: source[ss:st.end],
			Reason: "the answer says " + answer[cs:t.end] + " where the source says " + source[ss:st.end]}, true
	}
	return Evidence{}, false
}

// comparativeBefore reads the beforeWord word right before offset start
// (one space or hyphen between): its value and offset.
func comparativeBefore(text string, start int) (int8, int, bool) {
	if start < 5 || text[start-1] != ' ' && text[start-1] != '-' {
		return 0, 0, false
	}
	switch text[start-2] | 0x20 {
	case 'e', 's', 'r', 't', 'd', 'h': // the last letters of beforeWord's words
	default:
		return 0, 0, false
	}
	j := start - 1
	i := j
	for i > 0 && j-i <= 7 && asciiLetter(text[i-1]) {
		i--
	}
	if j-i < 4 || j-i > 7 || i > 0 && asciiLetter(text[i-1]) {
		return 0, 0, false
	}
	var buf [16]byte
	c := beforeWord(lowerWord16(text[i:j], &buf))
	return c, i, c != 0
}

// adjacentAntonym looks for an answer word right next to a content word
// (no punctuation between) where the source has, on the same side of that
// word, a WordNet antonym of it, and never the answer's word: "a darker
// colour" against "a lighter colour", though the source says "dark yarn"
// elsewhere. lexAntonym reads only words the source lacks; a word the
// source uses elsewhere, or an inflection ("darker") of one, is read here.
func (s *state) adjacentAntonym(answer, source string) (Evidence, bool) {
	l := lex()
	if l == nil {
		return Evidence{}, false
	}
	x := &s.lex
	x.grow(s.words.len())
	marked := false
	budget := maxSwapPostings
	for i := range s.atoks {
		t := &s.atoks[i]
		// adjSeen: the word has no antonym (read once per Check). Each
		// occurrence is tried: "lower containerboard prices offset lower
		// volumes" changes the second "lower" only.
		if t.name || t.upper && !sentenceStart(answer, t.start) || x.adjSeen[t.id] == x.stamp {
			continue
		}
		// The source's words beside the same neighbour, read without the
		// lexicon: most answer words stand where the source has them.
		var cand [4]int32
		nc := 0
		stated := false
		for _, side := range [2]int{-1, 1} {
			j := i + side
			if j < 0 || j >= len(s.atoks) || !s.vocab(s.atoks[j].id) || !plainGap(answer, t, &s.atoks[j]) {
				continue
			}
			for _, k := range s.sourceToks(s.atoks[j].id) {
				if budget--; budget < 0 {
					return Evidence{}, false
				}
				m := int(k) - side // the source token on t's side of the neighbour
				if m < 0 || m >= len(s.stoks) || !plainGap(source, &s.stoks[m], &s.stoks[k]) {
					continue
				}
				if s.stoks[m].id == t.id {
					stated = true
					break
				}
				if nc < len(cand) {
					cand[nc] = int32(m)
					nc++
				}
			}
			if stated {
				break
			}
		}
		if stated || nc == 0 {
			continue
		}
		w := lowerASCII(answer, t.start, t.end, x.word[:])
		if w == nil || !hasAntonym(l, w, x) {
			x.adjSeen[t.id] = x.stamp
			continue
		}
		if s.beforeStatedNumber(t) {
			continue // read with its number ("hardgoods sales fell 4%")
		}
		if !marked {
			marked = true
			s.markAnswer()
		}
		for _, m := range cand[:nc] {
			st := &s.stoks[m]
			if s.adjacentPair(l, source, w, st) && !negatedClause(source, st.start) && !negatedClause(answer, t.start) {
				return swapEvidence(answer, source, t, st, fmt.Sprintf("%q is the opposite of %q", answer[t.start:t.end], source[st.start:st.end])), true
			}
		}
	}
	return Evidence{}, false
}

// adjacentPair: the answer word w and the source token st, which the
// answer does not use, are WordNet antonyms as nouns or adjectives, each a
// form of its lemma in that part of speech. Verbs and adverbs are left
// out: beside another word they make a phrase whose opposite is no
// opposite ("go back" / "come back", "go back" / "go ahead").
func (s *state) adjacentPair(l *lexicon, source string, w []byte, st *tok) bool {
	x := &s.lex
	if x.inAnswer(st.id) {
		return false
	}
	sw := lowerASCII(source, st.start, st.end, x.sword[:])
	if sw == nil || idiomUse(source, st.end, string(sw)) {
		return false
	}
	x.bases2 = l.baseForms(w, x.bases2[:0])
	x.bases = l.baseForms(sw, x.bases[:0])
	for _, a := range x.bases2 {
		for _, v := range l.antonymsOf(a) {
			if p := int(v & 3); (p == 0 || p == 2) && containsID(x.bases, v>>2) && l.formOf(w, a, p) && l.formOf(sw, v>>2, p) {
				return true
			}
		}
	}
	return false
}

// hasAntonym: the lower-case word w has a WordNet antonym (most words
// have none; x.bases2 is left holding its lemmas).
func hasAntonym(l *lexicon, w []byte, x *lexState) bool {
	x.bases2 = l.baseForms(w, x.bases2[:0])
	for _, b := range x.bases2 {
		if len(l.antonymsOf(b)) > 0 {
			return true
		}
	}
	return false
}

// negatedClause: a grammatical negation ("not", "n't", "no", "never")
// stands in the clause before offset off (at most 80 bytes back): "don't
// buy expensive binoculars" states no "expensive binoculars".
func negatedClause(text string, off int) bool {
	for i := off; i > 0 && off-i < 80; {
		c := text[i-1]
		if c == ',' || c == '.' || c == ';' || c == ':' || c == '!' || c == '?' || c == '\n' {
			return false
		}
		if !asciiLetter(c) {
			i--
			continue
		}
		j := i
		for i > 0 && asciiLetter(text[i-1]) {
			i--
		}
		var buf [16]byte
		switch w := string(lowerWord16(text[i:j], &buf)); {
		case w == "not" || w == "no" || w == "never":
			return true
		case w == "t" && i > 1 && text[i-1] == '\'' && (text[i-2] == 'n' || text[i-2] == 'N'):
			return true // "don't", "can't": the letters before the apostrophe end in n
		}
	}
	return false
}

// plainGap: nothing but spaces, hyphens and articles stands between tokens
// a and b (in either order) of text.
func plainGap(text string, a, b *tok) bool {
	if a.start > b.start {
		a, b = b, a
	}
	if b.start-a.end > 6 {
		return false
	}
	for _, c := range []byte(text[a.end:b.start]) {
		switch c {
		case ',', '.', ';', ':', '!', '?', '(', ')', '"', '\n':
			return false
		}
	}
	return true
}
