package grounding

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// Checks on what a word's clause says about it rather than on the word
// itself (docs/governance.md, Quality):
//
//   - droppedNegation: the source states a word only under a negation
//     ("they don't work") and the answer states it in a clause without
//     one ("the apps are working fine"): the negation the source puts on
//     it was dropped. The clause must share two more words with a source
//     sentence holding the word, so that both speak of the same thing.
//   - addedNegation, its mirror: the answer negates a word the source
//     never negates, in a source sentence without negation sharing two
//     more words with the clause.
//   - newRestriction: the answer restricts a claim with "only", "solely",
//     "exclusively", "merely" or makes it hold "always", and the source
//     has no word of that kind: a summary reports a restriction, it does
//     not add one ("only Joyce agrees" where both agree).

// DroppedNegationConfidence is the confidence of a contradiction resting
// on a word the source has only under negation (droppedNegation): as a
// negated chat clause, above the default min_confidence (0.5).
const DroppedNegationConfidence = 0.6

// RestrictionConfidence is the confidence of an unsupported finding
// resting on a restriction word the source lacks (newRestriction): like a
// new name, recorded but under the default min_confidence.
const RestrictionConfidence = 0.45

const (
	// negWindow bounds the bytes before a source word searched for its
	// negation (the two content words before it and the stop words
	// between them: "are often not semantics-preserving").
	negWindow = 64
	// scopeClauseWords: longer answer clauses are not compared (a run of
	// words without punctuation is no clause), which keeps each lookup
	// bounded.
	scopeClauseWords = 40
	// scopeOccurrences: the source occurrences of a word whose sentences
	// are compared with the answer clause.
	scopeOccurrences = 4
	// scopeShared: the other answer clause words a source sentence must
	// have.
	scopeShared = 2
	// scopeTries: the answer clauses a word is looked at in. An answer
	// repeating the word in more clauses repeats what failed (a success
	// ends the Check), and each try reads source sentences.
	scopeTries = 8
)

// droppedNegation reports the first answer word, in a clause without
// negation, that the source has only under a grammatical negation, with a
// source sentence holding it that shares scopeShared more words with the
// clause. Words come first: most have an occurrence without negation, so
// clauses are looked at only for the rare rest.
func (s *state) droppedNegation(answer, source string) (Evidence, bool) {
	if cap(s.negOnly) < s.words.len() {
		s.negOnly = make([]uint8, s.words.len())
	}
	s.negOnly = s.negOnly[:s.words.len()]
	clear(s.negOnly)
	for i := range s.atoks {
		t := &s.atoks[i]
		if !s.vocab(t.id) || !s.onlyNegated(t.id) {
			continue
		}
		s.negOnly[t.id]++ // one try more: onlyNegated is false after scopeTries
		c0, c1, ok := wordClause(answer, t.start)
		if !ok {
			continue
		}
		var n int
		if n, s.buf = negations(answer[c0:c1], s.buf); n > 0 {
			continue
		}
		if cw := clauseToks(s.atoks, i, c0, c1); len(cw) > scopeShared && len(cw) <= scopeClauseWords {
			if e, ok := s.scopeSentence(answer, source, t, cw, false, "the answer states %q, which the source has only under a negation"); ok {
				return e, true
			}
		}
	}
	return Evidence{}, false
}

// scopeSentence looks among the first source occurrences of token t's
// word for one whose sentence shares scopeShared more words with the
// clause cw and, when plain, has no negation at all; reason formats the
// evidence's reason with the word.
func (s *state) scopeSentence(answer, source string, t *tok, cw []tok, plain bool, reason string) (Evidence, bool) {
	if len(s.sents) == 0 {
		s.sourceSentences(source)
	}
	s.mark = growMarks(s.mark, s.words.len())
	occ := s.sourceToks(t.id)
	for _, j := range occ[:min(len(occ), scopeOccurrences)] {
		si := s.sentenceAt(s.stoks[j].start)
		if si < 0 || !s.sharesWith(si, cw, t.id) {
			continue
		}
		sent := &s.sents[si]
		if plain && sent.neg < 0 {
			sent.neg, s.buf = negations(source[sent.span.Start:sent.span.End], s.buf)
		}
		if plain && sent.neg > 0 {
			continue
		}
		return Evidence{AnswerSpan: scan.Span{Start: t.start, End: t.end}, AnswerText: answer[t.start:t.end],
			SourceSpan: &scan.Span{Start: sent.span.Start, End: sent.span.End}, SourceText: source[sent.span.Start:sent.span.End],
			Reason: fmt.Sprintf(reason, answer[t.start:t.end])}, true
	}
	return Evidence{}, false
}

// scopeClauseBytes bounds the scan for the clause around a word either
// way: a longer run without a break is no clause.
const scopeClauseBytes = 320

// wordClause returns the clause of text around offset off: from after
// the last break before it to the next one, a break being a , ; : ! ? or
// newline, a full stop not inside a number, or a space before "but",
// "while", "whereas", "although" (clauseEnd's clauses within sentences'
// sentences). ok is false past scopeClauseBytes either way.
func wordClause(text string, off int) (c0, c1 int, ok bool) {
	return wordSpan(text, off, clauseBreak)
}

// wordSentence returns the sentence of text around offset off, as
// wordClause its clause.
func wordSentence(text string, off int) (c0, c1 int, ok bool) {
	return wordSpan(text, off, sentenceBreak)
}

// sentenceBreak: text[i] ends a sentence: a ! ? or newline, or a full stop
// not inside a number.
func sentenceBreak(text string, i int) bool {
	switch text[i] {
	case '!', '?', '\n':
		return true
	case '.':
		return i+1 == len(text) || !isDigit(text[i+1])
	}
	return false
}

// wordSpan returns the span of text around offset off between the breaks
// brk reports; ok is false past scopeClauseBytes either way.
func wordSpan(text string, off int, brk func(string, int) bool) (c0, c1 int, ok bool) {
	c0 = -1
	for i := off - 1; i >= max(0, off-scopeClauseBytes); i-- {
		if brk(text, i) {
			c0 = i + 1
			break
		}
	}
	if c0 < 0 {
		if off > scopeClauseBytes {
			return 0, 0, false
		}
		c0 = 0
	}
	for i := off; i < min(len(text), off+scopeClauseBytes); i++ {
		if brk(text, i) {
			return c0, i, true
		}
	}
	if len(text)-off > scopeClauseBytes {
		return 0, 0, false
	}
	return c0, len(text), true
}

// clauseBreak: text[i] ends a clause (wordClause).
func clauseBreak(text string, i int) bool {
	switch c := text[i]; c {
	case ',', ';', ':', '!', '?', '\n':
		return true
	case '.':
		return i+1 == len(text) || !isDigit(text[i+1])
	case ' ':
		r := text[i+1:]
		for _, w := range [...]string{"but ", "while ", "whereas ", "although "} {
			if strings.HasPrefix(r, w) {
				return true
			}
		}
	}
	return false
}

// onlyNegated: every source occurrence of word id follows a grammatical
// negation in its clause, and droppedNegation has tried the word in fewer
// than scopeTries clauses; the occurrences are read once per word and
// Check (negOnly: 0 unknown, 1 no, 2+k yes, tried k times).
func (s *state) onlyNegated(id int32) bool {
	if v := s.negOnly[id]; v != 0 {
		return v >= 2 && v < 2+scopeTries
	}
	v := uint8(2)
	for _, j := range s.sourceToks(id) {
		if !s.negatedTok(int(j)) {
			v = 1
			break
		}
	}
	s.negOnly[id] = v
	return v == 2
}

// negatedTok: a grammatical negation ("not", "no", "never", "n't"; not
// "without", "fail") stands before source token j, after the end of the
// token two before it and after the last clause break.
func (s *state) negatedTok(j int) bool { return negatedAt(s.stoks, s.source, j) }

// negatedAt: a grammatical negation stands before token j of text (toks),
// after the end of the token two before it and after the last clause
// break.
func negatedAt(toks []tok, text string, j int) bool {
	from, end := negScope(toks, text, j)
	return grammaticalNegation(text, from, end)
}

// negatedBy: a grammatical negation (negatedAt) or "without" stands
// before token j of text.
func negatedBy(toks []tok, text string, j int) bool {
	if negatedAt(toks, text, j) {
		return true
	}
	from, end := negScope(toks, text, j)
	b := strings.TrimRight(text[from:end], " ")
	return len(b) >= 7 && strings.EqualFold(b[len(b)-7:], "without") && (len(b) == 7 || !isWordByte(b[len(b)-8]))
}

// samePolarity: answer token i and the source token at offset off are
// both negated or both not. An opposite states the opposite only so:
// "did not fall" agrees with "rose", "without reducing the cost" with
// "increases the time", while "without strengthening" contradicts
// "without weakening".
func (s *state) samePolarity(answer string, i, off int) bool {
	j := tokAt(s.stoks, off)
	return j < len(s.stoks) && negatedBy(s.atoks, answer, i) == negatedBy(s.stoks, s.source, j)
}

// polarTok returns the index of the first source token of word id that
// stands under a negation (negatedBy) when neg, or under none when not; -1
// when there is none. Each word's occurrences are read once per Check.
func (s *state) polarTok(id int32, neg bool) int {
	if s.polar == nil {
		s.polar = map[int32][2]int32{}
	}
	r, ok := s.polar[id]
	if !ok {
		for _, k := range s.sourceToks(id) {
			p := 0
			if negatedBy(s.stoks, s.source, int(k)) {
				p = 1
			}
			if r[p] == 0 {
				r[p] = k + 1
			}
			if r[0] > 0 && r[1] > 0 {
				break
			}
		}
		s.polar[id] = r
	}
	if neg {
		return int(r[1]) - 1
	}
	return int(r[0]) - 1
}

// negScope returns the bytes before token j searched for its negation:
// from the end of the token two before it (negWindow bytes at most), and
// from the last clause break, to the token.
func negScope(toks []tok, text string, j int) (from, end int) {
	end = toks[j].start
	if j >= 2 {
		from = toks[j-2].end
	}
	from = max(from, end-negWindow)
	for i := end - 1; i >= from; i-- {
		if clausePunct[text[i]] {
			return i + 1, end
		}
	}
	return from, end
}

// grammaticalNegation: text[from:end] has a grammatical negation, as
// clauseNegated reads them ("not", "no", "never", "none", "nobody",
// "nothing", "neither", "nor", "cannot", an "n't"; not a "no-" compound),
// in one pass without lowering each word: a "no" for "number" aside ("my
// no 1 place", numberNo), and a bound ("not fewer than 10", boundNo),
// which reads the words after end: a negation right before the word
// asked about ("fewer") is cut off from them by the range.
func grammaticalNegation(text string, from, end int) bool {
	for i := from; i < end; {
		if !asciiLetter(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < end && (asciiLetter(text[j]) || text[j] == '\'') {
			j++
		}
		w := text[i:j]
		i = j
		if j < end && text[j] == '-' {
			continue
		}
		if n := len(w); n > 3 && w[n-3]|0x20 == 'n' && w[n-2] == '\'' && w[n-1]|0x20 == 't' && !helpBut(text, j) {
			return true
		}
		if f := w[0] | 0x20; f != 'n' && f != 'c' || len(w) > 7 {
			continue
		}
		var buf [7]byte
		for k := range len(w) {
			buf[k] = w[k] | 0x20
		}
		switch string(buf[:len(w)]) {
		case "no":
			if !numberNo(text, j-2, j) && !boundNo(text, j-2, j) {
				return true
			}
		case "not":
			if !boundNo(text, j-3, j) {
				return true
			}
		case "cannot":
			if !helpBut(text, j) {
				return true
			}
		case "never", "none", "nobody", "nothing", "neither", "nor":
			return true
		}
	}
	return false
}

// negationStated: the answer span [c0, c1) negates, and the source negates
// the same words, somewhere: each grammatical negation's first content
// word, with the next one when no clause break stands between them,
// follows a grammatical negation in the source too ("no upfront cost"
// against "No upfront cost, but you save less." in the turn after the one
// the clause aligns with). Used for chats, where the clause check aligns
// on as little as one shared word (chatClauseSim) and a speaker's
// statement runs over several sentences and turns; prose reads
// negationElsewhere.
func (s *state) negationStated(answer string, c0, c1 int) bool {
	n := 0
	for i := range s.atoks {
		t := &s.atoks[i]
		if t.start < c0 || i == 0 || s.atoks[i-1].end < c0 {
			continue
		}
		if t.start >= c1 {
			break
		}
		if !grammaticalNegation(answer, s.atoks[i-1].end, t.start) {
			continue
		}
		next := int32(-1)
		if i+1 < len(s.atoks) && s.atoks[i+1].start < c1 && !breakBetween(answer, t.end, s.atoks[i+1].start) {
			next = s.atoks[i+1].id
		}
		if !s.vocab(t.id) || !s.negatedPair(t.id, next) {
			return false
		}
		n++
	}
	return n > 0
}

// negatedPair: a source token of word id follows a grammatical negation in
// its clause (negatedTok) and, when next is not -1, the source token after
// it, in the same clause, is of word next.
func (s *state) negatedPair(id, next int32) bool {
	for _, j := range s.sourceToks(id) {
		if !s.negatedTok(int(j)) {
			continue
		}
		if next < 0 {
			return true
		}
		if k := int(j) + 1; k < len(s.stoks) && s.stoks[k].id == next && !breakBetween(s.source, s.stoks[j].end, s.stoks[k].start) {
			return true
		}
	}
	return false
}

// sentenceAt returns the index of the source sentence holding offset off,
// -1 when none does.
func (s *state) sentenceAt(off int) int {
	i := sort.Search(len(s.sents), func(i int) bool { return s.sents[i].span.End > off })
	if i == len(s.sents) || s.sents[i].span.Start > off {
		return -1
	}
	return i
}

// sharesWith: source sentence si has scopeShared distinct words of the
// clause cw other than id.
func (s *state) sharesWith(si int, cw []tok, id int32) bool {
	n := 0
	s.stamp++
	for _, t := range cw {
		if t.id == id || s.mark[t.id] == s.stamp {
			continue
		}
		s.mark[t.id] = s.stamp // each word counts once
		if _, ok := slices.BinarySearch(s.postings(t.id), int32(si)); ok {
			if n++; n == scopeShared {
				return true
			}
		}
	}
	return false
}

// restrictions are the words newRestriction reads, each with the source
// words that state a restriction of its kind.
var restrictions = [...]struct{ w, kind string }{
	{"only", "focus"}, {"solely", "focus"}, {"exclusively", "focus"}, {"merely", "focus"},
	{"always", "always"},
}

// restrictionKinds: the words by which a source states a restriction of
// each kind ("just" and "alone" restrict as "only" does, and so does an
// upper bound: "not more than 1 assessment" is "only one assessment").
var restrictionKinds = map[string][]string{
	"focus":  {"only", "solely", "exclusively", "merely", "just", "alone", "not more than", "no more than", "at most"},
	"always": {"always", "invariably", "constantly"},
}

// newRestriction reports the first restriction word of the answer whose
// kind the source does not state near the words it restricts
// (restrictsNear; until stop 21, second round, anywhere). "not only" ("not
// only A but also B") and "if only" restrict nothing.
func (s *state) newRestriction(answer string) (Evidence, bool) {
	la := s.lowerAnswer(answer)
	for _, r := range restrictions {
		for i := 0; ; {
			k := strings.Index(la[i:], r.w)
			if k < 0 {
				break
			}
			k += i
			i = k + len(r.w)
			if k > 0 && isWordByte(la[k-1]) || i < len(la) && isWordByte(la[i]) {
				continue
			}
			if p := prevWord(la, k); p == "not" || p == "if" {
				continue
			}
			if s.restrictsNear(answer, r.kind, i) {
				continue
			}
			return Evidence{AnswerSpan: scan.Span{Start: k, End: i}, AnswerText: answer[k:i],
				Reason: fmt.Sprintf("the answer restricts the claim with %q; the source states no such restriction", answer[k:i])}, true
		}
	}
	return Evidence{}, false
}

// restrictsNear: the source has a word of the restriction kind within
// nbrWindow content words of one of the (at most two) content words after
// answer offset at, in its clause: the source restricts the same thing.
// "I just have my computer" restricts what Fred has, not who agrees, so it
// does not support "only Harry agrees". The words near each kind are
// gathered once per Check (nearRestriction).
func (s *state) restrictsNear(answer, kind string, at int) bool {
	near := s.nearRestriction(kind)
	k := tokAt(s.atoks, at)
	for n := 0; n < 2 && k < len(s.atoks) && !breakBetween(answer, at, s.atoks[k].start); n, k = n+1, k+1 {
		if _, ok := slices.BinarySearch(near, s.atoks[k].id); ok {
			return true
		}
	}
	return false
}

// nearRestriction returns the sorted ids of the source's content words
// within nbrWindow of a word of the restriction kind, made on first use in
// a Check.
func (s *state) nearRestriction(kind string) []int32 {
	if s.restrNear == nil {
		s.restrNear = map[string][]int32{}
	}
	if ids, ok := s.restrNear[kind]; ok {
		return ids
	}
	var ids []int32
	ls := s.lowerSource()
	for _, w := range restrictionKinds[kind] {
		for i := 0; ; {
			k := strings.Index(ls[i:], w)
			if k < 0 {
				break
			}
			k += i
			i = k + len(w)
			if k > 0 && isWordByte(ls[k-1]) || i < len(ls) && isWordByte(ls[i]) {
				continue
			}
			j := tokAt(s.stoks, k)
			for _, st := range s.stoks[max(0, j-nbrWindow):min(len(s.stoks), j+nbrWindow)] {
				ids = append(ids, st.id)
			}
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	s.restrNear[kind] = ids
	return ids
}

// prevWord returns the word of the lower-case text l that ends before
// offset k, across spaces.
func prevWord(l string, k int) string {
	e := k
	for e > 0 && l[e-1] == ' ' {
		e--
	}
	b := e
	for b > 0 && isWordByte(l[b-1]) {
		b--
	}
	return l[b:e]
}

// AddedNegationConfidence is the confidence of a contradiction resting on
// an answer word under a negation that the source states only without one
// (addedNegation): as droppedNegation, its mirror.
const AddedNegationConfidence = 0.6

// addedNegation reports the first answer word under a grammatical negation
// (within the two content words after it, in its clause) that the source
// states and never negates, in a source sentence without any negation
// that shares scopeShared more words with the answer clause: "removing
// the terms does not provide interpretations of the network" against
// "These analyses provide interpretations of the network." where another
// source sentence, the one sharing most words with the clause, negates
// something else ("bias terms do not help"), so that the clause check
// (contradiction) compares the answer's negation with that one. "not
// only" and "not just" negate nothing. A negated base form is looked up as
// the source inflects it (otherForm), and a clause that fails is tried as
// its whole sentence.
func (s *state) addedNegation(answer, source string) (Evidence, bool) {
	if !grammaticalNegation(answer, 0, len(answer)) {
		return Evidence{}, false // the usual case, in one pass rather than one per word
	}
	if cap(s.negAny) < s.words.len() {
		s.negAny = make([]uint8, s.words.len())
	}
	s.negAny = s.negAny[:s.words.len()]
	clear(s.negAny)
	for i := range s.atoks {
		t := &s.atoks[i]
		if !negatedAt(s.atoks, answer, i) || notOnly(answer, s.atoks, i) {
			continue
		}
		w := *t
		if !s.vocab(w.id) {
			w.id = s.otherForm(answer, t)
		}
		if !s.vocab(w.id) || !s.neverNegated(w.id) {
			continue
		}
		t = &w
		s.negAny[t.id]++ // one try more: neverNegated is false after scopeTries
		c0, c1, ok := wordClause(answer, t.start)
		if !ok {
			continue
		}
		if e, ok := s.negatedIn(answer, source, t, i, c0, c1); ok {
			return e, true
		}
		// A short coordinated clause ("…, but no spare battery") leaves its
		// context to its sentence, and a clause may share its words with
		// a source sentence other than the one stating the word: both are
		// tried against the whole answer sentence too.
		if s0, s1, ok := wordSentence(answer, t.start); ok && (s0 != c0 || s1 != c1) {
			if e, ok := s.negatedIn(answer, source, t, i, s0, s1); ok {
				return e, true
			}
		}
	}
	return Evidence{}, false
}

// negatedIn: the answer span [c0, c1) around token i (t, its word as the
// source has it) is a clause or sentence of at most scopeClauseWords
// content words, more than scopeShared, and a source sentence without
// negation holding t's word shares scopeShared more of them.
func (s *state) negatedIn(answer, source string, t *tok, i, c0, c1 int) (Evidence, bool) {
	cw := clauseToks(s.atoks, i, c0, c1)
	if len(cw) <= scopeShared || len(cw) > scopeClauseWords {
		return Evidence{}, false
	}
	return s.scopeSentence(answer, source, t, cw, true, "the answer negates %q, which the source states without a negation")
}

// clauseToks returns the tokens around token i that start within the
// clause [c0, c1).
func clauseToks(toks []tok, i, c0, c1 int) []tok {
	i0, i1 := i, i+1
	for i0 > 0 && toks[i0-1].start >= c0 {
		i0--
	}
	for i1 < len(toks) && toks[i1].start < c1 {
		i1++
	}
	return toks[i0:i1]
}

// notOnly: the negation before answer token i is "not only" or "not just"
// ("not only faster but also cheaper" affirms).
func notOnly(answer string, atoks []tok, i int) bool {
	from, end := negScope(atoks, answer, i)
	g := strings.ToLower(answer[from:end])
	return strings.Contains(g, "not only") || strings.Contains(g, "not just")
}

// neverNegated: no source occurrence of word id follows a grammatical
// negation in its clause, and addedNegation has tried the word in fewer
// than scopeTries clauses (negAny: 0 unknown, 1 no, 2+k yes, tried k
// times).
func (s *state) neverNegated(id int32) bool {
	if v := s.negAny[id]; v != 0 {
		return v >= 2 && v < 2+scopeTries
	}
	v := uint8(2)
	for _, j := range s.sourceToks(id) {
		if s.negatedTok(int(j)) {
			v = 1
			break
		}
	}
	s.negAny[id] = v
	return v == 2
}

// otherForm returns the id of the source word that inflects answer token
// t, a base form whose stem the source lacks, -1 when there is none: a
// negated verb takes its base form ("does not combine") where the
// statement inflects it ("combines"), and a base form in "-e" stems apart
// from its inflections (lemmaStems).
func (s *state) otherForm(answer string, t *tok) int32 {
	var buf [41]byte
	alt := lemmaStems([]byte(s.lowerAnswer(answer)[t.start:t.end]), &buf)[1]
	if alt == nil {
		return -1
	}
	return find(&s.words, alt, fnvAdd(fnvOffset, alt))
}

// WithoutConfidence is the confidence of a contradiction resting on "with"
// in place of the source's "without" before the same word, or the reverse
// (withoutFlip): as a dropped or added negation.
const WithoutConfidence = 0.6

// withoutFlip reports the first answer word after "with" that the source
// has only after "without", or after "without" that the source has only
// after "with": "start the trial with the AI add-on" against "start the
// trial, but without the AI add-on". "without" is no grammatical negation
// (the negation checks leave it out: "without labelled data" paraphrases
// "no labelled data"), so they do not see it dropped. Each word's source
// occurrences are read once per Check.
func (s *state) withoutFlip(answer string) (Evidence, bool) {
	var seen map[int32]uint8
	la := s.lowerAnswer(answer)
	for i := 0; ; {
		k := strings.Index(la[i:], "with")
		if k < 0 {
			break
		}
		k += i
		i = k + len("with")
		if k > 0 && isWordByte(la[k-1]) {
			continue
		}
		kind, e := uint8(1), i
		if strings.HasPrefix(la[i:], "out") {
			kind, e = 2, i+len("out")
		}
		if e < len(la) && isWordByte(la[e]) {
			continue // "within", "withdraw", "withouts"
		}
		// The content word after it, in its clause.
		j := tokAt(s.atoks, e)
		if j == len(s.atoks) || breakBetween(answer, e, s.atoks[j].start) {
			continue
		}
		t := &s.atoks[j]
		if !s.vocab(t.id) {
			continue
		}
		if seen == nil {
			seen = map[int32]uint8{}
		}
		src, ok := seen[t.id]
		if !ok {
			for _, q := range s.sourceToks(t.id) {
				src |= 1 << withKind(s.stoks, s.source, int(q))
			}
			seen[t.id] = src
		}
		// src bit 1: after "with", bit 2: after "without".
		if other := 3 - kind; src&(1<<other) != 0 && src&(1<<kind) == 0 {
			word := [3]string{"", "with", "without"}
			return Evidence{AnswerSpan: scan.Span{Start: t.start, End: t.end}, AnswerText: answer[t.start:t.end],
				Reason: fmt.Sprintf("the answer says %q %q where the source says %q", word[kind], answer[t.start:t.end], word[other])}, true
		}
	}
	return Evidence{}, false
}

// withKind tells what stands before token j of text (toks) in its clause,
// among function words only: 1 "with", 2 "without" (the last of them, a
// token or in the gap: "without" is a content word), 0 neither.
func withKind(toks []tok, text string, j int) uint8 {
	p0, prev := 0, -1
	if j > 0 {
		p0, prev = toks[j-1].end, j-1
	}
	kind := uint8(0)
	gap := text[p0:toks[j].start]
	for i := 0; i < len(gap); {
		if clausePunct[gap[i]] {
			kind, prev = 0, -1
			i++
			continue
		}
		if !asciiLetter(gap[i]) {
			i++
			continue
		}
		k := i
		for k < len(gap) && asciiLetter(gap[k]) {
			k++
		}
		if w := prepWord(gap[i:k]); w != 0 {
			kind = w
		}
		i = k
	}
	if kind == 0 && prev >= 0 {
		kind = prepWord(text[toks[prev].start:toks[prev].end])
	}
	return kind
}

// prepWord: 1 for "with", 2 for "without", 0 otherwise.
func prepWord(w string) uint8 {
	switch {
	case strings.EqualFold(w, "with"):
		return 1
	case strings.EqualFold(w, "without"):
		return 2
	}
	return 0
}

// idiomUse: the source word w (lower-case or as written), whose token ends
// at offset end, is a preposition or part of a date there, not the word of
// an opposite pair: "fleets like yours" (no "like" against "dislike"),
// "last month" (no "last" against "first"), "close to the minimum" (no
// "close" against "open"), "ahead of the season" (no "ahead" against
// "back").
func idiomUse(text string, end int, w string) bool {
	if len(w) < 4 || len(w) > 5 {
		return false
	}
	var buf [5]byte
	for k := range len(w) {
		buf[k] = w[k] | 0x20
	}
	next := nextLowerWord(text, end)
	switch string(buf[:len(w)]) {
	case "like":
		return likeObject[next]
	case "last":
		return lastTime[next]
	case "close":
		return next == "to" || next == "by"
	case "ahead":
		return next == "of"
	}
	return false
}

// nextLowerWord returns the ASCII word after offset i (spaces skipped),
// lower-cased, "" when none or longer than 9 letters.
func nextLowerWord(text string, i int) string {
	for i < len(text) && text[i] == ' ' {
		i++
	}
	j := i
	for j < len(text) && j-i <= 9 && asciiLetter(text[j]) {
		j++
	}
	if j == i || j-i > 9 || j < len(text) && asciiLetter(text[j]) {
		return ""
	}
	return strings.ToLower(text[i:j])
}

var likeObject = setOf("a an the this that these those yours mine ours theirs his her its our their my your it him them us me you we")

var lastTime = setOf("night week month year time quarter summer winter spring autumn season weekend decade century " +
	"monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december")

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// negationElsewhere: the answer span [c0, c1) negates, and for each of its
// grammatical negations the source negates one of the words it negates (up
// to negScopeWords content words after it in its clause), in any
// sentence: "It has received 11 complaints but no reports of injuries"
// against the source's "No injuries have been reported." two sentences
// after the complaints. The prose counterpart of negationStated, which
// wants the same first words.
func (s *state) negationElsewhere(answer string, c0, c1 int) bool {
	n := 0
	for i := tokAt(s.atoks, c0); i < len(s.atoks); i++ {
		t := &s.atoks[i]
		if i == 0 || s.atoks[i-1].end < c0 {
			continue
		}
		if t.start >= c1 {
			break
		}
		if !grammaticalNegation(answer, s.atoks[i-1].end, t.start) {
			continue
		}
		found := false
		for j := i; j < len(s.atoks) && j < i+negScopeWords && s.atoks[j].start < c1; j++ {
			if j > i && breakBetween(answer, s.atoks[j-1].end, s.atoks[j].start) {
				break
			}
			if s.vocab(s.atoks[j].id) && s.negatedSomewhere(s.atoks[j].id) {
				found = true
				break
			}
		}
		if !found && !s.negatedNumber(answer, t.start, c1) {
			return false
		}
		n++
	}
	return n > 0
}

// negatedSomewhere: a source token of word id is the first content word
// after a grammatical negation ("No injuries", "not a cyberattack"). The
// source's gaps are read once per Check, whatever the answer.
func (s *state) negatedSomewhere(id int32) bool {
	if !s.negFirstOK {
		s.negFirstOK = true
		s.negFirst = growBools(s.negFirst, s.words.len())
		clear(s.negFirst)
		from := 0
		for _, t := range s.stoks {
			if grammaticalNegation(s.source, from, t.start) {
				s.negFirst[t.id] = true
			}
			from = t.end
		}
	}
	return int(id) < len(s.negFirst) && s.negFirst[id]
}

// negReach bounds the bytes of a clause negatedNumber reads after an
// answer's negation, and before a source number.
const negReach = 60

// negatedNumber: a number in the answer's clause after offset from (its
// negated words, up to negReach bytes, before the sentence end to) has a
// value the source states in a negated clause: "is not part of a chain of
// more than 10" for "(2) not be owned by a chain of more than 10
// pharmacies", whose negated word is another.
func (s *state) negatedNumber(answer string, from, to int) bool {
	if len(s.anums) == 0 {
		return false // and s.snums is not this Check's (indexNumbers)
	}
	if !s.numNegOK {
		// Each source number's clause read once per Check.
		s.numNegOK = true
		s.numNeg = growBools(s.numNeg, len(s.snums))
		for j := range s.snums {
			n := &s.snums[j]
			b := n.span.Start
			for b > 0 && n.span.Start-b < negReach && !clausePunct[s.source[b-1]] {
				b--
			}
			s.numNeg[j] = clauseNegated(s.source[b:n.span.Start], true)
		}
	}
	end := min(to, from+negReach)
	for k := quantityAt(s.anums, from); k < len(s.anums); k++ {
		q := &s.anums[k]
		if q.span.End > end || breakBetween(answer, from, q.span.Start) {
			return false
		}
		compat := s.compatSet(q.kind)
		in := s.anear[k].and(&compat)
		for j := range in.all {
			if s.numNeg[j] {
				return true
			}
		}
	}
	return false
}
