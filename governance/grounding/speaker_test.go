package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDeclinedAssent(t *testing.T) {
	chat := "Fred: Would anyone like to watch a film at my place tonight? . Joyce: Oh, it depends. . " +
		"Joyce: But yeah, sure. . Harry: I have to work late, maybe next time. . Fred: Great, see you at eight."
	tests := []struct {
		// mismatch "": any verdict but this check's.
		name, source, answer, mismatch string
		// For a contradiction: the answer's verb and the speaker's turn.
		verb, turn string
	}{
		{"the speaker assented", chat, "Fred invites his friends to watch a film. Joyce declines the invitation.",
			Contradiction, "declines", "Joyce: But yeah, sure."},
		{"one of two subjects assented", chat, "Fred invites his friends over. Eventually, Harry and Joyce both decline to come.",
			Contradiction, "decline", "Joyce: But yeah, sure."},
		{"after a conjunction", "Maya: Can you take the dog out tomorrow? . Tom: Okay, after lunch. . Maya: Thanks!",
			"Maya asks Tom to take the dog out, but Tom refuses.", Contradiction, "refuses", "Tom: Okay, after lunch."},
		// "with" opens a clause; "both" and "they" stand for the names
		// that open the sentence (stop 21, second round).
		{"with a name", chat, "Fred invites his friends to watch a film, with Joyce declining.",
			Contradiction, "declining", "Joyce: But yeah, sure."},
		{"with both", chat, "Harry and Joyce talk about the film, with both declining to watch it.",
			Contradiction, "declining", "Joyce: But yeah, sure."},
		{"they", chat, "Harry and Joyce hear about the film, but they decline.",
			Contradiction, "decline", "Joyce: But yeah, sure."},
		{"they, no names", chat, "The friends hear about the film, but they decline.", "", "", ""},
		{"both, one name", chat, "Joyce hears about the film and Fred's TV, with both declining.", "", "", ""},
		// The speaker's own turns decide: Harry never assented.
		{"the speaker never assented", chat, "Fred invites his friends to watch a film. Harry declines the invitation.", None, "", ""},
		// A speaker who assents once and refuses once may decline either.
		{"the speaker refused too", "Ann: Do you want tea? . Ben: Sure. . Ann: And a biscuit? . Ben: No, thanks.",
			"Ann offers Ben tea, which he accepts, and Ben declines a biscuit.", None, "", ""},
		{"refused with I can't", "Ann: Coming to the party? . Ben: Yes, probably. . Ben: I can't stay long though.",
			"Ben declines the party.", "", "", ""},
		// Not a speaker of the chat ("Mary" is a new name, unsupported).
		{"not a speaker", chat, "Fred invites his friends over; Mary declines.", "", "", ""},
		// The refusal is not the subject's: another word comes between.
		{"not the clause's verb", chat, "Fred is glad that nobody declines and Joyce comes.", None, "", ""},
		// Prose: no speakers.
		{"prose", "Joyce said yes to the invitation. Joyce will come on Friday.", "Joyce declines the invitation.", "", "", ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.mismatch == "" {
				for _, e := range r.Evidence {
					require.NotContains(t, e.Reason, "assents")
				}
				return
			}
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r.Evidence)
			if tt.mismatch != Contradiction {
				return
			}
			require.Equal(t, AssentConfidence, r.Confidence)
			e := r.Evidence[0]
			require.Equal(t, tt.verb, e.AnswerText)
			require.Equal(t, tt.verb, tt.answer[e.AnswerSpan.Start:e.AnswerSpan.End])
			require.NotNil(t, e.SourceSpan)
			require.Equal(t, tt.turn, e.SourceText)
			require.Equal(t, tt.turn, tt.source[e.SourceSpan.Start:e.SourceSpan.End])
		})
	}
}

// TestDialogue: the turn parser shared by dialogue and declinedAssent.
func TestDialogue(t *testing.T) {
	tests := []struct {
		source string
		want   bool
	}{
		{"Ann: Hi. . Ben: Hello. . Ann: Bye.", true},
		{"Ann: Hi.\nBen: Hello.\nAnn: Bye.", true},
		{"Ann Lee: Hi.\r\nBen: Hello.\r\nAnn Lee: Bye.", true},
		{"Ann: Hi. . Ann: Hello. . Ann: Bye.", false}, // one speaker
		{"Ann: Hi. . Ben: Hello.", false},             // two turns
		{"#Person1#: Hi.\n#Person2#: Hello.\n#Person1#: Bye.", true},
		{"Speaker 1: Welcome back.\nSpeaker 2: Thanks.\nSpeaker 1: So, the results?", true},
		{"#Person1#: Hi.\nPerson2#: Hello.\n#Person1#: Bye.", false}, // one '#'
		// No one comes back: read as prose (a round of single replies is
		// missed, a price of telling documents apart).
		{"Ann: Hi. . Ben: Hello. . Ben: Still there?", false},
		{"Peggy: Who can help?\nAnn: Sorry, no time\nCarl: OK, I can", false},
		{"Ann: Hi.\nBen: Hello.\nBen: Still there?\nAnn: Yes.", true},
		{"Marketing: We tested it.\nProject Manager: Good.\nMarketing: Users liked it.", true},
		// Documents with "Label: text" lines: each label heads its part once.
		{"Note: the fee is due. Status: open. Owner: Ben.", false},
		{"Subject: A faster way to plan\n\nDear Ms Lee,\nSmart Scheduling: books rooms.\nShared Notes: one place for all.\nPhone: 555 0100\nEmail: sales@example.com", false},
		{"Section 1: Short title. This act may be cited as the Clean Water Act.\nSection 2: Definitions. In this act the term agency means ...\nSection 3: Grants.", false},
		{"Date: 3 May\nAttendees: Ann, Ben, Carla\nAgenda: budget\nDecision: the budget is approved.\nAction: Ben sends the report.\nAction: Carla books the room.", false},
		{"Feature: fast sync.\nFeature: offline mode.\nPrice: $10.", false},
		{"The fee is due on Monday: pay it. Ben said: fine, and Ann: no.", false},
		// Stop 22: a role in brackets after the name, as call and meeting
		// transcripts write it.
		{"Rep (Olivia): Hi Frank.\nProspect (Frank Dawson): Yes, speaking.\nRep (Olivia): Is now a good time?", true},
		{"Chair (Mr. Whitmore): Welcome.\nFarah Hussain: Thank you.\nChair (Mr. Whitmore): Please begin.", true},
		{"Prices (per month): $10.\nSupport (email): included.\nPrices (per month): see above.", false}, // lower-case roles
		{"Rep (Olivia: Hi.\nProspect (Frank): Yes.\nRep (Olivia: Bye.", false},                          // no closing bracket
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, dialogue(tt.source), tt.source)
	}
}

// BenchmarkDeclinedAssent: a chat of many speakers, each assenting, and
// an answer of refusing clauses naming them; the speakers read are
// bounded (maxSpeakers) and the turns read once per Check.
func BenchmarkDeclinedAssent(b *testing.B) {
	var src strings.Builder
	for i := 0; src.Len() < 8<<10; i++ {
		src.WriteString("Speaker" + string(rune('A'+i%26)) + string(rune('a'+i/26%26)) + ": Yes, sure. . ")
	}
	ans := strings.Repeat("Then SpeakerZz and SpeakerYy both decline, and SpeakerXx declines. ", 40)[:2<<10]
	c := New()
	lex()
	b.ResetTimer()
	for range b.N {
		c.Check(ans, src.String())
	}
}
