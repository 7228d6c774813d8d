package grounding

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// TimeUnitConfidence is the confidence of a contradiction resting on a
// unit of time the source never names where it names another
// (timeUnitSwap): above the default min_confidence, under the 0.7 of the
// weekday and month swaps, since a summary may count a span in another
// unit ("two weeks" for "14 days": numbers with their units are compared
// before, by the numeric check).
const TimeUnitConfidence = 0.6

// timeUnits are the units of time, each with the words that name it
// ("daily" names a day, "annual" a year). "second" and "quarter" are left
// out: an ordinal and a fraction as often as units.
var timeUnits = [...][]string{
	{"seconds"},
	{"minute", "minutes"},
	{"hour", "hours", "hourly"},
	{"day", "days", "daily"},
	{"week", "weeks", "weekly"},
	{"month", "months", "monthly"},
	{"quarterly"},
	{"year", "years", "yearly", "annual", "annually"},
	{"decade", "decades"},
	{"century", "centuries"},
}

// timeUnitIndex maps each word of timeUnits to its unit's index.
var timeUnitIndex = func() map[string]int {
	m := map[string]int{}
	for i, forms := range timeUnits {
		for _, f := range forms {
			m[f] = i
		}
	}
	return m
}()

// timeUnitOf returns the index in timeUnits of the unit the lower-case
// word w names, -1 when it names none.
func timeUnitOf(w []byte) int {
	if u, ok := timeUnitIndex[string(w)]; ok {
		return u
	}
	return -1
}

// timeUnitSwap looks at the answer words the source lacks (run after
// unsupported marked them) for one naming a unit of time ("quarterly",
// "a day") when the source names none of that unit but another ("annual",
// "a week"): the answer changed the period.
func (s *state) timeUnitSwap(answer, source string) (Evidence, bool) {
	var buf [16]byte
	for i := range s.atoks {
		t := &s.atoks[i]
		if !t.absent || t.end-t.start < 3 || t.end-t.start > len("centuries") {
			continue
		}
		u := timeUnitOf(lowerASCII(answer, t.start, t.end, buf[:]))
		if u < 0 || s.namesUnit(u) {
			continue
		}
		if st := s.otherUnitTok(u, source, i); st != nil {
			if sameSpan(answer, t.start, u, source, st) {
				continue // "about ten years" for "a decade"
			}
			return Evidence{AnswerSpan: scan.Span{Start: t.start, End: t.end}, AnswerText: answer[t.start:t.end],
				SourceSpan: &scan.Span{Start: st.start, End: st.end}, SourceText: source[st.start:st.end],
				Reason: fmt.Sprintf("the answer says %q where the source speaks of %q", answer[t.start:t.end], source[st.start:st.end])}, true
		}
	}
	return Evidence{}, false
}

// namesUnit: the source has a word naming unit u of timeUnits.
func (s *state) namesUnit(u int) bool {
	for _, f := range timeUnits[u] {
		if s.sourceHas([]byte(f)) {
			return true
		}
	}
	return false
}

// otherUnitTok returns a source token naming a unit of time other than
// u, nil when there is none: the nearest within two words of a source occurrence
// of a word within two words of answer token i ("this week" for "this
// day"), else the first. A source naming no unit at all is known from its
// index, not by reading every token once per answer word (an answer of
// "hourly pay" repeated against a source without units took 33 s).
func (s *state) otherUnitTok(u int, source string, i int) *tok {
	units := s.sourceUnitToks(source)
	if len(units) == 0 {
		return nil
	}
	for _, an := range s.atoks[max(0, i-2):min(len(s.atoks), i+3)] {
		for _, k := range s.sourceToks(an.id) {
			for _, j := range [...]int{int(k) + 1, int(k) - 1, int(k) + 2, int(k) - 2} { // nearest first
				if j >= 0 && j < len(s.stoks) && s.namesOtherUnit(j, u, source) {
					return &s.stoks[j]
				}
			}
		}
	}
	for _, j := range units {
		if s.namesOtherUnit(int(j), u, source) {
			return &s.stoks[j]
		}
	}
	return nil
}

// timeUnitStems are the stems of the words of timeUnits, each once: a
// source token naming a unit of time has one of them as its word id.
var timeUnitStems = func() (out []string) {
	for _, forms := range timeUnits {
		for _, f := range forms {
			if st := string(stemBytes([]byte(f))); !slices.Contains(out, st) {
				out = append(out, st)
			}
		}
	}
	return out
}()

// sourceUnitToks returns the indices of the source tokens naming a unit of
// time, in order, built once per Check. Only the tokens of the units'
// stems are read (through the index of source tokens by word), then
// checked for the exact word (other words share a stem), not
// every source token with a map lookup each.
func (s *state) sourceUnitToks(source string) []int32 {
	if !s.unitToksOK {
		s.unitToks, s.unitToksOK = s.unitToks[:0], true
		var buf [16]byte
		for _, st := range timeUnitStems {
			for _, j := range s.sourceToks(find(&s.words, st, fnvAdd(fnvOffset, st))) {
				// The length is the token's, possessive included:
				// "centuries's" is left out.
				if t := &s.stoks[j]; t.end-t.start <= len("centuries") && timeUnitOf(lowerASCII(source, t.start, t.end, buf[:])) >= 0 {
					s.unitToks = append(s.unitToks, j)
				}
			}
		}
		slices.Sort(s.unitToks) // the stems' tokens are disjoint: no duplicates
	}
	return s.unitToks
}

// namesOtherUnit: source token j names a unit of time other than u.
func (s *state) namesOtherUnit(j, u int, source string) bool {
	var buf [16]byte
	o := timeUnitOf(lowerASCII(source, s.stoks[j].start, s.stoks[j].end, buf[:]))
	return o >= 0 && o != u
}

// unitDays is the length of each unit of timeUnits in days.
var unitDays = [...]float64{1.0 / 86400, 1.0 / 1440, 1.0 / 24, 1, 7, 30.44, 91.31, 365.25, 3652.5, 36525}

// sameSpan: the answer's count before its unit u (the word ending at
// offset at) and the source's before its unit word st ("a", "an", "one"
// or none count one) measure the same span, within 5%: "ten years" for
// "a decade", "12 months" for "a year". An answer unit with no count of
// its own is no span.
func sameSpan(answer string, at, u int, source string, st *tok) bool {
	n, ok := countBefore(answer, at)
	if !ok {
		return false
	}
	var buf [16]byte
	o := timeUnitOf(lowerASCII(source, st.start, st.end, buf[:]))
	if o < 0 {
		return false
	}
	m, ok := countBefore(source, st.start)
	if !ok {
		m = 1
	}
	a, b := n*unitDays[u], m*unitDays[o]
	return math.Abs(a-b) <= 0.05*math.Max(a, b)
}

// countBefore reads the count right before offset at (one space between):
// digits ("12") or a number word ("ten", "a", "one"); ok false when there
// is none.
func countBefore(text string, at int) (float64, bool) {
	j := at
	for j > 0 && text[j-1] == ' ' {
		j--
	}
	i := j
	for i > 0 && (isWordByte(text[i-1]) || text[i-1] == ',' || text[i-1] == '.') {
		i--
	}
	if i == j || j-i > 12 {
		return 0, false
	}
	w := strings.ToLower(strings.TrimRight(text[i:j], ".,"))
	switch w {
	case "a", "an", "one":
		return 1, true
	}
	if v, err := strconv.ParseFloat(strings.ReplaceAll(w, ",", ""), 64); err == nil {
		return v, true
	}
	if nw, ok := lookupNumWord([]byte(w)); ok && nw.cls != 'x' {
		return nw.v, true
	}
	return 0, false
}
