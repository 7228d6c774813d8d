// Package grounding checks an answer against its source (a tool_result):
// numbers, amounts, percentages and years that disagree (numeric),
// statements the source negates, states with an antonym or with another
// name (contradiction), and content the source does not contain
// (unsupported). Model-free: token and number alignment, so it is
// deterministic and runs in microseconds.
package grounding

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
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
func New() *Checker { return &Checker{ShortThreshold: 0.15, LongThreshold: 0.4, ShortWords: 12} }

type quantity struct {
	span  scan.Span
	value float64
	kind  byte // '%' percent, '$' currency, 'y' year, 't' time of day, 'n' plain
	word  bool // written in words ("three", "a dozen")
	// tol is the rounding the number's spelling states: half a unit of its
	// last significant digit ("1.2 million": 50,000; "4.25": 0.005), at
	// most 5%; 10% after "about", "around", "nearly"...
	tol float64
	// hedged: an approximation word ("about", "nearly", "~") precedes it.
	hedged bool
	// ctx is the range [c0, c1) of state.ctx holding the word ids of up to 6
	// content words either side; c0 < 0 until computed.
	c0, c1 int32
}

// Check compares answer with source. An empty source skips the check.
func (c *Checker) Check(answer, source string) Result {
	if source == "" || answer == "" || noClaim(answer) {
		return Result{Mismatch: None, Confidence: 1}
	}
	if len(source) > maxSourceBytes {
		source = source[:maxSourceBytes]
	}
	if len(answer) > maxAnswerBytes {
		answer = answer[:maxAnswerBytes]
	}
	st := getState()
	defer putState(st)
	// Source words first: answer words looked up later find them.
	st.source = source
	st.lsrcOK, st.lansOK, st.compoundsOK, st.srcByWord.ok, st.unitToksOK, st.caseOK, st.ansByWord.ok = false, false, false, false, false, false, false
	st.arunsOK, st.negFirstOK, st.numNegOK = false, false, false
	if len(st.nbr) > 0 {
		clear(st.nbr)
		st.nbrIDs = st.nbrIDs[:0]
	}
	clear(st.polar)
	clear(st.restrNear)
	st.stoks = st.tokenize(source, st.stoks[:0], false)
	st.atoks = st.tokenize(answer, st.atoks[:0], true)
	st.unitWords = st.unitWords[:0]
	st.index()
	var ev []Evidence
	var fixes []fix
	correctable := true
	st.anums = st.quantities(answer, st.anumAt, st.anums[:0])
	if len(st.anums) > 0 {
		st.indexNumbers(source)
	}
	// The source numbers whose values the answer states: a number the
	// answer already accounts for is no better place for another one.
	var claimed nbits
	st.anear = st.anear[:0]
	from := 0
	for i := range st.anums {
		q := &st.anums[i]
		from = st.context(q, answer, nil, st.atoks, from)
		near := st.closeSet(q)
		st.anear = append(st.anear, near)
		compat := st.compatSet(q.kind)
		in := near.and(&compat)
		claimed.or(&in)
	}
	st.swapTo = st.swapTo[:0]
	for i := range st.anums {
		q := &st.anums[i]
		st.scores(q)
		near := &st.anear[i]
		has := st.hasValue(q, near)
		qm, at, qmOK := measureAfter(answer, q)
		if has && qmOK && st.onlyInOtherUnit(q, qm, near) {
			has = false // "three weeks" is no "three months"
		}
		st.swapTo = append(st.swapTo, -1)
		if has && (st.pairStated(i) || st.nextWordShared(answer, i) || st.acronymBefore(answer, i)) {
			continue // stated beside its neighbour, as the source has them
		}
		if has {
			better, place := st.numberPlaces(q, near, &claimed, len(st.anums) > 1)
			if !better || distinctive(answer[q.span.Start:q.span.End], q) || ordinal(answer, q.span.End) && st.sourceOrdinal(q, near) {
				st.swapTo[i] = place
				continue
			}
		}
		// "2.5 kg" for "2500 g", "90 minutes" for "1.5 hours": the same
		// amount in another unit.
		if qmOK && st.sourceHasMeasure(q, qm) {
			st.unitWords = append(st.unitWords, at) // supported with its number
			continue
		}
		best, ambiguous := st.align(q, &claimed)
		if best == nil {
			if has || q.count() {
				continue // counts ("the 4 products") are the answer's own
			}
			// A number in digits the source has nowhere, in no context:
			// made up (a count in words may be the answer's own).
			correctable = false
			if len(ev) < maxEvidence {
				e := Evidence{AnswerSpan: q.span, AnswerText: answer[q.span.Start:q.span.End]}
				e.Reason = "answer says " + e.AnswerText + " but the source states no such number"
				ev = append(ev, e)
			}
			continue
		}
		if q.word && q.kind == 'n' && !st.sameUnit(q, best, answer, source) {
			// A count in words ("the four products") the source does not
			// state: summaries count, so only a number of the same thing
			// ("three days" for "10 days") contradicts it.
			if best = st.sameUnitNumber(q, answer, source); best == nil {
				continue
			}
			ambiguous = true
		}
		srcText := source[best.span.Start:best.span.End]
		// The source counts in another unit ("3000 g" against "2.5 kg"):
		// its number in the answer's unit would be wrong.
		bm, _, bmOK := measureAfter(source, best)
		otherUnit := qmOK && bmOK && bm.word != qm.word
		if ambiguous || otherUnit {
			correctable = false
		} else {
			fixes = append(fixes, fix{q.span, srcText})
		}
		if len(ev) == maxEvidence {
			// Evidence past the cap is dropped: only the rewrite still
			// needs the remaining numbers, and none once it is ruled out.
			if !correctable {
				break
			}
			continue
		}
		if ev == nil {
			ev = make([]Evidence, 0, maxEvidence)
		}
		e := Evidence{AnswerSpan: q.span, AnswerText: answer[q.span.Start:q.span.End],
			SourceSpan: &scan.Span{Start: best.span.Start, End: best.span.End}, SourceText: srcText}
		e.Reason = "answer says " + e.AnswerText + " but the source says " + e.SourceText
		switch {
		case ambiguous:
			e.Reason += " (several source values fit)"
		case otherUnit:
			e.Reason += " (" + bm.word + " against " + qm.word + ")"
		}
		ev = append(ev, e)
	}
	for i := range st.anums {
		if len(ev) == maxEvidence {
			break
		}
		if best := st.swappedWith(i); best != nil {
			q := &st.anums[i]
			srcText := source[best.span.Start:best.span.End]
			fixes = append(fixes, fix{q.span, srcText})
			ev = append(ev, Evidence{AnswerSpan: q.span, AnswerText: answer[q.span.Start:q.span.End],
				SourceSpan: &scan.Span{Start: best.span.Start, End: best.span.End}, SourceText: srcText,
				Reason: "answer says " + answer[q.span.Start:q.span.End] + " but the source says " + srcText + " (two numbers swapped)"})
		}
	}
	// Codes that start with a number ("3D", "5G", "4K"): the source must
	// have them as written.
	for i := nextDigit(answer, 0); i < len(answer) && len(ev) < maxEvidence; i = nextDigit(answer, i+1) {
		if i > 0 && isWordByte(answer[i-1]) {
			continue
		}
		j := i
		for j < len(answer) && isDigit(answer[j]) {
			j++
		}
		if j == len(answer) || answer[j] < 'A' || answer[j] > 'Z' || unitAt(answer, j) {
			i = j
			continue
		}
		for j < len(answer) && isWordByte(answer[j]) {
			j++
		}
		if code := answer[i:j]; !containsWord(source, code) {
			correctable = false
			ev = append(ev, Evidence{AnswerSpan: scan.Span{Start: i, End: j}, AnswerText: code,
				Reason: "answer says " + code + " but the source states no such number"})
		}
		i = j
	}
	if len(ev) > 0 {
		r := Result{Mismatch: Numeric, Confidence: 0.9, Evidence: ev}
		if correctable {
			r.Rewritten = apply(answer, fixes)
		}
		return r
	}
	if len(st.anums) > 0 {
		st.resetCompared()
	}
	if e, ok := st.directionFlip(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: DirectionConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.priorAsCurrent(answer, source); ok {
		return Result{Mismatch: Numeric, Confidence: PriorConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.countOfOther(answer, source); ok {
		return Result{Mismatch: Numeric, Confidence: CountConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.fractionSwap(answer); ok {
		return Result{Mismatch: Numeric, Confidence: FractionConfidence, Evidence: []Evidence{e}}
	}
	chat := dialogue(source)
	st.chat, st.weak = chat, false
	if e, ok := st.contradiction(answer, source); ok {
		conf := 0.75
		if st.weak {
			conf = ChatNegationConfidence
		}
		return Result{Mismatch: Contradiction, Confidence: conf, Evidence: []Evidence{e}}
	}
	if e, ok := st.droppedNegation(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: DroppedNegationConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.addedNegation(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: AddedNegationConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.withoutFlip(answer); ok {
		return Result{Mismatch: Contradiction, Confidence: WithoutConfidence, Evidence: []Evidence{e}}
	}
	st.lex.reset()
	share, nwords, missing, absent := st.unsupported(answer, c.ShortWords)
	if absent > 0 {
		if e, ok := st.lexicalContradiction(answer); ok {
			return Result{Mismatch: Contradiction, Confidence: 0.7, Evidence: []Evidence{e}}
		}
		if e, ok := st.timeUnitSwap(answer, source); ok {
			return Result{Mismatch: Contradiction, Confidence: TimeUnitConfidence, Evidence: []Evidence{e}}
		}
		if e, ok := st.lexAntonym(answer, source); ok {
			return Result{Mismatch: Contradiction, Confidence: AntonymConfidence, Evidence: []Evidence{e}}
		}
	}
	if e, ok := st.monthMay(answer); ok {
		return Result{Mismatch: Contradiction, Confidence: 0.7, Evidence: []Evidence{e}}
	}
	if e, ok := st.comparativeFlip(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: AntonymConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.adjacentAntonym(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: AntonymConfidence, Evidence: []Evidence{e}}
	}
	// Opposites the word sets above cannot see: by an affix within a word
	// ("post-stimulus" / "pre-stimulus"), and by an order word between two
	// source words ("after launching" / "before launching").
	if e, ok := st.affixOpposite(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: AffixConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.quantifierChange(answer); ok {
		return Result{Mismatch: Contradiction, Confidence: QuantifierConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.misplacedOpposite(answer); ok {
		return Result{Mismatch: Contradiction, Confidence: AffixConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.orderFlip(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: OrderConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.roleSwap(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: RoleSwapConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.declinedAssent(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: AssentConfidence, Evidence: []Evidence{e}}
	}
	if e, ok := st.otherSpeaker(answer, source); ok {
		return Result{Mismatch: Contradiction, Confidence: OtherSpeakerConfidence, Evidence: []Evidence{e}}
	}
	threshold := c.LongThreshold
	switch {
	case chat:
		// A summary of a conversation turns speech into report ("I'll
		// restart it" -> "he restarts his computer"): its share of new
		// words says nothing; names and numbers still count.
		threshold = 2
	case nwords <= c.ShortWords:
		// A short answer should come from the source nearly word for word.
		threshold = c.ShortThreshold
	}
	nameOnly := share < threshold
	if nameOnly && missing > 0 {
		// A concrete noun in place of a source noun: a weak finding, as a
		// new name, but more telling.
		if kind, e, ok := st.lexicalSwap(answer, source); ok {
			return Result{Mismatch: kind, Confidence: SwapConfidence, Evidence: []Evidence{e}}
		}
	}
	// A name the source lacks is unsupported whatever the share.
	if names := st.missingNames(answer); (!nameOnly || names > 0) && missing > 0 {
		// Not a new claim but a changed one: the name replaces the source's
		// in the same statement.
		if names > 0 || st.initialName(answer) {
			if e, ok := st.entitySwap(answer, source, false); ok {
				return Result{Mismatch: Contradiction, Confidence: EntitySwapConfidence, Evidence: []Evidence{e}}
			}
		}
		conf := math.Min(0.95, 0.55+share/2)
		if nameOnly {
			// Only new capitalised words: reported, but under the default
			// min_confidence (0.5), so the default policy does not block
			// an answer for "the Support team" or "Q3". A policy rule
			// with min_confidence 0.4 acts on them.
			conf = NameOnlyConfidence
		}
		evs := make([]Evidence, 0, min(missing, maxEvidence))
		for _, t := range st.atoks {
			if !t.missing || nameOnly && !t.name {
				continue
			}
			if len(evs) == maxEvidence {
				break
			}
			evs = append(evs, Evidence{AnswerSpan: scan.Span{Start: t.start, End: t.end}, AnswerText: answer[t.start:t.end], Reason: "not found in the source"})
		}
		return Result{Mismatch: Unsupported, Confidence: conf, Evidence: evs}
	}
	if missing > 0 {
		if t, ok := st.newJudgement(); ok {
			// Same confidence as a new name: recorded, not acted on by the
			// default policy.
			return Result{Mismatch: Unsupported, Confidence: NameOnlyConfidence, Evidence: []Evidence{{
				AnswerSpan: scan.Span{Start: t.start, End: t.end}, AnswerText: answer[t.start:t.end],
				Reason: "a negative judgement the source does not make"}}}
		}
	}
	if e, ok := st.newRestriction(answer); ok {
		return Result{Mismatch: Unsupported, Confidence: RestrictionConfidence, Evidence: []Evidence{e}}
	}
	// A name the source has, but in another statement than the one the
	// answer's makes with it.
	if e, ok := st.entitySwap(answer, source, true); ok {
		return Result{Mismatch: Contradiction, Confidence: EntitySwapConfidence, Evidence: []Evidence{e}}
	}
	if missing > 0 {
		if e, ok := st.addedConjunct(answer, chat); ok {
			return Result{Mismatch: Unsupported, Confidence: AddedConjunctConfidence, Evidence: []Evidence{e}}
		}
	}
	return Result{Mismatch: None, Confidence: 1 - share}
}

// dialogue: source is a conversation transcript, at least three turns
// "Name: ..." at the start of a line or after a sentence end, one of them
// by a speaker who comes back after another has spoken ("Ann: ... Ben:
// ... Ann: ..."). Documents have "Label: text" lines too ("Subject: ...",
// "Phone: ...", "Section 2: ...", "Attendees: ..."), but each label
// heads its own part once, or several in a row ("Feature: ... Feature:
// ..."); voices that return are what makes an exchange.
func dialogue(source string) bool {
	var seen [maxSpeakers]string
	n, turns := 0, 0
	prev := ""
	for i := 0; turns < 64; turns++ {
		st, k := nextTurn(source, i)
		if st < 0 {
			break
		}
		i = k + 2
		name := source[st:k]
		if name != prev && slices.Contains(seen[:n], name) {
			return true
		}
		if name != prev && n < len(seen) && !slices.Contains(seen[:n], name) {
			seen[n] = name
			n++
		}
		prev = name
	}
	return false
}

// containsWord: w occurs in s as a whole word.
func containsWord(s, w string) bool {
	for i := 0; ; {
		k := strings.Index(s[i:], w)
		if k < 0 {
			return false
		}
		k += i
		if (k == 0 || !isWordByte(s[k-1])) && (k+len(w) == len(s) || !isWordByte(s[k+len(w)])) {
			return true
		}
		i = k + 1
	}
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

// state is the scratch of one Check, pooled: word ids, tokens, numbers,
// number contexts, and the source's sentence and number postings. Nothing
// in a Result points into it.
type state struct {
	words words // lower-cased words and stems by id, per Check
	buf   []byte

	stoks, atoks []tok
	aquants      []quant // quantifierChange's, per Check
	squants      []quant
	unitWords    []int  // answer offsets of unit words whose amount the source states in another unit
	source       string // the current source, while Check runs
	chat         bool   // the source is a conversation transcript
	weak         bool   // the contradiction found rests on a chat clause alignment
	snums, anums []quantity
	// snumAt, anumAt: the offsets of the source's and the answer's ASCII
	// words that are number words, found by tokenize for wordNumbers.
	snumAt, anumAt []int32
	anear          []nbits // per answer number: closeSet
	swapTo         []int32 // per answer number the source states: numberPlaces' place, or -1
	// cmpWith memoizes comparedWith per source number (cmpUnknown until
	// read), sized and reset by priorAsCurrent once per Check.
	cmpWith  []int32
	srcDir   []int8 // directionFlip's reading per source number (dirUnknown until read), reset with cmpWith
	spans    [][2]int
	ctx      []int32        // number contexts (word ids)
	inSource []bool         // by word id: a stem of the source (the vocabulary)
	surf     []surfaceEntry // open addressing; a power of two long
	nsurf    int

	// Source numbers by context word, built on first use: per word id the
	// index+1 of its set in wbits (0: in no number's context).
	wordSet []int32
	wbits   []nbits
	npBuilt bool
	// sbreak[k]: a clause break (ctxBreak) stands between source tokens k-1
	// and k, read once per Check for the source numbers' contexts.
	sbreak []bool
	planes [4]nbits // the scores of the current answer number, bit-sliced

	// Source numbers by distinct value (closeTo depends on values only, so
	// an answer number is compared with each distinct value once) and by
	// kind (n, $, %, y).
	classSlot []int32 // open addressing by value: class+1, 0 when empty
	classVal  []float64
	classTol  []float64 // the largest tolerance of the class's numbers
	classBits []nbits
	kindBits  [4]nbits

	// Source sentences, built on first use by the contradiction check.
	sents           []sentence
	sentWords       []int32 // unique word ids per sentence, by sentence ranges
	postOff, post   []int32 // word id -> sentences holding it (CSR)
	counts, touched []int32
	set             []int32
	negAt           []int32  // source sentences' negation word offsets (sentence.a0)
	mark            []uint32 // per word id: stamp of the last set it joined
	stamp           uint32
	sentSpans       []scan.Span
	aspans          []scan.Span // the answer's sentences
	// otherSpeaker's chat turns (readTurns): speakers' word ids, turns,
	// each source token's turn, per word id the speakers it is near.
	spkIDs    []int32
	turns     []chatTurn
	turnOf    []int32
	spkCtx    []uint16
	turnStamp uint32

	lex lexState // word meaning (lexcheck.go)

	// entity.go: per word id, how the answer and the source write it
	// (caseLower, caseMid), made on first use in a Check.
	caseSeen []uint8
	caseOK   bool

	// affix.go, order.go: the source and the answer with ASCII letters
	// lowered (same offsets), made on first use in a Check; the source
	// words after "non-".
	lsrc, lans     []byte
	lsrcOK, lansOK bool
	nonWords       []string
	orderIdx       map[orderKey]int // orderFlip's index of the source's connectives
	compounds      map[string]int   // the lowered source's whole compounds (compoundIndex)
	compoundsOK    bool

	// quantifier.go, order.go: the answer's runs of ASCII letters that
	// may be a quantifier or a connective (answerRuns), made on first use.
	aruns   []int32
	arunsOK bool

	// sourceToks' index of the source tokens by word, and neighboursOf's
	// memo: word id -> its range of nbrIDs.
	srcByWord tokenIndex
	// negFirst marks the word ids of the source tokens that directly
	// follow a grammatical negation (negatedSomewhere), built on first use
	// in a Check.
	negFirst   []bool
	negFirstOK bool
	nbr        map[int32][2]int32
	polar      map[int32][2]int32 // polarTok's first plain and negated source tokens of a word, +1
	restrNear  map[string][]int32 // nearRestriction's words by restriction kind
	acronyms   []acronymSeen      // knownAcronym's answers, at most maxAcronyms
	nbrIDs     []int32

	// droppedNegation's memo: per word id, 0 not looked at, 1 the source
	// has it outside a negation, 2+k only under one, tried in k clauses.
	negOnly []uint8

	// addedNegation's memo: per word id, 0 not looked at, 1 the source
	// negates it somewhere, 2+k never, tried in k clauses.
	negAny []uint8
	// timeUnitSwap's index of the source tokens naming a unit of time
	// (sourceUnitToks).
	unitToks   []int32
	unitToksOK bool

	// roleSwap's index of the answer tokens by word (answerToks).
	ansByWord tokenIndex

	// declinedAssent's speakers with the openings of their turns.
	replies []reply

	// fractionSwap's fractions in words: the answer's, then the source's.
	fracs []fraction

	// negatedNumber's reading per source number: its clause is negated
	// (numNegOK once read in a Check).
	numNeg   []bool
	numNegOK bool
}

var statePool = sync.Pool{New: func() any {
	return &state{classSlot: make([]int32, 2*maxNumbers), surf: make([]surfaceEntry, 512)}
}}

func getState() *state { return statePool.Get().(*state) }

func putState(s *state) {
	if s.words.len() > 1<<14 || len(s.surf) > 1<<16 || cap(s.ctx) > 1<<16 || cap(s.stoks) > 1<<16 || cap(s.snumAt) > 1<<16 {
		return // an outsized input: let the scratch go rather than pin it
	}
	if s.stamp > 1<<30 {
		clear(s.mark[:cap(s.mark)])
		s.stamp = 0
	}
	s.words.reset()
	clear(s.surf)
	s.nsurf = 0
	s.source = ""
	clear(s.replies) // the speakers' names are the source's bytes
	s.replies = s.replies[:0]
	clear(s.acronyms) // the answer's bytes
	s.acronyms = s.acronyms[:0]
	s.npBuilt = false
	s.sents = s.sents[:0]
	s.ctx = s.ctx[:0]
	statePool.Put(s)
}

// words interns the words of one Check without a string per word: ids in
// order of first sight, their bytes in one buffer, and an open-addressing
// table of ids by FNV-1a hash.
type words struct {
	buf   []byte
	off   []int32  // id -> start in buf; one more entry: the end
	hash  []uint32 // id -> hash
	table []int32  // slot -> id+1, 0 when empty; a power of two long
}

func (d *words) len() int { return len(d.hash) }

func (d *words) word(id int32) []byte { return d.buf[d.off[id]:d.off[id+1]] }

func (d *words) reset() {
	d.buf = d.buf[:0]
	d.off = d.off[:0]
	d.hash = d.hash[:0]
	clear(d.table)
}

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// fnvAdd extends the FNV-1a hash h with the bytes of b.
func fnvAdd[T string | []byte](h uint32, b T) uint32 {
	for i := 0; i < len(b); i++ {
		h ^= uint32(b[i])
		h *= fnvPrime
	}
	return h
}

func (d *words) slot(h uint32) int { return int(h^h>>16) & (len(d.table) - 1) }

// find returns the id of b (whose hash is h), -1 when not interned.
func find[T string | []byte](d *words, b T, h uint32) int32 {
	if len(d.table) == 0 {
		return -1
	}
	for i := d.slot(h); ; i = (i + 1) & (len(d.table) - 1) {
		v := d.table[i]
		if v == 0 {
			return -1
		}
		if id := v - 1; d.hash[id] == h && string(d.word(id)) == string(b) {
			return id
		}
	}
}

// intern returns the id of b (whose hash is h), adding it when new: in the
// free slot its lookup ended on (where put would probe to), unless the
// table grows first.
func (d *words) intern(b []byte, h uint32) int32 {
	i := 0
	if len(d.table) > 0 {
		for i = d.slot(h); d.table[i] != 0; i = (i + 1) & (len(d.table) - 1) {
			if id := d.table[i] - 1; d.hash[id] == h && string(d.word(id)) == string(b) {
				return id
			}
		}
	}
	grow := 2*(len(d.hash)+1) > len(d.table)
	if grow {
		d.grow()
	}
	if len(d.off) == 0 {
		d.off = append(d.off, 0)
	}
	id := int32(len(d.hash))
	d.buf = append(d.buf, b...)
	d.off = append(d.off, int32(len(d.buf)))
	d.hash = append(d.hash, h)
	if grow {
		d.put(id)
	} else {
		d.table[i] = id + 1
	}
	return id
}

func (d *words) put(id int32) {
	i := d.slot(d.hash[id])
	for d.table[i] != 0 {
		i = (i + 1) & (len(d.table) - 1)
	}
	d.table[i] = id + 1
}

func (d *words) grow() {
	d.table = make([]int32, max(256, 2*len(d.table)))
	for id := range d.hash {
		d.put(int32(id))
	}
}

// stopWords is stop as a words table, for lookups without a map.
var stopWords = func() *words {
	d := &words{}
	for w := range stop {
		d.intern([]byte(w), fnvAdd(fnvOffset, w))
	}
	return d
}()

// quantities extracts normalised numbers. numAt holds the offsets of the
// text's number words (tokenize's snumAt or anumAt).
func (s *state) quantities(text string, numAt []int32, out []quantity) []quantity {
	s.spans = numberSpans(text, 256, s.spans[:0])
	for _, l := range s.spans {
		st, en := l[0], l[1]
		if st > 0 && (isWordByte(text[st-1]) || text[st-1] == '.' && st > 1 && isDigit(text[st-2])) {
			continue // part of an identifier or a longer number
		}
		// A span starts at a sign or a digit and ends at a digit, a unit or
		// a meridiem: nothing to trim.
		raw := text[st:en]
		v, kind, tol, ok := parseQuantityTol(raw)
		if !ok {
			continue
		}
		// A currency word after the number ("12 dollars").
		if currencyWordAfter(text[en:min(len(text), en+10)]) {
			kind = '$'
		}
		at := approxTol(text[:st], v)
		out = append(out, quantity{span: scan.Span{Start: st, End: en}, value: v, kind: kind, c0: -1,
			tol: max(tol, at), hedged: at > 0})
	}
	if n := len(out); n < maxNumbers {
		out = wordNumbers(text, numAt, out)
		if len(out) > n && n > 0 {
			slices.SortFunc(out, func(a, b quantity) int { return a.span.Start - b.span.Start })
		}
	}
	return out
}

// maxNumbers bounds the numbers of one text (nbits holds 256).
const maxNumbers = 256

// numWord is a number word: its value and its class: 'u' units and teens,
// 'T' tens, 'h' hundred, 'd' dozen, 's' scales, 'x' a word that stands
// alone ("twice").
type numWord struct {
	v   float64
	cls byte
}

// numWords is the number words as a words table, for lookups without a
// map; numWordVals holds their values by id.
var numWords, numWordVals = func() (*words, []numWord) {
	d, vals := &words{}, []numWord{}
	add := func(w string, nw numWord) {
		d.intern([]byte(w), fnvAdd(fnvOffset, w))
		vals = append(vals, nw)
	}
	for _, w := range []struct {
		w  string
		nw numWord
	}{{"hundred", numWord{100, 'h'}}, {"dozen", numWord{12, 'd'}}, {"thousand", numWord{1e3, 's'}}, {"million", numWord{1e6, 's'}},
		{"billion", numWord{1e9, 's'}}, {"trillion", numWord{1e12, 's'}}, {"twice", numWord{2, 'x'}}} {
		add(w.w, w.nw)
	}
	for i, w := range strings.Fields("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen") {
		add(w, numWord{float64(i + 1), 'u'})
	}
	for i, w := range strings.Fields("twenty thirty forty fifty sixty seventy eighty ninety") {
		add(w, numWord{float64(20 + 10*i), 'T'})
	}
	return d, vals
}()

func lookupNumWord(w []byte) (numWord, bool) {
	if id := find(numWords, w, fnvAdd(fnvOffset, w)); id >= 0 {
		return numWordVals[id], true
	}
	return numWord{}, false
}

// numWordFirst has bit c-'a' set for each first letter c of a number word.
var numWordFirst = func() uint32 {
	var m uint32
	for id := range numWordVals {
		m |= 1 << (numWords.word(int32(id))[0] - 'a')
	}
	return m
}()

// numWordKey is a number word as asciiWord keys it.
type numWordKey struct{ k0, k1 uint64 }

// numWordKeys holds the number words by their asciiWord keys, open
// addressing by numWordSlot.
var numWordKeys = func() (t [128]numWordKey) {
	for id := range numWordVals {
		var b [16]byte
		copy(b[:], numWords.word(int32(id)))
		k := numWordKey{binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])}
		p := numWordSlot(k.k0)
		for t[p].k0 != 0 {
			p = (p + 1) & (len(t) - 1)
		}
		t[p] = k
	}
	return t
}()

func numWordSlot(k0 uint64) int { return int(k0 * 0x9e3779b97f4a7c15 >> 57) }

// isNumWordKey reports whether k0, k1 is the asciiWord key of a number
// word.
func isNumWordKey(k0, k1 uint64) bool {
	for p := numWordSlot(k0); ; p = (p + 1) & (len(numWordKeys) - 1) {
		switch e := &numWordKeys[p]; {
		case e.k0 == 0:
			return false
		case e.k0 == k0 && e.k1 == k1:
			return true
		}
	}
}

// nextWord returns the ASCII letter run at i lower-cased into buf (empty
// when longer than buf) and its end.
func nextWord(text string, i int, buf *[10]byte) ([]byte, int) {
	j := i
	for j < len(text) && asciiLetter(text[j]) {
		j++
	}
	if j-i > len(buf) {
		return nil, j
	}
	for k := i; k < j; k++ {
		buf[k-i] = text[k] | 0x20
	}
	return buf[:j-i], j
}

// wordNumbers appends the numbers written in words: "three", "twenty-five",
// "a dozen", "two hundred and fifty", "three million", "twice". "one"
// alone is a pronoun as often as a number and is left out, as are number
// words right after digits ("5 million" is one number already). numAt
// holds the offsets of the text's ASCII words that are number words, in
// order (tokenize's): a number starts at one of them, not after an
// apostrophe, a hyphen or a non-ASCII byte.
func wordNumbers(text string, numAt []int32, out []quantity) []quantity {
	var buf [10]byte
	end := 0 // the end of the last number: the words before it are read
	for _, at := range numAt {
		if len(out) >= maxNumbers {
			break
		}
		i := int(at)
		if i < end || i > 0 && (text[i-1] >= utf8.RuneSelf || text[i-1] == '\'' || text[i-1] == '-') {
			continue
		}
		w, j := nextWord(text, i, &buf)
		nw, ok := lookupNumWord(w)
		if !ok || j < len(text) && (text[j] >= utf8.RuneSelf || text[j] == '\'') {
			continue
		}
		q, qend, ok := numberPhrase(text, i, j, nw, &buf)
		end = qend
		if ok {
			out = append(out, q)
		}
	}
	return out
}

// numberPhrase reads the number in words ("two hundred and five") that
// starts with number word nw at text[i:j]: its quantity, where it ends,
// and whether it counts as a number (see wordNumbers).
func numberPhrase(text string, i, j int, nw numWord, buf *[10]byte) (quantity, int, bool) {
	st, end := i, j
	total, cur, last, words := 0.0, 0.0, byte(0), 0
	for {
		switch nw.cls {
		case 'u':
			if last == 'u' {
				goto done
			}
			cur += nw.v
		case 'T':
			if last == 'u' || last == 'T' {
				goto done
			}
			cur += nw.v
		case 'h':
			cur = max(cur, 1) * 100
		case 'd':
			cur = max(cur, 1) * 12
		case 's':
			total += max(cur, 1) * nw.v
			cur = 0
		case 'x':
			if words > 0 {
				goto done
			}
			cur = nw.v
		}
		last, words, end = nw.cls, words+1, j
		if nw.cls == 'x' {
			break
		}
		// The next word: after one space or hyphen, "and" allowed after
		// hundred or a scale.
		k := j
		if k+1 >= len(text) || text[k] != ' ' && text[k] != '-' {
			break
		}
		k++
		w2, j2 := nextWord(text, k, buf)
		if string(w2) == "and" && (last == 'h' || last == 's') && j2+1 < len(text) && text[j2] == ' ' {
			k = j2 + 1
			w2, j2 = nextWord(text, k, buf)
		}
		nw2, ok := lookupNumWord(w2)
		if !ok || nw2.cls == 'x' || j2 < len(text) && (text[j2] >= utf8.RuneSelf || text[j2] == '\'') {
			break
		}
		nw, j = nw2, j2
	}
done:
	v := total + cur
	if words == 1 && v == 1 && last == 'u' {
		// "one" is a pronoun as often, but not before a unit: "one
		// week", "a one-year commitment".
		if _, _, ok := measureAfter(text, &quantity{span: scan.Span{Start: st, End: end}, kind: 'n'}); !ok {
			return quantity{}, end, false
		}
	}
	if p := strings.TrimRight(text[:st], " "); len(p) > 0 && (isDigit(p[len(p)-1]) || p[len(p)-1] == '$') {
		return quantity{}, end, false
	}
	kind := byte('n')
	if rest := text[end:min(len(text), end+10)]; currencyWordAfter(rest) {
		kind = '$'
	} else if r := strings.TrimLeft(rest, " "); scan.HasPrefixFold(r, "percent") || scan.HasPrefixFold(r, "per cent") || strings.HasPrefix(rest, "%") {
		kind = '%'
	}
	tol := 0.0
	if v >= 1000 {
		tol = 0.05 * v
	}
	at := approxTol(text[:st], v)
	return quantity{span: scan.Span{Start: st, End: end}, value: v, kind: kind, word: true, c0: -1, tol: max(tol, at), hedged: at > 0}, end, true
}

func currencyWordAfter(s string) bool {
	// Most numbers: the first byte past the white space, ASCII, starts no
	// currency word in either case.
	i := 0
	for i < len(s) && asciiSpace[s[i]] {
		i++
	}
	if i == len(s) || s[i] < utf8.RuneSelf && s[i]|0x20 != 'd' && s[i]|0x20 != 'u' && s[i]|0x20 != 'e' {
		return false
	}
	if !scan.IsASCII(s) {
		rest := strings.TrimSpace(strings.ToLower(s))
		return strings.HasPrefix(rest, "dollar") || strings.HasPrefix(rest, "usd") || strings.HasPrefix(rest, "euro")
	}
	// ASCII: lower-casing keeps offsets, so trim and compare folded.
	rest := strings.TrimSpace(s)
	return scan.HasPrefixFold(rest, "dollar") || scan.HasPrefixFold(rest, "usd") || scan.HasPrefixFold(rest, "euro")
}

// asciiSpace marks the ASCII bytes strings.TrimSpace trims.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

var currencySigns = [...]string{"$", "€", "£", "¥"}

var unitSuffixes = [...]string{"%", "per cent", "percent", "thousand", "million", "billion", "trillion", "mln", "mil", "mn", "bn", "k", "m", "b"}

// unitStart marks the first bytes of unitSuffixes. numberSpans looks up
// b|0x20: an ASCII letter lower-cased ('%' stays '%'), so a byte that can
// start a unit case-insensitively always passes; the few others that pass
// are then refused by the comparison itself.
var unitStart = func() (t [256]bool) {
	for _, u := range unitSuffixes {
		t[u[0]] = true
	}
	return t
}()

// numberSpans finds numbers by hand (a regexp here cost most of the
// check): an optional currency sign, digits with optional thousands
// commas and a decimal part, and an optional unit or scale word.
func numberSpans(text string, limit int, out [][2]int) [][2]int {
	for i := 0; len(out) < limit; i++ {
		if i = nextDigit(text, i); i >= len(text) { // i passes the end after a number ending it
			break
		}
		st := i
		if st > 0 && isDigit(text[st-1]) {
			continue
		}
		// Currency sign (possibly multi-byte) and one space before.
		p := st
		if p > 0 && text[p-1] == ' ' {
			p--
		}
		if p > 0 && (text[p-1] == '$' || text[p-1] >= utf8.RuneSelf) { // the signs' last bytes
			for _, sym := range currencySigns {
				if strings.HasSuffix(text[:p], sym) {
					st = p - len(sym)
					break
				}
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
		} else if j+2 < len(text) && text[j] == ':' && j-i <= 2 && isDigit(text[j+1]) && isDigit(text[j+2]) && (j+3 == len(text) || !isDigit(text[j+3])) {
			j += 3 // a time, "10:30"
		}
		if j < len(text) && (text[j] == '.' || text[j] == ')') && (j+1 == len(text) || text[j+1] == ' ' || text[j+1] == '\n') && lineStart(text, st) {
			i = j // a list marker, "1." or "2)"
			continue
		}
		if j < len(text) && text[j] >= 'A' && text[j] <= 'Z' && !unitAt(text, j) {
			i = j // part of a name or code, "3D", "5G"
			continue
		}
		en := j
		if e := meridiem(text, j); e > j {
			out = append(out, [2]int{st, e})
			i = j
			continue
		}
		k := j
		if k < len(text) && text[k] == ' ' {
			k++
		}
		raw := text[k:min(len(text), k+9)]
		var units []string
		ascii, rest := true, ""
		// No unit starts with an ASCII byte unitStart refuses (most numbers:
		// "85 employees", "2024,"), whatever lower-casing does to the rest.
		if raw != "" && (raw[0] >= utf8.RuneSelf || unitStart[raw[0]|0x20]) {
			units = unitSuffixes[:]
			if ascii = scan.IsASCII(raw); !ascii {
				rest = strings.ToLower(raw) // may change byte lengths: the old path, kept exact
			}
		}
		for _, suf := range units {
			var has bool
			if ascii {
				has = scan.HasPrefixFold(raw, suf)
			} else {
				has = strings.HasPrefix(rest, suf)
			}
			if has {
				e := k + len(suf)
				if suf == "%" || e == len(text) || !isWordByte(text[e]) {
					if suf == "%" && k != j {
						break // "12 %" is fine, but keep it simple: only "12%"
					}
					if len(suf) == 1 && k != j && st == i {
						break // "5000 m" is metres, "$5 m" five million
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

// lineStart: only spaces or tabs stand between the start of text's line
// and i.
func lineStart(text string, i int) bool {
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i == 0 || text[i-1] == '\n'
}

// unitAt: a scale suffix starts at i ("5M", "3BN", "2K").
func unitAt(text string, i int) bool {
	for _, suf := range [...]string{"mln", "mn", "bn", "k", "m", "b"} {
		if scan.HasPrefixFold(text[i:], suf) && (i+len(suf) == len(text) || !isWordByte(text[i+len(suf)])) {
			return true
		}
	}
	return false
}

// meridiem returns the end of an "am"/"pm" ("a.m.", "PM") right after a
// number ending at i (one space allowed), i when there is none.
func meridiem(text string, i int) int {
	k := i
	if k < len(text) && text[k] == ' ' {
		k++
	}
	if k+1 >= len(text) || text[k]|0x20 != 'a' && text[k]|0x20 != 'p' {
		return i
	}
	switch {
	case text[k+1]|0x20 == 'm' && (k+2 == len(text) || !isWordByte(text[k+2])):
		return k + 2
	case k+3 < len(text) && text[k+1] == '.' && text[k+2]|0x20 == 'm' && text[k+3] == '.':
		return k + 4
	}
	return i
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || isDigit(b) || b == '_'
}
func parseFloat(s string) (float64, error) {
	if v, ok := parseDecimal(s); ok {
		return v, nil
	}
	if strings.IndexByte(s, ',') < 0 {
		return strconv.ParseFloat(s, 64)
	}
	// Without the commas, in a stack buffer when short (ParseFloat does not
	// keep its argument).
	var buf [32]byte
	b := buf[:0]
	for i := 0; i < len(s); i++ {
		if s[i] != ',' {
			b = append(b, s[i])
		}
	}
	return strconv.ParseFloat(string(b), 64)
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseDecimal is parseFloat for digits with commas and at most one '.'
// (nearly every number), without strconv: ok only when the digits fit a
// float64 exactly and there are at most 22 decimals, so one IEEE division
// rounds correctly, giving ParseFloat's value bit for bit.
func parseDecimal(s string) (float64, bool) {
	var mant uint64
	digits, dec, dot := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
			d := uint64(c - '0')
			if mant > (1<<53-1-d)/10 {
				return 0, false
			}
			mant = mant*10 + d
			digits++
			if dot {
				dec++
			}
		case c == '.' && !dot:
			dot = true
		case c != ',':
			return 0, false
		}
	}
	if digits == 0 || dec >= len(pow10) {
		return 0, false
	}
	if dec == 0 {
		return float64(mant), true
	}
	return float64(mant) / pow10[dec], true
}

var scaleSuffixes = [...]struct {
	w string
	m float64
}{{"per cent", 1}, {"percent", 1}, {"%", 1}, {"thousand", 1e3}, {"million", 1e6}, {"billion", 1e9}, {"trillion", 1e12}, {"mln", 1e6}, {"mil", 1e6}, {"mn", 1e6}, {"bn", 1e9}, {"k", 1e3}, {"m", 1e6}, {"b", 1e9}}

// scaleByLast lists the scaleSuffixes (their indexes, in order) ending in
// each byte: parseQuantityTol tries only those of its number's last byte.
var scaleByLast = func() (t [256][]uint8) {
	for k, suf := range scaleSuffixes {
		last := suf.w[len(suf.w)-1]
		t[last] = append(t[last], uint8(k))
	}
	return t
}()

// parseQuantity normalises "1.2 million", "1,200,000", "$1.2M", "12%".
func parseQuantity(raw string) (float64, byte, bool) {
	v, kind, _, ok := parseQuantityTol(raw)
	return v, kind, ok
}

// parseQuantityTol is parseQuantity with the rounding the spelling states
// (see quantity.tol, before approximation words).
func parseQuantityTol(raw string) (float64, byte, float64, bool) {
	kind := byte('n')
	s := raw
	if s != "" && !isDigit(s[0]) {
		switch r, n := utf8.DecodeRuneInString(s); r {
		case '$', '€', '£', '¥':
			kind = '$'
			s = strings.TrimSpace(s[n:])
		}
	}
	l := s
	mult := 1.0
	// A plain number (ends in a digit, no ':'; most numbers on both sides)
	// has no time, no scale word and no letters to lower.
	if colon := strings.IndexByte(l, ':') >= 0; len(l) == 0 || !isDigit(l[len(l)-1]) || colon {
		l = strings.ToLower(s)
		// A time has a ':' or ends in "am", "pm", "a.m.", "p.m.".
		if e := l[max(0, len(l)-1):]; e == "m" || e == "." || colon {
			if t, ok := parseTime(l); ok {
				return t, 't', 0, true
			}
		}
		var tries []uint8
		if l != "" {
			tries = scaleByLast[l[len(l)-1]]
		}
		for _, k := range tries {
			if suf := &scaleSuffixes[k]; strings.HasSuffix(l, suf.w) {
				if suf.w == "%" || strings.Contains(suf.w, "cent") {
					kind = '%'
				}
				mult = suf.m
				l = strings.TrimSpace(l[:len(l)-len(suf.w)])
				break
			}
		}
	}
	v, err := parseFloat(l)
	if err != nil {
		return 0, 0, 0, false
	}
	v *= mult
	if kind == 'n' && mult == 1 && v >= 1900 && v <= 2100 && !strings.ContainsAny(l, ".,") {
		return v, 'y', 0, true
	}
	// Half a unit of the last significant digit: decimals, or the
	// trailing zeros of a scaled or large whole number ("1,000", "3
	// million"; small whole numbers are exact), at most 5%.
	dec, zeros, frac := 0, 0, false
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c == '.':
			frac = true
		case frac:
			dec++
		case c == '0':
			zeros++
		case c != ',':
			zeros = 0
		}
	}
	unit := mult
	switch {
	case dec > 0:
		unit = mult * math.Pow10(-dec)
	case mult > 1 || v >= 1000:
		unit = mult * math.Pow10(zeros)
	}
	return v, kind, min(unit/2, 0.05*math.Abs(v)), true
}

// count: q may be the answer's own count of things the source lists:
// a plain number written in words, or a plain whole number below 10. A
// percentage or an amount of money in words ("eighteen percent", "five
// thousand dollars") states a figure as digits do.
func (q *quantity) count() bool {
	return q.kind == 'n' && (q.word || q.value < 10 && q.value == math.Trunc(q.value))
}

// sameUnitNumber returns the first source number that counts the same
// thing as q with a different value, nil when there is none.
func (s *state) sameUnitNumber(q *quantity, answer, source string) *quantity {
	for i := range s.snums {
		n := &s.snums[i]
		if compatible(q.kind, n.kind) && n.kind != 'y' && !near(q, n.value, n.tol) && s.sameUnit(q, n, answer, source) {
			return n
		}
	}
	return nil
}

// measure is a unit of measurement: its dimension and its size in the
// dimension's base unit.
type measure struct {
	word   string // the unit's canonical name
	dim    byte   // 'm' mass, 'l' length, 't' duration, 'v' volume
	factor float64
}

// measures maps unit words (lower case, singular and plural) to their
// measure. Ambiguous words ("in", "m" after a currency amount) are out.
var measures = func() map[string]measure {
	m := map[string]measure{}
	add := func(dim byte, factor float64, canon string, words ...string) {
		for _, w := range append(words, canon) {
			m[w] = measure{word: canon, dim: dim, factor: factor}
		}
	}
	add('m', 1e-3, "mg", "milligram", "milligrams")
	add('m', 1, "g", "gram", "grams", "gramme", "grammes")
	add('m', 1e3, "kg", "kgs", "kilo", "kilos", "kilogram", "kilograms")
	add('m', 1e6, "tonne", "tonnes")
	add('m', 453.59237, "lb", "lbs", "pound", "pounds")
	add('m', 28.349523125, "oz", "ounce", "ounces")
	add('l', 1e-3, "mm", "millimeter", "millimeters", "millimetre", "millimetres")
	add('l', 1e-2, "cm", "centimeter", "centimeters", "centimetre", "centimetres")
	add('l', 1, "m", "meter", "meters", "metre", "metres")
	add('l', 1e3, "km", "kms", "kilometer", "kilometers", "kilometre", "kilometres")
	add('l', 0.3048, "ft", "foot", "feet")
	add('l', 0.9144, "yd", "yds", "yard", "yards")
	add('l', 1609.344, "mi", "mile", "miles")
	add('l', 0.0254, "inch", "inches")
	add('t', 1e-3, "ms", "millisecond", "milliseconds")
	add('t', 1, "sec", "secs", "second", "seconds")
	add('t', 60, "min", "mins", "minute", "minutes")
	add('t', 3600, "hour", "hours", "hr", "hrs", "h")
	add('t', 86400, "day", "days")
	add('t', 7*86400, "week", "weeks", "wk", "wks")
	add('t', 365.25*86400/12, "month", "months")
	add('t', 365.25*86400, "year", "years", "yr", "yrs")
	add('v', 1e-3, "ml", "milliliter", "milliliters", "millilitre", "millilitres")
	add('v', 1, "l", "liter", "liters", "litre", "litres")
	return m
}()

// measureAfter is the unit of measurement written right after q ("2.5
// kg", "2.5kg", "90 minutes") and where its word starts; false when there
// is none. A number with a scale, currency or percent sign is no
// measurement.
func measureAfter(text string, q *quantity) (measure, int, bool) {
	if q.kind != 'n' {
		return measure{}, 0, false
	}
	i := q.span.End
	if i < len(text) && (text[i] == ' ' || text[i] == '-') {
		i++
	}
	j := i
	for j < len(text) && asciiLetter(text[j]) && text[j] != '\'' {
		j++
	}
	if j == i || j-i > 16 || j < len(text) && (isWordByte(text[j]) || text[j] >= utf8.RuneSelf) {
		return measure{}, 0, false
	}
	var buf [16]byte
	for k := i; k < j; k++ {
		buf[k-i] = text[k] | 0x20
	}
	m, ok := measures[string(buf[:j-i])] // converted in the lookup: no allocation
	return m, i, ok
}

// sourceHasMeasure: some source number states q's amount (unit m) in a
// unit of the same dimension, within either's rounding.
func (s *state) sourceHasMeasure(q *quantity, m measure) bool {
	for i := range s.snums {
		n := &s.snums[i]
		nm, _, ok := measureAfter(s.source, n)
		if !ok || nm.dim != m.dim || nm.word == m.word {
			continue
		}
		a, b := q.value*m.factor, n.value*nm.factor
		if math.Abs(a-b) <= max(q.tol*m.factor, n.tol*nm.factor)+1e-9*math.Max(math.Abs(a), math.Abs(b)) {
			return true
		}
	}
	return false
}

// unitWord returns the word right after a number ending at end (a space or
// hyphen between), "" when there is none.
func unitWord(toks []tok, text string, end int) string {
	k := tokAt(toks, end)
	if k == len(toks) || toks[k].start-end > 1 {
		return ""
	}
	return text[toks[k].start:toks[k].end]
}

// sameUnit: q and the source number n count the same thing: the words
// after them agree, plurals aside ("three days", "10 days").
func (s *state) sameUnit(q, n *quantity, answer, source string) bool {
	a := unitWord(s.atoks, answer, q.span.End)
	b := unitWord(s.stoks, source, n.span.End)
	if a == "" || b == "" {
		return false
	}
	a, b = strings.TrimSuffix(strings.ToLower(a), "s"), strings.TrimSuffix(strings.ToLower(b), "s")
	return a == b
}

// parseTime reads "10:30", "5pm", "10.30 a.m." as hours on a 12-hour
// clock (so "at 6" matches "6pm" and "18:00"), minutes as fractions.
func parseTime(l string) (float64, bool) {
	mer := false
	for _, suf := range [...]string{"a.m.", "p.m.", "am", "pm"} {
		if strings.HasSuffix(l, suf) {
			l, mer = strings.TrimSpace(l[:len(l)-len(suf)]), true
			break
		}
	}
	sep := strings.IndexByte(l, ':')
	if sep < 0 && mer {
		sep = strings.IndexByte(l, '.')
	}
	if sep < 0 && !mer {
		return 0, false
	}
	hs, ms := l, ""
	if sep >= 0 {
		hs, ms = l[:sep], l[sep+1:]
	}
	h, err := strconv.Atoi(hs)
	if err != nil || h > 24 {
		return 0, false
	}
	m := 0
	if ms != "" {
		if m, err = strconv.Atoi(ms); err != nil || len(ms) != 2 || m > 59 {
			return 0, false
		}
	}
	if h > 12 {
		h -= 12
	}
	if h == 0 {
		h = 12
	}
	return float64(h) + float64(m)/60, true
}

// context computes q's context: the content words within 6 words of its
// span (and 80 bytes). In a source (breaks != nil: sentenceBreaks of text
// and toks) each side stops at a break (ctxBreak) once it has minContext
// words:
// in a number-dense transcript the words past the break belong to the next
// figure ("footwear growing 15%, led by trail shoes. Mia Larsen: We opened
// three stores"). An answer's windows cross breaks: a summary joins what
// several source sentences say, so its number's words come from all of
// them. from is a token index at or before q's first token: numbers come
// in text order, so each starts where the last one's search ended (the
// index returned) instead of a binary search.
func (s *state) context(q *quantity, text string, breaks []bool, toks []tok, from int) int {
	i := from
	for i < len(toks) && toks[i].start < q.span.Start {
		i++
	}
	if q.c0 >= 0 {
		return i
	}
	// Token starts grow, so each side's words are one run of tokens.
	st, en := q.span.Start, q.span.End
	ctx := s.ctx
	q.c0 = int32(len(ctx))
	// A break seen in a gap stops the side from the next word past
	// minContext on; the gap holding the number is read here, only when
	// it has a break (on which side of the number then matters).
	k, broken := i, false
	for k > max(0, i-6) && st-toks[k-1].start <= 80 {
		if breaks != nil {
			broken = broken || k == i && (i == len(toks) || breaks[i]) && ctxBreak(text, toks[k-1].end, st) || k < i && breaks[k]
		}
		if broken && k <= i-minContext {
			break
		}
		k--
	}
	for ; k < i; k++ {
		ctx = append(ctx, toks[k].id)
	}
	end := min(len(toks), i+6+1)
	for k < end && toks[k].start < en {
		k++
	}
	broken = false
	for k0 := k; k < end && toks[k].start-en <= 80; k++ {
		if breaks != nil {
			broken = broken || k == k0 && breaks[k] && ctxBreak(text, en, toks[k].start) || k > k0 && breaks[k]
		}
		if broken && k >= k0+minContext {
			break
		}
		ctx = append(ctx, toks[k].id)
	}
	q.c1 = int32(len(ctx))
	s.ctx = ctx
	return i
}

// minContext is the number of words a source number's context takes on
// each side whatever the breaks: a short sentence ("We slipped three
// weeks.") still ties its number to the words around it.
const minContext = 2

// sentenceBreaks sets out[k] (grown to len(toks)): a break (ctxBreak)
// stands between tokens k-1 (or the text's start) and k of text; each gap
// read once.
func sentenceBreaks(text string, toks []tok, out []bool) []bool {
	out = growBools(out, len(toks))
	end := 0
	for k := range toks {
		out[k] = ctxBreak(text, end, toks[k].start)
		end = toks[k].end
	}
	return out
}

// ctxBreak: text[a:b] holds a line break or a sentence end ('.', '!', '?',
// ';' before a space).
func ctxBreak(text string, a, b int) bool {
	for j := a; j < b; j++ {
		if !breakByte[text[j]] {
			continue
		}
		if text[j] == '\n' || j+1 < len(text) && (text[j+1] == ' ' || text[j+1] == '\n') {
			return true
		}
	}
	return false
}

// breakByte marks the bytes ctxBreak looks at.
var breakByte = [256]bool{'\n': true, '.': true, '!': true, '?': true, ';': true}

// tok is a content word: its span, the id of its lower-cased stem, the id
// of the lower-cased word itself (-1 when not interned at its first sight
// in the answer; looked up for answer words only, and read only to ask
// whether the source has it), its weight for the unsupported share, and
// whether the source lacks it.
type tok struct {
	start, end int
	id, full   int32
	upper      bool
	missing    bool
	absent     bool // the source lacks it (missing, or related to a source word by meaning)
	name       bool // a capitalised word inside a sentence, missing
}

// tokenize appends the content words of text with their offsets, in one
// pass: runs of letters and apostrophes starting with a letter, lower-cased,
// apostrophes trimmed, stop words and one-letter words dropped, stemmed.
// ASCII words of at most 16 bytes (nearly all) are read eight bytes at a
// time and take their ids from the surface cache, so a repeated word is
// neither lowered, hashed nor stemmed again.
func (s *state) tokenize(text string, out []tok, answer bool) []tok {
	numAt := s.snumAt[:0]
	if answer {
		numAt = s.anumAt[:0]
	}
	i := 0
	for {
		for i < len(text) && gapByte[text[i]] {
			i++
		}
		if i == len(text) {
			break
		}
		c := text[i]
		first := rune(c)
		if c < utf8.RuneSelf {
			j, k0, k1 := asciiWord(text, i)
			if j > 0 {
				id, full, num := s.surface(k0, k1, j-i, answer)
				if id >= 0 {
					out = append(out, tok{start: i, end: j, id: id, full: full, upper: c <= 'Z'})
				}
				if num {
					numAt = append(numAt, int32(i))
				}
				i = j
				continue
			}
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsLetter(r) {
				i += n
				continue
			}
			first = r
		}
		st := i
		s.buf, i = lowerWord(text, i, s.buf)
		if id, full := s.wordIDs(s.buf, answer); id >= 0 {
			out = append(out, tok{start: st, end: i, id: id, full: max(full, -1), upper: unicode.IsUpper(first)})
		}
	}
	if answer {
		s.anumAt = numAt
	} else {
		s.snumAt = numAt
	}
	return out
}

// gapByte marks the ASCII bytes that start no word: all but the letters.
var gapByte = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = !asciiLetter(byte(c))
	}
	return t
}()

// asciiWord reads the word starting with the ASCII letter at text[i]: its
// end j and its bytes lower-cased (| 0x20 lowers a letter and keeps the
// apostrophe), little-endian in k0 and k1, zero-padded. j is 0 when the
// word is longer than 16 bytes or may go on with a non-ASCII letter.
func asciiWord(text string, i int) (j int, k0, k1 uint64) {
	const lower = 0x2020202020202020
	if i+16 > len(text) {
		// Near the end (so at most 15 bytes): byte by byte.
		j = i + 1
		for j < len(text) && wordLower[text[j]] != 0 {
			j++
		}
		if j < len(text) && text[j] >= utf8.RuneSelf {
			return 0, 0, 0
		}
		for k := j - 1; k >= i; k-- {
			k1 = k1<<8 | k0>>56
			k0 = k0<<8 | uint64(text[k]) | 0x20
		}
		return j, k0, k1
	}
	x := scan.Load8(text, i)
	if end := ^wordBytes(x) & scan.SWARHi; end != 0 {
		// end&-end is the high bit of the first byte past the word.
		j, k0 = i+bits.TrailingZeros64(end)>>3, (x|lower)&(end&-end>>7-1)
	} else {
		x1 := scan.Load8(text, i+8)
		end = ^wordBytes(x1) & scan.SWARHi
		if end == 0 {
			return 0, 0, 0
		}
		j, k0, k1 = i+8+bits.TrailingZeros64(end)>>3, x|lower, (x1|lower)&(end&-end>>7-1)
	}
	if text[j] >= utf8.RuneSelf {
		return 0, 0, 0
	}
	return j, k0, k1
}

// wordBytes sets the high bit of each byte of x that is an ASCII letter or
// an apostrophe (wordLower's non-zero bytes), and no other bit. Each byte
// is tested apart: no sum carries out of its byte.
func wordBytes(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	// A letter: x|0x20 in 'a'..'z' (0x61..0x7a) and the high bit clear.
	u := (x | 0x2020202020202020) & low7
	letter := (u + 0x1f1f1f1f1f1f1f1f) &^ (u + 0x0505050505050505) &^ x
	// An apostrophe: the byte of x^'\'' is zero.
	v := x ^ 0x2727272727272727
	apos := ^((v&low7 + low7) | v)
	return (letter | apos) & scan.SWARHi
}

// fullUnknown: the word's own id was not looked up (source words).
const fullUnknown = -2

// wordIDs returns the ids of the stem of the lower-cased word w and of w
// itself (see tok.full; fullUnknown when not answer and w is stemmed), id
// -1 when w is not a content word.
func (s *state) wordIDs(w []byte, answer bool) (id, full int32) {
	// No leading apostrophe to trim: a word starts with a letter.
	for len(w) > 0 && w[len(w)-1] == '\'' {
		w = w[:len(w)-1]
	}
	if n := len(w); n >= 3 && w[n-2] == '\'' && w[n-1] == 's' {
		w = w[:n-2] // a possessive: "Samantha's" is Samantha
	}
	if len(w) < 2 {
		return -1, -1
	}
	sw := stemBytes(w)
	hs := fnvAdd(fnvOffset, sw)
	hw := fnvAdd(hs, w[len(sw):])
	if n := len(w); n < 16 && stopShape[w[0]]&stopShape[w[n-1]]&(1<<n) != 0 && find(stopWords, w, hw) >= 0 {
		return -1, -1
	}
	id = s.words.intern(sw, hs)
	switch {
	case len(sw) == len(w):
		full = id
	case answer:
		full = find(&s.words, w, hw)
	default:
		full = fullUnknown
	}
	return id, full
}

// surfaceEntry caches wordIDs of an ASCII word by its key (asciiWord's k0
// and k1; no word byte is zero, so k0 == 0 marks an empty slot).
type surfaceEntry struct {
	k0, k1   uint64
	id, full int32
	num      bool // a number word (wordNumbers)
}

// surface returns the ids of the ASCII word of n bytes whose key is k0,
// k1, as wordIDs on its lower-cased bytes. Caching is exact: a word's stem
// is interned at its first sight and later lookups find the same id; and a
// stemmed answer word's own id is only read to ask whether the source has
// it, which is settled before the answer is read. num: the word is a
// number word.
func (s *state) surface(k0, k1 uint64, n int, answer bool) (id, full int32, num bool) {
	mask := len(s.surf) - 1
	for p := surfaceSlot(k0, k1) & mask; ; p = (p + 1) & mask {
		e := &s.surf[p]
		if e.k0 == k0 && e.k1 == k1 {
			if e.full != fullUnknown || !answer {
				return e.id, max(e.full, -1), e.num
			}
			return s.addSurface(k0, k1, n, answer, p) // a source word, now in the answer: look up its own id
		}
		if e.k0 == 0 {
			return s.addSurface(k0, k1, n, answer, p)
		}
	}
}

// addSurface computes the ids of a word surface did not find and caches
// them in slot p (its free slot, or its entry to complete). The key holds
// the word's n bytes lower-cased already: no need to read and lower the
// text again (every distinct word of a Check comes here once).
func (s *state) addSurface(k0, k1 uint64, n int, answer bool, p int) (int32, int32, bool) {
	s.buf = binary.LittleEndian.AppendUint64(s.buf[:0], k0)
	s.buf = binary.LittleEndian.AppendUint64(s.buf, k1)[:n]
	num := numWordFirst>>(byte(k0)-'a')&1 != 0 && isNumWordKey(k0, k1)
	id, full := s.wordIDs(s.buf, answer)
	if s.surf[p].k0 == 0 {
		if 2*(s.nsurf+1) > len(s.surf) {
			s.growSurface()
			mask := len(s.surf) - 1
			for p = surfaceSlot(k0, k1) & mask; s.surf[p].k0 != 0; p = (p + 1) & mask {
			}
		}
		s.nsurf++
	}
	s.surf[p] = surfaceEntry{k0, k1, id, full, num}
	return id, max(full, -1), num
}

func surfaceSlot(k0, k1 uint64) int {
	return int((k0 ^ k1*0x9e3779b97f4a7c15) * 0xff51afd7ed558ccd >> 40)
}

func (s *state) growSurface() {
	old := s.surf
	s.surf = make([]surfaceEntry, 2*len(old))
	mask := len(s.surf) - 1
	for _, e := range old {
		if e.k0 == 0 {
			continue
		}
		p := surfaceSlot(e.k0, e.k1) & mask
		for s.surf[p].k0 != 0 {
			p = (p + 1) & mask
		}
		s.surf[p] = e
	}
}

// wordLower maps the ASCII bytes of a word to their lower case: letters
// and the apostrophe; 0 for the rest.
var wordLower = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = byte(c), byte(c)
	}
	t['\''] = '\''
	return t
}()

// stopShape has bit n set for the first and the last byte of each stop word
// of n bytes: most content words fail one of the two.
var stopShape = func() (t [256]uint16) {
	for w := range stop {
		t[w[0]] |= 1 << len(w)
		t[w[len(w)-1]] |= 1 << len(w)
	}
	return t
}()

// lowerWord reads the run of letters and apostrophes at i of text into
// buf[:0], lower-cased, and returns it and its end. Its own small function:
// in tokenize's body the loop spilled its registers.
func lowerWord(text string, i int, buf []byte) ([]byte, int) {
	buf = buf[:0]
	for i < len(text) {
		c := text[i]
		if l := wordLower[c]; l != 0 {
			buf = append(buf, l)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			break
		}
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
		i += n
	}
	return buf, i
}

func asciiLetter(c byte) bool { c |= 0x20; return c >= 'a' && c <= 'z' }

var stemSuffixes = [...]string{"ing", "ed", "es", "s", "'s"}

// stemBytes is stem on bytes, by the last byte: "ing", "ed", then "es",
// "s" ("'s" is never reached: a word long enough for it ends in "s" and
// loses that first).
func stemBytes(w []byte) []byte {
	n := len(w)
	if n < 5 {
		return w
	}
	switch w[n-1] {
	case 'g':
		if n > 6 && w[n-2] == 'n' && w[n-3] == 'i' {
			return w[:n-3]
		}
	case 'd':
		if n > 5 && w[n-2] == 'e' {
			return w[:n-2]
		}
	case 's':
		if n > 5 && w[n-2] == 'e' {
			return w[:n-2]
		}
		return w[:n-1]
	}
	return w
}

func stem(w string) string {
	for _, suf := range stemSuffixes {
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
	span   scan.Span
	w0, w1 int32 // its unique word ids: sentWords[w0:w1]
	neg    int
	// a0, a1: its negation words' offsets in state.negAt (negationShared),
	// a0 < 0 until read.
	a0, a1 int32
}

func (s *state) sentHas(st *sentence, id int32) bool {
	for _, w := range s.sentWords[st.w0:st.w1] {
		if w == id {
			return true
		}
	}
	return false
}

// index prepares the source's vocabulary. Its numbers are indexed only
// for an answer that has some (indexNumbers), its sentences on first use
// (sourceSentences).
func (s *state) index() {
	n := s.words.len()
	s.inSource = growBools(s.inSource, n)
	for _, t := range s.stoks {
		s.inSource[t.id] = true
	}
}

// indexNumbers reads the source's numbers and groups them by value and by
// kind. Only the answer's numbers are compared with them: an answer
// without numbers skips the source's (most summaries state none).
func (s *state) indexNumbers(source string) {
	s.snums = s.quantities(source, s.snumAt, s.snums[:0])
	s.classVal = s.classVal[:0]
	clear(s.classSlot)
	s.classTol = s.classTol[:0]
	s.classBits = s.classBits[:0]
	s.kindBits = [4]nbits{}
	for i := range s.snums {
		v := s.snums[i].value
		c, slot := s.classOf(v)
		if c < 0 {
			c = int32(len(s.classVal))
			s.classSlot[slot] = c + 1
			s.classVal = append(s.classVal, v)
			s.classTol = append(s.classTol, 0)
			s.classBits = append(s.classBits, nbits{})
		}
		s.classBits[c].set(i)
		s.classTol[c] = max(s.classTol[c], s.snums[i].tol)
		s.kindBits[kindIndex(s.snums[i].kind)].set(i)
	}
}

// classOf returns the class of the value v, -1 and its free slot when it
// has none yet. Values are never NaN, and +0 is the only zero.
func (s *state) classOf(v float64) (int32, int) {
	mask := len(s.classSlot) - 1
	for i := int(math.Float64bits(v)*0x9e3779b97f4a7c15>>32) & mask; ; i = (i + 1) & mask {
		c := s.classSlot[i] - 1
		if c < 0 || s.classVal[c] == v {
			return c, i
		}
	}
}

func growBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n, n+n/4)
	}
	b = b[:n]
	clear(b)
	return b
}

func growInt32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n, n+n/4)
	}
	b = b[:n]
	clear(b)
	return b
}

func (s *state) vocab(id int32) bool { return id >= 0 && int(id) < len(s.inSource) && s.inSource[id] }

// maxSentences bounds the source sentences the contradiction check aligns.
const maxSentences = 2000

// sourceSentences splits the source into sentences with their unique words
// and the postings word -> sentences.
func (s *state) sourceSentences(source string) {
	s.sentSpans = sentences(source, s.sentSpans[:0])
	s.sents = s.sents[:0]
	s.sentWords = s.sentWords[:0]
	s.negAt = s.negAt[:0]
	s.mark = growMarks(s.mark, s.words.len())
	k := 0
	for _, sp := range s.sentSpans {
		if len(s.sents) == maxSentences {
			break
		}
		s.stamp++
		w0 := int32(len(s.sentWords))
		for k < len(s.stoks) && s.stoks[k].start < sp.End {
			if id := s.stoks[k].id; s.mark[id] != s.stamp {
				s.mark[id] = s.stamp
				s.sentWords = append(s.sentWords, id)
			}
			k++
		}
		s.sents = append(s.sents, sentence{span: sp, w0: w0, w1: int32(len(s.sentWords)), neg: -1, a0: -1})
	}
	n := s.words.len()
	s.postOff = growInt32(s.postOff, n+1)
	for _, id := range s.sentWords {
		s.postOff[id+1]++
	}
	for i := 1; i <= n; i++ {
		s.postOff[i] += s.postOff[i-1]
	}
	s.post = growInt32(s.post, len(s.sentWords))
	fill := s.counts[:0]
	fill = append(fill, s.postOff[:n]...)
	for si := range s.sents {
		for _, id := range s.sentWords[s.sents[si].w0:s.sents[si].w1] {
			s.post[fill[id]] = int32(si)
			fill[id]++
		}
	}
	s.counts = fill
}

func growMarks(m []uint32, n int) []uint32 {
	if cap(m) < n {
		return make([]uint32, n, n+n/4)
	}
	return m[:n] // stamps only grow: old marks never match a new stamp
}

func (s *state) postings(id int32) []int32 {
	if int(id)+1 >= len(s.postOff) {
		return nil
	}
	return s.post[s.postOff[id]:s.postOff[id+1]]
}

// nbits is a set of source numbers (at most 256: numberSpans' limit).
type nbits [4]uint64

func (b *nbits) set(i int) { b[i>>6] |= 1 << (i & 63) }

func (b *nbits) or(o *nbits) {
	b[0] |= o[0]
	b[1] |= o[1]
	b[2] |= o[2]
	b[3] |= o[3]
}

func (b *nbits) and(o *nbits) nbits { return nbits{b[0] & o[0], b[1] & o[1], b[2] & o[2], b[3] & o[3]} }

func (b *nbits) andNot(o *nbits) nbits {
	return nbits{b[0] &^ o[0], b[1] &^ o[1], b[2] &^ o[2], b[3] &^ o[3]}
}

func (b *nbits) empty() bool { return b[0]|b[1]|b[2]|b[3] == 0 }

// all yields the index of each member, in increasing order: the loop over
// a set's members ("for j := range set.all"), inlined where it is used.
func (b nbits) all(yield func(int) bool) {
	for w, x := range b {
		for ; x != 0; x &= x - 1 {
			if !yield(w*64 + bits.TrailingZeros64(x)) {
				return
			}
		}
	}
}

// first returns the lowest member, -1 when empty.
func (b *nbits) first() int {
	for w, x := range b {
		if x != 0 {
			return w*64 + bits.TrailingZeros64(x)
		}
	}
	return -1
}

// kindIndex maps a quantity kind to its bit in the kind sets.
func kindIndex(k byte) int {
	switch k {
	case '$':
		return 1
	case '%':
		return 2
	case 'y':
		return 3
	}
	return 0 // 'n', and 't': times are plain numbers with a clock
}

// compatible(q.kind, n.kind) as a set of source numbers: those of q's
// kind and the plain ones; every number for a plain q.
func (s *state) compatSet(kind byte) nbits {
	if kind == 'n' {
		all := s.kindBits[0]
		for k := 1; k < 4; k++ {
			all.or(&s.kindBits[k])
		}
		return all
	}
	set := s.kindBits[0]
	set.or(&s.kindBits[kindIndex(kind)])
	return set
}

// alignSet: compatible kinds, and years only with years.
func (s *state) alignSet(kind byte) nbits {
	switch kind {
	case 'y':
		return s.kindBits[3]
	case 'n':
		set := s.kindBits[0]
		set.or(&s.kindBits[1])
		set.or(&s.kindBits[2])
		return set
	}
	set := s.kindBits[0]
	set.or(&s.kindBits[kindIndex(kind)])
	return set
}

// closeSet: the source numbers whose value is closeTo q's, one closeTo per
// distinct source value.
func (s *state) closeSet(q *quantity) nbits {
	var set nbits
	for c, v := range s.classVal {
		if near(q, v, s.classTol[c]) {
			set.or(&s.classBits[c])
		}
	}
	return set
}

// onlyInOtherUnit: every source number with q's value (near is
// closeSet(q)) has a unit of measurement of m's dimension other than m:
// the source's "three months" states no "three weeks".
func (s *state) onlyInOtherUnit(q *quantity, m measure, near *nbits) bool {
	compat := s.compatSet(q.kind)
	in := near.and(&compat)
	for j := range in.all {
		nm, _, ok := measureAfter(s.source, &s.snums[j])
		if !ok || nm.dim != m.dim || nm.word == m.word {
			return false
		}
	}
	return true
}

// distinctive: a number of three significant digits or more ("$2.91",
// "64.5%", "$742 million"), not a year or a time: one the source has is
// stated, whatever words another figure shares with it.
func distinctive(raw string, q *quantity) bool {
	if q.kind == 'y' || q.kind == 't' || q.word {
		return false
	}
	var d []byte
	for i := 0; i < len(raw); i++ {
		if isDigit(raw[i]) {
			d = append(d, raw[i])
		}
	}
	for len(d) > 0 && d[0] == '0' {
		d = d[1:]
	}
	for len(d) > 0 && d[len(d)-1] == '0' {
		d = d[:len(d)-1]
	}
	return len(d) >= 3
}

// nextWordShared: the content word right after answer number i (no
// clause break between) is the one right after a source number of its
// value: "sold in 14 states" for "online in 14 states".
func (s *state) nextWordShared(answer string, i int) bool {
	q := &s.anums[i]
	k := tokAt(s.atoks, q.span.End)
	if k == len(s.atoks) || breakBetween(answer, q.span.End, s.atoks[k].start) {
		return false
	}
	id := s.atoks[k].id
	compat := s.compatSet(q.kind)
	in := s.anear[i].and(&compat)
	for j := range in.all {
		n := &s.snums[j]
		j := tokAt(s.stoks, n.span.End)
		if j < len(s.stoks) && s.stoks[j].id == id && !breakBetween(s.source, n.span.End, s.stoks[j].start) {
			return true
		}
	}
	return false
}

// acronymBefore: the answer word right before answer number i (a verb
// such as "was" between) is an acronym of the source words right before a
// source number of its value: "Adjusted EPS was $0.88" for "Adjusted
// earnings per share were $0.88" (the summary's words after it, "hurt by a
// maintenance outage", belong to a neighbouring figure of the source).
func (s *state) acronymBefore(answer string, i int) bool {
	q := &s.anums[i]
	k := tokAt(s.atoks, q.span.Start) - 1
	if k < 0 {
		return false
	}
	t := &s.atoks[k]
	acr := answer[t.start:t.end]
	if len(acr) < 2 || len(acr) > 5 || breakBetween(answer, t.end, q.span.Start) || q.span.Start-t.end > 6 {
		return false
	}
	for j := 0; j < len(acr); j++ {
		if acr[j] < 'A' || acr[j] > 'Z' {
			return false
		}
	}
	compat := s.compatSet(q.kind)
	in := s.anear[i].and(&compat)
	for j := range in.all {
		if initialsBefore(s.source, s.snums[j].span.Start, acr) {
			return true
		}
	}
	return false
}

// initialsBefore: the words of text ending before offset at, one short
// word ("were", "of") between them and at allowed, start with the letters
// of acr in order ("earnings per share were" for "EPS").
func initialsBefore(text string, at int, acr string) bool {
	for skip := 0; skip < 2; skip++ {
		i := at
		ok := true
		for n := 0; n < skip+len(acr); n++ {
			for i > 0 && (text[i-1] == ' ' || text[i-1] == '$' || text[i-1] == '-') {
				i--
			}
			j := i
			for i > 0 && asciiLetter(text[i-1]) {
				i--
			}
			if i == j {
				ok = false
				break
			}
			if n < skip {
				if j-i > 4 {
					ok = false
					break
				}
				continue
			}
			if text[i]|0x20 != acr[len(acr)-1-(n-skip)]|0x20 {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// verbUse: the word ending at offset i of text is followed by a
// preposition or particle, so a verb ("paid for by a grant", "paid off"),
// not the adjective of a pair ("a paid inspection" against "free").
func verbUse(text string, i int) bool {
	j := i
	for j < len(text) && text[j] == ' ' {
		j++
	}
	k := j
	for k < len(text) && asciiLetter(text[k]) {
		k++
	}
	switch strings.ToLower(text[j:k]) {
	case "for", "by", "to", "off", "out", "back", "in", "on", "up", "with", "at", "from", "":
		return true
	}
	return false
}

// beforeStatedNumber: answer token t stands right before an answer number
// whose value the source states ("revenue increased 21%" where the source
// says "up 21%"): a change word with its number is read where the source
// states the number (directionFlip ran before, on every such pair), not
// against an opposite the source uses of something else ("customers
// reduced seats").
func (s *state) beforeStatedNumber(t *tok) bool {
	k := quantityAt(s.anums, t.end)
	if k == len(s.anums) || s.anums[k].span.Start-t.end > 2 {
		return false
	}
	return s.hasValue(&s.anums[k], &s.anear[k])
}

// pairGap bounds the bytes between two numbers read as a pair ("from
// $100,000 to $250,000", "$2.91, compared with $2.77").
const pairGap = 40

// pairStated: answer number i and its neighbour (the answer number right
// before or after it, at most pairGap bytes away) have their values in
// two neighbouring source numbers, in the same order and as close: the
// source states the pair. In number-dense text (an earnings call, a bill
// that strikes one amount and inserts another) a summary's words around a
// number are shared by the neighbouring figures, so betterElsewhere would
// take the answer's "EPS increased to $2.91 from $2.77 despite a cool,
// wet summer" for the source's "Weather reduced EPS by about $0.06, as a
// cool, wet summer ..."; an edit changes one number of a pair, and a
// value moved to another place rarely lands beside its old neighbour.
func (s *state) pairStated(i int) bool {
	return i > 0 && s.pairNear(i-1, i) || i+1 < len(s.anums) && s.pairNear(i, i+1)
}

// pairNear: answer numbers a and b (a before b) are at most pairGap bytes
// apart and two consecutive source numbers state them, in the same
// order, or in either order when they are of different kinds ("rose 8%
// to $1.64 billion" for "$1.64 billion, up 8%"): two amounts of one kind
// in the other order are a swap, which swappedWith judges.
func (s *state) pairNear(a, b int) bool {
	qa, qb := &s.anums[a], &s.anums[b]
	if qb.span.Start-qa.span.End > pairGap {
		return false
	}
	return s.pairAt(a, b) || qa.kind != qb.kind && s.pairAt(b, a)
}

// pairAt: some source number of answer number a's value is followed, at
// most pairGap bytes on, by a source number of b's value.
func (s *state) pairAt(a, b int) bool {
	qa, qb := &s.anums[a], &s.anums[b]
	ca, cb := s.compatSet(qa.kind), s.compatSet(qb.kind)
	in, next := s.anear[a].and(&ca), s.anear[b].and(&cb)
	// in shifted up by one: the source numbers right after one of a's value.
	var after nbits
	for w := range in {
		after[w] = in[w] << 1
		if w > 0 {
			after[w] |= in[w-1] >> 63
		}
	}
	hit := after.and(&next)
	for k := range hit.all {
		if s.snums[k].span.Start-s.snums[k-1].span.End <= pairGap {
			return true
		}
	}
	return false
}

// swappedWith returns the source number answer number i stands in for
// when it trades places with another answer number, each stated by the
// source (and so passed by betterElsewhere) but where the context puts
// the other's value (numberPlaces): "a 50% increase in productivity and a 35%
// reduction in lead times" against "a 35% increase in team productivity
// and a 50% reduction in project lead times". betterElsewhere leaves out
// the source numbers whose values the answer states elsewhere (an answer
// giving both "$499 reduced to $424.15" aligns each with its own), which
// hides a swap; a swap needs both sides. nil when there is none.
func (s *state) swappedWith(i int) *quantity {
	if s.swapTo[i] < 0 {
		return nil
	}
	q, to := &s.anums[i], &s.snums[s.swapTo[i]]
	for j := range s.anums {
		if j != i && s.swapTo[j] >= 0 && near(&s.anums[j], to.value, 0) && near(q, s.snums[s.swapTo[j]].value, 0) {
			return to
		}
	}
	return nil
}

// ordinal: the number ending at i is an ordinal in digits ("16th",
// "21st-century", "March 4th").
func ordinal(text string, i int) bool {
	if i+2 > len(text) || i+2 < len(text) && asciiLetter(text[i+2]) {
		return false
	}
	switch strings.ToLower(text[i : i+2]) {
	case "st", "nd", "rd", "th":
		return true
	}
	return false
}

// sourceOrdinal: the source states q's value as an ordinal too (near is
// closeSet(q)). An ordinal names a place in an order ("the 16th
// century"), not an amount: the context alignment of amounts
// (betterElsewhere) does not apply to it, "a 16th-century bronze head" is
// no "bronze head ... after 120 years" of a headline.
func (s *state) sourceOrdinal(q *quantity, near *nbits) bool {
	compat := s.compatSet(q.kind)
	in := near.and(&compat)
	for j := range in.all {
		if ordinal(s.source, s.snums[j].span.End) {
			return true
		}
	}
	return false
}

// hasValue: the source states the same quantity (rounding tolerated).
// near is closeSet(q).
func (s *state) hasValue(q *quantity, near *nbits) bool {
	compat := s.compatSet(q.kind)
	in := near.and(&compat)
	return !in.empty()
}

func compatible(a, b byte) bool {
	if a == b || a == 'n' || b == 'n' {
		return true
	}
	return a == 'y' && b == 'n' || a == 'n' && b == 'y'
}

// approxTol is 10% of v when the text before the number ends with an
// approximation word ("about 40", "nearly 2,000", "~5"), else 0.
func approxTol(before string, v float64) float64 {
	i := len(before)
	for i > 0 && (before[i-1] == ' ' || before[i-1] == '$') {
		i--
	}
	if i > 0 && before[i-1] == '~' {
		return 0.1 * math.Abs(v)
	}
	if i == 0 || !approxLast[before[i-1]|0x20] {
		return 0 // no approximation word ends so (most numbers)
	}
	j := i
	for j > 0 && i-j <= 13 && asciiLetter(before[j-1]) {
		j--
	}
	if n := i - j; n < 4 || n > 13 || j > 0 && isWordByte(before[j-1]) {
		return 0
	}
	var buf [13]byte
	for k := j; k < i; k++ {
		buf[k-j] = before[k] | 0x20
	}
	switch string(buf[:i-j]) {
	case "about", "around", "approximately", "approx", "roughly", "nearly", "almost", "some":
		return 0.1 * math.Abs(v)
	}
	return 0
}

// approxLast marks the last letters of approxTol's words, lower-case.
var approxLast = [256]bool{'t': true, 'd': true, 'y': true, 'x': true, 'e': true}

// near: the answer's number q and a source value v (of tolerance tol) are
// the same quantity within the rounding either spelling states.
func near(q *quantity, v, tol float64) bool {
	d := math.Abs(q.value - v)
	qtol := q.tol
	if q.kind == '$' && !q.hedged && qtol > 0 && pricePoint(v) {
		// A round amount for a price point ("$1000" for "$999", "$50"
		// for "$49.95") is a different price, not rounding, unless the
		// answer hedges ("about $50").
		qtol = 0
	}
	return d <= max(qtol, tol) || d <= 1e-9*math.Max(math.Abs(q.value), math.Abs(v))
}

// pricePoint: v is a precise amount, with cents or ending in 9 ("$49.95",
// "$999"), as prices are set.
func pricePoint(v float64) bool {
	c := math.Round(math.Abs(v) * 100)
	if c > 1e15 || math.Abs(math.Abs(v)*100-c) > 1e-6 {
		return false
	}
	cents := int64(c)
	return cents%100 != 0 || cents/100%10 == 9
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
// says "within 100 days" and mentions 50 elsewhere). Source numbers whose
// values the answer states too (claimed) do not count. It reads the scores
// of q (scores must have run for q); near is closeSet(q).
func (s *state) betterElsewhere(q *quantity, near, claimed *nbits) bool {
	better, _ := s.numberPlaces(q, near, claimed, false)
	return better
}

// numberPlaces returns betterElsewhere and, when that is false and swaps
// is set, the index of the source number whose context shares at least 3
// and 3 more words with q's than any source number of q's value does,
// among those whose values the answer states elsewhere (claimed), which
// betterElsewhere leaves out: where swappedWith looks for a trade (-1 when
// there is none).
func (s *state) numberPlaces(q *quantity, near, claimed *nbits, swaps bool) (better bool, place int32) {
	compat := s.compatSet(q.kind)
	diffSet := compat.andNot(near)
	same, _ := s.maxScore(compat.and(near))
	if diff, _ := s.maxScore(diffSet.andNot(claimed)); diff >= 3 && diff >= same+3 {
		return true, -1
	}
	if swaps {
		if diff, top := s.maxScore(diffSet.and(claimed)); diff >= 3 && diff >= same+3 {
			return false, int32(top.first())
		}
	}
	return false, -1
}

// maxScore returns the highest score among the numbers of set (0 when
// empty) and the numbers that have it: the score planes are searched from
// the top bit down, keeping the candidates that have each bit when any do.
func (s *state) maxScore(set nbits) (int, nbits) {
	score := 0
	for p := len(s.planes) - 1; p >= 0; p-- {
		t := set.and(&s.planes[p])
		if !t.empty() {
			set = t
			score |= 1 << p
		}
	}
	return score, set
}

// scores sets s.planes: per source number, in bit-sliced form (plane p holds
// bit p of the count), how many of q's distinct context words its context
// shares. A number has at most 13 context words (6 before and 7 after, see
// context), so the counts fit in the 4 planes. Each word's set of source numbers is built on first use.
func (s *state) scores(q *quantity) {
	if !s.npBuilt {
		s.npBuilt = true
		n := s.words.len()
		wordSet := growInt32(s.wordSet, n)
		wbits := s.wbits[:0]
		s.sbreak = sentenceBreaks(s.source, s.stoks, s.sbreak)
		from := 0
		for i := range s.snums {
			q := &s.snums[i]
			from = s.context(q, s.source, s.sbreak, s.stoks, from)
			for _, w := range s.ctx[q.c0:q.c1] {
				k := wordSet[w]
				if k == 0 {
					wbits = append(wbits, nbits{})
					k = int32(len(wbits))
					wordSet[w] = k
				}
				wbits[k-1].set(i)
			}
		}
		s.wordSet, s.wbits = wordSet, wbits
	}
	s.planes = [4]nbits{}
	ctx := s.ctx[q.c0:q.c1]
	for k, w := range ctx {
		if int(w) >= len(s.wordSet) || s.wordSet[w] == 0 || slices.Contains(ctx[:k], w) {
			continue
		}
		// Add the word's set to the bit-sliced counters (a ripple carry,
		// in registers, until nothing carries).
		set := &s.wbits[s.wordSet[w]-1]
		c0, c1, c2, c3 := set[0], set[1], set[2], set[3]
		for p := range s.planes {
			pl := &s.planes[p]
			n0, n1, n2, n3 := pl[0]&c0, pl[1]&c1, pl[2]&c2, pl[3]&c3
			pl[0], pl[1], pl[2], pl[3] = pl[0]^c0, pl[1]^c1, pl[2]^c2, pl[3]^c3
			c0, c1, c2, c3 = n0, n1, n2, n3
			if c0|c1|c2|c3 == 0 {
				break
			}
		}
	}
}

// align finds the source quantity the answer's number talks about: same
// kind, most shared context words (at least one), the first in source
// order, leaving out those whose value the answer states elsewhere
// (claimed). ambiguous when another candidate with a different value ties.
// It reads the scores of q.
func (s *state) align(q *quantity, claimed *nbits) (*quantity, bool) {
	set := s.alignSet(q.kind)
	score, top := s.maxScore(set.andNot(claimed))
	if score < 1 {
		return nil, false
	}
	bi := top.first()
	best := &s.snums[bi]
	top[bi>>6] &^= 1 << (bi & 63)
	for i := range top.all {
		if !closeTo(s.snums[i].value, best.value) {
			return best, true
		}
	}
	return best, false
}

// negWord: w (lower-case) is a negation word: a grammatical negation, or a
// verb that denies what follows it ("fails to", "refuses", "ignores the
// uncertainties", "lacks", "prevents", "hinders", "denies", "neglects").
// Not "decline", a noun as often ("the decline and fall of the empire"),
// nor words of more than eight letters (negations reads at most eight).
func negWord(w string) bool {
	switch w {
	case "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot",
		"fail", "fails", "failed", "refuse", "refused", "refuses",
		"ignore", "ignores", "ignored", "lack", "lacks", "lacked", "hinder", "hinders", "hindered",
		"prevent", "prevents", "deny", "denies", "denied", "neglect", "neglects":
		return true
	}
	return false
}

// negations counts negation words and "n't" contractions: words are runs
// of letters and apostrophes (’ included), lower-cased.
func negations(s string, buf []byte) (int, []byte) {
	return negationSpans(s, buf, nil)
}

// negationSpans is negations that also appends, when at is not nil, each
// counted negation word's [start, end) offsets in s (two entries each).
func negationSpans(s string, buf []byte, at *[]int32) (int, []byte) {
	n := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if wordLower[c] == 0 { // negWordRune on ASCII
				i++
				continue
			}
		} else if r, sz := utf8.DecodeRuneInString(s[i:]); !negWordRune(r) {
			i += sz
			continue
		}
		st, ascii := i, true
		for i < len(s) {
			if c := s[i]; c < utf8.RuneSelf {
				if wordLower[c] == 0 {
					break
				}
				i++
				continue
			}
			r, sz := utf8.DecodeRuneInString(s[i:])
			if !negWordRune(r) {
				break
			}
			ascii = false
			i += sz
		}
		if w := s[st:i]; ascii {
			// Lower-cased in place of the rune path: ASCII letters only.
			var low [8]byte
			if k := len(w); k <= len(low) && negFirst[w[0]|0x20] {
				for j := 0; j < k; j++ {
					low[j] = w[j] | 0x20
				}
				if negWord(string(low[:k])) && !numberNo(s, st, i) && !helpBut(s, i) && !boundNo(s, st, i) {
					n++
					if at != nil {
						*at = append(*at, int32(st), int32(i))
					}
					continue
				}
			}
			if k := len(w); k >= 3 && w[k-3]|0x20 == 'n' && w[k-2] == '\'' && w[k-1]|0x20 == 't' && !helpBut(s, i) {
				n++
				if at != nil {
					*at = append(*at, int32(st), int32(i))
				}
			}
			continue
		}
		buf = buf[:0]
		for _, r := range s[st:i] {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		}
		if (negWord(string(buf)) || strings.HasSuffix(string(buf), "n't") || strings.HasSuffix(string(buf), "n’t")) && !helpBut(s, i) {
			n++
			if at != nil {
				*at = append(*at, int32(st), int32(i))
			}
		}
	}
	return n, buf
}

// numberNo: the word s[st:en] is "no" for "number": before a number and
// after a determiner ("my no 1 fave", "the no 2 seed"), or as "No." ("No.
// 10"). Not "and no 24/7 support", a negation.
func numberNo(s string, st, en int) bool {
	if en-st != 2 || s[st]|0x20 != 'n' || s[st+1]|0x20 != 'o' {
		return false
	}
	dot := en < len(s) && s[en] == '.'
	next := strings.TrimLeft(s[en:], ". ")
	if next == "" || !isDigit(next[0]) {
		return false
	}
	if dot {
		return true
	}
	prev := strings.TrimRight(s[:st], " ")
	k := len(prev)
	for k > 0 && asciiLetter(prev[k-1]) {
		k--
	}
	switch strings.ToLower(prev[k:]) {
	case "the", "my", "your", "his", "her", "its", "our", "their":
		return true
	}
	return false
}

// boundNo: the word s[st:en] is "not" or "no" opening a bound ("not more
// than $50,000", "no later than 1 year", "not less than 1 gigabit", since
// stop 26 "not older than 66 years"): a limit on an amount, a date, an age
// or a size, which "up to $50,000", "within a year" or "aged 22 to 66"
// restates without a negation. Bills state most limits so.
func boundNo(s string, st, en int) bool {
	if w := s[st:en]; !strings.EqualFold(w, "not") && !strings.EqualFold(w, "no") {
		return false
	}
	r := s[en:]
	if len(r) < 2 || r[0] != ' ' {
		return false
	}
	r = r[1:]
	k := 0
	for k < len(r) && asciiLetter(r[k]) {
		k++
	}
	switch strings.ToLower(r[:k]) {
	case "more", "less", "fewer", "greater", "later", "earlier", "sooner", "older", "younger", "higher", "lower", "longer", "shorter", "larger", "smaller":
		return len(r) >= k+5 && strings.EqualFold(r[k:k+5], " than")
	}
	return false
}

// helpBut: s[i:] starts " help but": "I cannot help but notice" affirms.
func helpBut(s string, i int) bool {
	return len(s)-i >= 9 && strings.EqualFold(s[i:i+9], " help but")
}

// directOpposite returns the source's word (not its stem: "improves",
// not "improv") for a hand-written opposite of answer word w (token i)
// near a word both share (sharedNeighbour), at a source occurrence of the
// same polarity as the answer's (samePolarity); "" when there is none.
func (s *state) directOpposite(answer string, w []byte, i int) string {
	sw := stemBytes(w)
	if !pairForm(w, sw) || s.beforeStatedNumber(&s.atoks[i]) || string(w) == "paid" && verbUse(answer, s.atoks[i].end) {
		return ""
	}
	for _, ant := range antonyms(sw, fnvAdd(fnvOffset, sw)) {
		if !s.sharedNeighbour(i, []byte(ant)) {
			continue
		}
		aid := find(&s.words, ant, fnvAdd(fnvOffset, ant))
		neg := negatedBy(s.atoks, answer, i)
		k := s.polarTok(aid, neg)
		if k >= 0 && idiomUse(s.source, s.stoks[k].end, s.source[s.stoks[k].start:s.stoks[k].end]) {
			// The first one is a preposition or a date ("like yours",
			// "last month"): another of the same polarity may not be.
			k = -1
			for _, j := range s.sourceToks(aid) {
				st := &s.stoks[j]
				if negatedBy(s.stoks, s.source, int(j)) == neg && !idiomUse(s.source, st.end, s.source[st.start:st.end]) {
					k = int(j)
					break
				}
			}
		}
		if k >= 0 {
			st := &s.stoks[k]
			return s.source[st.start:st.end]
		}
	}
	return ""
}

// negFirst marks the first letters of negWord's words.
var negFirst = [256]bool{'n': true, 'w': true, 'c': true, 'f': true, 'r': true, 'i': true, 'l': true, 'h': true, 'p': true, 'd': true}

func negWordRune(r rune) bool { return unicode.IsLetter(r) || r == '\'' || r == '’' }

// antonymWords holds the stems of the antonym pairs as a words table, for
// lookups without a map; antonymLists their antonyms by id, and
// antonymPairWords the words of the pairs whose stem it is ("evening" for
// "even").
var antonymWords, antonymLists, antonymPairWords = func() (*words, [][]string, [][]string) {
	pairs := [][2]string{{"increase", "decrease"}, {"rise", "fall"}, {"higher", "lower"}, {"more", "less"}, {"gain", "loss"},
		{"accept", "reject"}, {"approve", "deny"}, {"approved", "denied"}, {"approve", "reject"}, {"approved", "rejected"}, {"before", "after"}, {"early", "late"}, {"earlier", "later"},
		{"open", "close"}, {"win", "lose"}, {"won", "lost"}, {"true", "false"}, {"agree", "disagree"}, {"allow", "forbid"},
		{"buy", "sell"}, {"bought", "sold"}, {"start", "end"}, {"above", "below"}, {"maximum", "minimum"}, {"positive", "negative"},
		{"success", "failure"}, {"succeed", "fail"}, {"like", "dislike"}, {"love", "hate"}, {"include", "exclude"}, {"always", "never"},
		{"up", "down"}, {"strong", "weak"}, {"large", "small"}, {"big", "small"}, {"long", "short"}, {"first", "last"},
		{"easy", "difficult"}, {"cheap", "expensive"}, {"safe", "dangerous"}, {"happy", "sad"}, {"good", "bad"}, {"best", "worst"},
		{"confirm", "cancel"}, {"arrive", "leave"}, {"add", "remove"}, {"improve", "worsen"}, {"profit", "loss"},
		{"hot", "cold"}, {"warm", "cool"}, {"wet", "dry"}, {"rich", "poor"}, {"full", "empty"}, {"fast", "slow"}, {"faster", "slower"},
		{"high", "low"}, {"old", "new"}, {"old", "young"}, {"easy", "hard"}, {"simple", "complex"}, {"simple", "complicated"},
		{"present", "absent"}, {"same", "different"}, {"similar", "different"}, {"strength", "weakness"}, {"advantage", "disadvantage"},
		{"accept", "decline"}, {"accept", "refuse"}, {"agree", "refuse"}, {"agree", "decline"}, {"remember", "forget"}, {"arrive", "depart"},
		{"send", "receive"}, {"begin", "end"}, {"begin", "finish"}, {"start", "finish"}, {"inside", "outside"}, {"more", "fewer"},
		{"most", "least"}, {"many", "few"}, {"better", "worse"}, {"friend", "enemy"}, {"friends", "enemies"}, {"alive", "dead"},
		{"everyone", "nobody"}, {"everything", "nothing"}, {"morning", "evening"}, {"day", "night"}, {"today", "tomorrow"},
		{"yesterday", "tomorrow"}, {"public", "private"}, {"online", "offline"}, {"internal", "external"}, {"global", "local"},
		{"wide", "narrow"}, {"thick", "thin"}, {"deep", "shallow"}, {"tall", "short"}, {"upper", "lower"}, {"north", "south"}, {"east", "west"},
		{"larger", "smaller"}, {"supervised", "unsupervised"}, {"linear", "nonlinear"}, {"known", "unknown"}, {"explicit", "implicit"},
		{"static", "dynamic"}, {"discrete", "continuous"}, {"dense", "sparse"}, {"stable", "unstable"}, {"outperform", "underperform"},
		{"improve", "degrade"}, {"real", "synthetic"}, {"extend", "shorten"}, {"expand", "shrink"}, {"boost", "worsen"}, {"increase", "reduce"}, {"raise", "cut"}, {"good", "poor"}, {"free", "paid"}, {"love", "dislike"}, {"like", "hate"}, {"collaboration", "competition"}, {"cooperate", "compete"}, {"collaborate", "compete"}, {"cooperative", "competitive"}}
	d := &words{}
	var lists [][]string
	id := func(w string) int32 {
		i := d.intern([]byte(w), fnvAdd(fnvOffset, w))
		if int(i) == len(lists) {
			lists = append(lists, nil)
		}
		return i
	}
	for _, p := range pairs {
		for _, a := range stemForms(p[0]) {
			for _, b := range stemForms(p[1]) {
				ia, ib := id(a), id(b)
				if !slices.Contains(lists[ia], b) {
					lists[ia], lists[ib] = append(lists[ia], b), append(lists[ib], a)
				}
			}
		}
	}
	pairWords := make([][]string, len(lists))
	for _, p := range pairs {
		for _, w := range p {
			for _, st := range stemForms(w) {
				if i := find(d, st, fnvAdd(fnvOffset, st)); !slices.Contains(pairWords[i], w) {
					pairWords[i] = append(pairWords[i], w)
				}
			}
		}
	}
	return d, lists, pairWords
}()

// pairForm: the lower-case answer word w (stem sw, one of antonymWords) is
// a form of a pair word of that stem, not another word the stemmer cut
// to it: "evenings" is a form of "evening", the adverb "even" is not.
func pairForm(w, sw []byte) bool {
	l := lex()
	if l == nil {
		return true
	}
	i := find(antonymWords, sw, fnvAdd(fnvOffset, sw))
	if i < 0 {
		return false
	}
	words := antonymPairWords[i]
	var buf [8]int32
	bases := l.baseForms(w, buf[:0])
	for _, p := range words {
		if p == string(w) {
			return true
		}
		if id := l.lemmas.find([]byte(p)); id >= 0 && containsID(bases, id) {
			return true
		}
	}
	return false
}

// stemForms returns the stems of the forms of the base word w: a base in
// "-e" stems apart from its inflections ("improve"; "improves",
// "improved", "improving": "improv").
func stemForms(w string) []string {
	a := stem(w)
	if b := string(stemBytes([]byte(w + "s"))); b != a {
		return []string{a, b}
	}
	return []string{a}
}

// antonyms returns the antonyms of the stem w, whose hash is h.
func antonyms(w []byte, h uint32) []string {
	if id := find(antonymWords, w, h); id >= 0 {
		return antonymLists[id]
	}
	return nil
}

// shortStatement bounds the distinct words of a source sentence a two-word
// answer sentence is compared with.
const shortStatement = 3

// contradiction aligns each answer sentence with its most similar source
// sentence; a different number of negations, or an antonym of a source word
// the answer uses instead, is a contradiction.
func (s *state) contradiction(answer, source string) (Evidence, bool) {
	built := false
	s.aspans = sentences(answer, s.aspans[:0])
	aspans := s.aspans
	k := 0
	for _, sp := range aspans {
		// The answer sentence's words: its tokens (they never cross a
		// sentence end), at least 3 of them, and their distinct ids.
		k0 := k
		for k < len(s.atoks) && s.atoks[k].start < sp.End {
			k++
		}
		aw := s.atoks[k0:k]
		// A two-word statement ("The refund is not approved.") is judged
		// only against a source sentence that is the same short statement
		// (all its words, at most shortStatement of them): aligned with a
		// longer sentence, two words say too little.
		short := len(aw) == 2
		if len(aw) < 2 {
			continue
		}
		if !built {
			built = true
			s.sourceSentences(source)
			s.counts = growInt32(s.counts, len(s.sents))
			s.mark = growMarks(s.mark, s.words.len())
		}
		best, bestSim := s.alignSentence(aw)
		if short && (best == nil || bestSim < 1 || best.w1-best.w0 > shortStatement) {
			continue
		}
		if best == nil || bestSim < 0.6 {
			// A clause that negates ("..., but their plans don't offer a
			// trial") aligned with a source sentence without negation:
			// answer sentences join source sentences, their clauses less.
			if e, ok := s.clauseNegation(answer, source, sp, aw); ok {
				return e, true
			}
			continue
		}
		srcText := source[best.span.Start:best.span.End]
		if best.neg < 0 {
			best.neg, s.buf = negations(srcText, s.buf)
		}
		var an int
		if an, s.buf = negations(answer[sp.Start:sp.End], s.buf); (an > 0) != (best.neg > 0) && !(an > 0 && s.negationElsewhereOrStated(answer, sp.Start, sp.End)) &&
			(an > 0 || s.negationShared(best)) {
			return Evidence{AnswerSpan: sp, AnswerText: answer[sp.Start:sp.End], SourceSpan: &scan.Span{Start: best.span.Start, End: best.span.End},
				SourceText: srcText, Reason: "the answer negates what the source states (or the reverse)"}, true
		}
		for _, w := range s.set {
			word := s.words.word(w)
			for _, ant := range antonyms(word, s.words.hash[w]) {
				if aid := find(&s.words, ant, fnvAdd(fnvOffset, ant)); aid >= 0 && s.sentHas(best, aid) && !s.sentHas(best, w) {
					return Evidence{AnswerSpan: sp, AnswerText: answer[sp.Start:sp.End], SourceSpan: &scan.Span{Start: best.span.Start, End: best.span.End},
						SourceText: srcText, Reason: fmt.Sprintf("the answer says %q where the source says %q", string(word), ant)}, true
				}
			}
		}
		if an > 0 {
			if e, ok := s.clauseNegation(answer, source, sp, aw); ok {
				return e, true
			}
		}
	}
	return Evidence{}, false
}

// negationElsewhereOrStated: in a chat negationStated, in prose
// negationElsewhere.
func (s *state) negationElsewhereOrStated(answer string, c0, c1 int) bool {
	if s.chat {
		return s.negationStated(answer, c0, c1)
	}
	return s.negationElsewhere(answer, c0, c1)
}

// maxScopedNegations bounds the negations of one source sentence whose
// scope negationShared reads; past it the sentence's negation counts as
// before (shared), so each call stays bounded whatever the sentence.
const maxScopedNegations = 8

// negationShared: a negation of source sentence st bears on the answer
// sentence whose words alignSentence marked (s.stamp): one of the content
// words it negates, up to negScopeWords after it in its clause (the two
// before it when none follows: "those who did not"), is one of the answer
// sentence's. A sentence aligned by its other clause ("We'll review the
// numbers after six weeks and move money if the webinars don't perform")
// puts no negation on what the answer takes from it.
func (s *state) negationShared(st *sentence) bool {
	if st.a0 < 0 {
		// The sentence's negations, read once per Check.
		at := s.negAt
		st.a0 = int32(len(at))
		_, s.buf = negationSpans(s.source[st.span.Start:st.span.End], s.buf, &at)
		s.negAt, st.a1 = at, int32(len(at))
	}
	if st.a1-st.a0 > 2*maxScopedNegations {
		return true
	}
	for k := st.a0; k < st.a1; k += 2 {
		n0, n1 := int(s.negAt[k])+st.span.Start, int(s.negAt[k+1])+st.span.Start
		c0, c1 := negClause(s.source, st.span.Start, st.span.End, n0, n1)
		i := tokAt(s.stoks, n1)
		seen := 0
		for j := i; j < len(s.stoks) && s.stoks[j].start < c1 && seen < negScopeWords; j++ {
			if s.mark[s.stoks[j].id] == s.stamp {
				return true
			}
			seen++
		}
		if seen == 0 {
			for j := i - 1; j >= 0 && s.stoks[j].start >= c0 && seen < 2; j-- {
				if s.stoks[j].start >= n0 {
					continue // the negation itself ("nothing")
				}
				if s.mark[s.stoks[j].id] == s.stamp {
					return true
				}
				seen++
			}
		}
	}
	return false
}

// negScopeWords: the content words after a negation that it negates.
const negScopeWords = 3

// clauseWindow bounds the bytes negClause reads either side.
const clauseWindow = 256

// negClause returns the clause of source holding the word [n0, n1)
// within the sentence [lo, hi), split as clauseEnd splits, at most
// clauseWindow bytes either side of the word.
func negClause(source string, lo, hi, n0, n1 int) (int, int) {
	c0 := n0
	for c0 > lo && n0-c0 < clauseWindow {
		c := source[c0-1]
		if c == ',' || c == ';' || c == ':' {
			break
		}
		if c == ' ' && clauseEnd(source[c0-1:min(hi, c0+9)], 0) == 1 {
			break // "but", "while", "whereas", "although" start the clause
		}
		c0--
	}
	end := min(hi, n1+clauseWindow)
	return c0, n1 + clauseEnd(source[n1:end], 0)
}

// alignSentence returns the source sentence sharing the most distinct
// words with the answer tokens aw (the first on ties) and the share of
// aw's distinct words it has; s.set holds those words afterwards.
func (s *state) alignSentence(aw []tok) (*sentence, float64) {
	s.stamp++
	set := s.set[:0]
	for _, t := range aw {
		if s.mark[t.id] != s.stamp {
			s.mark[t.id] = s.stamp
			set = append(set, t.id)
		}
	}
	s.set = set
	// Counts compare as their shares do: all share the divisor len(set).
	bestCount, bestID := int32(0), int32(-1)
	postings := 0
	for _, w := range set {
		postings += len(s.postings(w))
	}
	if counts := s.counts[:len(s.sents)]; postings >= len(counts) {
		// Most sentences get a count: count them all, then scan them in
		// order (the first wins ties).
		for _, w := range set {
			for _, id := range s.postings(w) {
				counts[id]++
			}
		}
		for id, c := range counts {
			if c > bestCount {
				bestCount, bestID = c, int32(id)
			}
		}
		clear(counts)
	} else {
		touched := s.touched[:0]
		for _, w := range set {
			for _, id := range s.postings(w) {
				if counts[id] == 0 {
					touched = append(touched, id)
				}
				counts[id]++
			}
		}
		s.touched = touched
		for _, id := range touched {
			c := counts[id]
			counts[id] = 0
			if c > bestCount || c == bestCount && id < bestID {
				bestCount, bestID = c, id
			}
		}
	}
	if bestID < 0 {
		return nil, 0
	}
	return &s.sents[bestID], float64(bestCount) / float64(len(set))
}

// clauseNegation: a clause of the answer sentence sp (split at , ; : and
// "but", "while", "whereas", "although") negates, and the source sentence
// sharing the most of its words (at least 3 words, 40% of them) has no
// negation. "without" and "no-" compounds ("a no-cost consultation") do
// not count here. aw are the sentence's tokens.
func (s *state) clauseNegation(answer, source string, sp scan.Span, aw []tok) (Evidence, bool) {
	text := answer[sp.Start:sp.End]
	k := 0
	for c0 := 0; c0 < len(text); {
		c1 := clauseEnd(text, c0)
		if clauseNegated(text[c0:c1], s.chat) {
			st, en := sp.Start+c0, sp.Start+c1
			for k < len(aw) && aw[k].start < st {
				k++
			}
			k1 := k
			for k1 < len(aw) && aw[k1].start < en {
				k1++
			}
			// Two shared words at least in prose: one word in common
			// ("provide") is no statement in common.
			minWords, minSim, minShared := 3, proseClauseSim, 2
			if s.chat {
				// A chat turn is short: a clause of the summary shares
				// fewer words with the one turn it reports.
				minWords, minSim, minShared = 2, chatClauseSim, 1
			}
			if k1-k >= minWords {
				best, sim := s.alignSentence(aw[k:k1])
				shared := int(math.Round(sim * float64(len(s.set))))
				if best != nil && len(s.set) >= minWords && sim >= minSim && shared >= minShared {
					srcText := source[best.span.Start:best.span.End]
					if best.neg < 0 {
						best.neg, s.buf = negations(srcText, s.buf)
					}
					if best.neg == 0 && !s.negationElsewhereOrStated(answer, st, en) {
						s.weak = sim < 0.4
						cs := trimSpan(answer, st, en)
						return Evidence{AnswerSpan: cs, AnswerText: answer[cs.Start:cs.End], SourceSpan: &scan.Span{Start: best.span.Start, End: best.span.End},
							SourceText: srcText, Reason: "the answer negates what the source states"}, true
					}
				}
			}
		}
		c0 = c1
	}
	return Evidence{}, false
}

// clauseEnd returns the end of the clause of text starting at i: the next
// , ; : or the word "but", "while", "whereas", "although".
func clauseEnd(text string, i int) int {
	for j := i + 1; j < len(text); j++ {
		switch c := text[j]; c {
		case ',', ';', ':':
			return j + 1
		case ' ':
			// The connectives start with b, w or a: most words are ruled
			// out by their first byte.
			r := text[j+1:]
			if r == "" || r[0] != 'b' && r[0] != 'w' && r[0] != 'a' {
				continue
			}
			for _, w := range [...]string{"but ", "while ", "whereas ", "although "} {
				if strings.HasPrefix(r, w) {
					return j + 1
				}
			}
		}
	}
	return len(text)
}

// clauseNegated: text has a negation word or "n't" other than "without"
// and a "no-" compound; grammatical only: "not", "never", "no"... but not
// the verbs "fail" and "refuse", by which a summary of a chat reports a
// "no" in it.
func clauseNegated(text string, grammatical bool) bool {
	for i := 0; i < len(text); {
		if !asciiLetter(text[i]) && text[i] != '\'' {
			i++
			continue
		}
		j := i
		for j < len(text) && (asciiLetter(text[j]) || text[j] == '\'') {
			j++
		}
		w := text[i:j]
		if (i == 0 || text[i-1] < utf8.RuneSelf) && (j == len(text) || text[j] != '-') {
			var buf [8]byte
			if len(w) <= len(buf) {
				for k := 0; k < len(w); k++ {
					buf[k] = w[k] | 0x20
				}
				if l := string(buf[:len(w)]); l != "without" && negWord(l) && !(grammatical && negVerb(l)) && !numberNo(text, i, j) && !helpBut(text, j) && !boundNo(text, i, j) {
					return true
				}
			}
			if len(w) > 3 && w[len(w)-3]|0x20 == 'n' && w[len(w)-2] == '\'' && w[len(w)-1]|0x20 == 't' && !helpBut(text, j) {
				return true
			}
		}
		i = j
	}
	return false
}

// negVerb: a negation word that is a verb ("fail", "refused", "ignores"):
// a chat summary reports a "no" with such verbs, so in chats only
// grammatical negation counts (clauseNegated).
func negVerb(w string) bool {
	for _, p := range [...]string{"fail", "refuse", "ignore", "lack", "hinder", "prevent", "deny", "deni", "neglect"} {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// negPrefixes turn a word into its opposite ("unlimited", "inefficient").
var negPrefixes = [...]string{"un", "in", "im", "il", "ir", "dis", "non"}

// calendarSets: weekdays, months, and weekdays against weekends (stop 25:
// "open until 9 p.m. on weekends" where the source says "on weekdays");
// "may" is a verb too often.
var calendarSets = [...][]string{
	strings.Fields("monday tuesday wednesday thursday friday saturday sunday"),
	strings.Fields("january february march april june july august september october november december"),
	strings.Fields("weekday weekdays weekend weekends"),
}

// calendarMonths is the index of the months in calendarSets.
const calendarMonths = 1

// calendarOther returns the first word of calendar set k the source has,
// "" when it has none.
func (s *state) calendarOther(k int) string {
	for _, c := range calendarSets[k] {
		if s.sourceHas([]byte(c)) {
			return c
		}
	}
	return ""
}

// monthMay: the answer's "May" inside a sentence ("return in May"), a
// month (a stop word, so lexicalContradiction never sees it), where the
// source names other months and never "May" inside a sentence.
func (s *state) monthMay(answer string) (Evidence, bool) {
	at := capitalMay(answer)
	if at < 0 || capitalMay(s.source) >= 0 {
		return Evidence{}, false
	}
	if other := s.calendarOther(calendarMonths); other != "" {
		return wordSaysEvidence(answer, at, at+3, other), true
	}
	return Evidence{}, false
}

// capitalMay returns the offset of the first whole word "May" of text that
// does not open a sentence, -1 when there is none.
func capitalMay(text string) int {
	for i := 0; ; i++ {
		k := strings.Index(text[i:], "May")
		if k < 0 {
			return -1
		}
		i += k
		if (i == 0 || !isWordByte(text[i-1])) && (i+3 == len(text) || !isWordByte(text[i+3])) && !sentenceStart(text, i) {
			return i
		}
	}
}

// calendarSetOf maps each word of calendarSets to its set: one lookup per
// word the source lacks.
var calendarSetOf = func() map[string]int {
	m := map[string]int{}
	for k, set := range calendarSets {
		for _, w := range set {
			m[w] = k
		}
	}
	return m
}()

// lexicalContradiction looks at the answer words the source lacks (run
// after unsupported marked them): one that is the opposite of a source
// word by a negative prefix ("unlimited" / "limited", "incompatible" /
// "compatible") or by the antonym list, or a weekday or month where the
// source names only others ("Sunday" where the source says "Saturday").
func (s *state) lexicalContradiction(answer string) (Evidence, bool) {
	var buf [32]byte
	s.lex.grow(s.words.len())
	for i := range s.atoks {
		t := &s.atoks[i]
		if !t.absent || t.end-t.start > len(buf) {
			continue
		}
		w := buf[:0]
		for k := t.start; k < t.end; k++ {
			if c := answer[k]; c < utf8.RuneSelf && c != '\'' {
				w = append(w, c|0x20)
			} else {
				w = nil
				break
			}
		}
		if len(w) < 3 {
			continue
		}
		other := ""
		if len(w) == 3 {
			// Three letters: only "cut" against "raise" ("cut its
			// guidance" for "raising our guidance"); the other short pair
			// words are adjectives a summary uses freely ("old pipes" in
			// a source of "new" plants), prefixes and kinds misread them.
			if string(w) == "cut" {
				other = s.directOpposite(answer, w, i)
			}
		} else {
			other = s.longWordOpposite(answer, w, i)
		}
		if other != "" {
			return wordSaysEvidence(answer, t.start, t.end, other), true
		}
	}
	return Evidence{}, false
}

// longWordOpposite is lexicalContradiction's reading of an answer word w
// (lowered, four letters or more) at token i: an opposite by a negative
// prefix, by the antonym list, of another kind, or another day or month.
func (s *state) longWordOpposite(answer string, w []byte, i int) string {
	t := &s.atoks[i]
	other := ""
	// prefixOpposite reads WordNet: once per word.
	pref := s.lex.prefSeen[t.id] != s.lex.stamp
	if pref {
		s.lex.prefSeen[t.id], s.lex.prefMiss[t.id] = s.lex.stamp, 0
	}
	if m := s.lex.prefMiss[t.id] - 1; m < 0 || !sameLower(answer, &s.atoks[m], w) {
		if other = s.prefixedOpposite(w, pref); other == "" {
			s.lex.prefMiss[t.id] = int32(i) + 1
		} else if !s.prefixPolar(answer, i, other) {
			other = ""
		}
	}
	if other == "" {
		other = s.directOpposite(answer, w, i)
	}
	if other == "" {
		other = s.kindSwap(w, i)
	}
	if k, ok := calendarSetOf[string(w)]; other == "" && ok {
		other = s.calendarOther(k)
	}
	return other
}

// wordSaysEvidence is the evidence of an answer word (answer[start:end])
// where the source says other.
func wordSaysEvidence(answer string, start, end int, other string) Evidence {
	return Evidence{AnswerSpan: scan.Span{Start: start, End: end}, AnswerText: answer[start:end],
		Reason: fmt.Sprintf("the answer says %q where the source says %q", answer[start:end], other)}
}

// prefixedOpposite returns the source's word for an opposite of the
// lower-case answer word w by a negative prefix, "" when there is none:
// w without the prefix ("unlimited" / "limited"), w with it, or (pref: w's
// first sight in the Check) the WordNet antonym a prefix makes.
func (s *state) prefixedOpposite(w []byte, pref bool) string {
	for _, p := range negPrefixes {
		if len(w)-len(p) >= 4 && string(w[:len(p)]) == p && s.sourceHas(w[len(p):]) {
			return string(w[len(p):])
		}
		if s.sourceHasConcat(p, w) {
			return p + string(w)
		}
		// "incorrect" where the source says "correctness".
		if !pref {
			continue
		}
		if d, ok := s.prefixOpposite(w, p); ok {
			return d
		}
	}
	return ""
}

// prefixPolar: the source word other, the answer token i's opposite by a
// negative prefix, stands somewhere under the answer word's polarity:
// "unhurt" restates "no one was hurt".
func (s *state) prefixPolar(answer string, i int, other string) bool {
	sw := stemBytes([]byte(other))
	id := find(&s.words, sw, fnvAdd(fnvOffset, sw))
	return !s.vocab(id) || s.polarTok(id, negatedBy(s.atoks, answer, i)) >= 0
}

// sameLower: token t of answer, lower-cased, is the lower-case ASCII word
// w.
func sameLower(answer string, t *tok, w []byte) bool {
	if t.end-t.start != len(w) {
		return false
	}
	for k, c := range w {
		if answer[t.start+k]|0x20 != c {
			return false
		}
	}
	return true
}

// nbrWindow is how near, in content words, the antonym checks look for a
// word the answer and the source share around the two opposites. A
// summary reorders what it reports ("the west station" against "Which
// station do you want to depart from - main or east?"), so two missed
// such pairs; four was chosen on the even documents (docs/governance.md,
// Quality, stop 19).
const nbrWindow = 4

// sharedNeighbour: the source has the stem ant near (within nbrWindow
// content words of) a word that is near answer token i: "lower costs"
// against "higher costs", not against "higher productivity".
func (s *state) sharedNeighbour(i int, ant []byte) bool {
	aid := find(&s.words, ant, fnvAdd(fnvOffset, ant))
	if !s.vocab(aid) {
		return false
	}
	near := s.neighboursOf(aid)
	for _, an := range s.atoks[max(0, i-nbrWindow):min(len(s.atoks), i+nbrWindow+1)] {
		if an.id != aid && an.id != s.atoks[i].id {
			if _, ok := slices.BinarySearch(near, an.id); ok {
				return true
			}
		}
	}
	return false
}

// sourceToks returns the indexes of the source tokens of word id, in order,
// from an index of all source tokens by word made on first use in a Check
// (so that looking a word up for each answer token is not a pass over the
// source each time: quadratic on long texts).
func (s *state) sourceToks(id int32) []int32 {
	return s.srcByWord.of(s.stoks, s.words.len(), id)
}

// tokenIndex lists the tokens of each word id in text order: a counting
// sort of a Check's tokens by word, built on the first lookup (ok false
// until then; the Check resets it). Word id k's tokens are
// byID[start[k]:start[k+1]]; next is scratch.
type tokenIndex struct {
	start, byID, next []int32
	ok                bool
}

// of returns the indexes into toks of word id's tokens; nwords is the
// number of word ids of the Check.
func (x *tokenIndex) of(toks []tok, nwords int, id int32) []int32 {
	if !x.ok {
		x.start = slices.Grow(x.start[:0], nwords+1)[:nwords+1]
		clear(x.start)
		for _, t := range toks {
			x.start[t.id+1]++
		}
		for k := 1; k <= nwords; k++ {
			x.start[k] += x.start[k-1]
		}
		x.byID = slices.Grow(x.byID[:0], len(toks))[:len(toks)]
		x.next = slices.Grow(x.next[:0], nwords)[:nwords]
		copy(x.next, x.start[:nwords])
		for k, t := range toks {
			x.byID[x.next[t.id]] = int32(k)
			x.next[t.id]++
		}
		x.ok = true
	}
	if id < 0 || int(id)+1 >= len(x.start) {
		return nil
	}
	return x.byID[x.start[id]:x.start[id+1]]
}

// neighboursOf returns the sorted ids of the source words within
// nbrWindow content words of an occurrence of word id, id itself left out;
// made once per word and Check.
func (s *state) neighboursOf(id int32) []int32 {
	if s.nbr == nil {
		s.nbr = map[int32][2]int32{}
	}
	if r, ok := s.nbr[id]; ok {
		return s.nbrIDs[r[0]:r[1]]
	}
	start := len(s.nbrIDs)
	for _, k := range s.sourceToks(id) {
		for _, sn := range s.stoks[max(0, int(k)-nbrWindow):min(len(s.stoks), int(k)+nbrWindow+1)] {
			if sn.id != id {
				s.nbrIDs = append(s.nbrIDs, sn.id)
			}
		}
	}
	near := s.nbrIDs[start:]
	slices.Sort(near)
	near = slices.Compact(near)
	s.nbrIDs = s.nbrIDs[:start+len(near)]
	s.nbr[id] = [2]int32{int32(start), int32(len(s.nbrIDs))}
	return near
}

// sourceHas: the source has the lower-case word w (or its stem).
func (s *state) sourceHas(w []byte) bool {
	sw := stemBytes(w)
	return s.vocab(find(&s.words, sw, fnvAdd(fnvOffset, sw)))
}

// sourceHasConcat: sourceHas(p + w), in a stack buffer.
func (s *state) sourceHasConcat(p string, w []byte) bool {
	var buf [40]byte
	if len(p)+len(w) > len(buf) {
		return false
	}
	return s.sourceHas(append(append(buf[:0], p...), w...))
}

// unsupported returns the weighted share of answer content words absent
// from the source and the number of content words, and marks the missing
// tokens; the third value counts them.
func (s *state) unsupported(answer string, shortWords int) (float64, int, int, int) {
	total, miss, count, nmiss, nabsent := 0.0, 0.0, 0, 0, 0
	l := lex()
	// The relations that support a word: a short answer should come from
	// the source nearly word for word, so only another form of a source
	// word; a long one (a summary) paraphrases.
	level := lexHypernym
	if len(s.atoks) <= shortWords {
		level = lexInflection
	}
	for i := range s.atoks {
		t := &s.atoks[i]
		count++
		weight := 1.0
		if t.upper {
			weight = 2 // names carry the facts
		}
		total += weight
		if !s.vocab(t.id) && !s.vocab(t.full) && !s.pluralIn(t.id) && !slices.Contains(s.unitWords, t.start) {
			t.absent = true
			nabsent++
			// By meaning: names (capitalised inside a sentence) carry
			// the facts, so only other words.
			if l != nil && (!t.upper || sentenceStart(answer, t.start)) {
				if lv := s.lexSupported(l, answer, t); lv != lexNone && lv <= level {
					continue
				}
			}
			miss += weight
			t.missing = true
			nmiss++
		}
	}
	if total == 0 {
		return 0, 0, 0, 0
	}
	return miss / total, count, nmiss, nabsent
}

// pluralIn: the source has the word of id with an "s" more or less (short
// words are not stemmed: "CNN", "CNNs").
func (s *state) pluralIn(id int32) bool {
	w := s.words.word(id)
	if len(w) < 2 {
		return false
	}
	if w[len(w)-1] == 's' {
		v := w[:len(w)-1]
		return s.vocab(find(&s.words, v, fnvAdd(fnvOffset, v)))
	}
	s.buf = append(append(s.buf[:0], w...), 's')
	return s.vocab(find(&s.words, s.buf, fnvAdd(fnvOffset, s.buf)))
}

// ChatNegationConfidence is the confidence of a contradiction resting on a
// negated summary clause whose best chat turn (sharing at least
// chatClauseSim of its words) has no negation: above the default
// min_confidence (0.5), under the 0.75 of a sentence-level contradiction.
const ChatNegationConfidence = 0.6

// proseClauseSim is the least share of a negated answer clause's words
// (of at least three) the source sentence it is aligned with must have,
// when the source is no chat: an answer sentence joins several source
// sentences, so one clause of it shares few words with any. 0.4 until stop
// 20; 0.3 was chosen on the even SummEdits documents (one more
// inconsistent summary found, no consistent one; 0.2 flagged two). Under
// 0.4 the finding is as weak as a chat clause's (ChatNegationConfidence).
const proseClauseSim = 0.3

// chatClauseSim is the least share of a negated clause's words the chat
// turn it is aligned with must have.
const chatClauseSim = 0.2

// NameOnlyConfidence is the confidence of an unsupported finding that
// rests only on capitalised words the source lacks.
const NameOnlyConfidence = 0.45

// missingNames counts the capitalised answer words, not opening a
// sentence, that the source lacks: names the answer brings in.
func (s *state) missingNames(answer string) int {
	n := 0
	for i := range s.atoks {
		t := &s.atoks[i]
		if !t.upper || !t.missing {
			continue
		}
		if sentenceStart(answer, t.start) {
			continue
		}
		if w := answer[t.start:t.end]; calendarWords[strings.ToLower(w)] || s.knownAcronym(w) {
			continue
		}
		t.name = true
		n++
	}
	return n
}

// sentenceStart: the word at i opens a sentence (or follows a closing
// bracket, a colon or a quote), so its capital says nothing.
func sentenceStart(text string, i int) bool {
	for i > 0 && text[i-1] == ' ' {
		i--
	}
	return i == 0 || strings.IndexByte(".!?\n):\"'", text[i-1]) >= 0
}

// negativeWords is VADER's list of strongly negative words (see the
// file's header for its origin, licence and threshold).
//
//go:embed negative_words.txt
var negativeWords string

// negativeJudgements holds the stems of negativeWords. A summary
// paraphrases, but it rarely passes a strongly negative judgement its
// source does not pass ("they are enemies", "a disastrous launch").
var negativeJudgements = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(negativeWords, "\n") {
		if l != "" && l[0] != '#' {
			m[stem(l)] = true
		}
	}
	return m
}()

// newJudgement returns the first answer word the source lacks that is a
// negative judgement. In a summary of a chat a negative verb ("fails to
// work") reports a "no" or a "doesn't", as the chat negation checks read
// it: no judgement there.
func (s *state) newJudgement() (tok, bool) {
	for _, t := range s.atoks {
		if t.missing && negativeJudgements[string(s.words.word(t.id))] && !(s.chat && negVerb(string(s.words.word(t.id)))) {
			return t, true
		}
	}
	return tok{}, false
}

// calendarWords are capitalised but name dates a summary may infer
// ("on Friday" for "tomorrow").
var calendarWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december christmas easter`) {
		m[w] = true
	}
	return m
}()

// maxAcronyms bounds the distinct answer words read as acronyms per Check:
// each reads the source's words, so an answer of many distinct capitalised
// words stays linear; past the bound a word counts as a new name.
const maxAcronyms = 16

type acronymSeen struct {
	w  string
	ok bool
}

// knownAcronym: acronymOf(w) for answer word w, once per word.
func (s *state) knownAcronym(w string) bool {
	for _, a := range s.acronyms {
		if a.w == w {
			return a.ok
		}
	}
	if len(s.acronyms) == maxAcronyms {
		return false
	}
	ok := s.acronymOf(w)
	s.acronyms = append(s.acronyms, acronymSeen{w, ok})
	return ok
}

// acronymOf: w is an acronym ("CNN", "GANs") of consecutive source words
// ("convolutional neural network").
func (s *state) acronymOf(w string) bool {
	w = strings.TrimSuffix(w, "s")
	if len(w) < 2 || len(w) > 8 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			return false
		}
	}
	src := s.source
	for k := 0; k+len(w) <= len(s.stoks); k++ {
		ok := true
		for j := 0; j < len(w) && ok; j++ {
			ok = src[s.stoks[k+j].start]|0x20 == w[j]|0x20
		}
		if ok {
			return true
		}
	}
	// Stop words are no tokens, yet some acronyms take their letter.
	for k := range s.stoks {
		if src[s.stoks[k].start]|0x20 == w[0]|0x20 && acronymAt(src, s.stoks[k].start, w) {
			return true
		}
	}
	return false
}

// acronymAt: the words of text from i on spell the acronym w, a short
// lower-case word whose letter w does not take skipped ("Department of
// Labor": DOL, DL), so a stop word may give its letter ("earnings per
// share": EPS) or not ("Bureau of Labor Statistics": BLS), at most two
// in a row ("Department of the Interior": DOI), which keeps each start's
// reading short. Words run within one clause: spaces and hyphens only
// between them.
func acronymAt(text string, i int, w string) bool {
	for j, skipped := 0, 0; ; {
		st := i
		for i < len(text) && asciiLetter(text[i]) {
			i++
		}
		word := text[st:i]
		switch {
		case word == "":
			return false
		case word[0]|0x20 == w[j]|0x20:
			j, skipped = j+1, 0
		case len(word) > 3 || word[0] < 'a' || skipped == 2:
			return false
		default:
			skipped++
		}
		if j == len(w) {
			return true
		}
		if i == len(text) || text[i] != ' ' && text[i] != '-' {
			return false
		}
		i++
	}
}

// sentences splits on . ! ? and newlines (not inside numbers).
func sentences(s string, out []scan.Span) []scan.Span {
	st := 0
	for i := 0; ; i++ {
		if i = nextPunct(s, i); i == len(s) {
			break
		}
		c := s[i]
		if c != '\n' && i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\n' {
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

// sentencePunct marks the bytes that may end a sentence.
var sentencePunct = [256]bool{'\n': true, '!': true, '?': true, '.': true}

// nextPunct returns the index of the first sentencePunct byte of s at or
// after i, len(s) when there is none: sentences and numbers are sparse,
// so whole words without one are skipped.
func nextPunct(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := scan.Load8(s, i)
		a, b, c, d := x^'\n'*scan.SWARLo, x^'!'*scan.SWARLo, x^'?'*scan.SWARLo, x^'.'*scan.SWARLo
		if ((a-scan.SWARLo)&^a|(b-scan.SWARLo)&^b|(c-scan.SWARLo)&^c|(d-scan.SWARLo)&^d)&scan.SWARHi != 0 {
			break
		}
	}
	for i < len(s) && !sentencePunct[s[i]] {
		i++
	}
	return i
}

// nextDigit is nextPunct for ASCII digits: x^'0' maps them, and only them,
// to bytes under 10.
func nextDigit(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if y := scan.Load8(s, i) ^ '0'*scan.SWARLo; (y-10*scan.SWARLo)&^y&scan.SWARHi != 0 {
			break
		}
	}
	for i < len(s) && !isDigit(s[i]) {
		i++
	}
	return i
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

// noClaim reports a short answer that states nothing a source could
// support or contradict: an acknowledgement, a greeting or an abstention
// ("OK, done.", "Thanks for waiting!", "I don't know."), every word of it
// one of noClaimWords. Read word by word, such an answer was all
// unsupported, and the default policy acted on a "Done." after a tool call.
func noClaim(answer string) bool {
	if len(answer) > 160 {
		return false
	}
	words := 0
	for _, w := range strings.FieldsFunc(answer, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	}) {
		w = strings.ToLower(strings.ReplaceAll(w, "’", "'"))
		if !noClaimWords[w] {
			return false
		}
		words++
	}
	return words > 0
}

// noClaimWords: acknowledgements, greetings, thanks, abstentions and the
// function words they are made of. No content word, name or number.
var noClaimWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`ok okay k done sure thanks thank thx you your noted got it understood
		alright all right fine great perfect cool will do did i i'll i'm i've i'd we we'll we're let me us
		check look into that this on for waiting wait moment a one just please hello hi hey welcome sorry
		no problem worries don't do not know am sure can't cannot say tell unsure yet help anything else
		with happy to be of glad the is are was it's that's there here again good sounds yes yeah nope`) {
		m[w] = true
	}
	return m
}()

// prefixOpposite: the lower-case answer word w is the prefix p on a word
// that WordNet lists as its antonym ("incorrect" / "correct"), and the
// source has a derivation of that word ("correctness"); it returns the
// source's form. The antonym relation rules out words that only look
// prefixed ("information" is no opposite of "formation", whose "form" the
// source may have).
func (s *state) prefixOpposite(w []byte, p string) (string, bool) {
	l := lex()
	if l == nil || len(w)-len(p) < 4 || string(w[:len(p)]) != p {
		return "", false
	}
	var wb, rb [8]int32
	var rest []int32
	for _, b := range l.baseForms(w, wb[:0]) {
		for _, a := range l.antonymsOf(b) {
			if rest == nil {
				// Most words have no antonym: the rest's lemmas only
				// for those that do.
				rest = l.baseForms(w[len(p):], rb[:0])
			}
			if !containsID(rest, a>>2) {
				continue
			}
			for _, r := range l.relatedOf(a >> 2) {
				if s.sourceHas(l.lemmas.str(r)) {
					return string(l.lemmas.str(r)), true
				}
			}
		}
	}
	return "", false
}
