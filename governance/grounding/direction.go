package grounding

import (
	"github.com/governance-gateway/gateway/governance/scan"
)

// DirectionConfidence is the confidence of a contradiction resting on a
// number the source states with the opposite direction word before it
// (directionFlip): the number anchors the statement, as a negation in an
// aligned sentence does.
const DirectionConfidence = 0.7

// directionOf reads the word right before a number as a direction: +1 a
// rise or a lower bound ("up 6%", "rose 9%", "more than 45 minutes", "at
// least 3"), -1 a fall or an upper bound ("down 8%", "fell 9%", "under 45
// minutes", "at most 3", "up to $100,000"), 0 none. A switch, not a map:
// it runs for every number.
func directionOf(w []byte) int8 {
	switch string(w) {
	case "up", "rose", "rise", "rises", "rising", "risen",
		"increase", "increased", "increases", "increasing",
		"grew", "grow", "grows", "grown", "gained", "gain", "gains",
		"climbed", "jumped", "raised", "boosted", "more", "over",
		"above", "higher", "greater", "least", "exceeding":
		return 1
	case "down", "fell", "fall", "falls", "fallen", "falling",
		"decrease", "decreased", "decreases", "decreasing",
		"declined", "decline", "declines", "dropped", "drop", "drops",
		"dipped", "slipped", "shrank", "reduced", "lowered", "lower",
		"less", "fewer", "under", "below", "most":
		return -1
	}
	return 0
}

// directionFill: a word passed over between a direction word and its
// number ("risen to about 85 percent", "more than 45", "an increase of
// 6%").
func directionFill(w []byte) bool {
	switch string(w) {
	case "to", "by", "about", "around", "nearly", "almost", "roughly", "approximately", "some", "than", "of":
		return true
	}
	return false
}

// directionBefore returns the direction word before the number at start
// in text, within its clause: 0 when there is none.
func directionBefore(text string, start int) int8 {
	i := start
	afterTo := false // the word read before, nearer the number, is "to"
	for range 4 {
		j, end := wordEndingBefore(text, i)
		if j == end {
			return 0 // punctuation or a digit: the clause starts here
		}
		var buf [16]byte
		w := lowerWord16(text[j:end], &buf)
		if d := directionOf(w); d != 0 {
			switch {
			case afterTo && string(w) == "up":
				return -1 // "up to": an upper bound
			case afterTo && string(w) == "down":
				return 0
			case negatedBefore(text, j):
				return -d // "not more than $50,000" is "up to $50,000"
			}
			return d
		}
		if !directionFill(w) {
			return 0
		}
		afterTo, i = string(w) == "to", j
	}
	return 0
}

// directionFlip looks for an answer number whose value the source states
// only with the opposite direction word before it: "equipment sales rose
// 9%" against "equipment sales fell 9%", "bus rides under 45 minutes"
// against "for more than 45 minutes", "up 8%" against "down 8%". A source
// occurrence of the value with the answer's direction, or with none read
// as the other, leaves it stated. A source figure compared with an earlier
// one has the direction of the change: "rose to $0.62" against "$0.62,
// compared with $0.66 a year ago".
func (s *state) directionFlip(answer, source string) (Evidence, bool) {
	var tried [8]struct {
		v  float64
		k  byte
		da int8
	}
	nt := 0
next:
	for i := range s.anums {
		q := &s.anums[i]
		da := directionBefore(answer, q.span.Start)
		if da == 0 || q.word {
			continue
		}
		// An answer repeating a figure with its direction repeats the
		// outcome: the source's numbers are read once per figure.
		for _, t := range tried[:nt] {
			if t.v == q.value && t.k == q.kind && t.da == da {
				continue next
			}
		}
		if nt < len(tried) {
			tried[nt].v, tried[nt].k, tried[nt].da = q.value, q.kind, da
			nt++
		}
		compat := s.compatSet(q.kind)
		in := s.anear[i].and(&compat)
		opp := -1
	read:
		for j := range in.all {
			switch s.sourceDirection(source, j) {
			case da:
				opp = -2 // stated with the answer's direction
				break read
			case -da:
				if opp == -1 {
					opp = j
				}
			}
		}
		if opp < 0 {
			continue
		}
		n := &s.snums[opp]
		sp := scan.Span{Start: n.span.Start, End: n.span.End}
		return Evidence{AnswerSpan: q.span, AnswerText: answer[q.span.Start:q.span.End],
			SourceSpan: &sp, SourceText: source[sp.Start:sp.End],
			Reason: "the answer gives " + answer[q.span.Start:q.span.End] + " the opposite direction to the source's " + source[sp.Start:sp.End]}, true
	}
	return Evidence{}, false
}

// negatedBefore: the word that ends right before offset j is "not", "no"
// or "never".
func negatedBefore(text string, j int) bool {
	for j > 0 && text[j-1] == ' ' {
		j--
	}
	i := j
	for i > 0 && asciiLetter(text[i-1]) {
		i--
	}
	var buf [16]byte
	switch string(lowerWord16(text[i:j], &buf)) {
	case "not", "no", "never":
		return true
	}
	return false
}

// dirUnknown marks a source number whose direction is not read yet.
const dirUnknown = -128

// sourceDirection returns the direction of source number j, by the word
// before it or else by the figure it is compared with, read once per
// Check.
func (s *state) sourceDirection(source string, j int) int8 {
	if d := s.srcDir[j]; d != dirUnknown {
		return d
	}
	d := directionBefore(source, s.snums[j].span.Start)
	if d == 0 {
		d = s.impliedDirection(source, j)
	}
	s.srcDir[j] = d
	return d
}

// impliedDirection returns the direction of source number j from the
// figure it is compared with right after it ("$0.62, compared with $0.66":
// -1), 0 when it is compared with none.
func (s *state) impliedDirection(source string, j int) int8 {
	for k := j + 1; k < min(j+4, len(s.snums)); k++ {
		if s.comparedWith(source, k) != j {
			continue
		}
		switch a, b := s.snums[j].value, s.snums[k].value; {
		case a > b:
			return 1
		case a < b:
			return -1
		}
		return 0
	}
	return 0
}
