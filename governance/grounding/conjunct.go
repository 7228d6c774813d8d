package grounding

import (
	"fmt"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// AddedConjunctConfidence is the confidence of an unsupported finding that
// rests on one noun the answer adds to a list (addedConjunct): as weak as
// a new name, under the default min_confidence (0.5), so the default
// policy reports it and does not act on it.
const AddedConjunctConfidence = 0.45

// maxConjunctMods is how many modifiers ("new", "free", "solar") may stand
// between the coordinator and the added noun.
const maxConjunctMods = 2

// addedConjunct looks, in prose, for a noun the answer adds to what the
// source lists: right after "and", "plus" or "with" (an "a" or "an", and
// up to maxConjunctMods adjectives or source words, between), a lower-case
// noun that the source neither has nor supports by meaning (t.missing, set
// by unsupported): "a budget adding $410,000 for staff and new computers",
// "grants for testing, fixture replacement and new pipes". A summary
// paraphrases the source's verbs and adjectives, but it names the things
// the source names; a new thing joined to a list is a fact the source
// does not give, which the answer's share of new words (one or two in 36)
// does not show. Not read: a noun after "the" or a possessive (it refers
// to something already named: "and the company raised its outlook"),
// before "of" ("a lack of", "a variety of": the noun says how much of
// what follows), a word in "-ing" or "-ed" (a verb's form as often: "and
// reducing water pressure", "and ruled out"), an indefinite pronoun
// ("and nobody"), and the first part of a compound ("nerve-racking"). In a chat only "and" and "plus" join: a
// summary of a chat reports its circumstances after "with" in its own
// words ("guess an occupation with a given title", "with buddies").
func (s *state) addedConjunct(answer string, chat bool) (Evidence, bool) {
	l := lex()
	if l == nil {
		return Evidence{}, false
	}
	prev := 0
	for i := 0; i < len(s.atoks); i++ {
		gap := answer[prev:s.atoks[i].start]
		prev = s.atoks[i].end
		if c := coordinatorGap(gap); c == "" || chat && c == "with" {
			continue
		}
		// Modifiers, then the head: consecutive words with nothing but
		// spaces or hyphens between.
		for k, n := i, 0; k < len(s.atoks) && n <= maxConjunctMods; k, n = k+1, n+1 {
			t := &s.atoks[k]
			if k > i && strings.Trim(answer[s.atoks[k-1].end:t.start], " -") != "" {
				break
			}
			if t.upper {
				break // a name, or a word opening a sentence: other checks read those
			}
			w := lowerASCII(answer, t.start, t.end, s.lex.word[:])
			if w == nil {
				break
			}
			s.lex.bases2 = l.baseForms(w, s.lex.bases2[:0])
			if t.end < len(answer) && answer[t.end] == '-' {
				break // "nerve-racking", "cost-free": a compound, not a noun
			}
			if usually(l, s.lex.bases2, 0) {
				if t.missing && !verbForm(w) && !indefinite[string(w)] && !beforeOf(answer, t.end) {
					return Evidence{AnswerSpan: scan.Span{Start: t.start, End: t.end}, AnswerText: answer[t.start:t.end],
						Reason: fmt.Sprintf("%q is added to what the answer lists: the source names no such thing", answer[t.start:t.end])}, true
				}
				break
			}
			if t.absent && !usually(l, s.lex.bases2, 2) {
				break // a modifier is an adjective or a source word
			}
		}
	}
	return Evidence{}, false
}

// coordinatorGap returns the coordinator ("and", "plus" or "with",
// lower-case) that ends the text between two content words, at most an
// "a" or "an" after it; "" when there is none. It reads the gap from its
// end, byte by byte: it runs for every gap of the answer.
func coordinatorGap(gap string) string {
	e := len(gap)
	for e > 0 && gap[e-1] == ' ' {
		e--
	}
	w, b := coordWord(gap, e)
	if w == "a" || w == "an" || w == "A" || w == "An" {
		for b > 0 && gap[b-1] == ' ' {
			b--
		}
		w, _ = coordWord(gap, b)
	}
	switch len(w) {
	case 3:
		if w[0]|0x20 == 'a' && w[1]|0x20 == 'n' && w[2]|0x20 == 'd' {
			return "and"
		}
	case 4:
		switch lw := [4]byte{w[0] | 0x20, w[1] | 0x20, w[2] | 0x20, w[3] | 0x20}; string(lw[:]) {
		case "plus":
			return "plus"
		case "with":
			return "with"
		}
	}
	return ""
}

// coordWord returns the run of ASCII letters of g that ends at e, and its
// start; "" when g[:e] does not end with a letter or the run is glued to
// another character ("co-and").
func coordWord(g string, e int) (string, int) {
	k := e
	for k > 0 && (g[k-1]|0x20 >= 'a' && g[k-1]|0x20 <= 'z') {
		k--
	}
	if k == e || k > 0 && g[k-1] != ' ' && g[k-1] != '\n' && g[k-1] != '\t' {
		return "", k
	}
	return g[k:e], k
}

// verbForm: w ends as a verb's participle does ("reducing", "ruled").
func verbForm(w []byte) bool {
	n := len(w)
	return n > 4 && string(w[n-3:]) == "ing" || n > 3 && string(w[n-2:]) == "ed"
}

// indefinite holds the pronouns WordNet lists as nouns ("a nobody").
var indefinite = map[string]bool{"nobody": true, "somebody": true, "anybody": true, "everybody": true,
	"someone": true, "anyone": true, "everyone": true, "nothing": true, "something": true, "anything": true, "everything": true}

// beforeOf: "of" follows the word that ends at end.
func beforeOf(text string, end int) bool {
	r := strings.TrimLeft(text[end:], " ")
	return len(r) >= 2 && r[0]|0x20 == 'o' && r[1]|0x20 == 'f' && (len(r) == 2 || !isWordByte(r[2]))
}
