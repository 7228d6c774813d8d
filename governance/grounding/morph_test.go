package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPrefixOppositeOfDerivation: an answer word made of a negative prefix
// and its WordNet antonym, a derivation of which the source has
// ("incorrect" where the source says "correctness"), is the opposite of
// the source's word; the near misses are not.
func TestPrefixOppositeOfDerivation(t *testing.T) {
	parser := "We measure the correctness of the parser output on every sentence of the corpus."
	tests := []struct {
		name, answer, source, says string
	}{
		{"negative prefix on a derivation", "The parser output is incorrect on every sentence of the corpus.", parser, "correctness"},
		{"faithful", "The parser output is checked for correctness on every sentence of the corpus.", parser, ""},
		// "information" looks prefixed but is no antonym of "formation",
		// whose derivation "form" the source has.
		{"a word that only looks prefixed", "The scheduler sends information about the jobs to the machines of the cluster.",
			"The scheduler sends a form about the jobs to the machines of the cluster.", ""},
		// "incorrect" with no derivation of "correct" in the source.
		{"no derivation in the source", "The parser output is incorrect on every sentence of the corpus.",
			"We measure the speed of the parser on every sentence of the corpus.", ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.says == "" {
				require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r)
				return
			}
			require.Equal(t, Contradiction, r.Mismatch, "%+v", r)
			require.Len(t, r.Evidence, 1)
			require.True(t, strings.HasSuffix(r.Evidence[0].Reason, "where the source says \""+tt.says+"\""), "%+v", r)
		})
	}
}

// TestNegativeVerbs: a verb that denies what follows it ("ignores",
// "lacks", "prevents", "denies", "hinders", "neglects") negates its
// clause as "fails" and "refuses" do, in prose; in a chat summary only
// grammatical negation counts (summaries report a "no" with such verbs).
func TestNegativeVerbs(t *testing.T) {
	paper := "We propose a method that extracts the uncertainties of features in each layer of the network and combines them for detection."
	chat := "Ann: Can you extract the features from each layer?\nBob: Sure, I'll extract them tonight.\nAnn: Great."
	tests := []struct {
		name, answer, source, mismatch string
	}{
		{"ignores", "We propose a method that ignores the uncertainties of features in each layer of the network.", paper, Contradiction},
		{"lacks", "The method lacks the uncertainties of features in each layer of the network.", paper, Contradiction},
		{"prevents", "The method prevents combining the uncertainties of features for detection.", paper, Contradiction},
		{"faithful", "We propose a method that extracts the uncertainties of features in each layer and combines them.", paper, None},
		{"the source says it too", "The method ignores the uncertainties of features in each layer of the network.",
			"The method ignores the uncertainties of features in each layer of the network and combines the rest.", None},
		// "decline" is a noun as often ("the decline and fall"): not a negation.
		{"decline is no negation", "The book covers the decline of the empire and its army.",
			"The book covers the decline of the empire and its army in the war.", None},
		{"chat summary: grammatical negation only", "Bob ignores Ann and extracts the features from each layer tonight.", chat, None},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.mismatch == None {
				require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r)
				return
			}
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			require.Contains(t, r.Evidence[0].Reason, "negates", "%+v", r)
		})
	}
}
