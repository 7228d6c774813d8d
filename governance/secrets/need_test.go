package secrets

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/governance/scan"
)

// TestValueNeedKeepsMatches: the assignment test (valueNeed.assigned) only
// skips identifiers the rule's regexp cannot match from, and the cursors
// only skip re-reading: identMatches still returns what FindAll of the
// whole pattern returns, and what it returned with the former test (a ':'
// or '=' within 72 bytes, every gate read anew), on generated assignments:
// every separator form, blanks of each kind up to past their bounds,
// quotes, values of each rule's alphabet cut short or not, keywords and
// values holding ſ and the Kelvin sign, and floods of one assignment.
func TestValueNeedKeepsMatches(t *testing.T) {
	idents := []string{"password", "db_password", "dbPassword", "PASSWORD", "pa\u017f\u017fword", "pwd", "secret", "client_secret", "token", "AUTH_TOKEN", "to\u212Aen", "api_key", "apiKey", "x-api-key", "access.key", "credentials",
		"passwd", "DB_PASSWD", "credential", "apikey", "API.KEY", "accesskey", "Access_Key", "aws-access-key", "dbPwd", "mySecret", "pass", "passwords", "my_tokens", "xpassword", "pass\u212Aey",
		"datadog_api_key", "DATADOG_APP_KEY", "mailgun_key", "mailchimp", "telegram_bot_token", "okta_token", "cloudflare_api_token", "HEROKU_API_KEY", "cohere", "CO_API_KEY", "my.datadog-key",
		"pagerduty_token", "VERCEL_TOKEN", "mistral_api_key", "DISCORD_BOT_TOKEN", "api_key.x", "password-", "tadog"}
	seps := []string{"=", ":", "=>", ":=", " = ", ": ", "\t:\t", " := ", "\n=\n", "==", ":>", "=:", strings.Repeat(" ", 31) + "=", strings.Repeat(" ", 33) + "=", "= " + strings.Repeat("\t", 33), "\f=\r", " ", ""}
	quotes := []string{"", `"`, "'", "`", `""`}
	values := []string{
		fake(hexChars, 32), fake(hexChars, 40), fake(hexChars, 31), strings.ToUpper(fake(hexChars, 32)),
		fake(alnumChars, 40), fake(alnumChars, 24), fake(alnumChars, 32), fake(urlChars, 37),
		"key-" + fake(hexChars, 32), fake(hexChars, 32) + "-us12", "123456789:AA" + fake(urlChars, 33),
		"00" + fake(urlChars, 40), "9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0", "Tr0ub4dor&3xK9!qZ", "short",
		"u+" + fake("abcdefghijklmnopqrstuvwxyz", 9) + "-ab-" + fake(hexChars, 5),
		"MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ." + fake(urlChars, 27),
		"\u212A" + fake(hexChars, 31), fake(hexChars, 20) + "\u017f" + fake(hexChars, 19), "é" + fake(alnumChars, 39),
		"password=", "(x)", "${X}", "<v>", "",
	}
	ends := []string{"", "\n", " ", ";", `"`, "'", ",", ")", "-", "x", "é"}
	type identRule struct {
		name       string
		rule       rule
		old, fresh valueNeed
	}
	var irs []identRule
	for _, r := range rules {
		if r.ident {
			irs = append(irs, identRule{r.id, r, valueNeed{kind: r.need.kind}, r.need})
		}
	}
	pick := func(r *rand.Rand, s []string) string { return s[r.Intn(len(s))] }
	r := rand.New(rand.NewSource(7))
	var b strings.Builder
	for iter := range 1500 {
		b.Reset()
		for range 1 + r.Intn(6) {
			unit := pick(r, idents) + pick(r, quotes[:3]) + pick(r, seps) + pick(r, quotes) + pick(r, values) + pick(r, quotes[:3]) + pick(r, ends)
			if r.Intn(12) == 0 {
				unit = strings.Repeat(unit, 2+r.Intn(40)) // a flood: many gates, one cursor
			}
			b.WriteString(unit)
			b.WriteString(pick(r, []string{" ", "\n", "", "; ", " and "}))
		}
		text := b.String()
		if longestIdentRun(text) > maxIdent {
			continue
		}
		for _, ir := range irs {
			want := ir.rule.re.FindAllStringSubmatchIndex(text, -1)
			require.Equal(t, want, identMatches(text, ir.rule.re, ir.rule.anchored, ir.rule.gates, ir.fresh, nil), "iter %d rule %s text %q", iter, ir.name, text)
			require.Equal(t, want, identMatches(text, ir.rule.re, ir.rule.anchored, ir.rule.gates, ir.old, nil), "iter %d rule %s (former test) text %q", iter, ir.name, text)
		}
	}
}

// TestNeedCursor: the cursors answer, for gates at increasing positions,
// what reading text[i:end] anew answers.
func TestNeedCursor(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	alphabet := []string{"a", "Z", "0", "+", "/", "_", "-", "é", " ", "=", ":", ".", "\n"}
	for range 3000 {
		var b strings.Builder
		for range r.Intn(300) {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		text := b.String()
		var cur needCursor
		end := 0
		for i := 0; i < len(text); i += 1 + r.Intn(12) {
			end = max(end, min(len(text), i+r.Intn(250))) // identMatches' ends never decrease
			wantRun := false
			run := 0
			for j := i; j < end && !wantRun; j++ {
				c := text[j]
				if isWord(c) || c == '+' || c == '/' || c == '-' || c >= 0x80 {
					run++
					wantRun = run >= 20
				} else {
					run = 0
				}
			}
			require.Equal(t, wantRun, cur.valueRun(text, i, end), "valueRun(%q, %d, %d)", text, i, end)
			require.Equal(t, strings.ContainsAny(text[i:max(i, end)], ":="), cur.sepBefore(text, i, max(i, end)), "sepBefore(%q, %d, %d)", text, i, end)
		}
		for _, l := range []longValue{unquotedRule().need.long, highEntropyNeed.long} {
			var cur needCursor
			for from := r.Intn(8); from < len(text); from += r.Intn(8) {
				want := from
				for want < len(text) && l.class[text[want]] && !(l.ascii && text[want] >= 0x80) {
					want++
				}
				if want < len(text) && l.ascii && text[want] >= 0x80 {
					want = -1
				}
				require.Equal(t, want, cur.classRunEnd(text, from, l), "classRunEnd(%q, %d)", text, from)
			}
		}
	}
}

func unquotedRule() rule {
	for _, r := range rules {
		if r.unquoted {
			return r
		}
	}
	panic("no unquoted rule")
}

// TestIdentifierFloodsSkipRegexp: in a flood of an identifier and a
// separator followed by no value of the rule's shape, no identifier gets
// to the regexp, so the flood never falls back to the full pattern.
func TestIdentifierFloodsSkipRegexp(t *testing.T) {
	for _, unit := range []string{"password=", "api_key: ", "datadog_api_key=", "secret := ", "token=>"} {
		text := strings.Repeat(unit, 4096)
		ran := 0
		for _, r := range rules {
			if !r.ident || r.unquoted {
				continue // the unquoted password rule takes "password=..." as a value
			}
			var cur needCursor
			for i := 0; i < len(text); i += len(unit) {
				if r.need.possible(text, i, i+strings.IndexAny(unit, ":= "), &cur) {
					ran++
				}
			}
		}
		require.Zero(t, ran, unit)
	}
}

// TestLongValuesEqualFindAll: a value running past identMatches' window,
// taken on by longValue.extend or redone by the regexp, is the value
// FindAll finds: unquoted values and entropy values of every length around
// the window, ended by each kind of byte (a terminator, a quote or bracket
// the unquoted pattern cannot end on, '=' runs, non-ASCII runes, the end).
func TestLongValuesEqualFindAll(t *testing.T) {
	unquoted := unquotedRule()
	heads := []string{"password=", "DB_PASSWORD: ", "pwd := ", "api_key=", "the auth token is ", "x password=Ab1"}
	fills := []string{"Ab1+/_-", "password=", "x", "é9", "\u212Ak1", "a=b"}
	ends := []string{"", " ", "\n", ",", ";", ")", "]", "}", `"`, "'", "`", "(", "<", ">", "{", "[", "=", "==", "===", "=x", "é", "\u212A", "\xff", " password=Zq8mW3nT5vB7xC2k"}
	for _, head := range heads {
		for _, fill := range fills {
			for _, n := range []int{505, 515, 600} {
				for _, end := range ends {
					value := strings.Repeat(fill, n/len(fill)+1)[:n]
					for _, text := range []string{head + value + end, "a " + head + value + end + " tail"} {
						if longestIdentRun(text) > maxIdent {
							continue
						}
						require.Equal(t, unquoted.re.FindAllStringSubmatchIndex(text, -1), identMatches(text, unquoted.re, unquoted.anchored, unquoted.gates, unquoted.need, nil), "unquoted %q", text)
						require.Equal(t, highEntropyRE.FindAllStringSubmatchIndex(text, -1), identMatches(text, highEntropyRE, highEntropyAnchored, highEntropyGate.gates, highEntropyNeed, nil), "entropy %q", text)
					}
				}
			}
		}
	}
}

// BenchmarkScanIdentFlood: 256 KiB of one assignment repeated, for the
// identifier rules (BenchmarkScanGateFlood repeats bare gates, which join
// into one identifier): each is a new identifier, and before stop 18 every
// one of them ran the rule's regexp until the run budget sent the whole
// text to the full pattern. "a_pwd=bc…(" is one unquoted value that the
// '(' keeps from ending: each gate in it used to read the rest of the
// text (17 s). Run with -benchtime 3x.
func BenchmarkScanIdentFlood(b *testing.B) {
	floods := []struct{ name, text string }{{"a_pwd=bc…(", strings.Repeat("a_pwd=bc", 32<<10) + "("}}
	// Stop 23's separators: a call's key and value, an XML element, Make's
	// "?=", a type before '=' and backtick-quoted values.
	for _, unit := range []string{"password=", "api_key: ", "datadog_api_key=", "secret := ", "pass=pass=pass ", `password="Zq8mW3nT5vB7xC2kL9pR4sD6fG`, "password: ", "password='Xk9#mP2q' ", `"API_TOKEN", "`, "<twitterToken>", "PASSWORD ?= ", "apiToken string = ", "apiToken := `", "token=`Xk9#mP2qZ` "} {
		floods = append(floods, struct{ name, text string }{strings.TrimSpace(unit), strings.Repeat(unit, (256<<10)/len(unit))})
	}
	for _, f := range floods {
		b.Run(f.name, func(b *testing.B) {
			s := New()
			b.SetBytes(int64(len(f.text)))
			for b.Loop() {
				s.Scan(f.text, nil)
			}
		})
	}
}

// TestAddHitRuns: searching each rule's run of hits finds an overlap
// exactly when reading every hit does.
func TestAddHitRuns(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for range 2000 {
		var dst []scan.Hit
		runs := []int{0}
		for k := range 1 + r.Intn(5) {
			if k > 0 && len(dst) > runs[len(runs)-1] {
				runs = append(runs, len(dst))
			}
			for p := r.Intn(20); p < 200; p += 1 + r.Intn(30) {
				en := p + 1 + r.Intn(10)
				dst = append(dst, scan.Hit{Spans: []scan.Span{{Start: p, End: en}}})
				p = en
			}
		}
		for range 20 {
			st := r.Intn(220)
			en := st + 1 + r.Intn(15)
			overlap := false
			for _, h := range dst {
				overlap = overlap || st < h.Spans[0].End && h.Spans[0].Start < en
			}
			got := addHit(dst, runs, "p", scan.SeverityHigh, 1, st, en)
			require.Equal(t, !overlap, len(got) == len(dst)+1, "runs %v hits %v span %d-%d", runs, dst, st, en)
		}
	}
}

// FuzzIdentMatches: on any text without an identifier run over maxIdent,
// every identifier rule's identMatches (its hand tests, cursors and value
// extension) returns what FindAll of its pattern returns.
func FuzzIdentMatches(f *testing.F) {
	f.Add("password = 'Xk9#mP2q' DATADOG_API_KEY=" + fake(hexChars, 32))
	f.Add(strings.Repeat("a_pwd=bc", 80) + "(")
	f.Add("to\u212Aen: \"Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY\"")
	f.Fuzz(func(t *testing.T, text string) {
		if longestIdentRun(text) > maxIdent {
			return
		}
		for _, r := range rules {
			if r.ident {
				require.Equal(t, r.re.FindAllStringSubmatchIndex(text, -1), identMatches(text, r.re, r.anchored, r.gates, r.need, nil), "%s %q", r.id, text)
			}
		}
		require.Equal(t, highEntropyRE.FindAllStringSubmatchIndex(text, -1), identMatches(text, highEntropyRE, highEntropyAnchored, highEntropyGate.gates, highEntropyNeed, nil), "high_entropy %q", text)
	})
}

// TestKeywordForms: the keyword forms valueNeed.ends tests are exactly
// the strings the rules' keyword alternations match (lower-cased).
func TestKeywordForms(t *testing.T) {
	for _, tt := range []struct {
		kws, forms []string
	}{{passwordKeywords, passwordKeywordForms}, {assignKeywords, assignKeywordForms}} {
		re, err := syntax.Parse(strings.Join(tt.kws, "|"), syntax.Perl)
		require.NoError(t, err)
		require.ElementsMatch(t, language(t, re.Simplify()), tt.forms)
	}
}

// language lists the strings of a finite regexp (literals, classes,
// concatenations, alternations, ?).
func language(t *testing.T, re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpEmptyMatch:
		return []string{""}
	case syntax.OpCharClass:
		var out []string
		for k := 0; k < len(re.Rune); k += 2 {
			for c := re.Rune[k]; c <= re.Rune[k+1]; c++ {
				out = append(out, string(c))
			}
		}
		return out
	case syntax.OpCapture:
		return language(t, re.Sub[0])
	case syntax.OpQuest:
		return append([]string{""}, language(t, re.Sub[0])...)
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			out = append(out, language(t, sub)...)
		}
		return out
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			var next []string
			for _, a := range out {
				for _, b := range language(t, sub) {
					next = append(next, a+b)
				}
			}
			out = next
		}
		return out
	}
	t.Fatalf("language: op %v", re.Op)
	return nil
}
