package pii

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/governance/scan"
)

func found(t *testing.T, text string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, h := range New().Scan(text, nil) {
		if h.Confidence >= 0.5 {
			out[h.Policy] = append(out[h.Policy], text[h.Spans[0].Start:h.Spans[0].End])
		}
	}
	return out
}

func TestScan(t *testing.T) {
	checkGeneral(t, []generalCase{
		{"email", "write to Jane.Doe+x@mail.example.co.uk today", map[string][]string{Email: {"Jane.Doe+x@mail.example.co.uk"}}},
		{"us phone", "call me at (555) 123-4567 ext. 12", map[string][]string{Phone: {"(555) 123-4567 ext. 12"}}},
		{"intl phone", "Tel: +44 20 7946 0958.", map[string][]string{Phone: {"+44 20 7946 0958"}}},
		{"french phone", "mobile 03.93.92.16.85", map[string][]string{Phone: {"03.93.92.16.85"}}},
		{"visa spaced", "card 4111 1111 1111 1111 exp 12/30", map[string][]string{CreditCard: {"4111 1111 1111 1111"}}},
		{"luhn invalid is no card", "card 4111 1111 1111 1112", map[string][]string{}},
		{"ssn", "my SSN is 123-45-6780", map[string][]string{USSSN: {"123-45-6780"}}},
		{"ssn invalid area 666", "SSN 666-45-6789", map[string][]string{}},
		{"ssn invalid area 9xx", "SSN 912-45-6789", map[string][]string{}},
		{"ssn group 00", "SSN 123-00-6789", map[string][]string{}},
		{"iban", "IBAN: DE89 3704 0044 0532 0130 00 please", map[string][]string{IBAN: {"DE89 3704 0044 0532 0130 00"}}},
		{"iban bad checksum", "IBAN: DE88 3704 0044 0532 0130 00", map[string][]string{}},
		{"ipv4", "login from 192.168.10.25 failed", map[string][]string{IPAddress: {"192.168.10.25"}}},
		{"ipv4 out of range", "from 300.1.2.3", map[string][]string{}},
		{"version is no ip", "upgrade to version 1.2.3.4 now", map[string][]string{}},
		{"ipv6", "host 2001:db8:85a3::8a2e:370:7334 is up", map[string][]string{IPAddress: {"2001:db8:85a3::8a2e:370:7334"}}},
		{"time is no ipv6", "at 12:30:45 sharp", map[string][]string{}},
		{"date is no phone", "born 1990-04-12 in Rome", map[string][]string{}},
		{"order number lowers", "order 555-123-4567 shipped", map[string][]string{}},
		{"street and zip are no phone", "lives at 17031 2202 Elm", map[string][]string{}},
		{"money is no phone", "it cost $1,234,567.00", map[string][]string{}},
	})
}

func TestPlaceholdersAndSeverity(t *testing.T) {
	hs := New().Scan("a@b.io 4111111111111111", nil)
	require.Len(t, hs, 2)
	require.Equal(t, "[EMAIL]", hs[0].Placeholder)
	require.Equal(t, "[CREDIT_CARD]", hs[1].Placeholder)
	require.Equal(t, scan.SeverityHigh, hs[1].Severity)
}

func benchText(n int) string {
	base := "Hello team, the customer (reach her at jane.doe@example.com or +1-415-555-0132) paid with card 4111 1111 1111 1111. " +
		"The release 2.4.1 went out on 2024-05-02 and the server at 10.0.3.17 restarted. Nothing else to report here. "
	return strings.Repeat(base, n/len(base)+1)[:n]
}

func BenchmarkScan(b *testing.B) {
	s := New()
	for _, n := range []int{2 << 10, 10 << 10} {
		text := benchText(n)
		b.Run(map[int]string{2 << 10: "2KB", 10 << 10: "10KB"}[n], func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var dst []scan.Hit
			for b.Loop() {
				dst = s.Scan(text, dst[:0])
			}
		})
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{"a@b.co", "+1 (555) 123-4567", "DE89 3704 0044 0532 0130 00", "::1", "4111-1111-1111-1111", "\xff\xfe1.2.3.4"} {
		f.Add(s)
	}
	s := New()
	f.Fuzz(func(t *testing.T, text string) {
		for _, h := range s.Scan(text, nil) {
			for _, sp := range h.Spans {
				if sp.Start < 0 || sp.Start >= sp.End || sp.End > len(text) {
					t.Fatalf("bad span %+v in %q", sp, text)
				}
				if utf8.ValidString(text) && (!utf8.RuneStart(text[sp.Start]) || sp.End < len(text) && !utf8.RuneStart(text[sp.End])) {
					t.Fatalf("span %+v splits a rune in %q", sp, text)
				}
			}
		}
	})
}

// TestHiddenCharacters: zero-width characters, soft hyphens and fullwidth
// forms do not hide an entity; the span covers the original bytes.
func TestHiddenCharacters(t *testing.T) {
	tests := []struct{ text, policy, span string }{
		{"mail bob\u200b@example.com now", Email, "bob\u200b@example.com"},
		{"mail bob@exam\u00adple.com now", Email, "bob@exam\u00adple.com"},
		{"mail bob\uff20example.com now", Email, "bob\uff20example.com"},
		{"card 4111\u200b1111\u200b1111\u200b1111 ok", CreditCard, "4111\u200b1111\u200b1111\u200b1111"},
		{"card \uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 ok", CreditCard, "\uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11"},
		{"\u201cquoted\u201d bob@example.com \u2014 done\u200b", Email, "bob@example.com"},
		// Other characters that render as nothing: bidi isolates, the
		// combining grapheme joiner, variation selectors, Hangul fillers, and
		// control characters (a browser drops NUL).
		{"mail bob\u2066@example.com\u2069 now", Email, "bob\u2066@example.com"},
		{"mail bob\u034f@example.com now", Email, "bob\u034f@example.com"},
		{"mail bob\ufe0f@example.com now", Email, "bob\ufe0f@example.com"},
		{"mail bob\u3164@example.com now", Email, "bob\u3164@example.com"},
		{"mail bob\x00@example.com now", Email, "bob\x00@example.com"},
		{"mail bob\x01@exa\x7fmple.com now", Email, "bob\x01@exa\x7fmple.com"},
		{"mail bob\u0080@example.com now", Email, "bob\u0080@example.com"},
		{"card 4111\x001111\x001111\x001111 ok", CreditCard, "4111\x001111\x001111\x001111"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			hits := New().Scan(tt.text, nil)
			require.Len(t, hits, 1)
			require.Equal(t, tt.policy, hits[0].Policy)
			sp := hits[0].Spans[0]
			require.Equal(t, tt.span, tt.text[sp.Start:sp.End])
		})
	}
}

// TestURLUserinfoIsNoEmail: the user (and password) of a URL before "@" is
// not an e-mail address; "mailto:" and "user:" prefixes keep theirs.
func TestURLUserinfoIsNoEmail(t *testing.T) {
	tests := []struct {
		text  string
		email bool
	}{
		{"postgres://admin:S3cr3tPass@db.internal:5432/app", false},
		{"https://bob@example.com/path", false},
		{"mailto:bob@example.com", true},
		{"user:bob@example.com", true},
		{"Contact: bob@example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			found := false
			for _, h := range New().Scan(tt.text, nil) {
				found = found || h.Policy == Email
			}
			require.Equal(t, tt.email, found)
		})
	}
}
