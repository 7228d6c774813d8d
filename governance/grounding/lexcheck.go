package grounding

import (
	"fmt"
	"math/bits"

	"github.com/governance-gateway/gateway/governance/scan"
)

// Word meaning (the WordNet table of lexicon.go) in the checker, for the
// answer words the source lacks, each looked up once per Check:
//
//   - supported (not counted in the unsupported share): an inflection
//     ("went" for "go"), a derivation ("purchase" for "purchased"), a
//     synonym or a hypernym ("the animal" for "the dog") of a source word;
//     in a short answer only an inflection (a short answer should come
//     from the source nearly word for word);
//   - an antonym of a source word next to a word the answer also has next
//     to it, or in the source sentence the answer sentence is aligned
//     with: a contradiction (AntonymConfidence);
//   - a concrete noun that replaces a source noun the answer does not use:
//     a co-hyponym under a near and narrow common hypernym ("cheese" for
//     "milk": both dairy products), a contradiction; or a hyponym ("ghee"
//     for "butter"), unsupported. Both weak findings (SwapConfidence).
//
// The constants were chosen on the even-numbered SummEdits documents
// (docs/governance.md, Quality).
const (
	// Senses (per part of speech, most frequent first) of a source word
	// that support answer words, and of an answer word looked up.
	supportSenses = 3
	// Senses per part of speech of the two words of a swap.
	swapSenses = 2
	// A co-hyponym's common hypernym: at most swapTotal steps above both
	// words' senses together (a hyponym: at most swapTotal steps below the
	// source word's sense; 3 until stop 20 missed "laptop" for "computer",
	// four steps), at least swapDepth steps below a root, with at most
	// swapDesc descendants.
	swapTotal = 4
	swapDepth = 5
	swapDesc  = 300
	// An antonym in the aligned source sentence: the answer sentence has
	// at least antonymMinWords distinct words, antonymSim of them in it.
	antonymMinWords = 3
	antonymSim      = 0.6
)

// AntonymConfidence is the confidence of a contradiction resting on a
// WordNet antonym of a source word (lexAntonym): above the default
// min_confidence, under the 0.7 of the hand-written antonym pairs.
const AntonymConfidence = 0.6

// SwapConfidence is the confidence of a concrete noun replacing a source
// noun (lexicalSwap): like a new name, recorded but under the default
// min_confidence (0.5), so the default policy does not act on it.
const SwapConfidence = 0.45

// i32set is an open-addressing set of non-negative int32 (stored +1).
type i32set struct {
	slot []int32
	n    int
}

func (t *i32set) reset() {
	if t.n > 0 {
		clear(t.slot)
		t.n = 0
	}
}

func i32slot(v int32, mask int) int { return int(uint32(v)*0x9e3779b1>>7) & mask }

func (t *i32set) has(v int32) bool {
	if t.n == 0 {
		return false
	}
	mask := len(t.slot) - 1
	for i := i32slot(v, mask); ; i = (i + 1) & mask {
		switch t.slot[i] {
		case v + 1:
			return true
		case 0:
			return false
		}
	}
}

func (t *i32set) add(v int32) {
	if 2*(t.n+1) > len(t.slot) {
		old := t.slot
		t.slot = make([]int32, max(64, 2*len(old)))
		t.n = 0
		for _, x := range old {
			if x != 0 {
				t.add(x - 1)
			}
		}
	}
	mask := len(t.slot) - 1
	for i := i32slot(v, mask); ; i = (i + 1) & mask {
		switch t.slot[i] {
		case v + 1:
			return
		case 0:
			t.slot[i] = v + 1
			t.n++
			return
		}
	}
}

// i32map maps non-negative int32 keys to int32 values (open addressing).
type i32map struct {
	keys, vals []int32 // keys stored +1
	n          int
}

func (m *i32map) reset() {
	if m.n > 0 {
		clear(m.keys)
		m.n = 0
	}
}

func (m *i32map) get(k int32) int32 {
	if m.n == 0 {
		return 0
	}
	mask := len(m.keys) - 1
	for i := i32slot(k, mask); ; i = (i + 1) & mask {
		switch m.keys[i] {
		case k + 1:
			return m.vals[i]
		case 0:
			return 0
		}
	}
}

func (m *i32map) put(k, v int32) {
	if 2*(m.n+1) > len(m.keys) {
		ok, ov := m.keys, m.vals
		m.keys, m.vals = make([]int32, max(64, 2*len(ok))), make([]int32, max(64, 2*len(ok)))
		m.n = 0
		for i, x := range ok {
			if x != 0 {
				m.put(x-1, ov[i])
			}
		}
	}
	mask := len(m.keys) - 1
	for i := i32slot(k, mask); ; i = (i + 1) & mask {
		switch m.keys[i] {
		case k + 1:
			m.vals[i] = v
			return
		case 0:
			m.keys[i], m.vals[i] = k+1, v
			m.n++
			return
		}
	}
}

// lexState is the lexical scratch of one Check (pooled with state).
type lexState struct {
	stamp uint32 // of the current Check
	// Per word id, valid where memo (inAns) holds stamp: how the answer
	// word relates to the source (lexSupported), and whether the answer
	// has the word.
	memo  []uint32
	memoV []int8
	inAns []uint32
	// Per word id, valid where antSeen (swapSeen) holds stamp: whether the
	// word has an antonym the source has (lexAntonym); the word was
	// looked at by lexicalSwap.
	antSeen  []uint32
	antV     []bool
	swapSeen []uint32
	adjSeen  []uint32 // adjacentAntonym found the word has no antonym (valid where it holds stamp)
	// prefSeen: the word ids prefixOpposite looked at (an answer that
	// repeats a word repeats the outcome).
	prefSeen []uint32
	// prefMiss: per word id, valid where prefSeen holds stamp, the answer
	// token (+1) whose word lexicalContradiction found no opposite of by
	// a negative prefix, 0 none: the same word again finds none either.
	prefMiss []int32
	// antonymNeighbour's pairs (answer word id, source word id) with no
	// antonym among the source word's tokens.
	antFailed map[[2]int32]bool

	built bool // the source fields below hold the current source
	// Per source word id, valid where srcSeen holds stamp: its lemmas,
	// srcBases[srcOff[id]:srcEnd[id]] (the first occurrence's).
	srcSeen        []uint32
	srcOff, srcEnd []int32
	srcBases       []int32
	srcToks        []int32 // the first token of each distinct source word
	srcLem         i32set  // the source words' lemmas
	// The source words' senses (supportSenses per part of speech), a
	// bit per preorder number (lexicon.pre): a subtree is a range.
	srcBits []uint64

	senseBuilt bool   // senseTok holds the current source
	senseTok   i32map // a concrete noun sense of a source word the answer does not use -> its token+1

	bases, bases2 []int32 // lemmas of a source word, of an answer word
	anc, anc2     []ancestor
	word, sword   [40]byte // an answer word and a source word, lower-cased
}

// reset readies x for a Check.
func (x *lexState) reset() {
	if x.antFailed == nil {
		x.antFailed = map[[2]int32]bool{}
	} else if len(x.antFailed) > 0 {
		clear(x.antFailed)
	}
	x.stamp++
	if x.stamp == 0 {
		clear(x.memo)
		clear(x.inAns)
		clear(x.antSeen)
		clear(x.swapSeen)
		clear(x.adjSeen)
		clear(x.prefSeen)
		clear(x.srcSeen)
		x.stamp = 1
	}
	if x.built {
		clear(x.srcBits)
	}
	x.built, x.senseBuilt = false, false
	x.srcBases, x.srcToks = x.srcBases[:0], x.srcToks[:0]
	x.srcLem.reset()
	x.senseTok.reset()
}

// grow sizes the per-word arrays for n word ids.
func (x *lexState) grow(n int) {
	if len(x.memo) < n {
		x.memo = append(x.memo, make([]uint32, n-len(x.memo))...)
		x.memoV = append(x.memoV, make([]int8, n-len(x.memoV))...)
		x.inAns = append(x.inAns, make([]uint32, n-len(x.inAns))...)
		x.antSeen = append(x.antSeen, make([]uint32, n-len(x.antSeen))...)
		x.antV = append(x.antV, make([]bool, n-len(x.antV))...)
		x.swapSeen = append(x.swapSeen, make([]uint32, n-len(x.swapSeen))...)
		x.adjSeen = append(x.adjSeen, make([]uint32, n-len(x.adjSeen))...)
		x.prefSeen = append(x.prefSeen, make([]uint32, n-len(x.prefSeen))...)
		x.prefMiss = append(x.prefMiss, make([]int32, n-len(x.prefMiss))...)
		x.srcSeen = append(x.srcSeen, make([]uint32, n-len(x.srcSeen))...)
		x.srcOff = append(x.srcOff, make([]int32, n-len(x.srcOff))...)
		x.srcEnd = append(x.srcEnd, make([]int32, n-len(x.srcEnd))...)
	}
}

// lowerASCII lower-cases text[st:en] into buf as wordIDs reads a word
// (trailing apostrophes and a possessive "'s" trimmed); nil when it is not
// ASCII letters, or shorter than 2 or longer than buf.
func lowerASCII(text string, st, en int, buf []byte) []byte {
	for en > st && text[en-1] == '\'' {
		en--
	}
	if en-st > 3 && text[en-2] == '\'' && text[en-1]|0x20 == 's' {
		en -= 2
	}
	if en-st > len(buf) || en-st < 2 {
		return nil
	}
	// Indexing a slice of the word's own length, not appending: this runs
	// for every distinct source word.
	t, w := text[st:en], buf[:en-st]
	for k := range w {
		c := t[k] | 0x20 // lowers a letter; a non-ASCII byte stays >= 0xa0
		if c-'a' > 'z'-'a' {
			return nil
		}
		w[k] = c
	}
	return w
}

// topSenses appends to out the senses of lemma b among the first n of
// each part of speech (WordNet orders them by frequency).
func topSenses(l *lexicon, b int32, n int, out []int32) []int32 {
	prev, k := -1, 0
	for _, s := range l.sensesOf(b) {
		if p := l.synPOS(s); p != prev {
			prev, k = p, 0
		}
		if k < n {
			out = append(out, s)
		}
		k++
	}
	return out
}

// Relations of an answer word to a source word (lexSupported), closest
// first.
const (
	lexNone       = iota
	lexInflection // the same lemma ("went" for "go")
	lexDerivation // "decision" for "decide"
	lexSynonym    // a shared synset ("buy" for "purchase")
	lexHypernym   // a hypernym of a source word's sense ("animal" for "dog"), or an adjective of a source adjective's head
)

// buildLexSource records each distinct source word's lemmas, and their
// senses in srcBits.
func (s *state) buildLexSource(l *lexicon) {
	x := &s.lex
	x.built = true
	x.grow(s.words.len())
	if n := (len(l.pre) + 63) / 64; len(x.srcBits) < n {
		x.srcBits = make([]uint64, n)
	}
	var senses [64]int32
	for j := range s.stoks {
		t := &s.stoks[j]
		if x.srcSeen[t.id] == x.stamp {
			continue
		}
		x.srcSeen[t.id] = x.stamp
		x.srcToks = append(x.srcToks, int32(j))
		x.srcOff[t.id] = int32(len(x.srcBases))
		if w := lowerASCII(s.source, t.start, t.end, x.sword[:]); w != nil {
			x.srcBases = l.baseForms(w, x.srcBases)
		}
		x.srcEnd[t.id] = int32(len(x.srcBases))
		for _, b := range x.srcBases[x.srcOff[t.id]:] {
			x.srcLem.add(b)
			for _, syn := range topSenses(l, b, supportSenses, senses[:0]) {
				p := l.pre[syn]
				x.srcBits[p>>6] |= 1 << (p & 63)
			}
		}
	}
}

// sourceLemmas returns the lemmas of the source word of stem id (of its
// first occurrence), after buildLexSource.
func (x *lexState) sourceLemmas(id int32) []int32 {
	if int(id) >= len(x.srcSeen) || x.srcSeen[id] != x.stamp {
		return nil
	}
	return x.srcBases[x.srcOff[id]:x.srcEnd[id]]
}

// srcSense: a source word has synset syn among its senses.
func (x *lexState) srcSense(l *lexicon, syn int32) bool {
	p := l.pre[syn]
	return x.srcBits[p>>6]&(1<<(p&63)) != 0
}

// srcUnder: a source word's sense is in the subtree of syn, syn itself
// left out (when self is false).
func (x *lexState) srcUnder(l *lexicon, syn int32, self bool) bool {
	from, to := l.pre[syn], l.pre[syn]+l.size[syn]
	if !self {
		from++
	}
	return x.nextSrcSense(from, to) < to
}

// nextSrcSense returns the first preorder number in [from, to) of a
// source word's sense, to when there is none.
func (x *lexState) nextSrcSense(from, to int32) int32 {
	for from < to {
		if w := x.srcBits[from>>6] >> (from & 63); w != 0 {
			return min(to, from+int32(bits.TrailingZeros64(w)))
		}
		from = (from | 63) + 1
	}
	return to
}

// lexSupported returns how the answer token t, which the source lacks,
// relates to a source word (lexNone when it does not), once per word.
func (s *state) lexSupported(l *lexicon, answer string, t *tok) int {
	x := &s.lex
	x.grow(s.words.len())
	if x.memo[t.id] == x.stamp {
		return int(x.memoV[t.id])
	}
	lv := s.lexRelation(l, answer, t)
	x.memo[t.id] = x.stamp
	x.memoV[t.id] = int8(lv)
	return lv
}

func (s *state) lexRelation(l *lexicon, answer string, t *tok) int {
	x := &s.lex
	w := lowerASCII(answer, t.start, t.end, x.word[:])
	if w == nil {
		return lexNone
	}
	if x.bases2 = l.baseForms(w, x.bases2[:0]); len(x.bases2) == 0 {
		return lexNone
	}
	if !x.built {
		s.buildLexSource(l)
	}
	var senses [64]int32
	lv := lexNone
	for _, b := range x.bases2 {
		if x.srcLem.has(b) {
			return lexInflection
		}
		for _, r := range l.relatedOf(b) {
			if x.srcLem.has(r) {
				lv = lexDerivation
			}
		}
		if lv == lexDerivation {
			continue
		}
		for _, syn := range topSenses(l, b, supportSenses, senses[:0]) {
			switch {
			case x.srcSense(l, syn):
				lv = lexSynonym
			case lv == lexNone && x.srcUnder(l, syn, false):
				lv = lexHypernym // a source word's sense is a kind of it
			case lv == lexNone && l.synPOS(syn) == 2:
				// An adjective satellite: its head, and so its sibling
				// satellites, are near synonyms.
				for _, h := range l.parentsOf(syn) {
					if x.srcUnder(l, h, true) {
						lv = lexHypernym
					}
				}
			}
		}
	}
	return lv
}

// inAnswer: the answer has a word of stem id (see markAnswer).
func (x *lexState) inAnswer(id int32) bool { return int(id) < len(x.inAns) && x.inAns[id] == x.stamp }

func (s *state) markAnswer() {
	x := &s.lex
	x.grow(s.words.len())
	for _, t := range s.atoks {
		x.inAns[t.id] = x.stamp
	}
}

// lexAntonym looks for an answer word the source lacks that is a WordNet
// antonym of a source word the answer does not use, either next to a word
// that is next to the answer word too ("higher costs" / "lower costs", as
// lexicalContradiction with the hand-written pairs), or in the source
// sentence the answer sentence is aligned with.
func (s *state) lexAntonym(answer, source string) (Evidence, bool) {
	l := lex()
	if l == nil {
		return Evidence{}, false
	}
	x := &s.lex
	s.markAnswer()
	aligned := false
	k := 0
	for _, sp := range s.aspans {
		k0 := k
		for k < len(s.atoks) && s.atoks[k].start < sp.End {
			k++
		}
		var best *sentence
		for i := k0; i < k; i++ {
			t := &s.atoks[i]
			if !t.absent {
				continue
			}
			w := lowerASCII(answer, t.start, t.end, x.word[:])
			if w == nil {
				continue
			}
			if x.antSeen[t.id] != x.stamp {
				x.antSeen[t.id] = x.stamp
				x.antV[t.id] = s.antonymInSource(l, w)
			}
			if !x.antV[t.id] || s.beforeStatedNumber(t) {
				continue // the usual case: no antonym of the word in the source
			}
			if lv := s.lexSupported(l, answer, t); lv == lexSynonym || lv == lexDerivation {
				// The source supports the word by meaning: a paraphrase of
				// what it says, no opposite of another word ("back" for
				// the source's "support", beside a "go ahead").
				continue
			}
			x.bases2 = l.baseForms(w, x.bases2[:0])
			if e, ok := s.antonymNeighbour(l, answer, source, i, w); ok {
				return e, true
			}
			if best == nil && k-k0 >= antonymMinWords {
				if !aligned {
					aligned = true
					if len(s.sents) == 0 {
						s.sourceSentences(source)
					}
					s.counts = growInt32(s.counts, len(s.sents))
					s.mark = growMarks(s.mark, s.words.len())
				}
				if b, sim := s.alignSentence(s.atoks[k0:k]); b != nil && sim >= antonymSim && len(s.set) >= antonymMinWords {
					best = b
				}
			}
			if best == nil {
				continue
			}
			for j := tokAt(s.stoks, best.span.Start); j < len(s.stoks) && s.stoks[j].start < best.span.End; j++ {
				if e, ok := s.antonymOf(l, answer, source, t, w, &s.stoks[j]); ok && s.samePolarity(answer, i, e.SourceSpan.Start) {
					return e, true
				}
			}
		}
	}
	return Evidence{}, false
}

// antonymInSource: the source has a word whose stem is that of an
// antonym of the lower-case answer word w.
func (s *state) antonymInSource(l *lexicon, w []byte) bool {
	x := &s.lex
	x.bases2 = l.baseForms(w, x.bases2[:0])
	for _, b := range x.bases2 {
		for _, a := range l.antonymsOf(b) {
			var buf [41]byte
			for _, ant := range lemmaStems(l.lemmas.str(a>>2), &buf) {
				if ant != nil && s.vocab(find(&s.words, ant, fnvAdd(fnvOffset, ant))) {
					return true
				}
			}
		}
	}
	return false
}

// lemmaStems returns the stems under which the source's words may hold
// the WordNet lemma: a lemma in "-e" stems apart from its inflections
// ("improve"; "improves", "improved": "improv"; stemForms); nil when it
// has one stem.
func lemmaStems(lemma []byte, buf *[41]byte) [2][]byte {
	a := stemBytes(lemma)
	if n := len(lemma); n == 0 || n >= len(buf) || lemma[n-1] != 'e' {
		return [2][]byte{a}
	}
	if b := stemBytes(append(append(buf[:0], lemma...), 's')); string(b) != string(a) {
		return [2][]byte{a, b}
	}
	return [2][]byte{a}
}

// antonymNeighbour: the answer word w (token i, lemmas x.bases2) has an
// antonym in the source within nbrWindow words of a word within
// nbrWindow words of w in the answer (sharedNeighbour).
func (s *state) antonymNeighbour(l *lexicon, answer, source string, i int, w []byte) (Evidence, bool) {
	x := &s.lex
	t := &s.atoks[i]
	for _, b := range x.bases2 {
		for _, a := range l.antonymsOf(b) {
			if !l.formOf(w, b, int(a&3)) {
				continue // "presents" is no adjective
			}
			var buf [41]byte
			for _, ant := range lemmaStems(l.lemmas.str(a>>2), &buf) {
				if ant == nil || !s.sharedNeighbour(i, ant) {
					continue
				}
				aid := find(&s.words, ant, fnvAdd(fnvOffset, ant))
				if x.inAnswer(aid) {
					continue // antonymOf: the answer uses it
				}
				// A pair that failed is not tried again: an answer
				// repeating the word repeats the outcome (a success ends
				// the Check).
				key := [2]int32{t.id, aid}
				if x.antFailed[key] {
					continue
				}
				for _, k := range s.sourceToks(aid) {
					if e, ok := s.antonymOf(l, answer, source, t, w, &s.stoks[k]); ok && s.samePolarity(answer, i, s.stoks[k].start) {
						return e, true
					}
				}
				x.antFailed[key] = true
			}
		}
	}
	return Evidence{}, false
}

// antonymOf: the answer word w (token t, lemmas x.bases2) and the source
// token st, which the answer does not use, are antonyms, each a form of
// its lemma in the part of speech of the pair.
func (s *state) antonymOf(l *lexicon, answer, source string, t *tok, w []byte, st *tok) (Evidence, bool) {
	x := &s.lex
	if x.inAnswer(st.id) {
		return Evidence{}, false
	}
	sw := lowerASCII(source, st.start, st.end, x.sword[:])
	if sw == nil || idiomUse(source, st.end, string(sw)) {
		return Evidence{}, false
	}
	x.bases = l.baseForms(sw, x.bases[:0])
	for _, a := range x.bases2 {
		for _, v := range l.antonymsOf(a) {
			b := v >> 2
			if containsID(x.bases, b) && l.formOf(w, a, int(v&3)) && l.formOf(sw, b, int(v&3)) {
				return swapEvidence(answer, source, t, st,
					fmt.Sprintf("%q is the opposite of %q", string(l.lemmas.str(a)), string(l.lemmas.str(b)))), true
			}
		}
	}
	return Evidence{}, false
}

func swapEvidence(answer, source string, t, st *tok, why string) Evidence {
	return Evidence{AnswerSpan: scan.Span{Start: t.start, End: t.end}, AnswerText: answer[t.start:t.end],
		SourceSpan: &scan.Span{Start: st.start, End: st.end}, SourceText: source[st.start:st.end],
		Reason: fmt.Sprintf("%q replaces %q: %s", answer[t.start:t.end], source[st.start:st.end], why)}
}

// ancestor is a synset above a sense and its distance.
type ancestor struct {
	syn  int32
	dist int8
}

// ancestors appends the concrete noun senses of the lemmas (swapSenses
// of each, when a noun is the lemma's usual part of speech) and their
// hypernyms up to swapTotal steps, each with its distance (breadth-first).
func ancestors(l *lexicon, lemmas []int32, out []ancestor) []ancestor {
	var senses [64]int32
	for _, b := range lemmas {
		if l.usual[b] != 0 {
			continue // "offers" is a verb more often than a noun
		}
		for _, syn := range topSenses(l, b, swapSenses, senses[:0]) {
			if l.synPOS(syn) != 0 || !l.concrete[syn] {
				continue
			}
			start := len(out)
			out = append(out, ancestor{syn, 0})
			for i := start; i < len(out) && len(out) < 512; i++ {
				if a := out[i]; a.dist < swapTotal {
					for _, p := range l.parentsOf(a.syn) {
						out = append(out, ancestor{p, a.dist + 1})
					}
				}
			}
		}
	}
	return out
}

// swapWord: the lower-case word w (of lemmas) may name a thing: it has
// three letters or more and is no verb form ("cataloged", "driving"
// where a verb has it).
func swapWord(l *lexicon, w []byte, lemmas []int32) bool {
	n := len(w)
	if n < 3 {
		return false
	}
	if (string(w[n-2:]) == "ed" || n > 4 && string(w[n-3:]) == "ing") && !containsID(lemmas, l.lemmas.find(w)) {
		return false
	}
	for _, b := range lemmas {
		if l.usual[b] == 1 && string(l.lemmas.str(b)) != string(w) {
			return false // a verb's -ing, -ed or -s form
		}
	}
	return true
}

// buildSenseTok indexes the source nouns by their concrete noun senses
// (swapSenses of each), per sense a noun the answer does not use when
// there is one. A noun the answer uses too may still be one of which the
// answer names a kind ("salmon ... any more fish" for "fish").
func (s *state) buildSenseTok(l *lexicon, source string) {
	x := &s.lex
	x.senseBuilt = true
	var senses [64]int32
	for _, j := range x.srcToks {
		t := &s.stoks[j]
		bases := x.sourceLemmas(t.id)
		if len(bases) == 0 {
			continue
		}
		w := lowerASCII(source, t.start, t.end, x.sword[:])
		if w == nil || !swapWord(l, w, bases) {
			continue
		}
		for _, b := range bases {
			if l.usual[b] != 0 {
				continue
			}
			for _, syn := range topSenses(l, b, swapSenses, senses[:0]) {
				if l.synPOS(syn) != 0 || !l.concrete[syn] {
					continue
				}
				// A word the answer does not use first: only it can be
				// replaced by a co-hyponym.
				if k := x.senseTok.get(syn) - 1; k < 0 || x.inAnswer(s.stoks[k].id) && !x.inAnswer(t.id) {
					x.senseTok.put(syn, j+1)
				}
			}
		}
	}
}

// lexicalSwap looks for an answer noun that the source lacks, no source
// word supports, and that replaces a source noun: a co-hyponym of one the
// answer does not use ("cheese" for "milk"), a contradiction; or a hyponym
// ("ghee" for "butter"), unsupported, whether or not the answer uses the
// source noun elsewhere ("ghee ... more butter" still names a kind of
// butter the source does not).
func (s *state) lexicalSwap(answer, source string) (string, Evidence, bool) {
	l := lex()
	if l == nil {
		return "", Evidence{}, false
	}
	x := &s.lex
	s.markAnswer()
	for i := range s.atoks {
		t := &s.atoks[i]
		if !t.missing || t.upper && !sentenceStart(answer, t.start) || x.swapSeen[t.id] == x.stamp {
			continue
		}
		x.swapSeen[t.id] = x.stamp // a word replaces the same source word wherever it stands
		w := lowerASCII(answer, t.start, t.end, x.word[:])
		if w == nil {
			continue
		}
		x.bases2 = l.baseForms(w, x.bases2[:0])
		if !swapWord(l, w, x.bases2) {
			continue
		}
		if x.anc2 = ancestors(l, x.bases2, x.anc2[:0]); len(x.anc2) == 0 {
			continue
		}
		if !x.built {
			s.buildLexSource(l)
		}
		if kind, e, ok := s.swapOf(l, answer, source, t); ok {
			return kind, e, true
		}
	}
	return "", Evidence{}, false
}

// swapOf finds the source noun the answer token t (lemmas x.bases2,
// ancestors x.anc2) replaces: a hyponym of it, or the co-hyponym under
// the deepest common hypernym. The source words' senses under a hypernym
// are a range of srcBits.
func (s *state) swapOf(l *lexicon, answer, source string, t *tok) (string, Evidence, bool) {
	x := &s.lex
	bestDepth, bestSyn, bestTok := -1, int32(-1), int32(-1)
	for _, a := range x.anc2 {
		d := int(l.depth[a.syn])
		if a.dist == 0 || d < swapDepth || d <= bestDepth {
			continue // a.dist 0: a source word under the answer word's own sense is a kind of it
		}
		end := l.pre[a.syn] + l.size[a.syn]
		if l.desc[a.syn] > swapDesc {
			// Too wide a kind (over swapDesc kinds) for two of its kinds
			// to be a swap, but the answer's word is still a kind of a
			// source word of that very sense ("salmon" for "fish").
			end = l.pre[a.syn] + 1
		}
		for p := x.nextSrcSense(l.pre[a.syn], end); p < end; p = x.nextSrcSense(p+1, end) {
			syn := l.byPre[p]
			ds := int(l.tdepth[syn]) - int(l.tdepth[a.syn])
			if int(a.dist)+ds > swapTotal {
				continue
			}
			if !x.senseBuilt {
				s.buildSenseTok(l, source)
			}
			j := x.senseTok.get(syn) - 1
			if j < 0 {
				continue // no concrete noun sense of a source word
			}
			st := &s.stoks[j]
			if ds == 0 {
				// The answer names a kind of the source's thing.
				if s.swapPair(l, source, st, false) {
					return Unsupported, swapEvidence(answer, source, t, st,
						fmt.Sprintf("a kind of %s, which the source does not name", source[st.start:st.end])), true
				}
				continue
			}
			if !x.inAnswer(st.id) && s.swapPair(l, source, st, true) {
				bestDepth, bestSyn, bestTok = d, a.syn, j
				break
			}
		}
	}
	if bestTok < 0 {
		return "", Evidence{}, false
	}
	name := l.synName(bestSyn)
	if name == "" {
		name = "the same thing"
	}
	return Contradiction, swapEvidence(answer, source, t, &s.stoks[bestTok], "both are kinds of "+name), true
}

// swapPair: the source token st is not a form or a derivation of the
// answer word (x.bases2) and, for co-hyponyms, neither of the two is a
// kind of the other (x.anc2 holds the answer word's ancestors).
func (s *state) swapPair(l *lexicon, source string, st *tok, coh bool) bool {
	x := &s.lex
	sw := lowerASCII(source, st.start, st.end, x.sword[:])
	if sw == nil {
		return false
	}
	x.bases = l.baseForms(sw, x.bases[:0])
	for _, a := range x.bases2 {
		for _, b := range x.bases {
			if a == b || containsID(l.relatedOf(a), b) {
				return false
			}
		}
	}
	if !coh {
		return true
	}
	x.anc = ancestors(l, x.bases, x.anc[:0])
	for _, p := range x.anc {
		for _, q := range x.anc2 {
			if p.syn == q.syn && (p.dist == 0 || q.dist == 0) {
				return false
			}
		}
	}
	return true
}
