package grounding

import (
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
