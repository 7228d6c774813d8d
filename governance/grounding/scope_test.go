package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDroppedNegation: a word the source states only under a negation,
// stated without one in an answer clause that shares two more words with
// the source sentence, is a contradiction; the near misses are not.
func TestDroppedNegation(t *testing.T) {
	chat := "Will: Well, I installed the apps, as it says on the box, but they don't work.\n" +
		"Maggie: Did you restart your computer before launching them?\nWill: No.\nMaggie: Try that then."
	paper := "Our method does not require labelled data for the target domain. It transfers features across domains."
	tests := []struct {
		name, answer, source, mismatch, word string
	}{
		{"the answer drops the chat's negation", "Will asks Maggie for help because the apps he installed are working fine.", chat, Contradiction, "working"},
		{"the answer drops the paper's negation", "We propose a simple domain adaptation approach for speech recognition, and it requires labelled data for the target domain.",
			paper, Contradiction, "labelled"},
		{"faithful: the answer keeps the negation", "Will asks Maggie for help because the apps he installed are not working.", chat, None, ""},
		{"faithful: negated by \"without\"", "The method works without labelled data for the target domain.", paper, None, ""},
		{"the source also states the word without negation", "The method requires labelled data for the source domain.",
			paper + " Training requires labelled data for the source domain.", None, ""},
		{"too few shared words: another matter", "Fred says the heating works again.", chat, None, ""},
		{"\"no\" before a number is no negation", "Bridget and Clare talk about holidays, and Bridget says Whitehaven Beach is her favourite place.",
			"Bridget: Whitehaven Beach is my no 1 place.\nClare: Mine too.\nBridget: Lovely.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, DroppedNegationConfidence); ok {
				require.True(t, strings.EqualFold(tt.word, e.AnswerText), "%+v", e)
				require.Contains(t, e.Reason, "only under a negation")
			}
		})
	}
}

// TestNewRestriction: "only", "solely", "exclusively", "merely" or "always"
// where the source states no restriction of that kind near the words it
// restricts is unsupported (a weak finding); the near misses are not.
func TestNewRestriction(t *testing.T) {
	chat := "Fred: Would you like to watch Metropolis with me tonight?\nHarry: Sure.\nJoyce: Count me in.\nFred: Great."
	tests := []struct {
		name, answer, source, word string
	}{
		{"only, new", "Fred invites Harry and Joyce to watch Metropolis, and only Joyce agrees.", chat, "only"},
		{"always, new", "Harry always watches Metropolis with Fred.", chat, "always"},
		{"faithful", "Fred invites Harry and Joyce to watch Metropolis, and both agree.", chat, ""},
		{"not only restricts nothing", "Fred invites not only Harry but also Joyce to watch Metropolis tonight.", chat, ""},
		{"the source restricts with just", "Only Joyce agrees to watch Metropolis.",
			"Fred: Would you like to watch Metropolis with me?\nHarry: Not tonight.\nJoyce: Just me then.\nFred: Great.", ""},
		// Stop 21, second round: a restriction elsewhere in the source
		// restricts something else.
		{"just, about something else", "Fred invites Harry and Joyce to watch Metropolis, and only Joyce agrees.",
			"Fred: I just got the film. Would you like to watch Metropolis tonight?\nHarry: Sure.\nJoyce: Count me in.\nFred: Great.", "only"},
		{"always, about something else", "On each request the parser always runs, then the filter.",
			"The cache is always warm after the nightly build of the index. On each request the parser runs, then the filter.", "always"},
		{"the source says always", "The filter always runs before the parser.", "The filter always runs first. The parser comes next.", ""},
		{"part of a word", "Fred lists the onlyfans of Metropolis.", chat, ""},
		// Stop 22: an upper bound restricts as "only" does.
		{"the source bounds the amount", "A small business concern may receive only 1 assessment under this section in any 2-year period.",
			"A small business concern may receive not more than 1 assessment under this section in any 2-year period.", ""},
		{"the source bounds another amount", "A small business concern may receive only 1 assessment under this section in any 2-year period.",
			"Development centers may receive grants of not more than $50,000 to train staff in cybersecurity. A small business concern may receive 1 assessment under this section in any 2-year period.", "only"},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.word == "" {
				for _, e := range r.Evidence {
					require.NotContains(t, e.Reason, "restricts the claim", "%+v", r)
				}
				return
			}
			require.Equal(t, Unsupported, r.Mismatch, "%+v", r)
			require.Equal(t, RestrictionConfidence, r.Confidence, "%+v", r)
			require.Len(t, r.Evidence, 1)
			e := r.Evidence[0]
			require.Equal(t, tt.word, strings.ToLower(e.AnswerText))
			require.Equal(t, tt.answer[e.AnswerSpan.Start:e.AnswerSpan.End], e.AnswerText)
		})
	}
}

// TestAddedNegation: a word the source never negates, negated in an answer
// clause that shares two more words with a source sentence holding it
// and no negation, is a contradiction, also where the source sentence
// sharing most words with the clause negates something else; the near
// misses are not.
func TestAddedNegation(t *testing.T) {
	paper := "Bias terms do not help performance in denoising networks. These analyses provide interpretations of the network."
	proxy := "Cached pages do not reduce latency on mobile networks. The proxy compresses images and combines small requests into one."
	kit := "The kit includes a charger and a case. It ships with a printed manual. A spare battery is included as well."
	tests := []struct {
		name, answer, source, mismatch, word string
	}{
		{"the answer negates what a plain sentence states", "Removing bias terms from denoising networks does not provide interpretations of the network.",
			paper, Contradiction, "provide"},
		{"a contraction", "Removing bias terms from denoising networks doesn't provide interpretations of the network.",
			paper, Contradiction, "provide"},
		{"faithful: no negation", "Removing bias terms from denoising networks provides interpretations of the network.", paper, None, ""},
		{"faithful: \"not only\" affirms", "Removing bias terms from denoising networks not only provides interpretations of the network but also speeds it up.",
			paper, None, ""},
		{"the source negates the word elsewhere", "Removing bias terms from denoising networks does not provide interpretations of the network.",
			paper + " Older analyses did not provide interpretations.", None, ""},
		{"the word's sentence has a negation", "Removing bias terms from denoising networks does not provide interpretations of the network.",
			"Bias terms do not help performance in denoising networks. These analyses provide interpretations of the network, not proofs.", None, ""},
		{"too few shared words: another matter", "The committee does not provide lunch.", paper, None, ""},
		// A negated verb takes its base form, which the stemmer keeps
		// whole ("combine") and cuts when inflected ("combines": "combin").
		{"the negated base form of an inflected source verb", "Caching on mobile networks does not combine small requests into one.",
			proxy, Contradiction, "combine"},
		{"faithful: the base form affirmed", "Caching on mobile networks combines small requests into one.", proxy, None, ""},
		{"the source negates the verb", "Caching on mobile networks does not combine small requests into one.",
			proxy + " It never combines large requests.", None, ""},
		// A short clause after "but" is read with its sentence.
		{"a short negated clause after a list", "The kit includes a charger, a case and a printed manual, but no spare battery.",
			kit, Contradiction, "spare"},
		{"faithful: the short clause affirms", "The kit includes a charger, a case and a printed manual, and a spare battery.", kit, None, ""},
		{"faithful: the source negates it too", "The kit includes a charger, a case and a printed manual, but no spare battery.",
			"The kit includes a charger and a case. It ships with a printed manual. No spare battery is included.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, AddedNegationConfidence); ok {
				require.True(t, strings.EqualFold(tt.word, e.AnswerText), "%+v", e)
				require.Contains(t, e.Reason, "which the source states without a negation")
			}
		})
	}
}

// TestBoundIsNoNegation: "not more than", "no later than", "not less than"
// state a limit, which an answer restates without a negation ("up to",
// "within", "at least"); a plain "not" before the same words still
// negates. Bills state most limits so.
func TestBoundIsNoNegation(t *testing.T) {
	bill := "The Administrator may award grants of not more than $50,000 to small business development centers to train staff. " +
		"Not later than 1 year after the date of enactment of this Act, the Secretary of Labor shall promulgate an interim standard to protect outdoor workers. " +
		"A State agency may use the funds to upgrade internet connections in public libraries to speeds of not less than 1 gigabit per second. " +
		"The Secretary shall carry out the pilot program at not fewer than 10 medical centers, of which at least 5 shall be located in rural areas."
	checkCases(t, []checkCase{
		{"not more than: up to", "The Administrator may award grants of up to $50,000 to small business development centers to train staff.", bill, None},
		{"not later than: within", "The Secretary of Labor must promulgate an interim standard within 1 year to protect outdoor workers.", bill, None},
		{"not less than: dropped negation check", "A State agency may use the funds to upgrade internet connections in public libraries to 1 gigabit per second.", bill, None},
		{"no fewer than: the bound word asked about", "The pilot program must run at no fewer than 10 medical centers, at least 5 of them rural.", bill, None},
		{"a real negation stays one", "The Administrator may not award grants to small business development centers to train staff.", bill, Contradiction},
	})
	for w, want := range map[string]bool{"not more than 5": true, "No later than May": true, "no fewer than ten": true, "not more": false, "no longer": false, "not less, but": false, "nothing more than": false,
		// Stop 26: the other comparatives of an amount, an age or a size.
		"not older than 66": true, "no younger than 18": true, "not higher than 1 percent": true, "not longer than 7 years": true, "no older": false} {
		i := strings.IndexByte(w, ' ')
		require.Equal(t, want, boundNo(w, 0, i), w)
	}
	// grammaticalNegation reads a bound past the end of its range: the
	// negation scope of "fewer" ends right before it.
	for _, tc := range []struct {
		text, upTo string
		want       bool
	}{
		{"at not fewer than 10 centers", "fewer", false},
		{"at no later than noon", "later", false},
		{"we did not go there", "go", true},
		{"at not fewer centers", "fewer", true},
	} {
		require.Equal(t, tc.want, grammaticalNegation(tc.text, 0, strings.Index(tc.text, tc.upTo)), tc.text)
	}
}

// TestNegationStated: in a chat, an answer clause that negates what the
// source negates in another turn than the one it aligns with is no
// contradiction; the same negation of other words still is, and prose is
// read as before.
func TestNegationStated(t *testing.T) {
	chat := "Rep (Nadia): We offer a power purchase agreement, where we own the panels and you buy the power at a fixed rate.\n" +
		"Prospect (Ken): And the cost?\n" +
		"Rep (Nadia): No upfront cost, but you save less over time."
	prose := strings.NewReplacer("Rep (Nadia): ", "", "Prospect (Ken): ", "", "\n", " ").Replace(chat)
	checkCases(t, []checkCase{
		{"the chat negates the same words", "Nadia explained that Ken could use a power purchase agreement with no upfront cost.", chat, None},
		{"the chat negates other words", "Nadia explained that Ken could use a power purchase agreement with no fixed rate.", chat, Contradiction},
		{"prose negates the same words (negationElsewhere)", "We offer a power purchase agreement, where you buy the power at a fixed rate with no upfront cost.", prose, None},
		{"prose negates other words", "We offer a power purchase agreement, where you buy the power with no fixed rate.", prose, Contradiction},
	})
}

// TestWithoutFlip: a word the answer has after "with" and the source only
// after "without" (or the reverse) is a contradiction; the same word after
// the same preposition, or after both in the source, is not. The answers
// join several source sentences, which the sentence check (it counts
// "without" as a negation) aligns with none.
func TestWithoutFlip(t *testing.T) {
	call := "Rep (Carlos): We also have an AI feature that suggests replies, but it is an add-on.\n" +
		"Prospect (Sandra): Okay. The team plan is $49 per agent per month?\n" +
		"Rep (Carlos): Yes, and there is a Shopify integration.\n" +
		"Prospect (Sandra): I would like to start the trial, but without the AI add-on for now.\n" +
		"Rep (Carlos): Perfect. I will set up the trial today."
	paper := "The method is trained with labelled data from the target domain. It reaches high accuracy on three benchmark sets. " +
		"The authors release the code and the trained models."
	tests := []struct {
		name, answer, source, mismatch, word string
	}{
		{"with for without", "The team plan costs $49 per agent per month with a Shopify integration, and Sandra will start the trial with the AI add-on.", call, Contradiction, "AI"},
		{"faithful", "The team plan costs $49 per agent per month with a Shopify integration, and Sandra will start the trial without the AI add-on.", call, None, ""},
		{"without for with", "The authors release the code and trained models of a method trained without labelled data from the target domain that reaches high accuracy on three benchmark sets.",
			paper, Contradiction, "labelled"},
		{"the source has both", "The authors release the code and trained models of a method trained without labelled data from the target domain that reaches high accuracy on three benchmark sets.",
			paper + " A variant is trained without labelled data from the target domain.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r.Evidence)
			if tt.word != "" {
				require.Equal(t, tt.word, r.Evidence[0].AnswerText, "%+v", r.Evidence)
			}
		})
	}
}

// TestNegatedNumber: an answer's negation whose clause has a number the
// source states in a negated clause is stated, though the negated words
// differ (stop 26; heldout4_billsum_2 of governance/eval/summedits_other,
// development). Near misses: the source's number in a clause without
// negation, and an answer number the source does not state.
func TestNegatedNumber(t *testing.T) {
	neg := "(b) Eligibility.--To be eligible for a grant under this section, a pharmacy shall--\n(1) be the only pharmacy within 15 miles; and\n(2) not be owned by a chain of more than 10 pharmacies."
	plain := "(b) Eligibility.--To be eligible for a grant under this section, a pharmacy shall--\n(1) be the only pharmacy within 15 miles; and\n(2) be owned by a chain of more than 10 pharmacies."
	ans := "A pharmacy qualifies if it is the only one within 15 miles and is not part of a chain of more than 10."
	c := New()
	// The answer's new words ("qualifies", "part") may leave it
	// unsupported: no contradiction is what is asked.
	r := c.Check(ans, neg)
	require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
	r = c.Check(ans, plain)
	require.Equal(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
	r = c.Check(strings.Replace(ans, "more than 10", "more than 12", 1), neg)
	require.Equal(t, Numeric, r.Mismatch, "%+v", r.Evidence)
}
