package secrets

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHiddenCharacters: a character a reader does not see (zero-width,
// other default-ignorable characters, controls) or a fullwidth form inside
// a token does not hide it; the span covers the original bytes.
func TestHiddenCharacters(t *testing.T) {
	tests := []struct{ text, policy, span string }{
		{"token ghp_aBcDeFgHiJkLm\u200bNoPqRsTuVwXyZ0123456789 ok", "secrets.github_token", "ghp_aBcDeFgHiJkLm\u200bNoPqRsTuVwXyZ0123456789"},
		{"token ghp_aBcDeFgHiJkLm\x00NoPqRsTuVwXyZ0123456789 ok", "secrets.github_token", "ghp_aBcDeFgHiJkLm\x00NoPqRsTuVwXyZ0123456789"},
		{"key AKIAIOSF\u2066ODNN7EXAMPLF ok", "secrets.aws_access_key_id", "AKIAIOSF\u2066ODNN7EXAMPLF"},
		{"key \uff21KIAIOSFODNN7EXAMPLF ok", "secrets.aws_access_key_id", "\uff21KIAIOSFODNN7EXAMPLF"},
		{"shop shpat_0f1e2d3c4b5a69788796\u200ba5b4c3d2e1f0 ok", "secrets.shopify_token", "shpat_0f1e2d3c4b5a69788796\u200ba5b4c3d2e1f0"},
		{"DATADOG_API_KEY=0f1e2d3c4b5a\u206069788796a5b4c3d2e1f0", "secrets.datadog_api_key", "0f1e2d3c4b5a\u206069788796a5b4c3d2e1f0"},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			hits := New().Scan(tt.text, nil)
			require.Len(t, hits, 1, "%+v", hits)
			require.Equal(t, tt.policy, hits[0].Policy)
			sp := hits[0].Spans[0]
			require.Equal(t, tt.span, tt.text[sp.Start:sp.End])
		})
	}
}
