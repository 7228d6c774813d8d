package grounding

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFractionSwap: a fraction in words the source states as another
// (stop 26). Near misses: the same value, an ordinal ("a third party",
// "the third quarter", "the first half"), a mixed number ("two and a
// half"), a source without a fraction, and the source's loose "a fifth
// since August" that states the answer's value.
func TestFractionSwap(t *testing.T) {
	tests := []struct {
		name, answer, source string
		flagged              bool
	}{
		{"half for a fifth", "Households throw away about a half of the food they buy.",
			"Households throw away about a fifth of the food they buy, says dietitian Renee Solberg.", true},
		{"half an hour for a quarter", "She rubs her hands as if washing them for half an hour.",
			"It is an accustomed action with her, to seem thus washing her hands: I have known her continue in this a quarter of an hour.", true},
		{"two thirds for three quarters", "Two thirds of the members voted for the plan on Monday.",
			"Three quarters of the members voted for the plan on Monday evening.", true},
		{"same value", "About a fifth of the food goes to waste, she says.",
			"Households throw away about a fifth of the food they buy, she says.", false},
		{"loose source fraction states it", "Prices fell by about a fifth, and growers struggled.",
			"Wholesale prices had fallen by about a fifth since August, and growers struggled. Gala made up about half the harvest.", false},
		{"ordinal in the source", "About half of the members voted for the plan.",
			"A third party counted the votes: half of the members voted for the plan.", false},
		{"ordinal only", "About half of the members voted for the plan.",
			"A third party counted the votes of the members who voted for the plan.", false},
		{"period half", "Sales rose in the first half of the year, a third of them online.",
			"Sales rose in the first half of the year; a third of them were made online.", false},
		{"mixed number", "The hike takes two and a half hours, about a third of it uphill.",
			"The hike takes two and a half hours, about a third of it uphill, the ranger said.", false},
		{"no source fraction", "Half the staff work from home.",
			"Most of the staff work from home on Fridays.", false},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if !tt.flagged {
				require.NotEqual(t, Numeric, r.Mismatch, "%+v", r.Evidence)
				return
			}
			require.Equal(t, Numeric, r.Mismatch, "%+v", r.Evidence)
			require.Contains(t, r.Evidence[0].Reason, "but the source says")
		})
	}
}

// TestFractionsParse: the fractions read from lower-cased text.
func TestFractionsParse(t *testing.T) {
	tests := []struct {
		text string
		want [][2]int // num, den of the strict ones
	}{
		{"about a fifth of the food", [][2]int{{1, 5}}},
		{"a quarter of an hour", [][2]int{{1, 4}}},
		{"three quarters of them", [][2]int{{3, 4}}},
		{"half an hour and half the cost", [][2]int{{1, 2}, {1, 2}}},
		{"the third quarter", nil},
		{"the first half, the second half", nil},
		{"two and a half hours", nil},
		{"a third-quarter loss", nil},
		{"one thirds", nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			var got [][2]int
			for _, f := range fractions(tt.text, nil) {
				if !f.loose {
					got = append(got, [2]int{f.num, f.den})
				}
			}
			require.Equal(t, tt.want, got)
		})
	}
}
