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
