package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTimeUnitSwap: a unit of time the source never names, where it names
// another, is a contradiction; the near misses are not.
func TestTimeUnitSwap(t *testing.T) {
	email := "Our plans are billed annually. Sign up this week and get a free onboarding session with our team."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"quarterly for annually", "The plans are billed quarterly, with a free onboarding session.", email, Contradiction, "annually"},
		{"day for week", "Customers who sign up this day get a free onboarding session.", email, Contradiction, "week"},
		{"faithful: another form of the same unit", "The plans have an annual bill and a free onboarding session.", email, None, ""},
		{"the source names no unit", "The plans are billed monthly.", "Our plans are billed by usage. Sign up now.", None, ""},
		{"\"second\" is an ordinal as often", "Sign up for a second onboarding session.", email, None, ""},
		{"the number with its unit is the numeric check's", "The trial lasts 2 weeks.", "The trial lasts 14 days.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, TimeUnitConfidence); ok {
				require.True(t, strings.EqualFold(tt.says, e.SourceText), "%+v", e)
			}
		})
	}
}
