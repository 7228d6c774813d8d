package grounding

import (
	"github.com/governance-gateway/gateway/governance/scan"
)

// FractionConfidence is the confidence of a fraction in words the source
// states as another ("a half" where the source says "a fifth"): a number
// changed, as numeric mismatches are, but read from words.
const FractionConfidence = 0.7

// fraction is a fraction in words: num/den at text[start:end]; loose: "a"
// or "one" before a singular denominator followed by another word than
// "of" ("a fifth since August", but also "a third party").
type fraction struct {
	num, den   int
	start, end int
	loose      bool
}

// denominator returns the denominator a word names, singular or plural
// ("fifth", "thirds"), 0 for other words: a switch, not a map, as every
// answer word is looked up.
func denominator(w string) int {
	if len(w) < 5 || len(w) > 8 {
		return 0
	}
	switch w {
	case "third", "thirds":
		return 3
	case "quarter", "quarters":
		return 4
	case "fifth", "fifths":
		return 5
	case "sixth", "sixths":
		return 6
	case "seventh", "sevenths":
		return 7
	case "eighth", "eighths":
		return 8
	case "ninth", "ninths":
		return 9
	case "tenth", "tenths":
		return 10
	}
	return 0
}

// numerators are the counts before a denominator ("a fifth", "two thirds").
var numerators = map[string]int{"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}

// periodHalf: words before "half" that name a part of a period or a match
// ("the first half of the year"), not an amount.
var periodHalf = map[string]bool{"first": true, "second": true, "other": true, "back": true, "latter": true, "former": true}

// fractions appends the fractions in words of the lower-cased text lt:
// "half" ("half an hour", "cut by half"; not "the first half", nor the
// "and a half" of a mixed number), a count before a plural denominator
// ("two thirds", "three quarters"), and "a" or "one" before a singular one
// followed by "of" or a clause end ("a fifth of the food", "about a
// fifth."): "a third party", "the third quarter" are ordinals. One pass
// over the text's words.
func fractions(lt string, out []fraction) []fraction {
	var prev2, prev string
	prevStart := 0
	i := 0
	for i < len(lt) {
		for i < len(lt) && !asciiLetter(lt[i]) {
			if lt[i] >= 0x80 || isDigit(lt[i]) {
				prev2, prev = prev, "" // a number or a non-ASCII word between
			}
			i++
		}
		j := i
		for j < len(lt) && asciiLetter(lt[j]) {
			j++
		}
		if j == i {
			break
		}
		w := lt[i:j]
		if j < len(lt) && lt[j] == '-' {
			// A compound ("half-time", "third-quarter"): no fraction.
			prev2, prev, prevStart = prev, "", i
			i = j + 1
			continue
		}
		switch d := denominator(w); {
		case w == "half" || w == "halves":
			if !periodHalf[prev] && !(prev == "a" && prev2 == "and") {
				out = append(out, fraction{1, 2, i, j, false})
			}
		case d > 0:
			n, isNum := numerators[prev]
			if !isNum {
				break
			}
			if plural := w[len(w)-1] == 's'; plural != (n > 1) {
				break
			}
			out = append(out, fraction{n, d, prevStart, j, n == 1 && !fractionEnd(lt, j)})
		}
		prev2, prev, prevStart = prev, w, i
		i = j
	}
	return out
}

// fractionEnd: the singular fraction word ending at j is followed by "of"
// or ends a clause.
func fractionEnd(lt string, j int) bool {
	k := j
	for k < len(lt) && lt[k] == ' ' {
		k++
	}
	if k == len(lt) {
		return true
	}
	switch lt[k] {
	case '.', ',', ';', ':', '!', '?', ')', '\n':
		return true
	}
	return k+3 <= len(lt) && lt[k:k+2] == "of" && !asciiLetter(lt[k+2]) || k+2 == len(lt) && lt[k:] == "of"
}

// fractionSwap: an answer fraction in words whose value no source
// fraction has, while the source states another ("about a half of the food"
// where the source says "about a fifth"; "half an hour" for "a quarter of
// an hour"). A source without fractions says nothing about the answer's;
// the answer's loose ones are not read, the source's state a value but
// are no other fraction ("a third party").
func (s *state) fractionSwap(answer string) (Evidence, bool) {
	la := s.lowerAnswer(answer)
	s.fracs = fractions(la, s.fracs[:0])
	na := len(s.fracs)
	if na == 0 {
		return Evidence{}, false
	}
	s.fracs = fractions(s.lowerSource(), s.fracs)
	src := s.fracs[na:]
	if len(src) == 0 {
		return Evidence{}, false
	}
	other := -1
	for k, f := range src {
		if !f.loose {
			other = k
			break
		}
	}
	if other < 0 {
		return Evidence{}, false
	}
	for _, a := range s.fracs[:na] {
		if a.loose {
			continue
		}
		stated := false
		for _, f := range src {
			if f.num*a.den == a.num*f.den {
				stated = true
				break
			}
		}
		if stated {
			continue
		}
		f := src[other]
		return Evidence{AnswerSpan: scan.Span{Start: a.start, End: a.end}, AnswerText: answer[a.start:a.end],
			SourceSpan: &scan.Span{Start: f.start, End: f.end}, SourceText: s.source[f.start:f.end],
			Reason: "answer says " + answer[a.start:a.end] + " but the source says " + s.source[f.start:f.end]}, true
	}
	return Evidence{}, false
}
