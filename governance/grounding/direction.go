package grounding

import (
	"math/bits"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// DirectionConfidence is the confidence of a contradiction resting on a
// number the source states with the opposite direction word before it
// (directionFlip): the number anchors the statement, as a negation in an
// aligned sentence does.
const DirectionConfidence = 0.7

// directionWords reads the word right before a number as a direction: +1
// a rise or a lower bound ("up 6%", "rose 9%", "more than 45 minutes",
// "at least 3"), -1 a fall or an upper bound ("down 8%", "fell 9%",
// "under 45 minutes", "at most 3", "up to $100,000").
var directionWords = map[string]int8{
	"up": 1, "rose": 1, "rise": 1, "rises": 1, "rising": 1, "risen": 1,
	"increase": 1, "increased": 1, "increases": 1, "increasing": 1,
	"grew": 1, "grow": 1, "grows": 1, "grown": 1, "gained": 1, "gain": 1, "gains": 1,
	"climbed": 1, "jumped": 1, "raised": 1, "boosted": 1, "more": 1, "over": 1,
	"above": 1, "higher": 1, "greater": 1, "least": 1, "exceeding": 1,
	"down": -1, "fell": -1, "fall": -1, "falls": -1, "fallen": -1, "falling": -1,
	"decrease": -1, "decreased": -1, "decreases": -1, "decreasing": -1,
	"declined": -1, "decline": -1, "declines": -1, "dropped": -1, "drop": -1, "drops": -1,
	"dipped": -1, "slipped": -1, "shrank": -1, "reduced": -1, "lowered": -1, "lower": -1,
	"less": -1, "fewer": -1, "under": -1, "below": -1, "most": -1,
}

// directionFill are the words passed over between a direction word and its
// number ("risen to about 85 percent", "more than 45", "an increase of 6%").
var directionFill = map[string]bool{
	"to": true, "by": true, "about": true, "around": true, "nearly": true, "almost": true,
	"roughly": true, "approximately": true, "some": true, "than": true, "of": true,
}

// directionBefore returns the direction word before the number at start
// in text, within its clause: 0 when there is none.
func directionBefore(text string, start int) int8 {
	i := start
	var after string // the word read before the current one, nearer the number
	for range 4 {
		for i > 0 && (text[i-1] == ' ' || text[i-1] == '$' || text[i-1] == '~') {
			i--
		}
		j := i
		for j > 0 && asciiLetter(text[j-1]) {
			j--
		}
		if j == i {
			return 0 // punctuation or a digit: the clause starts here
		}
		w := strings.ToLower(text[j:i])
		if d, ok := directionWords[w]; ok {
			if w == "up" || w == "down" {
				if after == "to" {
					if w == "up" {
						return -1 // "up to": an upper bound
					}
					return 0
				}
			}
			if negatedBefore(text, j) {
				return -d // "not more than $50,000" is "up to $50,000"
			}
			return d
		}
		if !directionFill[w] {
			return 0
		}
		after, i = w, j
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
	for i := range s.anums {
		q := &s.anums[i]
		da := directionBefore(answer, q.span.Start)
		if da == 0 || q.word {
			continue
		}
		compat := s.compatSet(q.kind)
		in := s.anear[i].and(&compat)
		opp := -1
		for w, x := range in {
			for x != 0 {
				j := w*64 + bits.TrailingZeros64(x)
				x &= x - 1
				d := directionBefore(source, s.snums[j].span.Start)
				if d == 0 {
					d = s.impliedDirection(source, j)
				}
				switch d {
				case da:
					opp = -2 // stated with the answer's direction
				case -da:
					if opp == -1 {
						opp = j
					}
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
	switch strings.ToLower(text[i:j]) {
	case "not", "no", "never":
		return true
	}
	return false
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
