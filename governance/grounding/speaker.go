package grounding

import (
	"fmt"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// AssentConfidence is the confidence of a contradiction resting on a
// summary of a chat that has a speaker refuse while that speaker's own
// turns assent and never refuse (declinedAssent): as a role swap or an
// order word, above the default min_confidence (0.5).
const AssentConfidence = 0.6

// maxSpeakers bounds the distinct speakers declinedAssent reads replies
// for: a chat has a few, and a source naming thousands stays linear.
const maxSpeakers = 16

// reply is what one speaker's turns say at their start: the first turn
// opening with an assent ("Yeah, sure."), and whether any opens with a
// refusal ("No, ...", "Sorry, ...", "I can't ...").
type reply struct {
	name    string
	assent  scan.Span // the assenting turn, speaker included; End 0: none
	refuses bool
}

// nextTurn finds the next chat turn of source at or after i: a speaker of
// one or two capitalised words (at most 24 bytes) before ": ", at the
// source's start, a line start or after a sentence end; the speaker may be
// wrapped in '#' as anonymised transcripts write it ("#Person1#: Hi"), or
// followed by a role in brackets ("Rep (Olivia): Hi", since stop 22).
// It returns the speaker's span [st, k), the turn's text starting at k+2;
// st < 0 when there is none.
func nextTurn(source string, i int) (st, k int) {
	for i < len(source) {
		k = strings.Index(source[i:], ": ")
		if k < 0 {
			return -1, 0
		}
		k += i
		i = k + 2
		e := k
		if e > 0 && source[e-1] == '#' {
			e--
		} else if p := roleStart(source, k); p > 0 {
			e = p // "Rep (Olivia): ", "Chair (Mr. Whitmore): ": the name before the role
		}
		st = e
		for st > 0 && (isWordByte(source[st-1]) || source[st-1] == ' ' && st > 1 && isWordByte(source[st-2]) && e-st < 24) {
			st--
		}
		for st < e && source[st] == ' ' {
			st++
		}
		if st == e || source[st] < 'A' || source[st] > 'Z' || e-st > 24 || (source[e] == '#') != (st > 0 && source[st-1] == '#') {
			continue
		}
		if source[e] == '#' {
			st--
		}
		if turnStart(source, st) {
			return st, k
		}
	}
	return -1, 0
}

// roleStart returns the offset of the space before a role in brackets
// that ends right before k ("Rep (Olivia)", "Prospect (Frank Dawson,
// Owner)": transcripts of calls and meetings label a turn so), 0 when
// there is none: a bracket of at most 64 bytes, on one line, opening with
// a capital ("Prices (per month):" labels a document's line).
func roleStart(source string, k int) int {
	if k < 4 || source[k-1] != ')' {
		return 0
	}
	for p := k - 2; p > 0 && p >= k-64; p-- {
		switch source[p] {
		case '(':
			if source[p-1] == ' ' && p-1 > 0 && source[p+1] >= 'A' && source[p+1] <= 'Z' {
				return p - 1
			}
			return 0
		case '\n', ')':
			return 0
		}
	}
	return 0
}

// turnStart: only blanks stand between the source's start, a line start
// or a sentence end and offset st.
func turnStart(source string, st int) bool {
	j := st
	for j > 0 && (source[j-1] == ' ' || source[j-1] == '\t' || source[j-1] == '\r') {
		j--
	}
	if j == 0 {
		return true
	}
	switch source[j-1] {
	case '\n', '.', '!', '?':
		return true
	}
	return false
}

// readReplies fills s.replies with the opening of each speaker's turns,
// for at most maxSpeakers speakers (a turn of another is skipped).
func (s *state) readReplies(source string) {
	s.replies = s.replies[:0]
	for i := 0; ; {
		st, k := nextTurn(source, i)
		if st < 0 {
			return
		}
		i = k + 2
		r := s.speaker(source[st:k])
		if r == nil {
			continue
		}
		var buf [16]byte
		w, _, j := turnWord(source, k+2, buf[:])
		if filler(w) {
			w, _, j = turnWord(source, j, buf[:])
		}
		switch {
		case assentWords[string(w)] && r.assent.End == 0:
			r.assent = scan.Span{Start: st, End: min(nextPunct(source, j)+1, len(source))}
		case refusalWords[string(w)]:
			r.refuses = true
		case string(w) == "i":
			w, _, _ = turnWord(source, j, buf[:])
			r.refuses = r.refuses || refusalWords[string(w)]
		}
	}
}

// speaker returns the reply record of speaker name, added if new and
// there is room; nil when there is none.
func (s *state) speaker(name string) *reply {
	for i := range s.replies {
		if s.replies[i].name == name {
			return &s.replies[i]
		}
	}
	if len(s.replies) == maxSpeakers {
		return nil
	}
	s.replies = append(s.replies, reply{name: name})
	return &s.replies[len(s.replies)-1]
}

// named returns the reply record of the speaker the answer's name w
// stands for: the speaker's name as written or its first word ("Chris"
// for "Chris Smith").
func (s *state) named(w string) *reply {
	for i := range s.replies {
		n := s.replies[i].name
		if n == w || len(n) > len(w) && n[:len(w)] == w && n[len(w)] == ' ' {
			return &s.replies[i]
		}
	}
	return nil
}

// turnWord reads the word at or after offset i of text (letters and
// apostrophes, "’" read as "'"), lower-cased into buf, from st to j; nil
// when it is longer than buf, or when a sentence ends before it.
func turnWord(text string, i int, buf []byte) (w []byte, st, j int) {
	for i < len(text) && !asciiLetter(text[i]) {
		if sentencePunct[text[i]] {
			return nil, i, i
		}
		i++
	}
	w, long := buf[:0], false
	for j = i; j < len(text); {
		c := text[j]
		switch {
		case asciiLetter(c):
			c |= 0x20
			j++
		case c == '\'':
			j++
		case strings.HasPrefix(text[j:], "’"):
			c = '\''
			j += len("’")
		default:
			return wordOf(w, long), i, j
		}
		if len(w) == len(buf) {
			long = true
		} else {
			w = append(w, c)
		}
	}
	return wordOf(w, long), i, j
}

// wordOf is the word turnWord read, nil when empty or too long for the
// word lists.
func wordOf(w []byte, long bool) []byte {
	if long || len(w) == 0 {
		return nil
	}
	return w
}

// filler: a word a reply may open with before its answer ("But yeah,
// sure.", "Well, no.").
func filler(w []byte) bool {
	switch string(w) {
	case "but", "and", "oh", "well", "um", "hmm":
		return true
	}
	return false
}

// assentWords open a turn that says yes; refusalWords one that says no
// (also after "I": "I can't", "I won't").
var (
	assentWords  = map[string]bool{"yes": true, "yeah": true, "yep": true, "yup": true, "sure": true, "ok": true, "okay": true, "agreed": true, "deal": true, "definitely": true, "absolutely": true, "gladly": true}
	refusalWords = map[string]bool{"no": true, "nope": true, "nah": true, "sorry": true, "can't": true, "cannot": true, "won't": true}
	// refuseVerbs report a "no": "Luke declines the invitation".
	refuseVerbs = map[string]bool{"decline": true, "declines": true, "declined": true, "declining": true,
		"refuse": true, "refuses": true, "refused": true, "refusing": true,
		"reject": true, "rejects": true, "rejected": true, "rejecting": true,
		"deny": true, "denies": true, "denied": true, "denying": true,
		"disagree": true, "disagrees": true, "disagreed": true, "disagreeing": true}
	// clauseOpeners may stand before a clause's subject ("and Luke
	// declines", "Eventually, Joyce declines", "with Luke declining").
	clauseOpeners = map[string]bool{"and": true, "but": true, "so": true, "then": true, "eventually": true, "finally": true, "later": true, "with": true}
)

// declinedAssent looks, in a summary of a chat, for a clause whose
// subject is one or more speakers ("Luke", "Harry and Joyce both") and
// whose verb refuses ("declines", "refuses", "disagrees"), where one of
// those speakers has a turn opening with an assent ("Joyce: But yeah,
// sure.") and none opening with a refusal: the summary reports a "no"
// that speaker never gave. Only the speaker's own turns are read: a
// summary attributes the refusal to a person, and the other speakers'
// "no"s are not theirs.
func (s *state) declinedAssent(answer, source string) (Evidence, bool) {
	if !s.chat {
		return Evidence{}, false
	}
	read := false
	for _, sp := range s.aspans {
		text := answer[sp.Start:sp.End]
		leadTried := false
		for c0 := 0; c0 < len(text); {
			c1 := clauseEnd(text, c0)
			subj, verb, ok, plural := refusingClause(text, c0, c1)
			c0 = c1
			if !ok || plural && leadTried {
				continue
			}
			if plural {
				// The sentence's opening names, read once per sentence.
				leadTried = true
				if subj = leadNames(text); subj.End == 0 {
					continue
				}
			}
			if !read {
				read = true
				s.readReplies(source)
			}
			if e, ok := s.assentOf(answer, source, sp.Start, text, subj, verb); ok {
				return e, true
			}
		}
	}
	return Evidence{}, false
}

// leadNames returns the run of two or more names joined by "and" that
// opens the sentence text ("Bridget and Clare discuss ..."), End 0 when
// there is none: "both" and "they" are plural.
func leadNames(text string) scan.Span {
	var buf [16]byte
	w, at, j := turnWord(text, 0, buf[:])
	run, _, _, _ := nameRun(text, w, at, j, buf[:])
	if !strings.Contains(text[run.Start:run.End], " and ") {
		return scan.Span{}
	}
	return run
}

// refusingClause: the clause text[c0:c1] opens (after a conjunction, an
// adverb of time or "with") with a run of capitalised names joined by
// "and", perhaps then "both", right before a refusal verb. subj is the
// names' span, verb the verb's, both in text. A clause whose subject is
// "both" or "they" ("..., with both disagreeing") is plural: it stands for
// the names that open the sentence (leadNames), and subj is left empty.
func refusingClause(text string, c0, c1 int) (subj, verb scan.Span, ok, plural bool) {
	var buf [16]byte
	clause := text[:c1]
	w, at, j := turnWord(clause, c0, buf[:])
	if clauseOpeners[string(w)] {
		w, at, j = turnWord(clause, j, buf[:])
	}
	if string(w) == "they" || string(w) == "both" {
		if string(w) == "they" {
			w, at, j = turnWord(clause, j, buf[:])
		}
		if string(w) == "both" {
			w, at, j = turnWord(clause, j, buf[:])
		}
		return subj, scan.Span{Start: at, End: j}, refuseVerbs[string(w)] && c0 > 0, true
	}
	subj, w, at, j = nameRun(clause, w, at, j, buf[:])
	if subj.End == 0 {
		return subj, verb, false, false
	}
	if string(w) == "both" {
		w, at, j = turnWord(clause, j, buf[:])
	}
	if !refuseVerbs[string(w)] {
		return subj, verb, false, false
	}
	return subj, scan.Span{Start: at, End: j}, true, false
}

// nameRun reads, from the word w at [at, j) of text, a run of names (one
// or more capitalised words each, "Chris Smith") joined by "and"; it
// returns the run's span (End 0: none) and the word after it.
func nameRun(text string, w []byte, at, j int, buf []byte) (run scan.Span, _ []byte, _, _ int) {
	run.Start = at
	for {
		if w == nil || text[at] < 'A' || text[at] > 'Z' {
			return run, w, at, j
		}
		for w != nil && text[at] >= 'A' && text[at] <= 'Z' {
			run.End = j
			w, at, j = turnWord(text, j, buf)
		}
		if string(w) != "and" {
			return run, w, at, j
		}
		w, at, j = turnWord(text, j, buf)
	}
}

// assentOf returns the evidence when a name of the subject run
// text[subj] is a speaker who assents and never refuses. off is text's
// offset in answer.
func (s *state) assentOf(answer, source string, off int, text string, subj, verb scan.Span) (Evidence, bool) {
	for i := subj.Start; i < subj.End; {
		j := i
		for j < subj.End && text[j] != ' ' {
			j++
		}
		if w := text[i:j]; w != "and" {
			if r := s.named(w); r != nil && r.assent.End > 0 && !r.refuses {
				v := scan.Span{Start: off + verb.Start, End: off + verb.End}
				a := r.assent
				return Evidence{AnswerSpan: v, AnswerText: answer[v.Start:v.End], SourceSpan: &a, SourceText: source[a.Start:a.End],
					Reason: fmt.Sprintf("the answer says %s %s, but %s's turn %q assents and none of %s's turns refuses",
						w, answer[v.Start:v.End], r.name, source[a.Start:a.End], r.name)}, true
			}
		}
		for j < subj.End && text[j] == ' ' {
			j++
		}
		i = j
	}
	return Evidence{}, false
}
