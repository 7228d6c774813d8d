package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeywordSeparatorVariants: a phrase matches whatever runs of blanks,
// line breaks, Unicode spaces, hyphens or underscores join its words, and
// whatever invisible characters are slipped in; the span covers the
// original bytes, so a [REDACTED] rewrite removes all of them.
func TestKeywordSeparatorVariants(t *testing.T) {
	set, err := Compile([]Spec{
		{Name: "codename", Kind: "keyword", Patterns: []string{"project falcon"}},
		{Name: "weapons", Kind: "topic", Patterns: []string{"build-a  bomb"}},
		{Name: "word", Kind: "keyword", Patterns: []string{"falcon"}},
	})
	require.NoError(t, err)
	tests := []struct {
		name, text string
		want       map[string][]string
	}{
		{"one space", "The PROJECT Falcon launch", map[string][]string{"custom.codename": {"PROJECT Falcon"}, "custom.word": {"Falcon"}}},
		{"two spaces", "The PROJECT  Falcon launch", map[string][]string{"custom.codename": {"PROJECT  Falcon"}, "custom.word": {"Falcon"}}},
		{"newline", "project\nfalcon", map[string][]string{"custom.codename": {"project\nfalcon"}, "custom.word": {"falcon"}}},
		{"crlf and tab", "project\r\n\tfalcon!", map[string][]string{"custom.codename": {"project\r\n\tfalcon"}, "custom.word": {"falcon"}}},
		{"nbsp", "project\u00a0falcon", map[string][]string{"custom.codename": {"project\u00a0falcon"}, "custom.word": {"falcon"}}},
		{"narrow nbsp and ideographic space", "project\u202f\u3000falcon", map[string][]string{"custom.codename": {"project\u202f\u3000falcon"}, "custom.word": {"falcon"}}},
		{"hyphen", "project-falcon", map[string][]string{"custom.codename": {"project-falcon"}, "custom.word": {"falcon"}}},
		{"en dash", "project\u2013falcon", map[string][]string{"custom.codename": {"project\u2013falcon"}, "custom.word": {"falcon"}}},
		{"underscore", "PROJECT_FALCON", map[string][]string{"custom.codename": {"PROJECT_FALCON"}, "custom.word": {"FALCON"}}},
		{"mixed run", "project - _ falcon", map[string][]string{"custom.codename": {"project - _ falcon"}, "custom.word": {"falcon"}}},
		{"zero-width space inside a word", "pro\u200bject fal\u200ccon", map[string][]string{"custom.codename": {"pro\u200bject fal\u200ccon"}, "custom.word": {"fal\u200ccon"}}},
		{"zwj, soft hyphen, bom", "proj\u200dect\u00ad \ufefffalcon", map[string][]string{"custom.codename": {"proj\u200dect\u00ad \ufefffalcon"}, "custom.word": {"falcon"}}},
		{"invisible between words only", "project\u200bfalcon", map[string][]string{}},
		{"control characters inside a word", "pro\x00ject fal\x01con\x7f", map[string][]string{"custom.codename": {"pro\x00ject fal\x01con"}, "custom.word": {"fal\x01con"}}},
		{"c1 control, bidi isolate, variation selector", "proj\u0080ect\u2066 fal\ufe0fcon", map[string][]string{"custom.codename": {"proj\u0080ect\u2066 fal\ufe0fcon"}, "custom.word": {"fal\ufe0fcon"}}},
		{"trailing invisible not in span", "project falcon\u200b.", map[string][]string{"custom.codename": {"project falcon"}, "custom.word": {"falcon"}}},
		{"topic pattern with joiners", "how to BUILD A BOMB", map[string][]string{"topic.weapons": {"BUILD A BOMB"}}},
		{"topic in text with underscores", "build_a_bomb", map[string][]string{"topic.weapons": {"build_a_bomb"}}},
		{"still whole words", "projectfalcon, project falconry", map[string][]string{}},
		{"after a shift", "a  b\u00a0c project\u00a0\u00a0falcon and falcon", map[string][]string{"custom.codename": {"project\u00a0\u00a0falcon"}, "custom.word": {"falcon", "falcon"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string][]string{}
			for _, h := range set.Scan(tt.text, nil) {
				for _, sp := range h.Spans {
					got[h.Policy] = append(got[h.Policy], tt.text[sp.Start:sp.End])
				}
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// TestRegexGateSurvivesNormalisation: a regexp's required literal is
// checked against the normalised text, so literals with separators still
// open their gate.
func TestRegexGateSurvivesNormalisation(t *testing.T) {
	set, err := Compile([]Spec{{Name: "c", Kind: "regex", Patterns: []string{`acct-[0-9]{4}`, `(?i)top  secret`, `x_y_z`}}})
	require.NoError(t, err)
	for _, text := range []string{"ACCT-1 acct-1234", "a TOP  SECRET memo", "see x_y_z"} {
		require.Len(t, set.Scan(text, nil), 1, text)
	}
}
