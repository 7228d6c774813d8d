package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAddedConjunct: a noun the source neither has nor supports, joined
// to a list by "and", "plus" or "with", is an added fact (unsupported,
// weak); the source's own noun, a noun that refers back ("the company"),
// a quantity noun before "of", a verb's form, a compound's first part and,
// in a chat, a circumstance after "with" are not.
func TestAddedConjunct(t *testing.T) {
	library := "The Pellworth County Library's main branch will stay open until 9 p.m. on weekdays starting in March, after the county board approved its budget. The budget adds $410,000 for library staffing, enough to hire six part-time workers."
	water := "Each agency shall test drinking water outlets in each school for lead at least once every 3 years. The Administrator shall award grants to agencies to pay for testing and for the replacement of fixtures."
	call := "Rep: We offer a loan at 5.9 percent over 15 years.\nDuval: I need to talk it over with my husband.\nRep: Of course, I'll send the quote.\nDuval: Thanks."
	tests := []struct {
		name, answer, source, mismatch, word string
	}{
		{"and new computers", "The main library branch will stay open until 9 p.m. on weekdays from March after the board approved a budget adding $410,000 for staff and new computers.", library, Unsupported, "computers"},
		{"faithful: the source's noun", "The main library branch will stay open until 9 p.m. on weekdays from March after the board approved a budget adding $410,000 for staff and new workers.", library, None, ""},
		{"a list's last item", "The bill requires agencies to test school drinking water for lead at least once every 3 years. Grants pay for testing, fixture replacement and new pipes.", water, Unsupported, "pipes"},
		{"faithful: a derivation of a source word", "The bill requires agencies to test school drinking water for lead at least once every 3 years. Grants pay for testing and fixture replacement.", water, None, ""},
		{"the company refers back", "The main library branch will stay open until 9 p.m. on weekdays from March, and the county approved a budget adding $410,000 for staffing.", library, None, ""},
		{"a quantity before of", "The main library branch will stay open until 9 p.m. on weekdays from March, and a budget adds $410,000 for staff and a host of part-time workers.", library, None, ""},
		{"a verb's form", "The main library branch will stay open until 9 p.m. on weekdays from March, adding $410,000 for staff and hiring six part-time workers.", library, None, ""},
		{"a compound", "The main library branch will stay open until 9 p.m. on weekdays from March, adding $410,000 for staff and cost-free workers.", library, None, ""},
		{"chat: and a", "Duval was offered a loan at 5.9 percent over 15 years and a free battery, and will talk it over with her husband.", call, Unsupported, "battery"},
		{"chat: with", "Duval was offered a loan at 5.9 percent over 15 years and will talk it over with a spouse.", call, None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			if tt.mismatch == None {
				return
			}
			require.Equal(t, AddedConjunctConfidence, r.Confidence, "%+v", r)
			require.Len(t, r.Evidence, 1)
			require.Equal(t, tt.word, r.Evidence[0].AnswerText)
		})
	}
}

// TestAddedConjunctFlood: every answer sentence has a word the source
// lacks (so the check runs to its end) and joins words to a list, none a
// noun the source lacks; each coordinator reads at most maxConjunctMods+1
// words after it, so the check ends (no test of time) with no finding.
func TestAddedConjunctFlood(t *testing.T) {
	answer := strings.Repeat("qa and new qb qz and a qe. ", maxAnswerBytes/27)
	source := strings.Repeat("qa new qb qc qd qe. ", maxSourceBytes/20)
	r := New().Check(answer, source)
	require.Equal(t, None, r.Mismatch, "%+v", r.Evidence)
}
