package grounding

import (
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
