package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQuantifierChange: a universal quantifier on words the source
// quantifies only partially, or the reverse, is a contradiction; the near
// misses are not.
func TestQuantifierChange(t *testing.T) {
	study := "Human raters found that many of these generated translations lose meaning. Each model was trained for a week."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"all for many", "Raters found that all generated translations lose meaning.", study, Contradiction, "many"},
		{"every for many", "Raters found that every generated translation loses meaning.", study, Contradiction, "many"},
		{"some for each", "Some models were trained for a week.", study, Contradiction, "Each"},
		{"faithful", "Raters found that many generated translations lose meaning.", study, None, ""},
		{"not all is partial", "Raters found that not all generated translations keep their meaning.",
			"Human raters found that many of these generated translations do not keep their meaning.", None, ""},
		{"the source quantifies both ways", "All generated translations were rated.",
			"Many generated translations lose meaning, but all generated translations were rated.", None, ""},
		{"other words", "All raters were paid.", study, None, ""},
		{"after all", "Raters found that, after all, generated translations lose meaning.", study, None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, QuantifierConfidence); ok {
				require.True(t, strings.EqualFold(tt.says, e.SourceText), "%+v", e)
			}
		})
	}
}
