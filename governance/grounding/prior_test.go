package grounding

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPriorAsCurrent: a number the source gives only as the figure another
// is compared with, given by the answer as the current one, is a numeric
// mismatch naming the current figure; a summary that keeps the comparison,
// or a source that also states the value on its own, is not.
func TestPriorAsCurrent(t *testing.T) {
	call := "Net income was $38 million, or $0.91 per diluted share, compared with $0.84 last year. We had a net loss of $12 million, narrower than the $19 million loss a year ago."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"the prior figure as the current one", "Net income was $38 million, or $0.84 per diluted share.", call, Numeric, "$0.91"},
		{"after than", "The company had a net loss of $19 million.", call, Numeric, "$12 million"},
		{"faithful: the current figure", "Net income was $38 million, or $0.91 per diluted share.", call, None, ""},
		{"faithful: the comparison kept", "Earnings rose to $0.91 per diluted share from $0.84.", call, None, ""},
		{"faithful: dated as last year's", "Earnings per share were $0.84 last year.", call, None, ""},
		{"a bound is no comparison", "Rides last 45 minutes.", "Students ride a bus 30 minutes, or more than 45 minutes in rural districts.", None, ""},
		{"a range's start is no comparison", "Teams have 5 members.", "Teams grow from 5 to 10 members.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.mismatch == None {
				require.NotEqual(t, Numeric, r.Mismatch, "%+v", r) // short answers may be unsupported for other words
				return
			}
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			require.Equal(t, PriorConfidence, r.Confidence, "%+v", r)
			require.Len(t, r.Evidence, 1)
			require.Equal(t, tt.says, r.Evidence[0].SourceText)
		})
	}
}

// TestCountOfOther: a number the source lacks, right before a word that a
// source number of another value counts, or right after a word that one
// follows, is a numeric mismatch; a rate ("$320 per person") or a source
// that has the value is not.
func TestCountOfOther(t *testing.T) {
	call := "Prospect: Yes, six vans. Fuel is our second biggest cost. Rep: For three people I'd suggest a desk plan, $320 per person per month."
	course := "Professor: What if we do a group project, groups of four? That's 45 projects.\nLeo: That's manageable.\nProfessor: So: group projects of four, a rubric from Leo."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"sixteen for six", "Elena runs sixteen delivery vans and fuel is her second biggest cost.", call, Numeric, "six"},
		{"in words, hedged", "Hana fills about ten large jars of cabbage.", "HANA: I fill about two jars of cabbage a week.", Numeric, "two"},
		{"faithful: the source's count", "Elena runs six delivery vans and fuel is her second biggest cost.", call, None, ""},
		{"after the same word", "The staff chose group projects of six, with a rubric.", course, Numeric, "four"},
		{"faithful: after the same word", "The staff chose group projects of four, with a rubric.", course, None, ""},
		{"a rate counts nothing", "The rep suggested a desk plan for a five-person team.", call, None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.mismatch == None {
				require.NotEqual(t, Numeric, r.Mismatch, "%+v", r)
				return
			}
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			require.Equal(t, CountConfidence, r.Confidence, "%+v", r)
			require.Len(t, r.Evidence, 1)
			require.Equal(t, tt.says, r.Evidence[0].SourceText)
		})
	}
}
