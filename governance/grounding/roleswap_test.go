package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRoleSwap(t *testing.T) {
	tests := []struct {
		name, source, answer, mismatch string
		// For a contradiction: the answer's word and the source's in its
		// place.
		said, was string
	}{
		{"who pays whom", "The landlord pays the plumber and the tenant pays the cleaner every month.",
			"The landlord pays the cleaner and the tenant pays the plumber every month.", Contradiction, "cleaner", "plumber"},
		{"input and output", "The encoder reads the input sentence and the decoder writes the output sentence.",
			"The encoder reads the output sentence and the decoder writes the input sentence.", Contradiction, "output", "input"},
		{"items of a list", "The model learns colours, shapes, and the names of objects from pictures alone.",
			"The model learns colours, objects, and the names of shapes from pictures alone.", Contradiction, "objects", "shapes"},
		{"across sentences", "Ann sends the invoice to Bob. Bob sends the receipt to Carla.",
			"Ann sends the receipt to Bob, and Bob sends the invoice to Carla.", Contradiction, "receipt", "invoice"},
		// Each word moves with its neighbours: the same statements.
		{"clauses reordered", "The landlord pays the plumber and the tenant pays the cleaner every month.",
			"Every month the tenant pays the cleaner and the landlord pays the plumber.", None, "", ""},
		{"list reordered", "The model learns colours, shapes, and the names of objects from pictures alone.",
			"From pictures alone, the model learns shapes, colours, and the names of objects.", None, "", ""},
		// A statement turned round its verb: no word has both its source
		// neighbours ("met" is symmetric; a passive says the same).
		{"turned round a symmetric verb", "On Monday the landlord met the plumber at the house.",
			"On Monday the plumber met the landlord at the house.", None, "", ""},
		// Nor round another verb: the lexicon does not tell the symmetric
		// ones, so this trade is missed.
		{"turned round a verb", "On Monday the landlord paid the plumber for the repair.",
			"On Monday the plumber paid the landlord for the repair.", None, "", ""},
		{"passive", "The landlord pays the plumber every month.",
			"The plumber is paid by the landlord every month.", None, "", ""},
		// Only one word changes place: no trade.
		{"one word moved", "The encoder reads the input sentence and the decoder writes the output sentence.",
			"The encoder reads the input sentence and the decoder writes the input sentence too.", None, "", ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r.Evidence)
			if tt.mismatch == None {
				return
			}
			requireSwapEvidence(t, r, tt.answer, tt.source, tt.said, tt.was)
		})
	}
}

// TestRoleSwapFlood: every answer word stands where the source has
// another, which the answer has elsewhere beside other words; the
// source occurrences visited are bounded (maxSwapPostings), so the check
// ends (no test of time) and finds no trade.
func TestRoleSwapFlood(t *testing.T) {
	answer := strings.Repeat("qa qb qc. qd qx qf. ", maxAnswerBytes/20)
	source := strings.Repeat("qa qx qc. qd qy qf. ", maxSourceBytes/20)
	r := New().Check(answer, source)
	require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
}
