package grounding

import (
	"fmt"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// EntitySwapConfidence is the confidence of a contradiction resting on a
// name in place of the one a source statement has (entitySwap): the
// statement aligns word for word, so as sure as a negation in an aligned
// sentence.
const EntitySwapConfidence = 0.75

// Bounds of a statement compared for a swapped name: at least
// entityMinContext other content words of the answer's (all in the source
// sentence), a source sentence of at most maxStatementWords content words
// (a longer run is no statement, and scanning it per answer sentence
// would be quadratic).
const (
	entityMinContext  = 2
	maxStatementWords = 64
)

// entitySwap looks for an answer statement that a source statement makes
// with another name: a run of capitalised words holding a name the source
// lacks (tok.name, set by missingNames), whose other content words, of its
// sentence or else of its clause, are all in the source sentence aligned
// with them, where that sentence has a run of capitalised words the
// answer's statement lacks next to the same word ("The capital of France
// is Lyon." against "The capital of France is Paris."). A name with no
// such counterpart stays unsupported. known: the name is instead a source
// word the aligned source sentence lacks (unalignedName).
func (s *state) entitySwap(answer, source string, known bool) (Evidence, bool) {
	if len(s.sents) == 0 {
		return Evidence{}, false // no answer sentence of two words or more: none was aligned
	}
	s.mark = growMarks(s.mark, s.words.len())
	k := 0
	for _, sp := range s.aspans {
		k0 := k
		for k < len(s.atoks) && s.atoks[k].start < sp.End {
			k++
		}
		aw := s.atoks[k0:k]
		// The first name's run per sentence only, so that the work stays one
		// or two alignments per sentence; a second new name in the same
		// statement would fail it anyway (not in the source sentence).
		i := 0
		var best *sentence
		if known {
			i, best = s.unalignedName(answer, aw)
		} else {
			for i < len(aw) && !aw[i].name {
				i++
			}
			// No name inside the sentence: its first word, if new and
			// capitalised, may be one (swapIn asks whether it is).
			if i == len(aw) && i > 0 && initialTok(answer, &aw[0]) {
				i = 0
			}
		}
		if i == len(aw) {
			continue
		}
		r0, r1 := i, i+1
		for r0 > 0 && aw[r0-1].upper && adjacent(answer, aw[r0-1].end, aw[r0].start) {
			r0--
		}
		for r1 < len(aw) && aw[r1].upper && adjacent(answer, aw[r1-1].end, aw[r1].start) {
			r1++
		}
		if e, ok := s.swapIn(answer, source, aw, best, 0, len(aw), r0, r1); ok {
			return e, true
		}
		// Answer sentences join source sentences: the name's clause alone.
		text := answer[sp.Start:sp.End]
		c0, c1 := 0, 0
		for c1 = clauseEnd(text, 0); sp.Start+c1 <= aw[i].start; c1 = clauseEnd(text, c1) {
			c0 = c1
		}
		w0, w1 := r0, r1
		for w0 > 0 && aw[w0-1].start >= sp.Start+c0 {
			w0--
		}
		for w1 < len(aw) && aw[w1].start < sp.Start+c1 {
			w1++
		}
		if w1-w0 < len(aw) {
			if e, ok := s.swapIn(answer, source, aw, nil, w0, w1, r0, r1); ok {
				return e, true
			}
		}
		// An apposition states the name's statement: "Lyon, the capital of
		// France, has ..." says "Lyon is the capital of France".
		if r1 < len(aw) && apposGap(answer[aw[r1-1].end:aw[r1].start]) {
			e := sp.Start + clauseEnd(text, aw[r1].start-sp.Start)
			w1 = r1
			for w1 < len(aw) && aw[w1].start < e {
				w1++
			}
			if w1 < len(aw) || r0 > 0 {
				if e, ok := s.swapIn(answer, source, aw, nil, r0, w1, r0, r1); ok {
					return e, true
				}
			}
		}
	}
	return Evidence{}, false
}

// swapIn: the answer statement aw[w0:w1] (of the sentence aw), but for
// the name run aw[r0:r1], is all in the source sentence it aligns with
// (best when not nil), at least entityMinContext words, and that sentence
// lacks a word of the run and has a run of capitalised words (not opening
// it) with a word the statement lacks, next to the word the answer's run
// is next to.
func (s *state) swapIn(answer, source string, aw []tok, best *sentence, w0, w1, r0, r1 int) (Evidence, bool) {
	if w1-w0-(r1-r0) < entityMinContext {
		return Evidence{}, false
	}
	w := aw[w0:w1]
	r0, r1 = r0-w0, r1-w0
	// A context word the source lacks is in no source sentence: no need to
	// align (the usual case: a summary's sentence has other new words).
	for i, t := range w {
		if (i < r0 || i >= r1) && !s.vocab(t.id) {
			return Evidence{}, false
		}
	}
	if best == nil {
		best, _ = s.alignSentence(w)
	}
	if best == nil {
		return Evidence{}, false
	}
	j0 := tokAt(s.stoks, best.span.Start)
	j1 := j0
	for j1 < len(s.stoks) && s.stoks[j1].start < best.span.End {
		j1++
	}
	if j1-j0 > maxStatementWords {
		return Evidence{}, false
	}
	st := s.stoks[j0:j1]
	s.stamp++
	for _, t := range st {
		s.mark[t.id] = s.stamp
	}
	out := false
	for i, t := range w {
		in := s.mark[t.id] == s.stamp
		if i < r0 || i >= r1 {
			if !in {
				return Evidence{}, false
			}
		} else {
			out = out || !in
		}
	}
	if !out {
		return Evidence{}, false // the source sentence has the answer's name
	}
	// The answer's words by role: in the name run (stamp-1) or elsewhere
	// in its sentence (stamp; a word in both is the latter).
	s.stamp += 2
	for _, t := range w[r0:r1] {
		s.mark[t.id] = s.stamp - 1
	}
	for i, t := range aw {
		if i < w0+r0 || i >= w0+r1 {
			s.mark[t.id] = s.stamp
		}
	}
	// The answer's run opens its sentence: its capital may say nothing.
	aInit := w0+r0 == 0 && sentenceStart(answer, w[r0].start)
	for q0 := 0; q0 < len(st); q0++ {
		if !st[q0].upper {
			continue
		}
		sInit := sentenceStart(source, st[q0].start)
		if sInit && q0 > 0 {
			continue
		}
		// The source's run: a word the answer's statement lacks, none of
		// the answer's context ("based Polaris Industries" is no place of
		// "Polaris is based in Michigan").
		q1, lacks, ctx := q0, false, false
		for ; q1 < len(st) && st[q1].upper && (q1 == q0 || adjacent(source, st[q1-1].end, st[q1].start)); q1++ {
			m := s.mark[st[q1].id]
			lacks = lacks || m != s.stamp && m != s.stamp-1
			ctx = ctx || m == s.stamp
		}
		// Next to the same word on one side, and to no other word on the
		// other: "Smith (born December 30, 1946) is an American" is no
		// place of "Smith is Irish-American".
		var before, after int
		if r0 > 0 && q0 > 0 {
			before = anchor(&w[r0-1], &st[q0-1], answer[w[r0-1].end:w[r0].start], source[st[q0-1].end:st[q0].start])
		}
		if r1 < len(w) && q1 < len(st) {
			ag, sg := answer[w[r1-1].end:w[r1].start], source[st[q1-1].end:st[q1].start]
			after = anchor(&w[r1], &st[q1], ag, sg)
			if after < 0 && w[r1].id == st[q1].id && (apposGap(ag) && copulaGap(sg) || copulaGap(ag) && apposGap(sg)) {
				after = 1 // "Lyon, the capital" / "Paris is the capital"
			}
		}
		// A run opening its sentence stands where the other's does (both
		// open theirs, or the source's is inside its sentence), or the
		// statement is turned round its "is" ("Paris is the capital of
		// France" / "The capital of France is Lyon"); either way both must
		// read as names (namePair).
		place := max(before, after) > 0 && min(before, after) >= 0 && (!sInit || aInit)
		if sInit || aInit {
			place = (place || copulaPair(answer, source, w, r0, r1, st, q0, q1)) &&
				s.namePair(answer, source, w[r0:r1], st[q0:q1], aInit, sInit)
		}
		if lacks && !ctx && place && !calendarRun(source, st[q0:q1]) {
			a := scan.Span{Start: w[r0].start, End: w[r1-1].end}
			b := scan.Span{Start: st[q0].start, End: st[q1-1].end}
			return Evidence{AnswerSpan: a, AnswerText: answer[a.Start:a.End], SourceSpan: &b, SourceText: source[b.Start:b.End],
				Reason: fmt.Sprintf("the answer says %q where the source says %q", answer[a.Start:a.End], source[b.Start:b.End])}, true
		}
		q0 = q1 - 1
	}
	return Evidence{}, false
}

// anchor compares the words next to the two runs on one side, an and sn,
// with the text between them and their runs, ag and sg: 1 the same word
// with the same words between ("approved by"; articles and numbers aside:
// "born 1966 in Lecompton" / "born in Hollywood"), -1 another word or
// other words between ("Vessels won" is no place of "Oklahoma and won":
// the source's subject is a "he" before it), 0 a clause break in both
// gaps (nothing to compare).
func anchor(an, sn *tok, ag, sg string) int {
	switch {
	case clauseGap(ag) && clauseGap(sg):
		return 0
	case an.id != sn.id || !sameGap(ag, sg):
		return -1
	}
	return 1
}

// sameGap: a and b have the same words, but for articles (and anything
// but letters).
func sameGap(a, b string) bool {
	i, j := 0, 0
	for {
		var wa, wb string
		wa, i = gapWord(a, i)
		wb, j = gapWord(b, j)
		if !strings.EqualFold(wa, wb) {
			return false
		}
		if wa == "" {
			return true
		}
	}
}

// gapWord returns the next run of letters of g from i that is no article
// ("" at the end) and the offset after it.
func gapWord(g string, i int) (string, int) {
	for i < len(g) {
		if !asciiLetter(g[i]) {
			i++
			continue
		}
		j := i
		for j < len(g) && asciiLetter(g[j]) {
			j++
		}
		if w := g[i:j]; !strings.EqualFold(w, "the") && !strings.EqualFold(w, "a") && !strings.EqualFold(w, "an") {
			return w, j
		}
		i = j
	}
	return "", i
}

// clauseGap: g holds a clause break (order.go's clausePunct).
func clauseGap(g string) bool {
	for i := 0; i < len(g); i++ {
		if clausePunct[g[i]] {
			return true
		}
	}
	return false
}

// unalignedName aligns the answer sentence aw, all of whose words the
// source has, and returns the index of its first capitalised word, not
// opening it, that the aligned source sentence lacks (len(aw) if none),
// and that sentence: a name the source has elsewhere, in place of the
// one this statement has ("The capital of France is Lyon." against "The
// capital of France is Paris. Lyon is known for its food.").
func (s *state) unalignedName(answer string, aw []tok) (int, *sentence) {
	// Most sentences have no name (the usual case: no alignment) or a
	// word the source lacks.
	names := false
	for i, t := range aw {
		if !s.vocab(t.id) {
			return len(aw), nil
		}
		names = names || nameTok(answer, aw, i)
	}
	// Or its first word, capitalised and never written lower-case
	// (namePair weighs it once a counterpart is found).
	init := len(aw) > 1 && aw[0].upper && sentenceStart(answer, aw[0].start) && !calendarRun(answer, aw[:1]) &&
		s.caseOf(answer, aw[0].id)&caseLower == 0
	names = names || init
	if !names {
		return len(aw), nil
	}
	best, _ := s.alignSentence(aw)
	if best == nil || best.w1-best.w0 > maxStatementWords {
		return len(aw), nil
	}
	s.stamp++
	for _, id := range s.sentWords[best.w0:best.w1] {
		s.mark[id] = s.stamp
	}
	for i := range aw {
		if s.mark[aw[i].id] != s.stamp && (nameTok(answer, aw, i) || i == 0 && init) {
			return i, best
		}
	}
	return len(aw), nil
}

// nameTok: the answer token aw[i] is capitalised inside its sentence and
// no weekday or month.
func nameTok(answer string, aw []tok, i int) bool {
	return aw[i].upper && !sentenceStart(answer, aw[i].start) && !calendarRun(answer, aw[i:i+1])
}

// calendarRun: the run is a weekday or month name ("December 30"), which
// lexicalContradiction weighs, and no place of a person's or a place's
// name.
func calendarRun(text string, run []tok) bool {
	var buf [16]byte
	for _, t := range run {
		if w := lowerASCII(text, t.start, t.end, buf[:]); w != nil && calendarWords[string(w)] {
			return true
		}
	}
	return false
}

// adjacent: only spaces between offsets i and j of text (two words of one
// name, "New York").
func adjacent(text string, i, j int) bool {
	for ; i < j; i++ {
		if text[i] != ' ' {
			return false
		}
	}
	return true
}

// initialTok: t opens its sentence, is capitalised with a lower-case
// second letter (no acronym), the source lacks it, and it is no weekday
// or month: perhaps a name, which swapIn weighs (namePair).
func initialTok(answer string, t *tok) bool {
	return t.upper && t.missing && t.end-t.start > 1 && answer[t.start+1] >= 'a' && answer[t.start+1] <= 'z' &&
		sentenceStart(answer, t.start) && !calendarRun(answer, []tok{*t})
}

// initialName: an answer sentence opens with an initialTok.
func (s *state) initialName(answer string) bool {
	for i := range s.atoks {
		if t := &s.atoks[i]; t.upper && initialTok(answer, t) {
			return true
		}
	}
	return false
}

// How a word is written in the answer and the source (state.caseSeen).
const (
	caseLower = 1 << iota // lower-case somewhere
	caseMid               // capitalised inside a sentence somewhere
)

// caseOf returns how the answer and the source write word id, indexing
// both texts' tokens on first use in a Check (one pass).
func (s *state) caseOf(answer string, id int32) uint8 {
	if !s.caseOK {
		s.caseOK = true
		n := s.words.len()
		if cap(s.caseSeen) < n {
			s.caseSeen = make([]uint8, n, n+n/4)
		}
		s.caseSeen = s.caseSeen[:n]
		clear(s.caseSeen)
		for _, side := range [2]struct {
			text string
			toks []tok
		}{{answer, s.atoks}, {s.source, s.stoks}} {
			for _, t := range side.toks {
				switch {
				case !t.upper:
					s.caseSeen[t.id] |= caseLower
				case !sentenceStart(side.text, t.start):
					s.caseSeen[t.id] |= caseMid
				}
			}
		}
	}
	if id < 0 || int(id) >= len(s.caseSeen) {
		return 0
	}
	return s.caseSeen[id]
}

// namePair: the answer's run a and the source's run b, one of which
// opens its sentence (aInit, bInit), read as names. A run is clearly a
// name inside a sentence, of two words or more, or written capitalised
// inside a sentence elsewhere, or a word the lexicon lacks; it may be a
// name when it is never written lower-case and is itself a lexicon
// lemma, a noun only ("Lyon"; not "Revenue" when "revenue" comes later,
// not "Profit", a verb too, nor "Customers", a plural). Each run is a name
// or may be one, unless the other is clearly one ("Google acquired" /
// "Microsoft acquired"); two that only may be share no sense ("Customer"
// / "Client").
func (s *state) namePair(answer, source string, a, b []tok, aInit, bInit bool) bool {
	ac, am, al := s.nameLike(answer, a, aInit)
	bc, bm, bl := s.nameLike(source, b, bInit)
	if !(am || bc) || !(bm || ac) {
		return false
	}
	if ac || bc {
		return true
	}
	l := lex()
	bs := l.sensesOf(bl)
	for _, x := range l.sensesOf(al) {
		if containsID(bs, x) {
			return false
		}
	}
	return true
}

// nameLike returns whether run (of text) is clearly a name and whether it
// may be one (namePair), and then its lemma when it is not clearly one.
func (s *state) nameLike(text string, run []tok, init bool) (clear, may bool, lemma int32) {
	if !init || len(run) > 1 {
		return true, true, -1
	}
	t := &run[0]
	c := s.caseOf(text, t.id)
	if c&caseMid != 0 {
		return true, true, -1
	}
	if c&caseLower != 0 {
		return false, false, -1
	}
	l := lex()
	var buf [40]byte
	w := lowerASCII(text, t.start, t.end, buf[:])
	if l == nil || w == nil {
		return true, true, -1
	}
	var lb [8]int32
	lemmas := l.baseForms(w, lb[:0])
	if len(lemmas) == 0 {
		return true, true, -1
	}
	id := l.lemmas.find(w)
	if id < 0 || len(lemmas) > 1 || l.pos[id] != 1 {
		return false, false, -1
	}
	return false, true, id
}

// copulaPair: the statement is turned round its "is": one run opens its
// statement before "is" or "was" (articles aside), the other closes its
// statement after one, the word after the first run is the other
// statement's first, and the word before the second run is the first
// statement's last ("Paris is the capital of France" / "The capital of
// France is Lyon").
func copulaPair(answer, source string, w []tok, r0, r1 int, st []tok, q0, q1 int) bool {
	switch {
	case r0 == 0 && r1 < len(w) && q0 > 0 && q1 == len(st):
		ag := answer[w[r1-1].end:w[r1].start]
		return w[r1].id == st[0].id && w[len(w)-1].id == st[q0-1].id &&
			(copulaGap(ag) || apposGap(ag)) && copulaGap(source[st[q0-1].end:st[q0].start])
	case q0 == 0 && q1 < len(st) && r0 > 0 && r1 == len(w):
		sg := source[st[q1-1].end:st[q1].start]
		return st[q1].id == w[0].id && st[len(st)-1].id == w[r0-1].id &&
			(copulaGap(sg) || apposGap(sg)) && copulaGap(answer[w[r0-1].end:w[r0].start])
	}
	return false
}

// copulaGap: g's only word, articles aside, is "is" or "was", and it holds
// no clause break.
func copulaGap(g string) bool {
	if clauseGap(g) {
		return false
	}
	w, i := gapWord(g, 0)
	if !strings.EqualFold(w, "is") && !strings.EqualFold(w, "was") {
		return false
	}
	w, _ = gapWord(g, i)
	return w == ""
}

// apposGap: g is a comma and an article, an apposition's opening
// ("Lyon, the capital of France").
func apposGap(g string) bool {
	g = strings.TrimSpace(g)
	if len(g) < 2 || g[0] != ',' {
		return false
	}
	g = strings.TrimSpace(g[1:])
	return strings.EqualFold(g, "the") || strings.EqualFold(g, "a") || strings.EqualFold(g, "an")
}
