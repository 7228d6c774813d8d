package secrets

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Stop 23: what gitleaks' own rule tests (governance/eval/gitleaksvectors)
// showed the rules did not read, and the examples they flagged.

// TestAssignmentSyntaxes: the syntaxes of gitleaks' GenerateSampleSecrets
// the identifier rules did not read: Make's "::=", ":::=" and "?=", PHP's
// ".=", a string type between the identifier and '=' (Go, TypeScript,
// Kotlin), a call's key and value (setProperty("KEY", "value")) and an XML
// element (vendor and entropy rules, whose values are not quoted).
func TestAssignmentSyntaxes(t *testing.T) {
	const tw = "o5v3r8je5dktagycnx9u9d1hs" // twitter_api_key's 25
	const pw = "Tr0ub4dor&3xK9!qZ"
	const he = "Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY"
	tests := []struct {
		name, text, policy, value string
	}{
		{"make ::= vendor", `TWITTER_TOKEN ::= "` + tw + `"`, "secrets.twitter_api_key", tw},
		{"make :::= vendor", `TWITTER_TOKEN :::= "` + tw + `"`, "secrets.twitter_api_key", tw},
		{"make ?= vendor", `TWITTER_TOKEN ?= "` + tw + `"`, "secrets.twitter_api_key", tw},
		{"make ?= password", `DB_PASSWORD ?= "` + pw + `"`, "secrets.password_assignment", pw},
		{"make ::= unquoted password", "DB_PASSWORD ::= " + pw + "\n", "secrets.password_assignment", pw},
		{"make ?= entropy", "API_TOKEN ?= " + he, "secrets.high_entropy", he},
		{"php .= vendor", `$twitterToken .= "` + tw + `"`, "secrets.twitter_api_key", tw},
		{"php .= no space", `$twitterToken.= "` + tw + `"`, "secrets.twitter_api_key", tw},
		{"php .= password", `$dbPassword .= "` + pw + `"`, "secrets.password_assignment", pw},
		{"php .= password no space", `$dbPassword.= "` + pw + `"`, "secrets.password_assignment", pw},
		{"go typed vendor", `var twitterToken string = "` + tw + `"`, "secrets.twitter_api_key", tw},
		{"go typed password", `var dbPassword string = "` + pw + `"`, "secrets.password_assignment", pw},
		{"ts annotation", `const apiToken: string = "a1b2c3d4e5f6"`, "secrets.password_assignment", "a1b2c3d4e5f6"},
		{"kotlin annotation", `val dbPassword: String = "` + pw + `"`, "secrets.password_assignment", pw},
		{"rust &str", `let api_key: &str = "a1b2c3d4e5f6";`, "secrets.password_assignment", "a1b2c3d4e5f6"},
		{"go typed entropy", `var authToken string = "` + he + `"`, "secrets.password_assignment", he},
		{"setProperty vendor", `System.setProperty("TWITTER_TOKEN", "` + tw + `")`, "secrets.twitter_api_key", tw},
		{"setenv password", `os.Setenv("DB_PASSWORD", "` + pw + `")`, "secrets.password_assignment", pw},
		{"getenv default", `os.getenv('API_TOKEN', 'a1b2c3d4e5f6')`, "secrets.password_assignment", "a1b2c3d4e5f6"},
		{"xml vendor", "<twitterToken>\n    " + tw + "\n</twitterToken>", "secrets.twitter_api_key", tw},
		{"xml entropy", "<apiToken>" + he + "</apiToken>", "secrets.high_entropy", he},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { requireOneHit(t, tt.text, tt.policy, tt.value) })
	}
}

// TestAssignmentSyntaxLookAlikes: the new separators and types take in no
// list of names, no other word before '=', no comparison.
func TestAssignmentSyntaxLookAlikes(t *testing.T) {
	for _, text := range []string{
		`scopes = ["access_token", "refresh_token", "id_token"]`,
		`secret name = "prod-db-credentials"`,
		`token expires = "2025-06-30T00:00:00"`,
		`if (password.length > 8) { return "too-long-password"; }`,
		`<label for="password">Password</label>`,
		"DB_PASSWORD ?= $(shell cat secret.txt)",
		`var apiToken string = os.Getenv("API_TOKEN")`,
	} {
		require.Empty(t, New().Scan(text, nil), text)
	}
}

// TestBacktickValues: a value in backticks (a Go raw string, a JavaScript
// template literal) is read as a quoted one, by password_assignment and by
// high_entropy; gitleaks' "{i}Token := `{s}`" caught 139 of 221 before.
func TestBacktickValues(t *testing.T) {
	const pw = "Tr0ub4dor&3xK9!qZ"
	const he = "Zq8mW3nT5vB7xC2kL9pR4sD6fG1hJ0aY"
	tests := []struct {
		name, text, policy, value string
	}{
		{"go raw token", "apiToken := `a1b2c3d4e5f6`", "secrets.password_assignment", "a1b2c3d4e5f6"},
		{"go raw password", "dbPassword := `" + pw + "`", "secrets.password_assignment", pw},
		{"js template secret", "const clientSecret = `" + pw + "`;", "secrets.password_assignment", pw},
		{"go typed raw", "var authToken string = `" + he + "`", "secrets.password_assignment", he},
		{"entropy raw", "signingKey := `" + he + "`", "secrets.high_entropy", he},
		{"entropy markdown span", "KEY: `" + he + "`", "secrets.high_entropy", he},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { requireOneHit(t, tt.text, tt.policy, tt.value) })
	}
}

// TestBacktickLookAlikes: Go struct tags, markdown code spans naming a
// field, placeholders and calls in backticks stay quiet.
func TestBacktickLookAlikes(t *testing.T) {
	for _, text := range []string{
		"Token string `json:\"token\"`",
		"APIKey string `json:\"api_key\" yaml:\"api_key\"`",
		"Password string `json:\"password,omitempty\" env:\"DB_PASSWORD\"`",
		"SecretKey []byte `json:\"secret_key\" validate:\"required\"`",
		"Set `token` to your own value; `api_key` is read from `API_KEY`.",
		"`password`: `********`",
		"password := `changeme`",
		"DB_PASSWORD := `xxxxxxxxxxxxxxxx`",
		"apiToken := `${API_TOKEN}`",
		"token := `{{ .Values.token }}`",
		"token := `os.Getenv(\"TOKEN\")`",
		"tokenPattern := `[A-Za-z0-9_]{32,}`",
		"query := `SELECT password FROM users WHERE token = ?`",
	} {
		require.Empty(t, New().Scan(text, nil), text)
	}
}

// TestGitleaksExamples: documentation's fillers in a vendor token's shape
// (gitleaks' false positives) are not secrets, and the real shapes next to
// them still are.
func TestGitleaksExamples(t *testing.T) {
	for _, text := range []string{
		"ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"github_pat_xxxxxxxxxxxxxxxxxxxxxx_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"glpat-XXXXXXXXXXX-XXXXXXXX",
		"key = AKIAXXXXXXXXXXXXXXXX",
		`apiKey: "AIzaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"`,
		"AIzaSyabcdefghijklmnopqrstuvwxyz1234567",
		"sk-ant-api03-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde-1234fghijklmnopby56aaaogaopaaaabc123xyzAA",
		`os.environ.get("HF_AUTH_TOKEN", "hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")`,
		"xoxb-12345-abcd234",
		"xoxb-abcdef-abcdef",
		"xoxb-xoxb-my-bot-token",
		`"token1": "xoxp-1234567890"`,
		`"token3": "xoxp-1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d"`,
		`"token4": "xoxp-572370529330-573807301142-572331691188-####################"`,
		"xoxe.xoxp-1-RANDOMSTRINGHERE",
		"-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----",
		"-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----",
		`const keyStr = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"`,
		`"secret_key" => sk_abcdefghijklmnopqrstuvwxyz123,`,
		`publicToken = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"`,
		`public_key = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"`,
		"foreignKey=1CWayS0NKNFrMkbVUWBEnKe9sZJerm",
		"issuerKeyHash=2LR9MWcN9LxUmIvQt8uffi1xrVtzjW",
		"csrf-token=Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxmiW9rhROG/Whikle15syazJOkrjJa3U2AbhIvUw==",
		"export OP_SERVICE_ACCOUNT_TOKEN=ops_eyJzaWduSW5BZGRyZXNzIjoiaHR0cHM6...",
		`String flutterwavePubKeyToken = "FLWPUBK_TEST-f008631fc19c7aca0291c2546c8afff6-X";`,
	} {
		require.Empty(t, New().Scan(text, nil), text)
	}
	for _, tt := range []struct{ text, policy string }{
		// AWS's documented example key is what users paste to see a block:
		// it stays a secret (gitleaks calls it a false positive).
		{"aws_access_key: AKIAIOSFODNN7EXAMPLE", "secrets.aws_access_key_id"},
		{"xoxb-1234567890-9876543210987-aB3dE5fG7hJ9kL1mN3pQ5rS7", "secrets.slack_token"},
		{"xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy", "secrets.slack_token"},
		{"xoxp-4142378390-4148743562-4160372349-4a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d", "secrets.slack_token"},
		{"xoxe.xoxp-1-" + strings.Repeat("Mi0yLTE4MTk", 15), "secrets.slack_token"},
		{"xoxe.xoxb-1-" + strings.Repeat("Mi0yLTE4MTk", 15), "secrets.slack_token"},
		{"xoxs-3206092076-3204538285-3743137121-836b042620", "secrets.slack_token"},
		{"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDAC4AWkdwKYSd8\nKs14IReLcYgADhoXk56ZzXI=\n-----END PRIVATE KEY-----", "secrets.private_key"},
		{"Twitter bearer: AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid%2BULvsea4JtiGRiSDSJSI%3DEUifiRBkKG5E2XzMDjRfl76ZC9Ub0wnz4XsNiRVBChTYbJcE3F", ""},
	} {
		hs := New().Scan(tt.text, nil)
		if tt.policy == "" {
			continue // only: no panic
		}
		require.Len(t, hs, 1, "%s: %+v", tt.text, hs)
		require.Equal(t, tt.policy, hs[0].Policy, tt.text)
	}
}

// TestBase64JWT: a JWT in standard base64 (padded or not, cut anywhere) is
// a jwt; base64 of other JSON, or of a single "eyJ…" part, is not.
func TestBase64JWT(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	std := base64.StdEncoding.EncodeToString([]byte(jwt))
	raw := base64.RawStdEncoding.EncodeToString([]byte(jwt + "x"))
	for _, text := range []string{
		"token: " + std,
		"JWT_B64=" + raw + "\n",
		std[:120],
		"apiVersion: v1\nkind: Secret\ndata:\n  token: " + std + "\n",
	} {
		hs := New().Scan(text, nil)
		require.Len(t, hs, 1, "%q: %+v", text, hs)
		require.Equal(t, "secrets.jwt", hs[0].Policy)
	}
	for _, text := range []string{
		base64.StdEncoding.EncodeToString([]byte(`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 and then some prose`)),
		base64.StdEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}.{"sub":"1234567890"}`)),
		"ZXlK" + strings.Repeat("ZXlK", 300),
	} {
		require.Empty(t, New().Scan(text, nil), text)
	}
}

// TestHTTPBasicAuth: Basic credentials in an Authorization header (decoded:
// "user:password") and curl's -u/--user, as gitleaks' curl-auth-header and
// curl-auth-user find them; an empty or placeholder password, a variable
// and base64 of other text are not credentials.
func TestHTTPBasicAuth(t *testing.T) {
	cred := base64.StdEncoding.EncodeToString([]byte("353b302c44574f56504568:286924697e615a672a"))
	for _, tt := range []struct{ text, value string }{
		{`curl -H "Authorization: Basic ` + cred + `" https://api.example.com`, cred},
		{"Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("admin:Tr0ub4dor&3")), base64.StdEncoding.EncodeToString([]byte("admin:Tr0ub4dor&3"))},
		{"curl --cacert ca.crt -u elastic:P@ssw0rd$1 https://localhost:9200", "elastic:P@ssw0rd$1"},
		{"curl --user kevin:'pRf7vG2h1L8nQkW9' -iX PATCH", "kevin:'pRf7vG2h1L8nQkW9"},
		{"$ curl https://api.dropbox.com/oauth2/token \\\n  --user c28wlsosanujy2z:qgsnai0xokrw4j1 --data grant_type=authorization_code", "c28wlsosanujy2z:qgsnai0xokrw4j1"},
		{"curl -s --user 'api:key-3ax6xnjp29jd6fds4gc373sgvjxteol0' https://api.mailgun.net/v3", "api:key-3ax6xnjp29jd6fds4gc373sgvjxteol0"},
		{"curl --user roger23@gmail.com:pQ9wTxu4Fg https://www.dropbox.com/cli_link -v", "roger23@gmail.com:pQ9wTxu4Fg"},
	} {
		hs := New().Scan(tt.text, nil)
		require.Len(t, hs, 1, "%q: %+v", tt.text, hs)
		require.Equal(t, "secrets.http_basic_auth", hs[0].Policy, tt.text)
		require.Equal(t, tt.value, tt.text[hs[0].Spans[0].Start:hs[0].Spans[0].End])
	}
	for _, text := range []string{
		"curl -H 'Authorization: Basic YnJvd3Nlcjo=' \\",
		"Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("user:password")),
		"Authorization: Basic <base64 of user:password>",
		"Basic authentication sends the credentials in every request.",
		"curl -u $USER:$PASSWORD https://example.com",
		"curl -u \"elastic:${ES_PASSWORD}\" https://localhost:9200",
		"curl -u user:password https://example.com",
		"git push -u origin main:release",
		"curl --user neo4j:[PASSWORD] http://[IP]:7474/db/data/",
		"curl -i -u 'test:test'",
		`curl --user "xxx:yyy"`,
		"curl -u <user:password> https://test.com/endpoint",
	} {
		require.Empty(t, New().Scan(text, nil), text)
	}
}
