package grounding

import (
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// PriorConfidence is the confidence of a numeric mismatch resting on an
// answer number that the source gives only as the figure compared against
// (priorAsCurrent).
const PriorConfidence = 0.7

// CountConfidence is the confidence of a numeric mismatch resting on a
// count of a word that the source counts with another number
// (countOfOther).
const CountConfidence = 0.7

// priorGap bounds the bytes between a source comparison's current figure
// and its comparator: "$0.91 per diluted share, compared with $0.84".
const priorGap = 60

// priorAsCurrent looks for an answer number that the source states only as
// the figure another is compared with ("Net income was $38 million, or
// $0.91 per diluted share, compared with $0.84 last year"), while the
// answer gives it as no comparison: "earnings of $0.84 per diluted share".
// A summary that keeps the comparison ("up from $0.84", "against $0.84 a
// year ago") says so near the number.
func (s *state) priorAsCurrent(answer, source string) (Evidence, bool) {
	for i := range s.anums {
		q := &s.anums[i]
		if q.word {
			continue
		}
		compat := s.compatSet(q.kind)
		in := s.anear[i].and(&compat)
		prior, cur := -1, -1
	read:
		for j := range in.all {
			if c := s.comparedWith(source, j); c >= 0 {
				if prior < 0 {
					prior, cur = j, c
				}
				continue
			}
			prior = -2 // stated as a figure of its own
			break read
		}
		if prior < 0 || comparedNear(answer, q.span.Start, q.span.End) {
			continue
		}
		n, c := &s.snums[prior], &s.snums[cur]
		sp := scan.Span{Start: c.span.Start, End: c.span.End}
		return Evidence{AnswerSpan: q.span, AnswerText: answer[q.span.Start:q.span.End],
			SourceSpan: &sp, SourceText: source[sp.Start:sp.End],
			Reason: "answer says " + answer[q.span.Start:q.span.End] + " but the source says " + source[sp.Start:sp.End] +
				" (" + source[n.span.Start:n.span.End] + " is the figure it is compared with)"}, true
	}
	return Evidence{}, false
}

// cmpUnknown marks a source number whose comparison is not read yet.
const cmpUnknown = -3

// resetCompared sizes and clears the comparedWith and source direction memos for this Check's
// source numbers.
func (s *state) resetCompared() {
	s.cmpWith = growInt32(s.cmpWith, len(s.snums))[:len(s.snums)]
	for i := range s.cmpWith {
		s.cmpWith[i] = cmpUnknown
	}
	if cap(s.srcDir) < len(s.snums) {
		s.srcDir = make([]int8, len(s.snums))
	}
	s.srcDir = s.srcDir[:len(s.snums)]
	for i := range s.srcDir {
		s.srcDir[i] = dirUnknown
	}
}

// comparedWith returns the index of the source number that source number
// j is compared with (memoized per Check): j follows a comparator ("compared with", "from",
// "than", "versus") that follows, within priorGap bytes in its sentence,
// another number of a compatible kind; -1 when there is none.
func (s *state) comparedWith(source string, j int) int {
	if c := s.cmpWith[j]; c != cmpUnknown {
		return int(c)
	}
	c := s.readCompared(source, j)
	s.cmpWith[j] = int32(c)
	return c
}

func (s *state) readCompared(source string, j int) int {
	at := comparatorBefore(source, s.snums[j].span.Start)
	if at < 0 {
		return -1
	}
	for k := j - 1; k >= 0; k-- {
		n := &s.snums[k]
		if n.span.End < at-priorGap {
			break
		}
		if n.span.End <= at && compatible(n.kind, s.snums[j].kind) && n.value != s.snums[j].value &&
			!strings.ContainsAny(source[n.span.End:at], ".!?;\n") {
			return k
		}
	}
	return -1
}

// comparatorBefore returns the offset of the comparator that the number at
// start follows ("compared with the $19 million", "from $0.66", "than
// $4"), past articles and approximation words; -1 when there is none. A
// bound ("more than 45") is no comparison.
func comparatorBefore(text string, start int) int {
	i := start
	for range 4 {
		j, end := wordEndingBefore(text, i)
		if j == end {
			return -1
		}
		var buf [16]byte
		switch string(lowerWord16(text[j:end], &buf)) {
		case "the", "a", "an", "about", "around", "nearly", "roughly", "approximately":
			i = j
			continue
		case "from", "versus", "vs":
			return j
		case "with", "to":
			var pb [16]byte
			if prev := string(wordBefore(text, j, &pb)); prev == "compared" || prev == "comparison" {
				return j
			}
			return -1
		case "than":
			var pb [16]byte
			switch string(wordBefore(text, j, &pb)) {
			case "more", "less", "fewer", "greater", "rather", "other":
				return -1 // a bound, not a comparison
			}
			return j
		default:
			return -1
		}
	}
	return -1
}

// wordEndingBefore skips the spaces, '$' and '~' before offset i and
// returns the ASCII word that ends there as text[j:end]; j == end when
// punctuation or a digit comes first.
func wordEndingBefore(text string, i int) (j, end int) {
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '$' || text[i-1] == '~') {
		i--
	}
	j = i
	for j > 0 && asciiLetter(text[j-1]) {
		j--
	}
	return j, i
}

// wordBefore returns the lower-case word that ends right before offset j
// (spaces between), in buf.
func wordBefore(text string, j int, buf *[16]byte) []byte {
	for j > 0 && text[j-1] == ' ' {
		j--
	}
	i := j
	for i > 0 && asciiLetter(text[i-1]) {
		i--
	}
	return lowerWord16(text[i:j], buf)
}

// lowerWord16 lower-cases an ASCII word of at most 16 bytes into buf
// (nil for a longer one: no word compared here is).
func lowerWord16(w string, buf *[16]byte) []byte {
	if len(w) > len(buf) {
		return nil
	}
	for i := range len(w) {
		buf[i] = w[i] | 0x20
	}
	return buf[:len(w)]
}

// clauseReach bounds the bytes comparedNear reads either side of a number,
// so an answer of numbers without a sentence end stays linear.
const clauseReach = 160

// comparedNear: the answer's clause around the number [start, end) compares
// or dates it: a comparator before it or a word that marks an earlier
// figure ("last year", "a year ago", "previous", "prior", "earlier").
func comparedNear(answer string, start, end int) bool {
	if comparatorBefore(answer, start) >= 0 {
		return true
	}
	a, b := start, end
	for a > 0 && start-a < clauseReach && !strings.ContainsRune(".;!?\n", rune(answer[a-1])) {
		a--
	}
	for b < len(answer) && b-end < clauseReach && !strings.ContainsRune(".;!?\n", rune(answer[b])) {
		b++
	}
	clause := strings.ToLower(answer[a:b])
	for _, m := range [...]string{"last year", "year ago", "year earlier", "previous", "prior", "earlier", "compared", "versus", " from ", " than "} {
		if strings.Contains(clause, m) {
			return true
		}
	}
	return false
}

// countOfOther looks for an answer number whose value the source does not
// have, right before a content word that a source number of another value
// stands right before: "sixteen delivery vans" against "six vans", "about
// ten jars" against "about two jars"; or right after one (countAfter). The numeric check
// leaves a count in words, or a small one, to the answer (summaries count);
// counted with the source's own word, it is the source's count changed.
func (s *state) countOfOther(answer, source string) (Evidence, bool) {
	for i := range s.anums {
		q := &s.anums[i]
		if s.hasValue(q, &s.anear[i]) {
			continue
		}
		a := tokAt(s.atoks, q.span.End)
		if a >= len(s.atoks) {
			continue
		}
		if e, ok := s.countAfter(answer, source, q); ok {
			return e, true
		}
		next := [2]int32{-1, -1}
		for k := a; k < min(a+2, len(s.atoks)); k++ {
			from := q.span.End
			if k > a {
				from = s.atoks[k-1].end
			}
			if strings.ContainsAny(answer[from:s.atoks[k].start], ",.;:!?()\n") || s.atoks[k].start-from > 12 {
				break
			}
			next[k-a] = s.atoks[k].id
		}
		if next[0] < 0 {
			continue
		}
		compat := s.compatSet(q.kind)
		for j := range compat.all {
			n := &s.snums[j]
			k := tokAt(s.stoks, n.span.End)
			if k >= len(s.stoks) || s.stoks[k].start-n.span.End > 12 || strings.ContainsAny(source[n.span.End:s.stoks[k].start], ",.;:!?()\n") {
				continue
			}
			m := 0
			if s.stoks[k].id == next[1] {
				m = 1
			} else if s.stoks[k].id != next[0] {
				continue
			}
			// The same words between ("six vans" / "sixteen delivery
			// vans" aside): "$320 per person" counts no persons.
			if n.kind != q.kind || m == 0 && !sameGap(answer[q.span.End:s.atoks[a].start], source[n.span.End:s.stoks[k].start]) {
				continue
			}
			return otherCount(answer, source, q, n), true
		}
	}
	return Evidence{}, false
}

// countAfter is countOfOther's other side: the answer's count q (in
// words, or a small whole number, of no unit of measurement), whose value
// the source does not have, right after a content word that a
// source number of another value and the same kind stands right after,
// with the same words between: "group projects of six" against "group
// projects of four".
func (s *state) countAfter(answer, source string, q *quantity) (Evidence, bool) {
	if !q.count() {
		return Evidence{}, false // other figures are the numeric check's, units converted
	}
	if _, _, ok := measureAfter(answer, q); ok {
		return Evidence{}, false // "two weeks" may be the source's "14 days"
	}
	a := tokAt(s.atoks, q.span.Start) - 1
	if a < 0 {
		return Evidence{}, false
	}
	gap := answer[s.atoks[a].end:q.span.Start]
	if strings.ContainsAny(gap, ",.;:!?()\n") || len(gap) > 12 {
		return Evidence{}, false
	}
	compat := s.compatSet(q.kind)
	for j := range compat.all {
		n := &s.snums[j]
		k := tokAt(s.stoks, n.span.Start) - 1
		if k < 0 || s.stoks[k].id != s.atoks[a].id || n.kind != q.kind || !sameGap(gap, source[s.stoks[k].end:n.span.Start]) {
			continue
		}
		return otherCount(answer, source, q, n), true
	}
	return Evidence{}, false
}

// otherCount is the evidence of countOfOther and countAfter: the answer's
// count q where the source counts the same thing as n.
func otherCount(answer, source string, q, n *quantity) Evidence {
	sp := scan.Span{Start: n.span.Start, End: n.span.End}
	return Evidence{AnswerSpan: q.span, AnswerText: answer[q.span.Start:q.span.End],
		SourceSpan: &sp, SourceText: source[sp.Start:sp.End],
		Reason: "answer says " + answer[q.span.Start:q.span.End] + " but the source says " + source[sp.Start:sp.End]}
}
