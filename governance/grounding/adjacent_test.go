package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestComparativeFlip: a word after the opposite comparative to the
// source's, or after another ordinal, is a contradiction; the same word,
// or a source that has both, is not.
func TestComparativeFlip(t *testing.T) {
	src := "People who slept two hours later on weekends reported feeling more tired on Mondays."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"less for more", "People who slept in on weekends felt less tired on Mondays.", src, Contradiction, "more tired"},
		{"faithful: the same comparative", "People who slept in on weekends felt more tired on Mondays.", src, None, ""},
		{"another ordinal", "Fairfield Markets' third-quarter net sales rose.", "Welcome to the Fairfield Markets second quarter earnings call. Net sales rose.", Contradiction, "second quarter"},
		{"faithful: the same ordinal", "Fairfield Markets' second-quarter net sales rose.", "Welcome to the Fairfield Markets second quarter earnings call. Net sales rose.", None, ""},
		{"the source has both", "People who slept in felt less tired on Mondays.", src + " Others felt less tired.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, AntonymConfidence); ok {
				require.Equal(t, tt.says, e.SourceText, "%+v", e)
			}
		})
	}
}

// TestAdjacentAntonym: an answer word next to a word beside which the
// source has its antonym (and never it) is a contradiction, even when the
// source uses the word elsewhere; a negated source phrase, an adverb
// particle or a source that also has the answer's word there is not.
func TestAdjacentAntonym(t *testing.T) {
	knit := "For a first sweater I'd also pick a lighter colour, because dark yarn makes stitches hard to see."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"darker for lighter, dark elsewhere", "She recommends a darker colour for a first sweater.", knit, Contradiction, "lighter"},
		{"faithful: the source's word", "She recommends a lighter colour for a first sweater.", knit, None, ""},
		{"the source phrase is negated", "He says to start with cheap binoculars for the first year.", "Don't buy expensive binoculars until you know you'll keep at it. A cheap pair is fine for the first year.", None, ""},
		// Stop 26: every occurrence is tried, not only the word's first.
		{"second occurrence changed", "Net sales fell 3% as lower containerboard prices offset lower volumes.",
			"Net sales were $1.08 billion, down 3%, as lower prices for containerboard offset higher volumes.", Contradiction, "higher"},
		{"faithful: both occurrences stated", "Net sales fell 3% as lower containerboard prices offset lower volumes.",
			"Net sales were $1.08 billion, down 3%, as lower prices for containerboard offset lower volumes.", None, ""},
		{"an adverb beside a verb is a particle", "About 45 million a year would go back into public transport.", "Why should we go ahead? About 45 million a year would fund public transport. Come back to it next week.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, AntonymConfidence); ok {
				require.Equal(t, tt.says, e.SourceText, "%+v", e)
			}
		})
	}
}

// TestAdjacentBeforeStatedNumber: a word right before an answer number the
// source states is read with that number, not beside the source's
// opposite of another figure (stop 26; heldout6_ectsum_1_1 of
// governance/eval/summedits_other, development: "hardgoods sales fell 4%"
// beside the source's "Net sales rose 7%", its "fell 4%" elsewhere). Near
// miss: the same word before a value the source does not state is still
// read (here as a number).
func TestAdjacentBeforeStatedNumber(t *testing.T) {
	src := "Operator: Good morning and welcome to Pawline Pet Supply's third quarter 2024 earnings call.\nRachel Imoto, CEO: Thank you. Net sales rose 7% to $612 million, driven by our consumables business, which grew 11%. Comparable store sales increased 3.2%. Sales of hardgoods such as beds and toys fell 4% as customers held back on discretionary purchases.\nOur veterinary clinics continued to grow. We opened 14 new clinics in the quarter and now operate 186.\nMartin Kowal, CFO: Gross margin was 38.9%, up 60 basis points, helped by lower freight costs. Earnings per share were $0.41, compared with $0.36 a year ago. We are raising our full-year sales guidance to between $2.42 billion and $2.45 billion.\nRachel Imoto, CEO: We also launched our own-brand cat food in all stores in September."
	ans := "Pawline's third-quarter net sales climbed 7% to $612 million on 11% consumables growth, while hardgoods sales fell 4%. It opened 14 vet clinics, earnings per share were $0.41, and it lifted full-year sales guidance."
	c := New()
	r := c.Check(ans, src)
	require.Equal(t, None, r.Mismatch, "%+v", r.Evidence)
	r = c.Check(strings.Replace(ans, "sales fell 4%", "sales fell 9%", 1), src)
	require.NotEqual(t, None, r.Mismatch, "%+v", r.Evidence)
}
