package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/governance/scan"
)

func TestScan(t *testing.T) {
	set, err := Compile([]Spec{
		{Name: "codename", Kind: "keyword", Patterns: []string{"Project Falcon", "ÉCLAIR"}},
		{Name: "ticket", Kind: "regex", Patterns: []string{`JIRA-\d+`}, Severity: scan.SeverityLow},
		{Name: "weapons", Kind: "topic", Patterns: []string{"build a bomb"}},
		{Name: "digits", Kind: "regex", Patterns: []string{`[0-9]`}},
	})
	require.NoError(t, err)
	tests := []struct {
		text string
		want map[string][]string
	}{
		{"about project falcon and PROJECT FALCON.", map[string][]string{"custom.codename": {"project falcon", "PROJECT FALCON"}}},
		{"projectfalcon is not a match, nor Project Falconry", map[string][]string{}},
		{"un éclair au café", map[string][]string{"custom.codename": {"éclair"}}},
		{"see JIRA-12 and JIRA-7", map[string][]string{"custom.ticket": {"JIRA-12", "JIRA-7"}, "custom.digits": {"12", "7"}}},
		{"how to Build a Bomb?", map[string][]string{"topic.weapons": {"Build a Bomb"}}},
		// Touching matches are one span (a pattern matching every byte
		// listed each one apart).
		{"codes 4111 and 7", map[string][]string{"custom.digits": {"4111", "7"}}},
	}
	for _, tt := range tests {
		got := map[string][]string{}
		for _, h := range set.Scan(tt.text, nil) {
			for _, sp := range h.Spans {
				got[h.Policy] = append(got[h.Policy], tt.text[sp.Start:sp.End])
			}
			if h.Policy == "topic.weapons" {
				require.Empty(t, h.Placeholder)
			}
		}
		require.Equal(t, tt.want, got, tt.text)
	}
}

func TestRequiredLiteralGate(t *testing.T) {
	set, err := Compile([]Spec{{Name: "c", Kind: "regex", Patterns: []string{`(?i)confidential`, `acct-[0-9]{4}`, `x|y`}}})
	require.NoError(t, err)
	hs := set.Scan("a CONFIDENTIAL memo for ACCT-1234 and acct-9999, y", nil)
	require.Len(t, hs, 1)
	require.Len(t, hs[0].Spans, 3) // CONFIDENTIAL, acct-9999, y (regexps are case-sensitive unless (?i))
	require.Equal(t, "confidential", requiredLiteral(`(?i)confidential`))
	require.Equal(t, "acct-", requiredLiteral(`acct-[0-9]{4}`))
	require.Equal(t, "", requiredLiteral(`x|y`))
}

func TestCompileErrors(t *testing.T) {
	for _, specs := range [][]Spec{
		{{Name: "x", Kind: "regex", Patterns: []string{"("}}},
		{{Name: "x", Kind: "keyword", Patterns: []string{"  "}}},
		{{Name: "x", Kind: "nope", Patterns: []string{"a"}}},
		{{Name: "", Kind: "keyword", Patterns: []string{"a"}}},
		{{Name: "x", Kind: "keyword", Patterns: []string{strings.Repeat("a", MaxTotalPatternBytes+1)}}},
	} {
		_, err := Compile(specs)
		require.Error(t, err)
	}
}

func BenchmarkScan(b *testing.B) {
	var kws []string
	for i := range 50 {
		kws = append(kws, fmt.Sprintf("codename%d", i))
	}
	set, err := Compile([]Spec{
		{Name: "kw", Kind: "keyword", Patterns: kws},
		{Name: "re", Kind: "regex", Patterns: []string{`JIRA-\d+`, `INC\d{6}`, `acct-[0-9]{8}`, `(?i)confidential`, `ZX[0-9A-F]{10}`}},
	})
	require.NoError(b, err)
	text := strings.Repeat("We shipped the new billing flow today and nobody mentioned anything secret. ", 135)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	var dst []scan.Hit
	for b.Loop() {
		dst = set.Scan(text, dst[:0])
	}
}

func FuzzScan(f *testing.F) {
	set, _ := Compile([]Spec{{Name: "k", Kind: "keyword", Patterns: []string{"ß", "İstanbul", "ab"}}, {Name: "r", Kind: "regex", Patterns: []string{`a+b`}}})
	f.Add("İSTANBUL ab aab")
	f.Add("\xff\xfeab")
	f.Fuzz(func(t *testing.T, text string) {
		for _, h := range set.Scan(text, nil) {
			for _, sp := range h.Spans {
				if sp.Start < 0 || sp.Start >= sp.End || sp.End > len(text) {
					t.Fatalf("bad span %+v", sp)
				}
			}
		}
	})
}
