package secrets

import (
	"math/rand"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIdentifierAssignments: credential keywords at the end (or, for the
// entropy rule, anywhere) of a snake, kebab, dotted or camelCase
// identifier, as .env, YAML, JSON and source code write them, with quoted
// or unquoted values.
func TestIdentifierAssignments(t *testing.T) {
	tests := []struct {
		name, text, policy, value string
	}{
		{"env API_KEY", "API_KEY=a8f3k2j9x7q1m4n6b5v0c8z2l7p3r9t1", "secrets.high_entropy", "a8f3k2j9x7q1m4n6b5v0c8z2l7p3r9t1"},
		{"bare KEY", "KEY=a8f3k2j9x7q1m4n6b5v0c8z2l7p3r9t1", "secrets.high_entropy", "a8f3k2j9x7q1m4n6b5v0c8z2l7p3r9t1"},
		{"yaml api_key hex", "api_key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "secrets.high_entropy", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
		{"prose api key hex", "The API key is 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "secrets.high_entropy", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
		{"AUTH_TOKEN env", "AUTH_TOKEN=Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY", "secrets.high_entropy", "Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY"},
		{"kebab", "my-api-key: Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY", "secrets.high_entropy", "Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY"},
		{"dotted", "spring.datasource.secret-key=Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY", "secrets.high_entropy", "Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY"},
		{"oauth_token", "oauth_token=Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY&x=1", "secrets.high_entropy", "Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY"},
		{"camel apiKey unquoted", "apiKey: Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY", "secrets.high_entropy", "Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY"},
		{"camel stripeApiKey", "stripeApiKey = Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY", "secrets.high_entropy", "Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY"},
		{"db_password quoted", `db_password = "Tr0ub4dor&3xK9!qZ"`, "secrets.password_assignment", "Tr0ub4dor&3xK9!qZ"},
		{"password quoted", `password = "Xk9#mP2$vL7qR4t"`, "secrets.password_assignment", "Xk9#mP2$vL7qR4t"},
		{"DB_PASSWORD unquoted", "DB_PASSWORD=Tr0ub4dor&3xK9!qZ\nDB_HOST=db", "secrets.password_assignment", "Tr0ub4dor&3xK9!qZ"},
		{"yaml password unquoted", "database:\n  password: Tr0ub4dor&3xK9!qZ\n  user: app", "secrets.password_assignment", "Tr0ub4dor&3xK9!qZ"},
		{"camel dbPassword go", `dbPassword := "Tr0ub4dor&3xK9!qZ"`, "secrets.password_assignment", "Tr0ub4dor&3xK9!qZ"},
		{"client_secret unquoted", "client_secret: s3cr3tV4lu3Xy", "secrets.password_assignment", "s3cr3tV4lu3Xy"},
		{"CLIENT_SECRET json", `{"CLIENT_SECRET": "s3cr3tV4lu3Xy"}`, "secrets.password_assignment", "s3cr3tV4lu3Xy"},
		{"auth_token quoted short", `AUTH_TOKEN = "a1b2c3d4e5f6"`, "secrets.password_assignment", "a1b2c3d4e5f6"},
		{"x_api_key quoted", `x_api_key: 'Qm7vN2pL9xK4'`, "secrets.password_assignment", "Qm7vN2pL9xK4"},
		{"pwd in parens", "connect(user=app, pwd=Tr0ub4dor3xK9)", "secrets.password_assignment", "Tr0ub4dor3xK9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { requireOneHit(t, tt.text, tt.policy, tt.value) })
	}
}

// TestIdentifierLookAlikes: placeholders, references to where a secret is
// kept, and identifiers that merely contain a keyword stay quiet.
func TestIdentifierLookAlikes(t *testing.T) {
	for _, text := range []string{
		"API_KEY=your-api-key-here",
		"API_KEY=<your-api-key-here-please-fill>",
		"API_KEY=YOUR_API_KEY_GOES_HERE_12345",
		`password = "changeme"`,
		"password: changeme123",
		"DB_PASSWORD=${DB_PASSWORD}",
		"DB_PASSWORD=$DB_PASSWORD_FROM_VAULT1",
		"API_KEY=${API_KEY}",
		"API_KEY=<redacted>",
		"password: <redacted>",
		"password: [SECRET]",
		`api_key = os.environ["API_KEY"]`,
		`db_password = os.getenv("DB_PASSWORD2")`,
		"password: ********",
		"DB_PASSWORD=********",
		"password: {{ .Values.db.password }}",
		"password: process.env.DB_PASSWORD",
		"password = settings.DB_PASSWORD",
		"password = get_password1()",
		"password_reset_url: https://example.com/reset?id=Tr0ub4dor3xK9",
		"password: https://vault.internal/v1/secret/db2",
		"passwords: required",
		"The password: must be at least 12 characters.",
		"monkey: Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY",
		"hockey_stats=Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY",
		"tokenizer = 'bert-base-uncased-v2'",
		"token_url = 'https://auth.example.com/oauth2/token'",
		"cache_key = user_profile_settings_v2",
		"hash_key: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"sort_key: created_at_timestamp_desc",
	} {
		require.Empty(t, New().Scan(text, nil), text)
	}
}

// TestIdentMatchesEqualsFindAll: running the identifier rules from the
// identifiers that hold a gate finds exactly what FindAll of the whole
// pattern finds, on random texts of keywords (cut, case-flipped, with a
// Kelvin sign), separators, quotes and values, some longer than the window
// (identifier runs up to maxIdent: identMatches skips longer ones).
func TestIdentMatchesEqualsFindAll(t *testing.T) {
	type identRule struct {
		name       string
		need       valueNeed
		re, anchor *regexp.Regexp
		gates      []string
	}
	irs := []identRule{{"high_entropy", highEntropyNeed, highEntropyRE, highEntropyAnchored, highEntropyGate.gates}}
	for _, r := range rules {
		if r.ident {
			irs = append(irs, identRule{r.id, r.need, r.re, r.anchored, r.gates})
		}
	}
	require.Len(t, irs, 25)
	frags := []string{"discord", "DISCORD_BOT", "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs", "pagerduty", "PagerDuty", "u+abcDEFghi-ab-1x2y3", "vercel", "VERCEL", "mistral", "Mistral", "Zq8mW3nT5vB7xC2kL9pR4sD6", "cohere", "CO_API_KEY", "co_api_key", "Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aYq8mW3nT5", "datadog", "DataDog", "DATADOG", "mailgun", "mailchimp", "telegram", "Telegram", "okta", "o\u212Ata", "cloudflare", "heroku", "HEROKU",
		"twitter", "Twitter", "facebook", "FACEBOOK", "bitbucket", "dropbox", "hubspot", "netlify", "algolia", "zendesk", "snyk", "SNYK", "sentry", "Sentry",
		"1234567890123456|", "AAAAAAAAAAAAAAAAAAAAAA", "1234567890123456789-",
		"key-", "-us1", "123456789:", "AAH", "00", "9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
		"key", "Key", "KEY", "\u212Aey", "token", "Token", "secret", "Secret", "password", "Password", "PASSWORD",
		"pass", "pwd", "credentials", "auth", "bearer", "api", "Api", "access", "db", "my", "monkey", "is",
		"_", "-", ".", "=", ":", ":=", "=>", " ", "  ", "\t", "\n", `"`, "'", "`", ",", ";", "(", ")", "$", "{", "}", "<", "é",
		"a8f3k2j9x7q1m4n6", "Zq8mW3nT5vB7xC2k", "9f8e7d6c5b4a3928", "Tr0ub4dor&3xK9!", "+/", "==", "changeme", "Zq8mW3nT+/"}
	r := rand.New(rand.NewSource(5))
	var b strings.Builder
	for iter := range 8000 {
		b.Reset()
		for range r.Intn(24) {
			f := frags[r.Intn(len(frags))]
			if r.Intn(40) == 0 {
				f = strings.Repeat(f, 30+r.Intn(40)) // past identWindow
			}
			b.WriteString(f)
		}
		text := b.String()
		if longestIdentRun(text) > maxIdent {
			continue
		}
		for _, ir := range irs {
			want := ir.re.FindAllStringSubmatchIndex(text, -1)
			got := identMatches(text, ir.re, ir.anchor, ir.gates, ir.need, nil)
			require.Equal(t, want, got, "iter %d rule %s text %q", iter, ir.name, text)
		}
	}
}

func longestIdentRun(text string) int {
	best, run := 0, 0
	for i := 0; i < len(text); i++ {
		if identByte(text[i]) {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// TestIdentRulesStaySmall: the identifier rules run over every run of value
// bytes after a keyword, and RE2 carries one thread per program step: a
// counted repetition such as {8,200} is one step per count ("pwd=pwd=…"
// took 5.7 s per MiB with it). Their value lengths are bounded in Scan.
func TestIdentRulesStaySmall(t *testing.T) {
	res := []*regexp.Regexp{highEntropyRE}
	for _, r := range rules {
		if r.ident {
			res = append(res, r.re)
		}
	}
	for _, re := range res {
		parsed, err := syntax.Parse(re.String(), syntax.Perl)
		require.NoError(t, err)
		prog, err := syntax.Compile(parsed.Simplify())
		require.NoError(t, err)
		require.Less(t, len(prog.Inst), 500, "%s", re) // high_entropy, the largest, is 407
	}
}

// TestIdentMatchesBudget: past its budget of anchored runs, identMatches
// answers with the full pattern's matches, the same as on any other text.
func TestIdentMatchesBudget(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("pwd=", 4096),
		strings.Repeat("password: x ", 2048) + "db_password = Tr0ub4dor3xK9qZ\n",
		strings.Repeat("api_key: ", 2048) + "API_KEY=a8f3k2j9x7q1m4n6b5v0c8z2l7p3r9t1",
	} {
		require.Greater(t, strings.Count(text, "p")+strings.Count(text, "k"), identRunBudget(len(text)))
		for _, r := range rules {
			if r.ident {
				require.Equal(t, r.re.FindAllStringSubmatchIndex(text, -1), identMatches(text, r.re, r.anchored, r.gates, r.need, nil), r.id)
			}
		}
		require.Equal(t, highEntropyRE.FindAllStringSubmatchIndex(text, -1),
			identMatches(text, highEntropyRE, highEntropyAnchored, highEntropyGate.gates, highEntropyNeed, nil))
	}
	hits := New().Scan(strings.Repeat("password: x ", 2048)+"db_password = Tr0ub4dor3xK9qZ\n", nil)
	require.Len(t, hits, 1, "the secret after the flood is found")
}

// requireOneHit: text gives exactly one hit, of policy, whose first span
// is value.
func requireOneHit(t *testing.T, text, policy, value string) {
	t.Helper()
	hs := New().Scan(text, nil)
	require.Len(t, hs, 1, "%+v", hs)
	require.Equal(t, policy, hs[0].Policy)
	require.Equal(t, value, text[hs[0].Spans[0].Start:hs[0].Spans[0].End])
}
