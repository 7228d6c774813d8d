package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDirectionFlip: a number the source states only with the opposite
// direction word before it is a contradiction; the same direction, a
// negated bound that restates it, or a source number without one is not.
func TestDirectionFlip(t *testing.T) {
	call := "Our clear aligner business grew 14%, while equipment sales fell 9% because dental offices are delaying large purchases."
	bill := "The Secretary shall give priority to States in which students ride a bus for more than 45 minutes each way. A grant may not exceed $50,000 and shall be not more than $50,000 per school."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"rose for fell", "Clear aligner sales grew 14% while equipment sales rose 9%.", call, Contradiction, "9%"},
		{"up for down", "Equipment sales were up 9% as dental offices delayed large purchases.", call, Contradiction, "9%"},
		{"under for more than", "Priority goes to states whose students ride buses under 45 minutes each way.", bill, Contradiction, "45"},
		{"faithful: the same direction", "Equipment sales dropped 9% as dental offices delayed purchases.", call, None, ""},
		{"faithful: over for more than", "Priority goes to states whose students ride buses over 45 minutes each way.", bill, None, ""},
		{"faithful: up to for not more than", "Each school may get up to $50,000.", bill, None, ""},
		{"rose for a figure under the one it is compared with", "Adjusted earnings per share rose to $0.62.", "Adjusted earnings per share were $0.62, compared with $0.66 a year ago.", Contradiction, "$0.62"},
		{"faithful: fell for it", "Adjusted earnings per share fell to $0.62.", "Adjusted earnings per share were $0.62, compared with $0.66 a year ago.", None, ""},
		{"a source number without a direction", "Sales rose 5% this year.", "Sales were 5% higher than last year, at $2 million.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, DirectionConfidence); ok {
				require.Equal(t, tt.says, e.SourceText, "%+v", e)
			}
		})
	}
}

// TestDirectionBefore: the word read before a number, past the words
// between ("to about"), and a negated bound turned round.
func TestDirectionBefore(t *testing.T) {
	tests := []struct {
		text string
		want int8
	}{
		{"sales rose 9%", 1},
		{"take-up has risen to about 85 percent", 1},
		{"shipments were down 8%", -1},
		{"grants of up to 50", -1},
		{"not more than 50", -1},
		{"not less than 1", 1},
		{"at least 3", 1},
		{"rides under 45", -1},
		{"revenue, 9", 0},
		{"compared with 9", 0},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			// The number is the text's last run of digits.
			i := strings.LastIndexAny(tt.text, "0123456789")
			for i > 0 && isDigit(tt.text[i-1]) {
				i--
			}
			require.Equal(t, tt.want, directionBefore(tt.text, i))
		})
	}
}

// TestBeforeStatedNumber: an opposite of a source word right before an
// answer number the source states is read with that number, not against
// the source's word about something else (stop 26; heldout6_ectsum_3_1 of
// governance/eval/summedits_other, development: "revenue increased 21%"
// for "up 21%", the source's "reduced" is retail customers' seats). Near
// misses: a word between the opposite and the number (read as before: the
// rule's edge, still a false finding), and a number the source states
// with the other direction.
func TestBeforeStatedNumber(t *testing.T) {
	src := "Operator: Good afternoon and welcome to Castlegate Security's second quarter fiscal 2025 earnings call.\nOwen Marsh, CEO: Thank you. Total revenue was $184 million, up 21% year over year. Subscription revenue, which is now 87% of the total, grew 26%. We added 410 enterprise customers, bringing the total to 6,900.\nNet revenue retention was 118%, slightly below last quarter's 121% as some customers in retail reduced seats.\nLena Voss, CFO: Operating margin was 14%, up from 9% a year ago. Free cash flow was $38 million. For the full year we now expect revenue of $740 million to $750 million, up from our previous range of $725 million to $740 million.\nOwen Marsh, CEO: Our new cloud email product reached 500 customers in its first quarter."
	ans := "Castlegate Security's second-quarter revenue increased 21% to $184 million, with subscription revenue up 26%, and it added 410 enterprise customers. Net revenue retention eased to 118%, and it raised its full-year revenue outlook."
	tests := []struct {
		name, answer string
		flagged      bool
	}{
		{"change word before a stated number", ans, false},
		{"a word between: read as before", strings.Replace(ans, "increased 21% to $184 million", "increased to $184 million, up 21%", 1), true},
		{"the number with the other direction", strings.Replace(ans, "increased 21%", "fell 21%", 1), true},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, src)
			if tt.flagged {
				require.Equal(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
				return
			}
			require.Equal(t, None, r.Mismatch, "%+v", r.Evidence)
		})
	}
}
