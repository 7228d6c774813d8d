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
// source word is looked up when the answer has a fraction.
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

// fractionWords are the words fractionAt reads, for runShape: answers are
// searched among the letter runs of those shapes only.
var fractionWords = []string{"half", "halves", "third", "thirds", "quarter", "quarters", "fifth", "fifths",
	"sixth", "sixths", "seventh", "sevenths", "eighth", "eighths", "ninth", "ninths", "tenth", "tenths"}

// fractions appends the fractions in words of the lower-cased text lt, one
// pass over its words (fractionAt).
func fractions(lt string, out []fraction) []fraction {
	for i := 0; i < len(lt); {
		if !asciiLetter(lt[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(lt) && asciiLetter(lt[j]) {
			j++
		}
		if (i == 0 || lt[i-1] < 0x80) && (j == len(lt) || lt[j] < 0x80) {
			if f, ok := fractionAt(lt, i, j); ok {
				out = append(out, f)
			}
		}
		i = j
	}
	return out
}

// fractionAt reads the word lt[i:j] of the lower-cased text lt as a
// fraction: "half" ("half an hour", "cut by half"; not "the first half",
// nor the "and a half" of a mixed number), a count before a plural
// denominator ("two thirds", "three quarters"), and "a" or "one" before a
// singular one ("a fifth of the food", "about a fifth."; loose unless "of"
// or a clause end follows: "a third party" is an ordinal, "the third
// quarter" no fraction at all). A hyphen after it makes a compound
// ("half-time", "third-quarter"), no fraction.
func fractionAt(lt string, i, j int) (fraction, bool) {
	w := lt[i:j]
	if j < len(lt) && lt[j] == '-' {
		return fraction{}, false
	}
	half := w == "half" || w == "halves"
	d := 0
	if !half {
		if d = denominator(w); d == 0 {
			return fraction{}, false
		}
	}
	p0, p1 := prevLetters(lt, i)
	prev := lt[p0:p1]
	if half {
		if periodHalf[prev] {
			return fraction{}, false
		}
		if q0, q1 := prevLetters(lt, p0); prev == "a" && lt[q0:q1] == "and" {
			return fraction{}, false
		}
		return fraction{1, 2, i, j, false}, true
	}
	n, ok := numerators[prev]
	if !ok || (w[len(w)-1] == 's') != (n > 1) {
		return fraction{}, false
	}
	return fraction{n, d, p0, j, n == 1 && !fractionEnd(lt, j)}, true
}

// prevLetters returns the bounds of the word of letters right before offset
// i of lt (spaces between only), empty when there is none.
func prevLetters(lt string, i int) (int, int) {
	j := i
	for j > 0 && lt[j-1] == ' ' {
		j--
	}
	k := j
	for k > 0 && asciiLetter(lt[k-1]) {
		k--
	}
	if k > 0 && lt[k-1] >= 0x80 {
		return j, j
	}
	return k, j
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
	runs := s.answerRuns(answer)
	s.fracs = s.fracs[:0]
	for r := 0; r+1 < len(runs); r += 2 {
		if f, ok := fractionAt(la, int(runs[r]), int(runs[r+1])); ok {
			s.fracs = append(s.fracs, f)
		}
	}
	na := len(s.fracs)
	if na == 0 {
		return Evidence{}, false
	}
	s.fracs = fractions(s.lowerSource(), s.fracs)
	src := s.fracs[na:]
	// The source's values in lowest terms, so each answer fraction is one
	// lookup, however many the source has.
	var stated [10][11]bool
	other := -1
	for k, f := range src {
		n, d := lowest(f.num, f.den)
		stated[n][d] = true
		if other < 0 && !f.loose {
			other = k
		}
	}
	if other < 0 {
		return Evidence{}, false
	}
	for _, a := range s.fracs[:na] {
		if n, d := lowest(a.num, a.den); a.loose || stated[n][d] {
			continue
		}
		f := src[other]
		return Evidence{AnswerSpan: scan.Span{Start: a.start, End: a.end}, AnswerText: answer[a.start:a.end],
			SourceSpan: &scan.Span{Start: f.start, End: f.end}, SourceText: s.source[f.start:f.end],
			Reason: "answer says " + answer[a.start:a.end] + " but the source says " + s.source[f.start:f.end]}, true
	}
	return Evidence{}, false
}

// lowest returns num/den in lowest terms (num <= 9, den <= 10).
func lowest(num, den int) (int, int) {
	for g := num; g > 1; g-- {
		if num%g == 0 && den%g == 0 {
			return num / g, den / g
		}
	}
	return num, den
}
