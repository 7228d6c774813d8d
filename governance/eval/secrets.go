package eval

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/governance-gateway/gateway/governance/scan"
	"github.com/governance-gateway/gateway/governance/secrets"
)

// secretsCase is one labelled text of the project-written secrets corpus.
type secretsCase struct {
	text   string
	secret bool
}

// secretsPerFormat is how many credentials of each format the corpus holds.
const secretsPerFormat = 3

// secretsCorpus generates the corpus deterministically: format-correct FAKE
// credentials of each vendor inside varied prose and code (positives), and
// text that looks like credentials but is not (negatives). No real key.
func secretsCorpus() []secretsCase {
	r := rand.New(rand.NewPCG(7, 11))
	pick := func(alpha string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	}
	const (
		up    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		b32   = up + "234567"
		alnum = up + "abcdefghijklmnopqrstuvwxyz0123456789"
		hex   = "0123456789abcdef"
		b64   = alnum + "+/"
		lower = "abcdefghijklmnopqrstuvwxyz0123456789"
		url   = alnum + "_-"
	)
	secretsFmt := []func() string{
		func() string { return "AKIA" + pick(b32, 16) },
		func() string { return "aws_secret_access_key = " + pick(b64, 40) },
		func() string { return "ghp_" + pick(alnum, 36) },
		func() string { return "github_pat_" + pick(alnum+"_", 82) },
		func() string { return "glpat-" + pick(url, 20) },
		func() string {
			return "xoxb-" + pick("0123456789", 12) + "-" + pick("0123456789", 13) + "-" + pick(alnum, 24)
		},
		func() string {
			return "https://hooks.slack.com/services/T" + pick(up, 8) + "/B" + pick(up, 8) + "/" + pick(alnum, 24)
		},
		func() string { return "sk_live_" + pick(alnum, 24) },
		func() string { return "sk-ant-api03-" + pick(url, 93) + "AA" },
		func() string { return "sk-proj-" + pick(url, 48) + "T3BlbkFJ" + pick(url, 48) },
		func() string { return "AIza" + pick(url, 35) },
		func() string { return `"private_key_id": "` + pick(hex, 40) + `"` },
		func() string { return "AccountKey=" + pick(b64, 86) + "==" },
		func() string { return "SK" + pick(hex, 32) },
		func() string { return "SG." + pick(url, 22) + "." + pick(url, 43) },
		func() string { return "npm_" + pick(alnum, 36) },
		func() string { return "pypi-AgEIcHlwaS5vcmc" + pick(url, 60) },
		func() string {
			return "eyJhbGciOiJIUzI1NiJ9.eyJ" + pick(url, 30) + "." + pick(url, 43)
		},
		func() string {
			return "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + pick(b64, 64) + "\n" + pick(b64, 64) + "\n-----END RSA PRIVATE KEY-----"
		},
		func() string {
			return "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA" + pick(b64, 60) + "\n-----END OPENSSH PRIVATE KEY-----"
		},
		func() string { return "postgres://admin:" + pick(alnum, 14) + "@db.internal:5432/app" },
		func() string { return `password = "` + pick(alnum+"!#%", 16) + `"` },
		func() string { return `api_key: "` + pick(alnum, 32) + `"` },
		func() string { return "auth token is " + pick(alnum, 40) },
		func() string { return "shpat_" + pick(hex, 32) },
		func() string { return "dop_v1_" + pick(hex, 64) },
		func() string { return "lin_api_" + pick(alnum, 40) },
		func() string { return "PMAK-" + pick(hex, 24) + "-" + pick(hex, 34) },
		func() string { return "pul-" + pick(hex, 40) },
		func() string { return "dp.pt." + pick(alnum, 43) },
		func() string { return "dapi" + pick(hex, 32) },
		func() string { return "glc_" + pick(b64, 100) + "=" },
		func() string { return "glsa_" + pick(alnum, 32) + "_" + pick(hex, 8) },
		func() string { return "hvs." + pick(url, 95) },
		func() string { return pick(alnum, 14) + ".atlasv1." + pick(url, 67) },
		func() string { return "ATATT3" + pick(url, 186) },
		func() string { return `client_secret: "` + pick(alnum, 3) + "8Q~" + pick(alnum+"_~.-", 34) + `"` },
		func() string { return "sntryu_" + pick(hex, 64) },
		func() string { return "fo1_" + pick(url, 43) },
		func() string { return "AGE-SECRET-KEY-1" + pick("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58) },
		func() string { return "EAAA" + pick(url, 60) },
		func() string { return "sq0csp-" + pick(url, 43) },
		func() string { return "NRAK-" + pick(up+"0123456789", 27) },
		func() string { return "HRKU-AA" + pick(url, 58) },
		func() string { return "pplx-" + pick(alnum, 48) },
		func() string { return "xkeysib-" + pick(hex, 64) + "-" + pick(alnum, 16) },
		func() string { return "ntn_" + pick("0123456789", 11) + pick(alnum, 35) },
		func() string {
			return "https://discord.com/api/webhooks/1" + pick("0123456789", 17) + "/" + pick(url, 68)
		},
		func() string { return "GOCSPX-" + pick(url, 28) },
		func() string { return "gsk_" + pick(alnum, 52) },
		func() string { return "xai-" + pick(alnum, 80) },
		func() string { return "r8_" + pick(alnum, 37) },
		func() string { return "sbp_" + pick(hex, 40) },
		func() string { return "DATADOG_API_KEY=" + pick(hex, 32) },
		func() string { return "MAILGUN_API_KEY=key-" + pick(hex, 32) },
		func() string { return `mailchimp_api_key = "` + pick(hex, 32) + "-us" + pick("123456789", 1) + `"` },
		func() string { return "TELEGRAM_BOT_TOKEN=" + pick("0123456789", 10) + ":AA" + pick(url, 33) },
		func() string { return "OKTA_API_TOKEN=00" + pick(url, 40) },
		func() string { return "CLOUDFLARE_API_TOKEN=" + pick(url, 40) },
		func() string { return "CO_API_KEY=" + pick(alnum, 40) },
		func() string {
			return "HEROKU_API_KEY=" + pick(hex, 8) + "-" + pick(hex, 4) + "-" + pick(hex, 4) + "-" + pick(hex, 4) + "-" + pick(hex, 12)
		},
		func() string {
			// A Discord bot token without the vendor's name: base64 of a
			// snowflake user id (19 digits, no leading zero).
			id := pick("123456789", 1) + pick("0123456789", 18)
			return `bot.run("` + base64.RawStdEncoding.EncodeToString([]byte(id)) + "." + pick(url, 6) + "." + pick(url, 38) + `")`
		},
		func() string { return `-H "Authorization: Token token=` + pick(url+"+", 20) + `"` },
		func() string { return "vcp_" + pick(url, 50) + pick(alnum, 6) },
		func() string { return "sk-or-v1-" + pick(hex, 64) },
		func() string { return "LTAI" + pick(alnum, 20) },
		func() string { return "api_org_" + pick(up+"abcdefghijklmnopqrstuvwxyz", 34) },
		func() string { return "lsv2_sk_" + pick(hex, 32) + "_" + pick(hex, 10) },
		func() string { return "AWS_BEARER_TOKEN_BEDROCK=ABSKQmVkcm9ja0FQSUtleS0" + pick(b64, 128) + "=" },
		// Stop 22: the prefixed formats of gitleaks' defaults left out before.
		func() string {
			k := pick(up+"0123456789", 32)
			return "A3-" + k[:6] + "-" + k[6:17] + "-" + k[17:22] + "-" + k[22:27] + "-" + k[27:]
		},
		func() string { return "OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ" + pick(b64, 300) },
		func() string { return "p8e-" + pick(alnum, 32) },
		func() string { return "AKCp" + pick(alnum, 69) },
		func() string { return "cmVmd" + pick(alnum, 59) },
		func() string {
			return "sc_" + pick(lower, 12) + "." + pick(lower, 5) + ".acc_" + pick(lower, 20) + "." + pick(b64, 64)
		},
		func() string { return "4b1d" + pick(alnum, 38) },
		func() string { return "CLOJARS_" + pick(lower, 60) },
		func() string { return "v1.0-" + pick(hex, 24) + "-" + pick(hex, 146) },
		func() string { return "dnkey-" + pick(url, 26) + "-" + pick(url, 52) },
		func() string { return "duffel_live_" + pick(url, 43) },
		func() string { return "dt0c01." + pick(up+"0123456789", 24) + "." + pick(alnum, 64) },
		func() string { return "EZAK" + pick(alnum, 54) },
		func() string { return "EAAC" + pick(alnum, 160) },
		func() string { return "FLWSECK_TEST-" + pick(hex, 32) + "-X" },
		func() string { return "fio-u-" + pick(url, 64) },
		func() string { return "pat." + pick(url, 22) + "." + pick(alnum, 24) + "." + pick(alnum, 20) },
		func() string { return "ico-" + pick(alnum, 32) },
		func() string { return "s-s4t2af-" + pick(hex, 64) },
		func() string { return pick(alnum, 6) + "_" + pick(alnum, 29) + "_mmk" },
		func() string { return "API-" + pick(up+"0123456789", 26) },
		func() string { return "sha256~" + pick(url, 43) },
		func() string { return "pscale_tkn_" + pick(url, 43) },
		func() string { return "pnu_" + pick(alnum, 36) },
		func() string { return "rdme_" + pick(lower, 70) },
		func() string { return "rubygems_" + pick(hex, 48) },
		func() string { return "tk-us-" + pick(url, 48) },
		func() string { return "sm_aat_" + pick(alnum, 16) },
		func() string { return "shippo_test_" + pick(hex, 40) },
		func() string { return "sgp_" + pick(hex, 16) + "_" + pick(hex, 40) },
		func() string { return "tfp_" + pick(url, 59) },
		func() string {
			return "xoxo-" + pick("0123456789", 6) + "-" + pick("0123456789", 7) + "-" + pick("0123456789", 8) + "-" + pick(hex, 32)
		},
		func() string { return "sk_prod_" + pick(alnum, 24) },
		func() string { return "AIVEN_PASSWORD=AVNS_" + pick(alnum+"_", 24) },
		func() string {
			guid := func() string {
				return pick(hex, 8) + "-" + pick(hex, 4) + "-" + pick(hex, 4) + "-" + pick(hex, 4) + "-" + pick(hex, 12)
			}
			return "https://contoso.webhook.office.com/webhookb2/" + guid() + "@" + guid() + "/IncomingWebhook/" + pick(lower, 32) + "/" + guid()
		},
		func() string { return "TWITTER_CONSUMER_SECRET=" + pick(alnum, 50) },
		func() string { return `facebookAppSecret: "` + pick(hex, 32) + `"` },
		func() string { return "BITBUCKET_CLIENT_SECRET=" + pick(alnum, 32) },
		func() string { return "DROPBOX_TOKEN=" + pick(alnum, 11) + "AAAAAAAAAA" + pick(url, 43) },
		func() string {
			return "HUBSPOT_API_KEY=" + strings.ToUpper(pick(hex, 8)+"-"+pick(hex, 4)+"-"+pick(hex, 4)+"-"+pick(hex, 4)+"-"+pick(hex, 12))
		},
		func() string { return "NETLIFY_AUTH_TOKEN=" + pick(url, 43) },
		func() string { return "algolia_admin_key: " + pick(lower, 32) },
		func() string { return "ZENDESK_API_TOKEN=" + pick(alnum, 40) },
		func() string {
			return "SNYK_TOKEN=" + pick(hex, 8) + "-" + pick(hex, 4) + "-" + pick(hex, 4) + "-" + pick(hex, 4) + "-" + pick(hex, 12)
		},
		func() string { return "SENTRY_AUTH_TOKEN=" + pick(hex, 64) },
	}
	frames := []string{
		"Here is the config you asked for: %s",
		"export CRED=%s\nrun ./deploy.sh",
		"I found this in the logs: %s. Should I rotate it?",
		"```\n%s\n```",
		"The value was %s and it worked.",
	}
	var out []secretsCase
	for i, f := range secretsFmt {
		for j := 0; j < secretsPerFormat; j++ {
			out = append(out, secretsCase{fmt.Sprintf(frames[(i+j)%len(frames)], f()), true})
		}
	}
	negatives := []string{
		"The meeting is at 10am; bring the quarterly report.",
		"Request id 550e8400-e29b-41d4-a716-446655440000 failed with status 500.",
		"Fixed in commit 3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345 on main.",
		"sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"Set OPENAI_API_KEY to your key, e.g. sk-... (never commit it).",
		`api_key: "<YOUR_API_KEY>"`,
		`password = "changeme"`,
		"password: ${DB_PASSWORD}",
		"The token bucket refills at 100 tokens per second.",
		"Use a secret manager instead of hard-coding credentials.",
		"https://example.com/docs/api/authentication",
		"postgres://localhost:5432/app",
		"The answer is [SECRET] as redacted.",
		"func hash(key string) uint64 { return xxhash.Sum64String(key) }",
		"Our API key rotation policy is every 90 days.",
		"Monkey business: the keyboard key was stuck.",
		"data:image/png;base64,iVBORw0KGgo= is a tiny image",
		"The ISBN is 978-3-16-148410-0 and the price 12.99.",
		"ssh-rsa public keys are fine to share: ssh-rsa AAAAB3NzaC1yc2E user@host",
		"Authorization: Bearer <token>",
		"The DNA sequence ACGTACGTTAGCATCGATCGATCGATGCTAGCTAGCATCG was aligned.",
		"Version 2.14.3-beta.7+build.2201 is out.",
		"token = os.environ['API_TOKEN']",
		"secret: {{ .Values.secret }}",
		"Passwords must have at least 12 characters.",
		"AKIA is the prefix of AWS access keys; do not paste yours.",
		"The function returns a JWT; decode it with jwt.io.",
		"Call us at +1 415 555 0100 about billing.",
		"Paths like /usr/local/lib/python3.11/site-packages are normal.",
		"git checkout -b feature/token-refresh",
		"Shopify admin tokens start with shpat_ followed by 32 hex digits, e.g. shpat_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX.",
		"Create a personal token (it starts with dop_v1_) under API in the DigitalOcean panel.",
		"Set LINEAR_API_KEY=<your-linear-api-key> before running the sync.",
		"Our Berlin office hosts the adapter team; they adapt the dapi client weekly.",
		"Datadog shows p99 latency of 230 ms; datadog version: 7.50.1",
		"MAILGUN_DOMAIN=mg.example.com and MAILCHIMP_LIST=newsletter",
		"TELEGRAM_CHAT_ID=-1001234567890 receives the alerts from @deploy_bot.",
		"OKTA_DOMAIN=dev-123456.okta.com; CLOUDFLARE_ZONE=example.com",
		"Request id 9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0 was slow on Heroku.",
		"Vault tokens look like hvs.<token>; batch tokens start with hvb.",
		"The Q~ in an Azure client secret follows its fourth character.",
		"AGE-SECRET-KEY-1... is an age identity; share the age1... recipient instead.",
		"See https://discord.com/api/webhooks/<id>/<token> in the webhook docs.",
		"pull-request 4821 fixed the NRAK- prefix check and the ATATT3 parser.",
		"Groq keys begin with gsk_, xAI keys with xai-, Replicate tokens with r8_.",
		"COHERE_MODEL=command-r-plus-08-2024 answers in the cohere_region: eu-west-1",
		"Discord tokens look like MTIzNDU2Nzg5MDEyMzQ1Njc4.XXXXXX.XXXXXXXXXXXXXXXXXXXXXXXXXXX in the docs.",
		"Base64 of the string hello world: aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ.abcdef.ghijklmnopqrstuvwxyz0123456789 is no id.",
		"Rails reads Authorization: Token token=\"<your token>\" with authenticate_with_http_token.",
		"Vercel tokens now start with vcp_, vci_, vca_, vcr_ or vck_; the vcp_memory_write tool is blocked.",
		"OpenRouter keys begin with sk-or-v1- and Alibaba AccessKey IDs with LTAI; DELTAIRPORT is a code name.",
		"LangSmith keys (lsv2_pt_...) replaced the legacy ls__ keys; HF org tokens were api_org_....",
		"Bedrock API keys start with ABSKQmVkcm9ja0FQSUtleS (base64 of BedrockAPIKey-); set AWS_BEARER_TOKEN_BEDROCK=<your key>.",
		"A 1Password Secret Key looks like A3-XXXXXX-XXXXXX-XXXXX-XXXXX-XXXXX-XXXXX; keep yours in the Emergency Kit.",
		"Artifactory API keys start with AKCp and reference tokens with cmVmd; the OpenShift form is sha256~<43 characters>.",
		"Release v1.0-rc.1 of the Mexico-based team's worker; the cat sat. on the mat.",
		"Request 4b1d2c3e-5f60-4718-9a2b-3c4d5e6f7a8b was retried; see REST API-GATEWAY-ROUTES.",
		"Keys: Prefect pnu_..., ReadMe rdme_..., RubyGems rubygems_..., PlanetScale pscale_pw_<your-password>.",
		"Example Shippo key: shippo_test_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (not a real one).",
		"MaxMind license keys end in _mmk; the edition id is GeoLite2-City.",
		"Dynatrace tokens have the form dt0c01.<public part>.<secret part>; Scalingo's start with tk-us-.",
		"Hugs and kisses, xoxo-Jenny-and-the-whole-family",
		"Teams incoming webhooks look like https://<tenant>.webhook.office.com/webhookb2/<group>@<tenant>/IncomingWebhook/<id>/<owner>.",
		"Facebook page tokens begin with EAAM or EAAC; Duffel test keys with duffel_test_; Aiven passwords with AVNS_.",
		"TWITTER_HANDLE=governance_gw and FACEBOOK_APP_ID=1234567890123456 are public.",
		"SENTRY_DSN=https://4f1c2a9e8b7d6c5e4f3a2b1c0d9e8f7a@o1.ingest.sentry.io/1; snyk test --org=9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0",
		"NETLIFY_SITE_ID=9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0 and HUBSPOT_PORTAL_ID=1234567 go in netlify.toml.",
		"DROPBOX_FOLDER=/Apps/backup, ZENDESK_SUBDOMAIN=acme, ALGOLIA_APP_ID=ABCDE12345, BITBUCKET_WORKSPACE=my-team",
	}
	for _, n := range negatives {
		out = append(out, secretsCase{n, false})
	}
	return out
}

// Secrets measures the secrets scanner on the project-written corpus.
func Secrets() ([]Table, error) {
	s := secrets.New()
	corpus := secretsCorpus()
	row := Row{Label: secretsLabel(corpus), Target: "P>=0.95 R>=0.95"}
	var hits []scan.Hit
	var misses []string
	for _, c := range corpus {
		hits = s.Scan(c.text, hits[:0])
		got := false
		for _, h := range hits {
			got = got || h.Confidence >= 0.5
		}
		switch {
		case got && c.secret:
			row.TP++
		case got:
			row.FP++
			misses = append(misses, "FP: "+firstLine(c.text))
		case c.secret:
			row.FN++
			misses = append(misses, "FN: "+firstLine(c.text))
		default:
			row.TN++
		}
	}
	row.Pass = row.Precision() >= 0.95 && row.Recall() >= 0.95
	notes := []string{"No public labelled set ships with the datasets: this corpus is generated by the project (governance/eval/secrets.go) with fake, format-correct keys; it checks coverage and false alarms, it is not an independent benchmark."}
	if len(misses) > 0 {
		notes = append(notes, "Errors: "+strings.Join(misses, "; "))
	}
	gl, err := gitleaksTable()
	if err != nil {
		return nil, err
	}
	return []Table{{Category: "Secrets (project corpus)", Rows: []Row{row}, Notes: notes}, gl}, nil
}

// secretsLabel names the corpus by its counts (three credentials per
// format).
func secretsLabel(corpus []secretsCase) string {
	pos := 0
	for _, c := range corpus {
		if c.secret {
			pos++
		}
	}
	return fmt.Sprintf("project corpus (%d fake credentials of %d formats, %d look-alikes)", pos, pos/secretsPerFormat, len(corpus)-pos)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}
