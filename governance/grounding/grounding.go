// Package grounding checks an answer against its source (a tool_result):
// numbers, amounts, percentages and years that disagree (numeric),
// statements the source negates or states with an antonym (contradiction),
// and content the source does not contain (unsupported). Model-free: token
// and number alignment, so it is deterministic and runs in microseconds.
package grounding

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/governance-gateway/gateway/governance/scan"
)

// Mismatch types.
const (
	None          = "none"
	Numeric       = "numeric"
	Contradiction = "contradiction"
	Unsupported   = "unsupported"
)

// Evidence is one finding: which answer span, which source span, why.
type Evidence struct {
	AnswerSpan scan.Span  `json:"answer_span"`
	AnswerText string     `json:"answer_text"`
	SourceSpan *scan.Span `json:"source_span,omitempty"`
	SourceText string     `json:"source_text,omitempty"`
	Reason     string     `json:"reason"`
}

// Result is the verdict on one answer.
type Result struct {
	Mismatch   string
	Confidence float64
	Evidence   []Evidence
	// Rewritten is the answer with each mismatched number replaced by its
	// one unambiguous source value (the source's own spelling), set only
	// when every mismatch is numeric and correctable.
	Rewritten string
}

// Limits keep the check linear and bounded on large inputs.
const (
	maxSourceBytes = 256 << 10
	maxAnswerBytes = 64 << 10
	maxEvidence    = 8
)

// Checker is immutable and safe for concurrent use.
type Checker struct {
	// The share of the answer's content words (names weigh double) absent
	// from the source from which the answer is unsupported. Short factual
	// answers should be almost entirely in the source; long answers
	// (summaries) paraphrase, so they get more room.
	ShortThreshold float64
	LongThreshold  float64
	ShortWords     int // answers with at most this many content words are short
}

// New returns a checker with the thresholds chosen on the development sets
// (docs/governance.md).
func New() *Checker { return &Checker{ShortThreshold: 0.15, LongThreshold: 0.6, ShortWords: 12} }

type quantity struct {
	span  scan.Span
	value float64
	kind  byte     // '%' percent, '$' currency, 'y' year, 'n' plain
	ctx   []string // up to 6 content words either side, computed on first use
}

func (q *quantity) context(toks []tok) []string {
	if q.ctx == nil {
		q.ctx = window(toks, q.span.Start, q.span.End)
	}
	return q.ctx
}

// overlap counts the words of a that b also has (contexts are short).
func overlap(a, b []string) int {
	n := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				n++
				break
			}
		}
	}
	return n
}

// Check compares answer with source. An empty source skips the check.
func (c *Checker) Check(answer, source string) Result {
	if source == "" || answer == "" {
		return Result{Mismatch: None, Confidence: 1}
	}
	if len(source) > maxSourceBytes {
		source = source[:maxSourceBytes]
	}
	if len(answer) > maxAnswerBytes {
		answer = answer[:maxAnswerBytes]
	}
	src := index(source)
	var ev []Evidence
	var fixes []fix
	correctable := true
	var atoks []tok
	qs := quantities(answer)
	if len(qs) > 0 {
		atoks = tokens(answer)
	}
	for _, q := range qs {
		q.context(atoks)
		if src.hasValue(q) && !src.betterElsewhere(q) {
			continue
		}
		best, ambiguous := src.align(q)
		if best == nil {
			continue // a number the source never discusses: left to the unsupported check
		}
		e := Evidence{AnswerSpan: q.span, AnswerText: answer[q.span.Start:q.span.End],
			SourceSpan: &scan.Span{Start: best.span.Start, End: best.span.End}, SourceText: source[best.span.Start:best.span.End]}
		e.Reason = fmt.Sprintf("answer says %s but the source says %s", e.AnswerText, e.SourceText)
		if ambiguous {
			correctable = false
			e.Reason += " (several source values fit)"
		} else {
			fixes = append(fixes, fix{q.span, e.SourceText})
		}
		ev = append(ev, e)
	}
	if len(ev) > 0 {
		r := Result{Mismatch: Numeric, Confidence: 0.9, Evidence: capEv(ev)}
		if correctable {
			r.Rewritten = apply(answer, fixes)
		}
		return r
	}
	if e, ok := src.contradiction(answer); ok {
		return Result{Mismatch: Contradiction, Confidence: 0.75, Evidence: []Evidence{e}}
	}
	share, nwords, missing := src.unsupported(answer)
	threshold := c.LongThreshold
	if nwords <= c.ShortWords {
		threshold = c.ShortThreshold
	}
	if share >= threshold && len(missing) > 0 {
		conf := math.Min(0.95, 0.55+share/2)
		var evs []Evidence
		for _, m := range missing {
			evs = append(evs, Evidence{AnswerSpan: m, AnswerText: answer[m.Start:m.End], Reason: "not found in the source"})
		}
		return Result{Mismatch: Unsupported, Confidence: conf, Evidence: capEv(evs)}
	}
	return Result{Mismatch: None, Confidence: 1 - share}
}

func capEv(e []Evidence) []Evidence {
	if len(e) > maxEvidence {
		return e[:maxEvidence]
	}
	return e
}

type fix struct {
	span scan.Span
	repl string
}

func apply(s string, fixes []fix) string {
	sort.Slice(fixes, func(i, j int) bool { return fixes[i].span.Start < fixes[j].span.Start })
	var b strings.Builder
	pos := 0
	for _, f := range fixes {
		if f.span.Start < pos {
			continue
		}
		b.WriteString(s[pos:f.span.Start])
		b.WriteString(f.repl)
		pos = f.span.End
	}
	b.WriteString(s[pos:])
	return b.String()
}

// quantities extracts normalised numbers with the content words around them.
func quantities(text string) []quantity {
	var out []quantity
	locs := numberSpans(text, 256)
	for _, l := range locs {
		st, en := l[0], l[1]
		if st > 0 && (isWordByte(text[st-1]) || text[st-1] == '.' && st > 1 && isDigit(text[st-2])) {
			continue // part of an identifier or a longer number
		}
		raw := strings.TrimSpace(text[st:en])
		v, kind, ok := parseQuantity(raw)
		if !ok {
			continue
		}
		// A currency word after the number ("12 dollars").
		rest := strings.ToLower(text[en:min(len(text), en+10)])
		if strings.HasPrefix(strings.TrimSpace(rest), "dollar") || strings.HasPrefix(strings.TrimSpace(rest), "usd") || strings.HasPrefix(strings.TrimSpace(rest), "euro") {
			kind = '$'
		}
		out = append(out, quantity{span: scan.Span{Start: st, End: st + len(strings.TrimRight(text[st:en], " "))}, value: v, kind: kind})
	}
	return out
}

// numberSpans finds numbers by hand (a regexp here cost most of the
// check): an optional currency sign, digits with optional thousands
// commas and a decimal part, and an optional unit or scale word.
func numberSpans(text string, limit int) [][2]int {
	var out [][2]int
	for i := 0; i < len(text) && len(out) < limit; i++ {
		if !isDigit(text[i]) {
			continue
		}
		st := i
		if st > 0 && isDigit(text[st-1]) {
			continue
		}
		// Currency sign (possibly multi-byte) and one space before.
		for _, sym := range []string{"$", "€", "£", "¥"} {
			p := st
			if p > 0 && text[p-1] == ' ' {
				p--
			}
			if strings.HasSuffix(text[:p], sym) {
				st = p - len(sym)
				break
			}
		}
		j := i
		for j < len(text) && isDigit(text[j]) {
			j++
		}
		for j+3 < len(text) && text[j] == ',' && isDigit(text[j+1]) && isDigit(text[j+2]) && isDigit(text[j+3]) && (j+4 == len(text) || !isDigit(text[j+4])) {
			j += 4
		}
		if j+1 < len(text) && text[j] == '.' && isDigit(text[j+1]) {
			j++
			for j < len(text) && isDigit(text[j]) {
				j++
			}
		}
		en := j
		k := j
		if k < len(text) && text[k] == ' ' {
			k++
		}
		rest := strings.ToLower(text[k:min(len(text), k+9)])
		for _, suf := range []string{"%", "per cent", "percent", "thousand", "million", "billion", "trillion", "mln", "mil", "mn", "bn", "k", "m", "b"} {
			if strings.HasPrefix(rest, suf) {
				e := k + len(suf)
				if suf == "%" || e == len(text) || !isWordByte(text[e]) {
					if suf == "%" && k != j {
						break // "12 %" is fine, but keep it simple: only "12%"
					}
					en = e
				}
				break
			}
		}
		out = append(out, [2]int{st, en})
		i = j
	}
	return out
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || isDigit(b) || b == '_'
}
func parseFloat(s string) (float64, error) {
	return strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
}

// parseQuantity normalises "1.2 million", "1,200,000", "$1.2M", "12%".
func parseQuantity(raw string) (float64, byte, bool) {
	kind := byte('n')
	s := raw
	if r, n := utf8.DecodeRuneInString(s); strings.ContainsRune("$€£¥", r) {
		kind = '$'
		s = strings.TrimSpace(s[n:])
	}
	l := strings.ToLower(s)
	mult := 1.0
	for _, suf := range []struct {
		w string
		m float64
	}{{"per cent", 1}, {"percent", 1}, {"%", 1}, {"thousand", 1e3}, {"million", 1e6}, {"billion", 1e9}, {"trillion", 1e12}, {"mln", 1e6}, {"mil", 1e6}, {"mn", 1e6}, {"bn", 1e9}, {"k", 1e3}, {"m", 1e6}, {"b", 1e9}} {
		if strings.HasSuffix(l, suf.w) {
			if suf.w == "%" || strings.Contains(suf.w, "cent") {
				kind = '%'
			}
			mult = suf.m
			l = strings.TrimSpace(l[:len(l)-len(suf.w)])
			break
		}
	}
	v, err := parseFloat(l)
	if err != nil {
		return 0, 0, false
	}
	v *= mult
	if kind == 'n' && mult == 1 && v >= 1900 && v <= 2100 && !strings.ContainsAny(l, ".,") {
		kind = 'y'
	}
	return v, kind, true
}

// window returns the content words within 6 words of [st, en).
func window(toks []tok, st, en int) []string {
	i := sort.Search(len(toks), func(k int) bool { return toks[k].start >= st })
	out := make([]string, 0, 12)
	for k := max(0, i-6); k < i; k++ {
		if st-toks[k].start <= 80 {
			out = append(out, toks[k].w)
		}
	}
	for k := i; k < len(toks) && k < i+6+1; k++ {
		if toks[k].start >= en && toks[k].start-en <= 80 {
			out = append(out, toks[k].w)
		}
	}
	return out
}

// tok is a content word (lower-cased, stemmed) and its byte offset.
type tok struct {
	start int
	w     string
}

// tokens returns the content words of text with their offsets, in one pass.
func tokens(text string) []tok {
	var out []tok
	var buf []byte
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		st := i
		buf = buf[:0]
		for i < len(text) {
			r, n := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsLetter(r) && r != '\'' {
				break
			}
			if r < utf8.RuneSelf {
				buf = append(buf, byte(unicode.ToLower(r)))
			} else {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
			i += n
		}
		w := strings.Trim(string(buf), "'")
		if len(w) < 2 || stop[w] {
			continue
		}
		out = append(out, tok{st, stem(w)})
	}
	return out
}

// words returns lower-cased, crudely stemmed content words.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		w = strings.ToLower(strings.Trim(w, "'"))
		if len(w) < 2 || stop[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s", "'s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then than so of to in on at by for with from as is are was were be been being
		it its this that these those there here he she they them his her their we us our you your i me my mine
		has have had do does did not no yes can could will would shall should may might must also just only very
		about into over under after before up down out off again further once all any both each few more most other
		some such own same too s t don now what which who whom when where why how per via while during between
		let lets get got make made one two
		percent cent thousand million billion trillion mln bn dollar dollars usd eur euro euros pound pounds`) {
		m[w] = true
	}
	return m
}()

type sentence struct {
	span  scan.Span
	words map[string]bool
	neg   int
}

type srcIndex struct {
	text  string
	vocab map[string]bool
	nums  []quantity
	sents []sentence
	post  map[string][]int32 // word -> sentences holding it
	toks  []tok              // content words with offsets, for number contexts
	// numPost maps a context word to the source numbers whose context has
	// it; score is the reused per-number counter of scores.
	numPost map[string][]int32
	score   []int32
}

func index(source string) *srcIndex {
	ix := &srcIndex{text: source, vocab: map[string]bool{}, nums: quantities(source), post: map[string][]int32{}}
	if len(ix.nums) > 0 {
		ix.toks = tokens(source)
	}
	for _, sp := range sentences(source) {
		ws := map[string]bool{}
		for _, w := range words(source[sp.Start:sp.End]) {
			ws[w] = true
			ix.vocab[w] = true
		}
		if len(ix.sents) < maxSentences {
			id := int32(len(ix.sents))
			for w := range ws {
				ix.post[w] = append(ix.post[w], id)
			}
			ix.sents = append(ix.sents, sentence{span: sp, words: ws, neg: -1})
		}
	}
	return ix
}

// maxSentences bounds the source sentences the contradiction check aligns.
const maxSentences = 2000

// hasValue: the source states the same quantity (rounding tolerated).
func (ix *srcIndex) hasValue(q quantity) bool {
	for _, s := range ix.nums {
		if closeTo(q.value, s.value) && compatible(q.kind, s.kind) {
			return true
		}
	}
	return false
}

func compatible(a, b byte) bool {
	if a == b || a == 'n' || b == 'n' {
		return true
	}
	return a == 'y' && b == 'n' || a == 'n' && b == 'y'
}

// closeTo tolerates the rounding an answer states ("1.2 million" for
// 1,187,000): relative 5% for large values, else exact to 0.5%.
func closeTo(a, b float64) bool {
	if a == b {
		return true
	}
	d := math.Abs(a - b)
	m := math.Max(math.Abs(a), math.Abs(b))
	if m >= 1000 {
		return d/m <= 0.05
	}
	return d/m <= 0.005
}

// betterElsewhere: the answer's value occurs in the source, but in another
// context; a source number with a different value shares clearly more
// context words with the answer's (at least 3, and 3 more), so the
// answer most likely changed it ("refund within 50 days" where the source
// says "within 100 days" and mentions 50 elsewhere).
func (ix *srcIndex) betterElsewhere(q quantity) bool {
	same, diff := 0, 0
	for id, score := range ix.scores(q) {
		s := &ix.nums[id]
		if score == 0 || !compatible(q.kind, s.kind) {
			continue
		}
		if closeTo(q.value, s.value) {
			same = max(same, int(score))
		} else {
			diff = max(diff, int(score))
		}
	}
	return diff >= 3 && diff >= same+3
}

// scores returns, per source number, how many of q's context words its
// context shares, using an inverted index built on first use.
func (ix *srcIndex) scores(q quantity) []int32 {
	if ix.numPost == nil {
		ix.numPost = map[string][]int32{}
		for i := range ix.nums {
			seen := map[string]bool{}
			for _, w := range ix.nums[i].context(ix.toks) {
				if !seen[w] {
					seen[w] = true
					ix.numPost[w] = append(ix.numPost[w], int32(i))
				}
			}
		}
		ix.score = make([]int32, len(ix.nums))
	}
	clear(ix.score)
	seen := map[string]bool{}
	for _, w := range q.ctx {
		if seen[w] {
			continue
		}
		seen[w] = true
		for _, id := range ix.numPost[w] {
			ix.score[id]++
		}
	}
	return ix.score
}

// align finds the source quantity the answer's number talks about: same
// kind, most shared context words (at least one). ambiguous when another
// candidate with a different value ties.
func (ix *srcIndex) align(q quantity) (*quantity, bool) {
	var best *quantity
	bestScore, ties := 0, 0
	for i, sc := range ix.scores(q) {
		s := &ix.nums[i]
		score := int(sc)
		if !compatible(q.kind, s.kind) || (q.kind == 'y') != (s.kind == 'y') {
			continue
		}
		switch {
		case score > bestScore:
			best, bestScore, ties = s, score, 0
		case score == bestScore && score > 0 && !closeTo(s.value, best.value):
			ties++
		}
	}
	if bestScore < 1 {
		return nil, false
	}
	return best, ties > 0
}

var negWords = map[string]bool{"not": true, "no": true, "never": true, "none": true, "nobody": true, "nothing": true,
	"neither": true, "nor": true, "without": true, "cannot": true, "fail": true, "fails": true, "failed": true,
	"refuse": true, "refused": true, "refuses": true}

// negations counts negation words and "n't" contractions.
func negations(s string) int {
	n := 0
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' }) {
		w = strings.ToLower(w)
		if negWords[w] || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t") {
			n++
		}
	}
	return n
}

var antonyms = func() map[string]string {
	pairs := [][2]string{{"increase", "decrease"}, {"rise", "fall"}, {"higher", "lower"}, {"more", "less"}, {"gain", "loss"},
		{"accept", "reject"}, {"approve", "deny"}, {"approved", "denied"}, {"approve", "reject"}, {"approved", "rejected"}, {"before", "after"}, {"early", "late"}, {"earlier", "later"},
		{"open", "close"}, {"win", "lose"}, {"won", "lost"}, {"true", "false"}, {"agree", "disagree"}, {"allow", "forbid"},
		{"buy", "sell"}, {"bought", "sold"}, {"start", "end"}, {"above", "below"}, {"maximum", "minimum"}, {"positive", "negative"},
		{"success", "failure"}, {"succeed", "fail"}, {"like", "dislike"}, {"love", "hate"}, {"include", "exclude"}, {"always", "never"},
		{"up", "down"}, {"strong", "weak"}, {"large", "small"}, {"big", "small"}, {"long", "short"}, {"first", "last"},
		{"easy", "difficult"}, {"cheap", "expensive"}, {"safe", "dangerous"}, {"happy", "sad"}, {"good", "bad"}, {"best", "worst"},
		{"confirm", "cancel"}, {"arrive", "leave"}, {"add", "remove"}, {"improve", "worsen"}, {"profit", "loss"}}
	m := map[string]string{}
	for _, p := range pairs {
		m[stem(p[0])], m[stem(p[1])] = stem(p[1]), stem(p[0])
	}
	return m
}()

// contradiction aligns each answer sentence with its most similar source
// sentence; a different number of negations, or an antonym of a source word
// the answer uses instead, is a contradiction.
func (ix *srcIndex) contradiction(answer string) (Evidence, bool) {
	counts := make([]int32, len(ix.sents)) // shared words per source sentence
	var touched []int32
	for _, sp := range sentences(answer) {
		aw := words(answer[sp.Start:sp.End])
		if len(aw) < 3 {
			continue
		}
		set := map[string]bool{}
		for _, w := range aw {
			set[w] = true
		}
		touched = touched[:0]
		for w := range set {
			for _, id := range ix.post[w] {
				if counts[id] == 0 {
					touched = append(touched, id)
				}
				counts[id]++
			}
		}
		var best *sentence
		bestSim, bestID := 0.0, int32(-1)
		for _, id := range touched {
			sim := float64(counts[id]) / float64(len(set))
			counts[id] = 0
			if sim > bestSim || sim == bestSim && id < bestID {
				best, bestSim, bestID = &ix.sents[id], sim, id
			}
		}
		if best == nil || bestSim < 0.6 {
			continue
		}
		srcText := ix.text[best.span.Start:best.span.End]
		if best.neg < 0 {
			best.neg = negations(srcText)
		}
		if an := negations(answer[sp.Start:sp.End]); (an > 0) != (best.neg > 0) {
			return Evidence{AnswerSpan: sp, AnswerText: answer[sp.Start:sp.End], SourceSpan: &scan.Span{Start: best.span.Start, End: best.span.End},
				SourceText: srcText, Reason: "the answer negates what the source states (or the reverse)"}, true
		}
		for w := range set {
			if ant, ok := antonyms[w]; ok && best.words[ant] && !best.words[w] {
				return Evidence{AnswerSpan: sp, AnswerText: answer[sp.Start:sp.End], SourceSpan: &scan.Span{Start: best.span.Start, End: best.span.End},
					SourceText: srcText, Reason: fmt.Sprintf("the answer says %q where the source says %q", w, ant)}, true
			}
		}
	}
	return Evidence{}, false
}

// unsupported returns the weighted share of answer content words absent
// from the source, the number of content words, and the missing spans.
func (ix *srcIndex) unsupported(answer string) (float64, int, []scan.Span) {
	total, miss, count := 0.0, 0.0, 0
	var spans []scan.Span
	i := 0
	for i < len(answer) {
		r, n := utf8.DecodeRuneInString(answer[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		st := i
		for i < len(answer) {
			r, n := utf8.DecodeRuneInString(answer[i:])
			if !unicode.IsLetter(r) && r != '\'' {
				break
			}
			i += n
		}
		raw := answer[st:i]
		w := strings.ToLower(strings.Trim(raw, "'"))
		if len(w) < 2 || stop[w] {
			continue
		}
		count++
		weight := 1.0
		if r, _ := utf8.DecodeRuneInString(raw); unicode.IsUpper(r) {
			weight = 2 // names carry the facts
		}
		total += weight
		if !ix.vocab[stem(w)] && !ix.vocab[w] {
			miss += weight
			spans = append(spans, scan.Span{Start: st, End: i})
		}
	}
	if total == 0 {
		return 0, 0, nil
	}
	return miss / total, count, spans
}

// sentences splits on . ! ? and newlines (not inside numbers).
func sentences(s string) []scan.Span {
	var out []scan.Span
	st := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		end := c == '\n' || (c == '!' || c == '?' || c == '.') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n')
		if !end {
			continue
		}
		if i+1 > st && strings.TrimSpace(s[st:i+1]) != "" {
			out = append(out, trimSpan(s, st, i+1))
		}
		st = i + 1
	}
	if strings.TrimSpace(s[st:]) != "" {
		out = append(out, trimSpan(s, st, len(s)))
	}
	return out
}

func trimSpan(s string, st, en int) scan.Span {
	for st < en && (s[st] == ' ' || s[st] == '\n' || s[st] == '\t' || s[st] == '\r') {
		st++
	}
	for en > st && (s[en-1] == ' ' || s[en-1] == '\n' || s[en-1] == '\r') {
		en--
	}
	return scan.Span{Start: st, End: en}
}
