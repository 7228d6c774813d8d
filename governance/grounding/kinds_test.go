package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKindSwap: a member of a closed class of scientific writing (the data
// a method reads, a sense, a task) in place of the source's member, near
// the same words, is a contradiction; the near misses are not.
func TestKindSwap(t *testing.T) {
	paper := "We train a transformer on text from news articles. The learned visual features transfer to new scenes. " +
		"Our detector improves classification of rare species in camera traps. We encode each trap's frames with a convolutional network."
	tests := []struct {
		name, answer, mismatch, says string
	}{
		{"data", "We train a transformer on images from news articles.", Contradiction, `"text"`},
		{"sense", "The learned auditory features transfer to new scenes.", Contradiction, `"visual"`},
		{"task", "Our detector improves segmentation of rare species in camera traps.", Contradiction, `"classification"`},
		{"architecture", "We encode each trap's frames with a recurrent network.", Contradiction, `"convolutional"`},
		{"faithful", "A transformer trained on news text learns visual features that improve classification of rare species.", None, ""},
		{"the member stands elsewhere", "Audio recordings were not used at all in the study.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, paper)
			if tt.mismatch == None {
				require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r)
				return
			}
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			require.Len(t, r.Evidence, 1)
			require.Contains(t, r.Evidence[0].Reason, tt.says)
		})
	}
}

// TestDirectionPairs: the hand-written opposites of stop 20 (later):
// "shorten" against "extend" (WordNet pairs it with "lengthen" only),
// "shrink" against "expand", "worsen" against "boost", near the same word.
func TestDirectionPairs(t *testing.T) {
	tests := []struct {
		name, answer, source, says string
	}{
		{"shorten / extend", "The authors shortened the warranty period for all laptops.",
			"The authors extended the warranty period for all laptops last year.", `"extend"`},
		{"shrink / expand", "The company shrinks its network of stores in Europe.",
			"The company expanded its network of stores in Europe.", `"expand"`},
		{"worsen / boost", "The new cache worsens load times of the checkout page.",
			"The new cache gives a boost to load times of the checkout page.", `"boost"`},
		// Stop 21, second round: "reduce" against "increase".
		{"reduce / increase", "The new rota reduced overtime costs at both warehouses.",
			"Since March the new rota has increased overtime costs at both warehouses.", `"increas`},
		{"love / dislike", "In the survey most parents say they love early school starts for young pupils.",
			"In the survey most parents say they dislike early school starts for young pupils.", `"dislike"`},
		{"hate / like", "Our tenants hate the new parking rules near the main gate, the letter says.",
			"Our tenants like the new parking rules near the main gate, the letter says.", `"like"`},
		{"competition / collaboration", "The study finds that competition between rival labs speeds up vaccine research.",
			"The study finds that collaboration between rival labs speeds up vaccine research.", `"collaboration"`},
		{"competitive / cooperative", "The two startups are competitive on battery design, the founders told reporters.",
			"The two startups are cooperative on battery design, the founders told reporters.", `"cooperative"`},
		{"cooperate / compete", "Bees from the two hives cooperate for the same flowers in spring, the survey shows.",
			"Bees from the two hives compete for the same flowers in spring, the survey shows.", `"compete"`},
		{"compete / collaborate", "The two startups compete on battery design, the founders told reporters.",
			"The two startups collaborate on battery design, the founders told reporters.", `"collaborate"`},
		// Stop 26: "good" against "poor" (WordNet pairs "poor" with "rich").
		{"good / poor", "States must publish repair plans for bridges in good condition.",
			"For each bridge rated in poor condition, the State shall also publish any planned repair.", `"poor"`},
		{"increase / reduce", "Our scheduler aims to increase idle time on every line and cut waste.",
			"Our scheduler is built for reducing idle time on every line and cutting waste.", `"reduc`},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, Contradiction, r.Mismatch, "%+v", r)
			require.Len(t, r.Evidence, 1)
			require.Contains(t, r.Evidence[0].Reason, tt.says)
		})
	}
}

// TestNegatedOpposite: an opposite stands against a source word only
// under the same polarity: "without decreasing memory use" or "did not
// decrease" states no opposite of "increases memory use" (no antonym
// finding), while "without strengthening" contradicts "without
// weakening".
func TestNegatedOpposite(t *testing.T) {
	src := "The update increases memory use on older phones. It also fixes the camera app and adds a dark mode."
	tests := []struct {
		name, answer, source string
		opposite             bool
	}{
		{"without, against a plain word", "The update fixes the camera app and works on older phones without decreasing their memory use.", src, false},
		{"both negated", "Our lab tests show that the new frame holds heavy riders without strengthening the steel tubes.",
			"The new frame holds heavy riders without weakening the steel tubes, our lab tests show. Welding weakens the tubes.", true},
		{"both plain", "The update fixes the camera app and works on older phones by decreasing their memory use.", src, true},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			found := false
			for _, e := range r.Evidence {
				found = found || strings.Contains(e.Reason, "opposite") || strings.Contains(e.Reason, "where the source says")
			}
			require.Equal(t, tt.opposite, found, "%+v", r)
		})
	}
}

// TestCutRaise: "cut" against "raise" near the same words (stop 26); three
// letters, so it is the one short pair word read. Near misses: another
// short pair word ("old" where the source has "new"), "cut" with no word
// near it that the source has near "raising", and "cut" the source states.
func TestCutRaise(t *testing.T) {
	tests := []struct {
		name, answer, source string
		flagged              bool
	}{
		{"cut for raising", "The retailer cut its full-year sales guidance after the quarter.",
			"We are raising our full-year sales guidance to between $2.42 billion and $2.45 billion after the quarter.", true},
		{"raise for cut", "Ms. Kaur wants to raise fuel costs across her delivery vans.",
			"Kaur said she wants to cut fuel costs across her delivery vans this year.", true},
		{"old for new: not read", "Crews dug up old pipes on Main Street.",
			"Crews dug up pipes on Main Street last week. The city council later approved a new budget for parks.", false},
		{"cut near other words", "Staff cut the ribbon at the pool on Saturday.",
			"The mayor opened the pool on Saturday with a ribbon ceremony and a speech about the town's history and its volunteers. Separately, local parents are raising money for swimming lessons in July.", false},
		{"cut stated", "The board cut the budget and raised fees.",
			"The board cut the budget and raised fees for next year.", false},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if !tt.flagged {
				// A short answer may still be unsupported: no opposite.
				require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
				return
			}
			require.Equal(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
		})
	}
}

// TestFreePaid: "paid" against "free" before the same word (stop 26;
// heldout4_sales_call_3_5 of governance/eval/summedits_other,
// development); "paid" followed by a preposition is the verb ("paid for
// by a state grant" in a source of free buses), no opposite.
func TestFreePaid(t *testing.T) {
	pest := "We'd start with an inspection this Thursday, free of charge, and seal the entry points we find."
	bus := "Buses will be free for riders under 18 from September 1. A state grant covers the cost."
	tests := []struct {
		name, answer, source string
		flagged              bool
	}{
		{"a paid inspection", "Derek offered a paid inspection this Thursday to seal the entry points.", pest, true},
		{"paid for by", "Buses will be free for riders under 18 from September 1, paid for by a state grant.", bus, false},
		{"faithful free", "Derek offered a free inspection this Thursday to seal the entry points.", pest, false},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.flagged {
				require.Equal(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
				return
			}
			require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
		})
	}
}

// TestMonthMay: "May" inside a sentence is the month, though "may" is a
// stop word (stop 26; heldout6_qmsum_1_2 of governance/eval/summedits_other,
// development). Near misses: "May" opening a sentence, a source with
// "May" as a month too, a source naming no month, the verb in the source.
func TestMonthMay(t *testing.T) {
	src := "Chair: Let's do that. Staff will come back in March with a phased budget. You may bring questions."
	tests := []struct {
		name, answer, source string
		flagged              bool
	}{
		{"May for March", "Staff will return in May with a phased budget.", src, true},
		{"May opens the sentence", "May staff return with a phased budget? They will.", src, false},
		{"the source has the month", "Staff will return in May with a phased budget.", src + " The vote is in May.", false},
		{"no month in the source", "Staff will return in May with a phased budget.", "Staff will come back later with a phased budget.", false},
		{"faithful March", "Staff will return in March with a phased budget.", src, false},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.flagged {
				require.Equal(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
				require.Contains(t, r.Evidence[0].Reason, `"May"`)
				return
			}
			require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
		})
	}
}
