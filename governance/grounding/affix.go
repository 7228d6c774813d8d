package grounding

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/governance-gateway/gateway/governance/scan"
)

// AffixConfidence is the confidence of a contradiction resting on a word
// that is the opposite of a source word by an affix ("post-stimulus" for
// the source's "pre-stimulus", "negative" for its "non-negative") or on a
// compound whose parts the source has the other way round ("time-by-space"
// for "space-by-time"): as a WordNet antonym, above the default
// min_confidence.
const AffixConfidence = 0.6

// oppositePrefixes: one prefix of a pair in place of the other makes a
// word's opposite ("pre-training" / "post-training", "encoder" /
// "decoder", "single-task" / "multi-task", "unimodal" / "multimodal").
// "in" / "out" and "in" / "ex" are left out: "in" is a negative prefix as
// often ("inputs" / "outputs", "including" / "excluding" were paraphrases
// of the even-numbered documents, see docs/governance.md, Quality).
var oppositePrefixes = [...][2]string{
	{"pre", "post"}, {"over", "under"}, {"intra", "inter"}, {"hyper", "hypo"}, {"micro", "macro"},
	{"up", "down"}, {"single", "multi"}, {"uni", "multi"}, {"mono", "multi"}, {"mono", "poly"},
	{"en", "de"}, {"sub", "super"}, {"inter", "extra"},
}

// affixMinRest is the least length of the word under an opposite prefix:
// "upload" / "download" count; "enter" / "deter" do not (nor, at this
// price, "subset" / "superset"): three letters are too few for a stem.
const affixMinRest = 4

// contextWords is how many content words either side of a word are its
// context.
const contextWords = 3

// compoundByte: a byte of a compound word ("space-by-time", "non-negative").
func compoundByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

// lowerInto appends text to buf with its ASCII letters lowered: the same
// byte offsets.
func lowerInto(buf []byte, text string) []byte {
	buf = append(buf[:0], text...)
	for i, c := range buf {
		if c >= 'A' && c <= 'Z' {
			buf[i] = c | 0x20
		}
	}
	return buf
}

// bytesString views b as a string; b must not change while it is used
// (the buffers below are rewritten only at the next Check).
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// lowerSource returns the current source lowered (lowerInto), made once
// per Check.
func (s *state) lowerSource() string {
	if !s.lsrcOK {
		s.lsrc, s.lsrcOK = lowerInto(s.lsrc, s.source), true
	}
	return bytesString(s.lsrc)
}

// lowerAnswer: as lowerSource, for the answer.
func (s *state) lowerAnswer(answer string) string {
	if !s.lansOK {
		s.lans, s.lansOK = lowerInto(s.lans, answer), true
	}
	return bytesString(s.lans)
}

// compoundAt returns the offset of the first whole compound w in the
// lower-cased source, with an "s" more or less, -1 when there is none. A
// whole compound is not part of a longer hyphenated one: "negative" is not
// in "non-negative".
func (s *state) compoundAt(w string) int {
	if at := s.compoundIndex(w); at >= 0 || len(w) < 2 {
		return at
	}
	if w[len(w)-1] == 's' {
		return s.compoundIndex(w[:len(w)-1])
	}
	var buf [48]byte
	if len(w) >= len(buf) {
		return -1
	}
	return s.compoundIndex(bytesString(append(append(buf[:0], w...), 's')))
}

// compoundIndex looks w up among the lower-cased source's whole compounds
// (maximal runs of compoundByte), indexed on first use in a Check: one
// pass over the source, where searching it for each answer word was
// quadratic on a long answer with a long source.
func (s *state) compoundIndex(w string) int {
	if !s.compoundsOK {
		if s.compounds == nil {
			s.compounds = map[string]int{}
		}
		clear(s.compounds)
		ls := s.lowerSource()
		for i := 0; i < len(ls); {
			if !compoundByte(ls[i]) {
				i++
				continue
			}
			j := i + 1
			for j < len(ls) && compoundByte(ls[j]) {
				j++
			}
			if _, ok := s.compounds[ls[i:j]]; !ok {
				s.compounds[ls[i:j]] = i
			}
			i = j
		}
		s.compoundsOK = true
	}
	if at, ok := s.compounds[w]; ok {
		return at
	}
	return -1
}

// hasForm: the source has the compound w, or w without its hyphens
// ("nonnegative").
func (s *state) hasForm(w string) bool {
	if s.compoundAt(w) >= 0 {
		return true
	}
	return strings.IndexByte(w, '-') >= 0 && s.compoundAt(strings.ReplaceAll(w, "-", "")) >= 0
}

// partsInSource: each part of the compound w (split at hyphens) that is a
// content word is a source word: a cheap test before the source text is
// searched for w.
func (s *state) partsInSource(w string) bool {
	for w != "" {
		p := w
		if k := strings.IndexByte(w, '-'); k >= 0 {
			p, w = w[:k], w[k+1:]
		} else {
			w = ""
		}
		if len(p) < 2 || stop[p] {
			continue
		}
		if !s.sourceHas([]byte(p)) {
			return false
		}
	}
	return true
}

// affixOpposite looks at the answer's words and hyphenated compounds that
// the source lacks as written: one whose opposite by an affix the source
// has in the same context (a content word in common within contextWords
// either side) is a contradiction: "post-stimulus" where the source says
// "pre-stimulus", "useless" where it says "useful", "negative" where it
// only says "non-negative", "non-conditional" where it only says
// "conditional", and a compound of two or three parts in the reverse
// order ("time-by-space" where the source says "space-by-time").
func (s *state) affixOpposite(answer, source string) (Evidence, bool) {
	// The source words after "non-": an answer word among them may have
	// dropped the prefix.
	nonWords := s.nonWords[:0]
	for i := 0; i+4 < len(source); {
		h := strings.IndexByte(source[i:], '-')
		if h < 0 {
			break
		}
		h += i
		i = h + 1
		k := h - 2 // "on-"
		if k < 1 || source[k]|0x20 != 'o' || source[k+1]|0x20 != 'n' || source[k-1]|0x20 != 'n' || k > 1 && compoundByte(source[k-2]) {
			continue
		}
		j := k + 3
		for j < len(source) && compoundByte(source[j]) && source[j] != '-' {
			j++
		}
		if j-(k+3) >= 4 {
			nonWords = append(nonWords, source[k+3:j])
		}
	}
	s.nonWords = nonWords
	k := 0 // the first answer token not before the current word
	for i := 0; i < len(answer); {
		if !compoundByte(answer[i]) || answer[i] == '-' {
			i++
			continue
		}
		j := i
		for j < len(answer) && compoundByte(answer[j]) {
			j++
		}
		st, e := i, j
		for e > st && answer[e-1] == '-' {
			e--
		}
		i = j
		if e-st < 4 || e-st > 40 {
			continue
		}
		w := answer[st:e]
		if strings.IndexByte(w, '-') < 0 {
			// A single word: only one the source lacks (unsupported
			// marked it), or one it has only after "non-".
			for k < len(s.atoks) && s.atoks[k].start < st {
				k++
			}
			if !(k < len(s.atoks) && s.atoks[k].start == st && s.atoks[k].absent && affixCandidate(s.lowerAnswer(answer)[st:e])) && !foldIn(nonWords, w) {
				continue
			}
		}
		lw := s.lowerAnswer(answer)[st:e]
		other, at := s.oppositeIn(lw)
		if other == "" || s.hasForm(lw) || !s.sharedContext(st, e, at, at+len(other)) {
			continue
		}
		return Evidence{AnswerSpan: scan.Span{Start: st, End: e}, AnswerText: w,
			SourceSpan: &scan.Span{Start: at, End: at + len(other)}, SourceText: source[at : at+len(other)],
			Reason: fmt.Sprintf("the answer says %q where the source says %q", w, source[at:at+len(other)])}, true
	}
	return Evidence{}, false
}

// affixCandidate: the lower-case word w may have an opposite by an affix
// (it has a hyphen, ends in "less" or "ful", or starts with a prefix of
// oppositePrefixes): a cheap test before the source is searched.
func affixCandidate(w string) bool {
	if strings.IndexByte(w, '-') >= 0 || strings.HasSuffix(w, "less") || strings.HasSuffix(w, "ful") {
		return true
	}
	for _, x := range prefixesBy[w[0]] {
		if len(w) >= len(x)+affixMinRest && strings.HasPrefix(w, x) {
			return true
		}
	}
	return false
}

// prefixesBy lists the distinct prefixes of oppositePrefixes by first
// letter: a word is compared with the few that can start it.
var prefixesBy = func() (t [256][]string) {
	for _, p := range oppositePrefixes {
		for _, x := range p {
			if !slices.Contains(t[x[0]], x) {
				t[x[0]] = append(t[x[0]], x)
			}
		}
	}
	return t
}()

// foldIn: w is one of ws, ignoring ASCII case.
func foldIn(ws []string, w string) bool {
	for _, x := range ws {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}

// oppositeIn returns an opposite of the lower-case compound w by an affix
// and its offset in the source, "" when the source has none.
func (s *state) oppositeIn(w string) (string, int) {
	var buf [64]byte
	// found: the source has the compound o (built in buf).
	found := func(o []byte) (string, int) {
		if !s.partsInSource(bytesString(o)) {
			return "", -1
		}
		if at := s.compoundAt(bytesString(o)); at >= 0 {
			// The source's compound as it stands: compoundAt also takes it
			// with or without a plural "s", so o may be a byte longer than
			// the source's (and run past the source's end).
			ls := s.lowerSource()
			j := at
			for j < len(ls) && compoundByte(ls[j]) {
				j++
			}
			return ls[at:j], at
		}
		return "", -1
	}
	// An opposite prefix in place of w's.
	for _, p := range oppositePrefixes {
		for k, x := range p {
			if len(w) < len(x)+affixMinRest || !strings.HasPrefix(w, x) {
				continue
			}
			rest := strings.TrimPrefix(w[len(x):], "-")
			if len(rest) < affixMinRest || len(rest)+8 > len(buf) {
				continue
			}
			y := p[1-k]
			if o, at := found(append(append(buf[:0], y...), rest...)); o != "" {
				return o, at
			}
			if o, at := found(append(append(append(buf[:0], y...), '-'), rest...)); o != "" {
				return o, at
			}
		}
	}
	if len(w)+8 > len(buf) {
		return "", -1
	}
	// "-less" / "-ful".
	if b, ok := strings.CutSuffix(w, "less"); ok && len(b) >= 3 {
		if o, at := found(append(append(buf[:0], b...), "ful"...)); o != "" {
			return o, at
		}
	}
	if b, ok := strings.CutSuffix(w, "ful"); ok && len(b) >= 3 {
		if o, at := found(append(append(buf[:0], b...), "less"...)); o != "" {
			return o, at
		}
	}
	// "non-": the answer says "non-X" where the source says "X", or "X"
	// where the source says "non-X" (hasForm rules out a source that says
	// both).
	if rest, ok := strings.CutPrefix(w, "non-"); ok {
		if len(rest) >= 4 {
			if o, at := found(append(buf[:0], rest...)); o != "" {
				return o, at
			}
		}
	} else if len(w) >= 4 && !strings.HasPrefix(w, "non") {
		if o, at := found(append(append(buf[:0], "non-"...), w...)); o != "" {
			return o, at
		}
	}
	// "sub-" on an adjective: below what the adjective says
	// ("suboptimal" where the source says "optimal"); on a noun it names a
	// part ("subset", "subgroup"), no opposite.
	if rest, ok := strings.CutPrefix(w, "sub"); ok {
		rest = strings.TrimPrefix(rest, "-")
		if len(rest) >= affixMinRest && s.adjective(rest) {
			if o, at := found(append(buf[:0], rest...)); o != "" {
				return o, at
			}
		}
	}
	// A compound of two or three parts in the reverse order.
	if n := strings.Count(w, "-"); n == 1 || n == 2 {
		first, last := w[:strings.IndexByte(w, '-')], w[strings.LastIndexByte(w, '-')+1:]
		mid := w[len(first) : len(w)-len(last)] // "-" or "-by-"
		if first != last && len(first) >= 3 && len(last) >= 3 {
			if o, at := found(append(append(append(buf[:0], last...), mid...), first...)); o != "" {
				return o, at
			}
		}
	}
	return "", -1
}

// sharedContext: the answer words within contextWords of the answer span
// [a0, a1) and the source words within contextWords of the source span
// [s0, s1) have a word in common other than those of the spans: the
// opposite stands where the answer's word stands ("post-stimulus baseline"
// / "pre-stimulus baseline"), not elsewhere in the source.
func (s *state) sharedContext(a0, a1, s0, s1 int) bool {
	ai, aj := tokAt(s.atoks, a0), tokAt(s.atoks, a1)
	si, sj := tokAt(s.stoks, s0), tokAt(s.stoks, s1)
	for _, at := range s.atoks[max(0, ai-contextWords):min(len(s.atoks), aj+contextWords)] {
		if at.start >= a0 && at.start < a1 {
			continue
		}
		for _, st := range s.stoks[max(0, si-contextWords):min(len(s.stoks), sj+contextWords)] {
			if st.start >= s0 && st.start < s1 {
				continue
			}
			if st.id == at.id {
				return true
			}
		}
	}
	return false
}

// quantityAt returns the index of the first quantity of nums (in text order)
// starting at or after off, as tokAt does for tokens.
func quantityAt(nums []quantity, off int) int {
	k, _ := slices.BinarySearchFunc(nums, off, func(q quantity, at int) int { return q.span.Start - at })
	return k
}

// tokAt returns the index of the first token of toks starting at or after
// off.
func tokAt(toks []tok, off int) int {
	lo, hi := 0, len(toks)
	for lo < hi {
		m := (lo + hi) / 2
		if toks[m].start < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// adjective: the lexicon has the lower-case word w as a form of a lemma
// that is usually an adjective.
func (s *state) adjective(w string) bool {
	l := lex()
	if l == nil || len(w) > len(s.lex.word) {
		return false
	}
	s.lex.bases = l.baseForms(append(s.lex.word[:0], w...), s.lex.bases[:0])
	return usually(l, s.lex.bases, 2)
}

// maxMisplaced bounds the distinct answer words misplacedOpposite tries:
// an answer repeating a word repeats what failed, and each try reads the
// answer once.
const maxMisplaced = 16

// misplacedOpposite looks at the answer's words that the source has, and
// whose opposite by an affix the source has too ("encoder" and "decoder",
// "pre-training" and "post-training" as one word each): one that stands in
// its opposite's context rather than its own is a contradiction, "without
// weakening the encoder" against "without weakening the capacity of the
// decoder ... information from the encoder". The context is the content
// words within nbrWindow either side; the answer word's neighbours must
// share more words with the source's neighbours of the opposite than with
// those of the word itself, and the answer must not use the opposite (a
// summary naming both says which is which). affixOpposite, before it, sees
// only words the source lacks.
func (s *state) misplacedOpposite(answer string) (Evidence, bool) {
	var tried [maxMisplaced]int32
	n := 0
	for i := range s.atoks {
		t := &s.atoks[i]
		if t.absent || t.end-t.start < 4 || t.end-t.start > 40 || slices.Contains(tried[:n], t.id) {
			continue
		}
		w := s.lowerAnswer(answer)[t.start:t.end]
		if !affixCandidate(w) {
			continue
		}
		if n == maxMisplaced {
			break
		}
		tried[n] = t.id
		n++
		o, at := s.oppositeIn(w)
		if o == "" || strings.IndexByte(o, '-') >= 0 {
			continue
		}
		so := stemBytes([]byte(o))
		oid := find(&s.words, so, fnvAdd(fnvOffset, so))
		if !s.vocab(oid) || oid == t.id || s.answerHas(oid) {
			continue
		}
		if s.nearCount(i, oid, t.id) <= s.nearCount(i, t.id, oid) {
			continue
		}
		return Evidence{AnswerSpan: scan.Span{Start: t.start, End: t.end}, AnswerText: answer[t.start:t.end],
			SourceSpan: &scan.Span{Start: at, End: at + len(o)}, SourceText: s.source[at : at+len(o)],
			Reason: fmt.Sprintf("the answer says %q where the source says %q", answer[t.start:t.end], s.source[at:at+len(o)])}, true
	}
	return Evidence{}, false
}

// answerHas: an answer token is word id.
func (s *state) answerHas(id int32) bool {
	for _, t := range s.atoks {
		if t.id == id {
			return true
		}
	}
	return false
}

// nearCount counts the answer words within nbrWindow of answer token i
// (neither word id nor skip) that stand within nbrWindow of word id in the
// source.
func (s *state) nearCount(i int, id, skip int32) int {
	near := s.neighboursOf(id)
	n := 0
	for _, an := range s.atoks[max(0, i-nbrWindow):min(len(s.atoks), i+nbrWindow+1)] {
		if an.id == id || an.id == skip || an.id == s.atoks[i].id {
			continue
		}
		if _, ok := slices.BinarySearch(near, an.id); ok {
			n++
		}
	}
	return n
}
