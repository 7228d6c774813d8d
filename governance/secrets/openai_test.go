package secrets

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpenAIKeyShapes pins the OpenAI key rule's lengths, which its
// pattern leaves open and openAIKey checks (see there).
func TestOpenAIKeyShapes(t *testing.T) {
	alnum := func(n int) string { return fake("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789", n) }
	url := func(n int) string { return fake("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789_-", n) }
	tests := []struct {
		name, key string
		found     bool
	}{
		{"legacy 48", "sk-" + alnum(48), true},
		{"legacy 47", "sk-" + alnum(47), false},
		{"legacy 49", "sk-" + alnum(49), false},
		{"legacy with the marker", "sk-" + alnum(20) + "T3BlbkFJ" + alnum(20), true},
		{"marker early in 48", "sk-" + alnum(10) + "T3BlbkFJ" + alnum(30), true},
		{"project with the marker", "sk-proj-" + url(48) + "T3BlbkFJ" + url(48) + "x", true},
		{"marker 19 before", "sk-proj-" + url(19) + "T3BlbkFJ" + url(48) + "x", true}, // proj- is then part of the 20..200
		{"service account", "sk-svcacct-" + url(60) + "x", true},
		{"admin", "sk-admin-" + url(40) + "x", true},
		{"project too short", "sk-proj-" + url(30) + "x", false},
		{"project longer than 200", "sk-proj-" + url(240) + "x", true}, // all of it, not a prefix
		{"marker with too little after", "sk-" + alnum(15) + "-" + alnum(14) + "T3BlbkFJ" + alnum(10), false},
		{"marker with too little before", "sk-" + alnum(9) + "-" + alnum(9) + "T3BlbkFJ" + alnum(30), false},
		{"inside a word", "task-" + alnum(48), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "key: " + tt.key + " ok"
			var got []string
			for _, h := range New().Scan(text, nil) {
				got = append(got, h.Policy+" "+text[h.Spans[0].Start:h.Spans[0].End])
			}
			if tt.found {
				require.Equal(t, []string{"secrets.openai_api_key " + tt.key}, got)
				return
			}
			for _, g := range got {
				require.False(t, strings.HasPrefix(g, "secrets.openai_api_key"), g)
			}
		})
	}
}
