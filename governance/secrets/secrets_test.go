package secrets

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/governance/scan"
)

func TestScan(t *testing.T) {
	tests := []struct {
		name, text, policy, value string
	}{
		{"aws id", "key AKIAIOSFODNN7EXAMPLF here", "secrets.aws_access_key_id", "AKIAIOSFODNN7EXAMPLF"},
		{"github", "token ghp_" + strings.Repeat("a1B2", 9) + " ok", "secrets.github_token", "ghp_" + strings.Repeat("a1B2", 9)},
		{"stripe", "sk_live_" + strings.Repeat("Ab3", 8), "secrets.stripe_key", "sk_live_" + strings.Repeat("Ab3", 8)},
		{"pem", "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7\n-----END PRIVATE KEY-----", "secrets.private_key", ""},
		{"url creds", "dsn postgres://app:Zx9qLm2pQ7@db:5432/x", "secrets.basic_auth_url", "Zx9qLm2pQ7"},
		{"assignment", `password = "N7#kq2LmZp9x"`, "secrets.password_assignment", "N7#kq2LmZp9x"},
		{"entropy near keyword", "the auth token is 9fK2mQ7xL1pZ8vR4tY6wB3nC5hJ0sD", "secrets.high_entropy", "9fK2mQ7xL1pZ8vR4tY6wB3nC5hJ0sD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := New().Scan(tt.text, nil)
			require.Len(t, hs, 1, "%+v", hs)
			require.Equal(t, tt.policy, hs[0].Policy)
			require.Equal(t, Placeholder, hs[0].Placeholder)
			if tt.value != "" {
				require.Equal(t, tt.value, tt.text[hs[0].Spans[0].Start:hs[0].Spans[0].End])
			}
		})
	}
}

func TestNoFalseAlarms(t *testing.T) {
	for _, text := range []string{
		"commit 3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345",
		"id 550e8400-e29b-41d4-a716-446655440000",
		`api_key: "<YOUR_API_KEY>"`,
		`password = "changeme"`,
		"the monkey ate a banana",
		"Set OPENAI_API_KEY=sk-...",
	} {
		require.Empty(t, New().Scan(text, nil), text)
	}
}

func BenchmarkScan(b *testing.B) {
	prose := "We shipped the new billing flow today. Customers can now update their payment method from settings. "
	for _, n := range []int{2 << 10, 10 << 10} {
		text := strings.Repeat(prose, n/len(prose)) + " AKIAIOSFODNN7EXAMPLF"
		b.Run(map[int]string{2 << 10: "2KB", 10 << 10: "10KB"}[n], func(b *testing.B) {
			s := New()
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var dst []scan.Hit
			for b.Loop() {
				dst = s.Scan(text, dst[:0])
			}
		})
	}
}

// BenchmarkScanKeywordProse: prose dense with credential words opens every
// keyword gate; the identifier rules then run only where a match can be.
func BenchmarkScanKeywordProse(b *testing.B) {
	prose := "The key point: reset your password, rotate the API token and keep the secret in the vault; the monkey author had a hotkey. "
	text := strings.Repeat(prose, 10<<10/len(prose))
	s := New()
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	var dst []scan.Hit
	for b.Loop() {
		dst = s.Scan(text, dst[:0])
	}
}

func FuzzScan(f *testing.F) {
	f.Add("AKIAIOSFODNN7EXAMPLF")
	f.Add("-----BEGIN PRIVATE KEY-----\nabc")
	f.Add(`token = "` + strings.Repeat("\xff", 30) + `"`)
	s := New()
	f.Fuzz(func(t *testing.T, text string) {
		for _, h := range s.Scan(text, nil) {
			for _, sp := range h.Spans {
				if sp.Start < 0 || sp.Start >= sp.End || sp.End > len(text) {
					t.Fatalf("bad span %+v", sp)
				}
			}
		}
	})
}
