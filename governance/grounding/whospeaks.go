package grounding

import (
	"fmt"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
)

// OtherSpeakerConfidence is the confidence of a contradiction resting on a
// summary of a chat that gives one speaker what another speaker's turn
// says (otherSpeaker): as a role swap, above the default min_confidence.
const OtherSpeakerConfidence = 0.6

// maxTurns bounds the chat turns otherSpeaker reads.
const maxTurns = 1024

// otherSpeaker looks, in a summary of a chat, for a clause whose one
// speaker name is N and whose other words (two or more that the source
// has) come from a turn of another speaker M, while no turn by N or naming
// N has any of them: "Kira will update marketing" where the project lead
// asks "Sam, can you send an update to marketing today?" and none of
// Kira's turns speaks of an update or of marketing. A summary reports who
// said or will do what; it keeps the person with the words. Not read: a
// clause naming two speakers ("Alex and Jacob plan to grab some beer"),
// a turn that names N (it speaks to or of N), any turn of a chat between
// two (each speaks to the other: "Duval was offered a loan" for the rep's
// "We offer a loan" in their call), a word N's own turns or the turns
// naming N have (N may say it in other words elsewhere).
// Each turn is read once: per word, a mask of the speakers whose turns,
// or turns naming them, have it; each clause visits at most
// maxSwapPostings source occurrences of its words.
func (s *state) otherSpeaker(answer, source string) (Evidence, bool) {
	if !s.chat {
		return Evidence{}, false
	}
	built := false
	budget := maxSwapPostings
	var w [16]int32
	for _, sp := range s.aspans {
		for c0 := sp.Start; c0 < sp.End; {
			c1 := speakerClauseEnd(answer, c0, sp.End)
			a0, a1 := tokAt(s.atoks, c0), tokAt(s.atoks, c1)
			c0 = c1
			// The clause's speaker name, and its other words the source has.
			n, nw, one := -1, 0, true
			for k := a0; k < a1; k++ {
				t := &s.atoks[k]
				if t.upper {
					if !built {
						built = true
						if !s.readTurns(source) {
							return Evidence{}, false
						}
					}
					if p := s.speakerOf(t.id); p >= 0 {
						one = one && (n < 0 || n == p)
						n = p
					}
					continue
				}
				if s.vocab(t.id) && nw < len(w) && !containsID(w[:nw], t.id) {
					w[nw] = t.id
					nw++
				}
			}
			if n < 0 || !one || nw < 2 {
				continue
			}
			if e, ok := s.turnOfOther(answer, source, n, a0, a1, w[:nw], &budget); ok {
				return e, true
			}
		}
	}
	return Evidence{}, false
}

// turnOfOther: two of the words w (none of them in a turn by speaker n or
// naming n) stand in one turn of another speaker that does not name n.
func (s *state) turnOfOther(answer, source string, n, a0, a1 int, w []int32, budget *int) (Evidence, bool) {
	bit := uint16(1) << n
	for _, id := range w {
		if s.spkCtx[id]&bit != 0 {
			return Evidence{}, false
		}
	}
	s.turnStamp++
	for i, id := range w {
		for _, k := range s.sourceToks(id) {
			if *budget--; *budget < 0 {
				return Evidence{}, false
			}
			j := s.turnOf[k]
			if j < 0 {
				continue
			}
			tr := &s.turns[j]
			if tr.spk == int8(n) || tr.names&bit != 0 {
				continue
			}
			if tr.stamp != s.turnStamp {
				tr.stamp, tr.last, tr.count = s.turnStamp, -1, 0
			}
			if tr.last == int32(i) {
				continue // one word counted once per turn
			}
			tr.last = int32(i)
			if tr.count++; tr.count < 2 {
				continue
			}
			nt := &s.atoks[a0]
			for k := a0; k < a1; k++ {
				if s.atoks[k].upper && s.speakerOf(s.atoks[k].id) == n {
					nt = &s.atoks[k]
					break
				}
			}
			ssp := scan.Span{Start: tr.spkStart, End: min(tr.end, tr.spkStart+160)}
			name := answer[nt.start:nt.end]
			return Evidence{AnswerSpan: scan.Span{Start: nt.start, End: nt.end}, AnswerText: name,
				SourceSpan: &ssp, SourceText: source[ssp.Start:ssp.End],
				Reason: fmt.Sprintf("the answer gives %s what %q says, and no turn by or naming %s does", name, source[ssp.Start:ssp.End], name)}, true
		}
	}
	return Evidence{}, false
}

// chatTurn is one turn of a chat, read by readTurns.
type chatTurn struct {
	spk           int8   // index into spkIDs
	names         uint16 // the speakers the turn's text names
	spkStart, end int    // the turn, speaker included: [spkStart, end)
	stamp         uint32 // turnOfOther's counting, valid where it holds turnStamp
	last, count   int32
}

// readTurns reads the chat's turns: each speaker's word id (the first
// word of its name), each source token's turn, and per word id the
// speakers whose turns, or turns naming them, have it. False when the
// chat has more than maxSpeakers speakers.
func (s *state) readTurns(source string) bool {
	s.spkIDs = s.spkIDs[:0]
	s.turns = s.turns[:0]
	s.turnOf = growInt32(s.turnOf, len(s.stoks))
	for k := range s.turnOf {
		s.turnOf[k] = -1
	}
	for i := 0; len(s.turns) < maxTurns; {
		st, k := nextTurn(source, i)
		if st < 0 {
			break
		}
		i = k + 2
		j := tokAt(s.stoks, st)
		if j == len(s.stoks) || s.stoks[j].start >= k {
			continue // a speaker of stop words ("#Person1#" aside, rare)
		}
		p := s.speakerOf(s.stoks[j].id)
		if p < 0 {
			if len(s.spkIDs) == maxSpeakers {
				return false
			}
			p = len(s.spkIDs)
			s.spkIDs = append(s.spkIDs, s.stoks[j].id)
		}
		if n := len(s.turns); n > 0 {
			s.turns[n-1].end = st
		}
		s.turns = append(s.turns, chatTurn{spk: int8(p), spkStart: st, end: len(source), last: -1})
	}
	if len(s.turns) == 0 {
		return false
	}
	n := s.words.len()
	if cap(s.spkCtx) < n {
		s.spkCtx = make([]uint16, n)
	} else {
		s.spkCtx = s.spkCtx[:n]
		clear(s.spkCtx)
	}
	for j := range s.turns {
		tr := &s.turns[j]
		k0, k1 := tokAt(s.stoks, tr.spkStart), tokAt(s.stoks, tr.end)
		for k := k0; k < k1; k++ {
			s.turnOf[k] = int32(j)
			if p := s.speakerOf(s.stoks[k].id); p >= 0 && s.stoks[k].upper && k > k0 {
				tr.names |= 1 << p
			}
		}
		if len(s.spkIDs) == 2 {
			// Between two speakers each turn speaks to the other ("Rep:
			// We offer a loan ..." to Duval).
			tr.names |= 1 << (1 - tr.spk)
		}
		mask := tr.names | 1<<tr.spk
		for k := k0; k < k1; k++ {
			s.spkCtx[s.stoks[k].id] |= mask
		}
	}
	return true
}

// speakerOf returns the index of the speaker whose name's first word has
// word id id, -1 when none has.
func (s *state) speakerOf(id int32) int {
	for p, x := range s.spkIDs {
		if x == id {
			return p
		}
	}
	return -1
}

// speakerClauseEnd returns the end of the clause of answer starting at i,
// at most end: clauseEnd's breaks, a sentence end, or "and" before a
// lower-case word ("..., and Kira will update marketing" keeps its name;
// "Alex and Jacob plan" is one clause).
func speakerClauseEnd(answer string, i, end int) int {
	e := min(i+clauseEnd(answer[i:end], 0), end)
	for j := i; j < e; {
		k := strings.Index(answer[j:e], " and ")
		if k < 0 {
			break
		}
		if r := j + k + 5; r < e && (answer[r] < 'A' || answer[r] > 'Z') {
			return r
		}
		j += k + 5
	}
	return e
}
