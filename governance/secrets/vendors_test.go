package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	hexChars   = "0123456789abcdef"
	alnumChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64Chars   = alnumChars + "+/"
	urlChars   = alnumChars + "_-"
	bechChars  = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// fake returns n bytes drawn from alpha by a fixed seed: a value of the
// right shape and entropy that is no real key.
func fake(alpha string, n int) string {
	r := rand.New(rand.NewPCG(uint64(n), uint64(len(alpha))))
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return string(b)
}

// fakeSecret returns a secret of each new vendor format (a shape gitleaks'
// rule accepts), keyed by the test name.
var fakeSecrets = map[string]string{
	"shopify shpat":          "shpat_" + fake(hexChars, 32),
	"shopify shpss":          "shpss_" + fake(hexChars, 32),
	"digitalocean dop":       "dop_v1_" + fake(hexChars, 64),
	"digitalocean dor":       "dor_v1_" + fake(hexChars, 64),
	"linear":                 "lin_api_" + fake(alnumChars, 40),
	"postman":                "PMAK-" + fake(hexChars, 24) + "-" + fake(hexChars, 34),
	"pulumi":                 "pul-" + fake(hexChars, 40),
	"doppler":                "dp.pt." + fake(alnumChars, 43),
	"databricks":             "dapi" + fake(hexChars, 32),
	"databricks suffix":      "dapi" + fake(hexChars, 32) + "-2",
	"grafana cloud":          "glc_" + fake(b64Chars, 120) + "=",
	"grafana sa":             "glsa_" + fake(alnumChars, 32) + "_" + fake(hexChars, 8),
	"grafana legacy":         "eyJrIjoi" + fake(alnumChars, 80),
	"vault service":          "hvs." + fake(urlChars, 95),
	"vault batch":            "hvb." + fake(urlChars, 150),
	"terraform":              fake(alnumChars, 14) + ".atlasv1." + fake(urlChars, 64),
	"atlassian":              "ATATT3" + fake(urlChars, 186),
	"azure ad":               "aB3" + "8Q~" + fake(alnumChars+"_~.-", 34),
	"sentry user":            "sntryu_" + fake(hexChars, 64),
	"sentry org":             "sntrys_eyJpYXQiO" + fake(b64Chars, 30) + "LCJyZWdpb25fdXJs" + fake(b64Chars, 40) + "_" + fake(b64Chars, 43),
	"flyio fo1":              "fo1_" + fake(urlChars, 43),
	"flyio fm2":              "fm2_" + fake(b64Chars, 120),
	"age":                    "AGE-SECRET-KEY-1" + fake(bechChars, 58),
	"square EAAA":            "EAAA" + fake(urlChars, 60),
	"square sq0csp":          "sq0csp-" + fake(urlChars, 43),
	"new relic NRAK":         "NRAK-" + fake(upperAlnum, 27),
	"new relic NRJS":         "NRJS-" + fake(hexChars, 19),
	"new relic NRII":         "NRII-" + fake(alnumChars+"-", 32),
	"heroku HRKU":            "HRKU-AA" + fake(urlChars, 58),
	"perplexity":             "pplx-" + fake(alnumChars, 48),
	"brevo":                  "xkeysib-" + fake(hexChars, 64) + "-" + fake(alnumChars, 16),
	"notion":                 "ntn_" + fake("0123456789", 11) + fake(alnumChars, 35),
	"discord webhook":        "https://discord.com/api/webhooks/123456789012345678/" + fake(urlChars, 68),
	"google oauth":           "GOCSPX-" + fake(urlChars, 28),
	"groq":                   "gsk_" + fake(alnumChars, 52),
	"xai":                    "xai-" + fake(alnumChars, 80),
	"replicate":              "r8_" + fake(alnumChars, 37),
	"supabase":               "sbp_" + fake(hexChars, 40),
	"datadog api":            fake(hexChars, 32),
	"datadog app":            fake(hexChars, 40),
	"mailgun":                "key-" + fake(hexChars, 32),
	"mailchimp":              fake(hexChars, 32) + "-us21",
	"telegram":               "123456789:AA" + fake(urlChars, 33),
	"okta":                   "00" + fake(urlChars, 40),
	"cloudflare token":       fake(urlChars, 40),
	"cloudflare global key":  fake(hexChars, 37),
	"heroku uuid":            "9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0",
	"cohere":                 fake(alnumChars, 40),
	"gitlab runner":          "glrt-" + fake(urlChars, 20),
	"gitlab runner routable": "glrt-t3_" + fake(urlChars, 27) + "." + fake(lowerAlnum, 9),
	"gitlab deploy":          "gldt-" + fake(urlChars, 20),
	"gitlab feed":            "glft-" + fake(urlChars, 20),
	"gitlab scim":            "glsoat-" + fake(urlChars, 20),
	"gitlab feature flag":    "glffct-" + fake(urlChars, 20),
	"gitlab ci job":          "glcbt-" + fake(alnumChars, 5) + "_" + fake(urlChars, 20),
	"gitlab incoming mail":   "glimt-" + fake(urlChars, 25),
	"gitlab trigger":         "glptt-" + fake(hexChars, 40),
	"gitlab agent":           "glagent-" + fake(urlChars, 50),
	"gitlab oauth":           "gloas-" + fake(urlChars, 64),
	"gitlab runner reg":      "GR1348941" + fake(urlChars, 20),
	"gitlab session":         fake(lowerAlnum, 32),
	"slack app":              "xapp-1-A" + fake(upperAlnum, 10) + "-" + fake("0123456789", 13) + "-" + fake(hexChars, 64),
	"discord bot":            "MTk4NjIy" + fake(urlChars, 16) + "." + fake(urlChars, 6) + "." + fake(urlChars, 38),
	"pagerduty":              "u+" + fake(alnumChars[:52], 9) + "-" + fake("abcdefghijklmnopqrstuvwxyz", 2) + "-" + fake(lowerAlnum, 5),
	"vercel":                 fake(alnumChars, 24),
	"mistral":                fake(alnumChars, 32),
	"vercel vcp":             "vcp_" + fake(urlChars, 50) + fake(alnumChars, 6),
	"vercel vck":             "vck_" + fake(urlChars, 50) + fake(alnumChars, 6),
	"openrouter":             "sk-or-v1-" + fake(hexChars, 64),
	"alibaba":                "LTAI" + fake(alnumChars, 20),
	"huggingface org":        "api_org_" + fake(alnumChars[:52], 34),
	"langsmith":              "lsv2_pt_" + fake(lowerAlnum, 32) + "_" + fake(lowerAlnum, 10),
	"bedrock long-lived":     "ABSKQmVkcm9ja0FQSUtleS0" + fake(b64Chars, 110) + "=",
	"bedrock short-lived":    "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t" + fake(b64Chars, 400) + "==",
	// Stop 22: the prefixed formats of gitleaks' defaults left out before.
	"1password secret key":   "A3-" + dashed(fake(upperAlnum, 32), 6, 11, 5, 5, 5),
	"1password service":      "ops_eyJ" + fake(b64Chars, 300),
	"adobe":                  "p8e-" + fake(alnumChars, 32),
	"artifactory api key":    "AKCp" + fake(alnumChars, 69),
	"artifactory reference":  "cmVmd" + fake(alnumChars, 59),
	"authress":               "sc_" + fake(lowerAlnum, 10) + "." + fake(lowerAlnum, 5) + ".acc_" + fake(lowerAlnum, 20) + "." + fake(b64Chars, 60),
	"clickhouse":             "4b1d" + fake(alnumChars, 38),
	"clojars":                "CLOJARS_" + fake(lowerAlnum, 60),
	"cloudflare origin ca":   "v1.0-" + fake(hexChars, 24) + "-" + fake(hexChars, 146),
	"defined networking":     "dnkey-" + fake(urlChars, 26) + "-" + fake(urlChars, 52),
	"duffel":                 "duffel_test_" + fake(urlChars, 43),
	"dynatrace":              "dt0c01." + fake(upperAlnum, 24) + "." + fake(alnumChars, 64),
	"easypost":               "EZAK" + fake(alnumChars, 54),
	"easypost test":          "EZTK" + fake(alnumChars, 54),
	"facebook page":          "EAAM" + fake(alnumChars, 150),
	"flutterwave secret":     "FLWSECK_TEST-" + fake(hexChars, 32) + "-X",
	"flutterwave encryption": "FLWSECK_TEST-" + fake(hexChars, 12),
	"frameio":                "fio-u-" + fake(urlChars, 64),
	"harness pat":            "pat." + fake(urlChars, 22) + "." + fake(alnumChars, 24) + "." + fake(alnumChars, 20),
	"harness sat":            "sat." + fake(urlChars, 22) + "." + fake(alnumChars, 24) + "." + fake(alnumChars, 20),
	"infracost":              "ico-" + fake(alnumChars, 32),
	"intra42":                "s-s4t2ud-" + fake(hexChars, 64),
	"maxmind":                fake(alnumChars, 6) + "_" + fake(alnumChars, 29) + "_mmk",
	"octopus":                "API-" + fake(upperAlnum, 26),
	"openshift":              "sha256~" + fake(urlChars, 43),
	"planetscale tkn":        "pscale_tkn_" + fake(urlChars, 43),
	"planetscale pw":         "pscale_pw_" + fake(urlChars, 32),
	"prefect":                "pnu_" + fake(alnumChars, 36),
	"readme":                 "rdme_" + fake(lowerAlnum, 70),
	"rubygems":               "rubygems_" + fake(hexChars, 48),
	"scalingo":               "tk-us-" + fake(urlChars, 48),
	"settlemint":             "sm_pat_" + fake(alnumChars, 16),
	"shippo":                 "shippo_live_" + fake(hexChars, 40),
	"sourcegraph":            "sgp_" + fake(hexChars, 16) + "_" + fake(hexChars, 40),
	"sourcegraph legacy":     "sgp_" + fake(hexChars, 40),
	"typeform":               "tfp_" + fake(urlChars, 59),
	"slack legacy":           "xoxo-" + fake("0123456789", 6) + "-" + fake("0123456789", 7) + "-" + fake("0123456789", 8) + "-" + fake(hexChars, 32),
	"stripe prod":            "sk_prod_" + fake(alnumChars, 24),
}

// dashed joins the parts of s of the given lengths with '-'.
func dashed(s string, parts ...int) string {
	var out []string
	for _, n := range parts {
		out, s = append(out, s[:n]), s[n:]
	}
	return strings.Join(out, "-")
}

// TestVendorTokens: each new format is found, alone in a sentence or, for
// a value without a prefix, after an identifier naming the vendor; the
// span is the secret.
func TestVendorTokens(t *testing.T) {
	tests := []struct{ name, frame, policy string }{
		{"shopify shpat", "token %s ok", "secrets.shopify_token"},
		{"shopify shpss", "`%s`", "secrets.shopify_token"},
		{"digitalocean dop", "doctl auth init -t %s", "secrets.digitalocean_token"},
		{"digitalocean dor", "refresh: %s", "secrets.digitalocean_token"},
		{"linear", "Linear says %s", "secrets.linear_api_key"},
		{"postman", "x-api-key: %s", "secrets.postman_api_key"},
		{"pulumi", "pulumi login with %s", "secrets.pulumi_token"},
		{"doppler", "DOPPLER=%s", "secrets.doppler_token"},
		{"databricks", "host=x %s", "secrets.databricks_token"},
		{"databricks suffix", "%s.", "secrets.databricks_token"},
		{"grafana cloud", "glc %s end", "secrets.grafana_token"},
		{"grafana sa", "%s", "secrets.grafana_token"},
		{"grafana legacy", "Bearer %s", "secrets.grafana_token"},
		{"vault service", "VAULT=%s", "secrets.vault_token"},
		{"vault batch", "%s\n", "secrets.vault_token"},
		{"terraform", "credentials { token = %s }", "secrets.terraform_token"},
		{"atlassian", "jira %s", "secrets.atlassian_api_token"},
		{"azure ad", "AZURE=%s", "secrets.azure_ad_client_secret"},
		{"sentry user", "%s", "secrets.sentry_token"},
		{"sentry org", "SENTRY=%s", "secrets.sentry_token"},
		{"flyio fo1", "fly %s", "secrets.flyio_token"},
		{"flyio fm2", "fly %s", "secrets.flyio_token"},
		{"age", "# identity\n%s\n", "secrets.age_secret_key"},
		{"square EAAA", "square %s", "secrets.square_token"},
		{"square sq0csp", "square %s", "secrets.square_token"},
		{"new relic NRAK", "nr %s", "secrets.new_relic_key"},
		{"new relic NRJS", "nr %s", "secrets.new_relic_key"},
		{"new relic NRII", "insert key %s", "secrets.new_relic_key"},
		{"heroku HRKU", "heroku %s", "secrets.heroku_api_key"},
		{"perplexity", "PPLX=%s", "secrets.perplexity_api_key"},
		{"brevo", "%s", "secrets.brevo_api_key"},
		{"notion", "notion %s", "secrets.notion_token"},
		{"discord webhook", "post to %s now", "secrets.discord_webhook"},
		{"google oauth", "client secret %s", "secrets.google_oauth_client_secret"},
		{"groq", "GROQ=%s", "secrets.groq_api_key"},
		{"xai", "%s", "secrets.xai_api_key"},
		{"replicate", "export R=%s", "secrets.replicate_api_token"},
		{"supabase", "supabase login %s", "secrets.supabase_token"},
		{"datadog api", "DATADOG_API_KEY=%s", "secrets.datadog_api_key"},
		{"datadog app", `datadogAppKey: "%s"`, "secrets.datadog_api_key"},
		{"mailgun", "MAILGUN_API_KEY=%s", "secrets.mailgun_api_key"},
		{"mailchimp", `mailchimp_key = "%s"`, "secrets.mailchimp_api_key"},
		{"telegram", "TELEGRAM_BOT_TOKEN=%s", "secrets.telegram_bot_token"},
		{"okta", "okta.client.token: %s", "secrets.okta_api_token"},
		{"cloudflare token", "CLOUDFLARE_API_TOKEN=%s", "secrets.cloudflare_api_key"},
		{"cloudflare global key", "cloudflare_global_key: %s", "secrets.cloudflare_api_key"},
		{"heroku uuid", "HEROKU_API_KEY=%s", "secrets.heroku_api_key"},
		{"cohere", "CO_API_KEY=%s", "secrets.cohere_api_key"},
		{"gitlab runner", "gitlab-runner register --token %s", "secrets.gitlab_token"},
		{"gitlab runner routable", "token: %s", "secrets.gitlab_token"},
		{"gitlab deploy", "git clone https://gitlab+deploy-token:%s@gitlab.com/x.git", "secrets.gitlab_token"},
		{"gitlab feed", "feed %s.", "secrets.gitlab_token"},
		{"gitlab scim", "Bearer %s", "secrets.gitlab_token"},
		{"gitlab feature flag", "UNLEASH_INSTANCE_ID=%s", "secrets.gitlab_token"},
		{"gitlab ci job", "JOB-TOKEN: %s", "secrets.gitlab_token"},
		{"gitlab incoming mail", "mail %s", "secrets.gitlab_token"},
		{"gitlab trigger", "-F token=%s", "secrets.gitlab_token"},
		{"gitlab agent", "kas %s", "secrets.gitlab_token"},
		{"gitlab oauth", "secret: '%s'", "secrets.gitlab_token"},
		{"gitlab runner reg", "registration_token = %s", "secrets.gitlab_token"},
		{"gitlab session", "Cookie: _gitlab_session=%s; path=/", "secrets.gitlab_token"},
		{"slack app", "SLACK_APP_TOKEN=%s", "secrets.slack_token"},
		{"discord bot", "DISCORD_BOT_TOKEN=%s", "secrets.discord_bot_token"},
		{"pagerduty", `pagerduty_token: "%s"`, "secrets.pagerduty_api_key"},
		{"vercel", "VERCEL_TOKEN=%s", "secrets.vercel_token"},
		{"mistral", "MISTRAL_API_KEY=%s", "secrets.mistral_api_key"},
		{"vercel vcp", "vercel deploy --token %s", "secrets.vercel_token"},
		{"vercel vck", "AI_GATEWAY_API_KEY=%s", "secrets.vercel_token"},
		{"openrouter", "Authorization: Bearer %s", "secrets.openrouter_api_key"},
		{"alibaba", `access_key_id: "%s"`, "secrets.alibaba_access_key_id"},
		{"huggingface org", "HF %s", "secrets.huggingface_token"},
		{"langsmith", "LANGCHAIN_API_KEY=%s", "secrets.langsmith_api_key"},
		{"bedrock long-lived", "AWS_BEARER_TOKEN_BEDROCK=%s", "secrets.aws_bedrock_api_key"},
		{"bedrock short-lived", `bedrock_token = "%s"`, "secrets.aws_bedrock_api_key"},
		{"1password secret key", "Secret Key: %s", "secrets.onepassword_secret"},
		{"1password service", "OP_SERVICE_ACCOUNT_TOKEN=%s", "secrets.onepassword_secret"},
		{"adobe", "client_secret: %s", "secrets.adobe_client_secret"},
		{"artifactory api key", "X-JFrog-Art-Api: %s", "secrets.artifactory_token"},
		{"artifactory reference", "Bearer %s", "secrets.artifactory_token"},
		{"authress", "AUTHRESS_KEY=%s", "secrets.authress_access_key"},
		{"clickhouse", "key secret %s", "secrets.clickhouse_api_secret"},
		{"clojars", "CLOJARS_PASSWORD=%s", "secrets.clojars_api_token"},
		{"cloudflare origin ca", "X-Auth-User-Service-Key: %s", "secrets.cloudflare_origin_ca_key"},
		{"defined networking", "DN_API_KEY=%s", "secrets.defined_networking_token"},
		{"duffel", "Authorization: Bearer %s", "secrets.duffel_api_token"},
		{"dynatrace", "Api-Token %s", "secrets.dynatrace_api_token"},
		{"easypost", "EasyPost::Client.new(api_key: '%s')", "secrets.easypost_api_token"},
		{"easypost test", "%s", "secrets.easypost_api_token"},
		{"facebook page", "access_token=%s&fields=id", "secrets.facebook_access_token"},
		{"flutterwave secret", "FLW_SECRET_KEY=%s", "secrets.flutterwave_secret_key"},
		{"flutterwave encryption", "encryption %s.", "secrets.flutterwave_secret_key"},
		{"frameio", "frame.io %s", "secrets.frameio_api_token"},
		{"harness pat", "x-api-key: %s", "secrets.harness_api_key"},
		{"harness sat", "HARNESS=%s", "secrets.harness_api_key"},
		{"infracost", "INFRACOST_API_KEY=%s", "secrets.infracost_api_token"},
		{"intra42", "intra %s", "secrets.intra42_client_secret"},
		{"maxmind", "LicenseKey %s", "secrets.maxmind_license_key"},
		{"octopus", "X-Octopus-ApiKey: %s", "secrets.octopus_deploy_api_key"},
		{"openshift", "oc login --token=%s", "secrets.openshift_user_token"},
		{"planetscale tkn", "token %s.", "secrets.planetscale_token"},
		{"planetscale pw", "PLANETSCALE_PASSWORD=%s", "secrets.planetscale_token"},
		{"prefect", "PREFECT=%s", "secrets.prefect_api_token"},
		{"readme", "readme %s", "secrets.readme_api_token"},
		{"rubygems", "GEM_HOST=%s", "secrets.rubygems_api_token"},
		{"scalingo", "scalingo login --api-token %s", "secrets.scalingo_api_token"},
		{"settlemint", "%s", "secrets.settlemint_token"},
		{"shippo", "ShippoToken %s", "secrets.shippo_api_token"},
		{"sourcegraph", "SRC=%s", "secrets.sourcegraph_token"},
		{"sourcegraph legacy", "src %s", "secrets.sourcegraph_token"},
		{"typeform", "Typeform %s.", "secrets.typeform_api_token"},
		{"slack legacy", "slack %s", "secrets.slack_token"},
		{"stripe prod", "STRIPE=%s", "secrets.stripe_key"},
	}
	require.Len(t, tests, len(fakeSecrets))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secret := fakeSecrets[tt.name]
			require.NotEmpty(t, secret)
			text := strings.Replace(tt.frame, "%s", secret, 1)
			hs := New().Scan(text, nil)
			require.Len(t, hs, 1, "%q: %+v", text, hs)
			require.Equal(t, tt.policy, hs[0].Policy)
			require.Equal(t, secret, text[hs[0].Spans[0].Start:hs[0].Spans[0].End])
		})
	}
}

// TestVendorNearMisses: a value of the wrong length or alphabet, a prefix
// inside a word, a documentation placeholder, or a prefix-less value
// without its vendor's name does not fire the vendor rule.
func TestVendorNearMisses(t *testing.T) {
	s := func(name string) string { return fakeSecrets[name] }
	tests := []struct{ policy, text string }{
		{"shopify_token", "shpat_" + fake(hexChars, 31)},
		{"shopify_token", "shpat_" + fake(hexChars, 33)},
		{"shopify_token", "shpat_g" + fake(hexChars, 31)},
		{"shopify_token", "my" + s("shopify shpat")},
		{"shopify_token", "SHOPIFY_TOKEN=shpat_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"},
		{"shopify_token", "shpat_00000000000000000000000000000000"},
		{"digitalocean_token", "dop_v1_" + fake(hexChars, 63)},
		{"digitalocean_token", "dop_v2_" + fake(hexChars, 64)},
		{"digitalocean_token", "x" + s("digitalocean dop")},
		{"linear_api_key", "lin_api_" + fake(alnumChars, 39)},
		{"linear_api_key", "berlin_api_" + fake(alnumChars, 40)},
		{"linear_api_key", "lin_api_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"postman_api_key", "PMAK-" + fake(hexChars, 58)},
		{"postman_api_key", "PMAK-<your-postman-api-key>"},
		{"pulumi_token", "pul-" + fake(hexChars, 39)},
		{"pulumi_token", "pull-" + fake(hexChars, 40)},
		{"doppler_token", "dp.pt." + fake(alnumChars, 42)},
		{"doppler_token", "dp.pt.<your-token>"},
		{"databricks_token", "dapi" + fake(hexChars, 31)},
		{"databricks_token", "adapi" + fake(hexChars, 32)},
		{"databricks_token", "dapixxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"grafana_token", "glc_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"grafana_token", "glsa_" + fake(alnumChars, 32) + "_" + fake(hexChars, 7)},
		{"grafana_token", "eyJrIjoi" + fake(alnumChars, 60)},
		{"vault_token", "hvs." + fake(urlChars, 80)},
		{"vault_token", "hvs.<token>"},
		{"vault_token", "hvs." + fake(urlChars, 130)},
		{"terraform_token", fake(alnumChars, 14) + ".atlasv1." + fake(urlChars, 50)},
		{"terraform_token", fake(alnumChars, 13) + ".atlasv1." + fake(urlChars, 64)},
		{"atlassian_api_token", "ATATT3" + fake(urlChars, 100)},
		{"atlassian_api_token", "ATATT3xxxxxxxxxxxxxxxxxxxxxxxx"},
		{"azure_ad_client_secret", "aB38Q~" + fake(alnumChars, 20)},
		{"azure_ad_client_secret", "The Q~ operator"},
		{"sentry_token", "sntryu_" + fake(hexChars, 63)},
		{"sentry_token", "sntrys_eyJpYXQiO" + fake(b64Chars, 80) + "_" + fake(b64Chars, 43)},
		{"flyio_token", "fo1_" + fake(urlChars, 42)},
		{"flyio_token", "fm2_" + fake(b64Chars, 50)},
		{"age_secret_key", "AGE-SECRET-KEY-1" + fake(bechChars, 57)},
		{"age_secret_key", "AGE-SECRET-KEY-1" + strings.Repeat("b", 58)},
		{"age_secret_key", "AGE-SECRET-KEY-1" + strings.Repeat("X", 58)},
		{"square_token", "EAAA" + fake(urlChars, 10)},
		{"square_token", "sq0csp-" + fake(urlChars, 42)},
		{"new_relic_key", "NRAK-" + fake(upperAlnum, 26)},
		{"new_relic_key", "NRAK-XXXXXXXXXXXXXXXXXXXXXXXXXXX"},
		{"new_relic_key", "NRII-" + fake(alnumChars, 33)},
		{"heroku_api_key", "HRKU-AA" + fake(urlChars, 57)},
		{"heroku_api_key", "request_id=" + s("heroku uuid")},
		{"heroku_api_key", "HEROKU_API_KEY=<your-heroku-api-key>"},
		{"perplexity_api_key", "pplx-" + fake(alnumChars, 47)},
		{"brevo_api_key", "xkeysib-" + fake(hexChars, 64)},
		{"notion_token", "ntn_" + fake(alnumChars, 46)},
		{"discord_webhook", "https://discord.com/api/webhooks/<id>/<token>"},
		{"google_oauth_client_secret", "GOCSPX-" + fake(urlChars, 27)},
		{"groq_api_key", "gsk_" + fake(alnumChars, 51)},
		{"xai_api_key", "xai-" + fake(alnumChars, 79)},
		{"replicate_api_token", "r8_" + fake(alnumChars, 36)},
		{"supabase_token", "sbp_" + fake(hexChars, 39)},
		{"datadog_api_key", "api_key=" + s("datadog api")},
		{"datadog_api_key", "DATADOG_API_KEY=" + fake(hexChars, 31)},
		{"datadog_api_key", "datadog version: 7.50.1"},
		{"mailgun_api_key", "MAILGUN_DOMAIN=mg.example.com"},
		{"mailgun_api_key", "key-" + fake(hexChars, 32)},
		{"mailchimp_api_key", "MAILCHIMP_KEY=" + fake(hexChars, 32)},
		{"mailchimp_api_key", "mailchimp list id: " + s("mailchimp")},
		{"telegram_bot_token", "TELEGRAM_CHAT_ID=-1001234567890"},
		{"telegram_bot_token", "telegram_token=123456789:aa" + fake(urlChars, 33)},
		{"okta_api_token", "OKTA_DOMAIN=dev-123456.okta.com"},
		{"okta_api_token", "okta_token=01" + fake(urlChars, 40)},
		{"cloudflare_api_key", "CLOUDFLARE_ZONE=example.com"},
		{"cloudflare_api_key", "cloudflare_key=" + fake(urlChars, 39)},
		{"okta_api_token", "okta_token=00" + strings.Repeat("ab", 20)},
		{"cohere_api_key", "COHERE_MODEL=command-r-plus-08-2024"},
		{"cohere_api_key", "cohere_key = '" + strings.Repeat("a1b2", 10) + "'"},
		{"cohere_api_key", "api_key=" + s("cohere")},
		{"gitlab_token", "glrt-" + fake(urlChars, 19)},
		{"gitlab_token", "glrt-" + fake(urlChars, 21)},
		{"gitlab_token", "glrt-t3_" + fake(urlChars, 26) + "." + fake(lowerAlnum, 9)},
		{"gitlab_token", "gldt-" + fake(urlChars, 19) + "+"},
		{"gitlab_token", "xgldt-" + fake(urlChars, 20)},
		{"gitlab_token", "glsoat-xxxxxxxxxxxxxxxxxxxx"},
		{"gitlab_token", "glcbt-" + fake(alnumChars, 6) + "_" + fake(urlChars, 20)},
		{"gitlab_token", "glimt-" + fake(urlChars, 24)},
		{"gitlab_token", "glptt-" + fake(hexChars, 39) + "g"},
		{"gitlab_token", "glptt-" + strings.ToUpper(fake(hexChars, 40))},
		{"gitlab_token", "glagent-" + fake(urlChars, 49)},
		{"gitlab_token", "gloas-" + fake(urlChars, 63)},
		{"gitlab_token", "GR1348941" + fake(urlChars, 19)},
		{"gitlab_token", "_gitlab_session=" + fake(lowerAlnum, 31)},
		{"gitlab_token", "_gitlab_session=" + strings.ToUpper(fake(lowerAlnum, 32))},
		{"slack_token", "xapp-1-A052FGTS2DL-abc-" + fake(hexChars, 64)},
		{"slack_token", "xapp-x-A052FGTS2DL-5171572773297-" + fake(hexChars, 64)},
		{"discord_bot_token", "DISCORD_BOT_TOKEN=" + "XTk4NjIy" + fake(urlChars, 16) + "." + fake(urlChars, 6) + "." + fake(urlChars, 27)},
		{"discord_bot_token", "DISCORD_BOT_TOKEN=" + "MTk4NjIy" + fake(urlChars, 16) + "." + fake(urlChars, 5) + "." + fake(urlChars, 27)},
		{"discord_bot_token", "BOT_TOKEN=" + s("discord bot")},
		{"pagerduty_api_key", "pagerduty_token: u-" + fake(alnumChars[:52], 9) + "-ab-" + fake(lowerAlnum, 5)},
		{"pagerduty_api_key", "PAGERDUTY_SERVICE=" + fake(alnumChars, 20)},
		{"vercel_token", "VERCEL_TOKEN=" + fake(alnumChars, 23)},
		{"vercel_token", "VERCEL_ORG_ID=team_" + fake(alnumChars, 24)},
		{"vercel_token", "VERCEL_GIT_COMMIT_SHA=" + fake(hexChars, 40)},
		{"vercel_token", "TOKEN=" + s("vercel")},
		{"mistral_api_key", "MISTRAL_API_KEY=" + fake(alnumChars, 31)},
		{"mistral_api_key", "MISTRAL_API_KEY=" + fake(urlChars[:62]+"-", 31) + "-"},
		{"mistral_api_key", "MISTRAL_MODEL=mistral-large-latest"},
		{"mistral_api_key", "mistral_key = '" + strings.Repeat("a1b2", 8) + "'"},
		{"vercel_token", "vcp_" + fake(urlChars, 55)},
		{"vercel_token", "vcp_" + fake(urlChars, 57)},
		{"vercel_token", "vcx_" + fake(urlChars, 56)},
		{"vercel_token", "x" + s("vercel vcp")},
		{"vercel_token", "vcp_" + strings.Repeat("x", 56)},
		{"vercel_token", "tool vcp_memory_write is blocked"},
		{"openrouter_api_key", "sk-or-v1-" + fake(hexChars, 63)},
		{"openrouter_api_key", "sk-or-v1-" + strings.ToUpper(fake(hexChars, 64))},
		{"openrouter_api_key", "sk-or-v1-..."},
		{"alibaba_access_key_id", "LTAI" + fake(alnumChars, 19)},
		{"alibaba_access_key_id", "LTAI" + fake(alnumChars, 21)},
		{"alibaba_access_key_id", "DELTAI" + fake(alnumChars, 20)},
		{"alibaba_access_key_id", "LTAIxxxxxxxxxxxxxxxxxxxx"},
		{"huggingface_token", "api_org_" + fake(alnumChars[:52], 33)},
		{"huggingface_token", "my_api_org_" + fake(alnumChars[:52], 34)},
		{"huggingface_token", "api_org_" + fake(alnumChars, 34)},
		{"langsmith_api_key", "lsv2_xx_" + fake(lowerAlnum, 32) + "_" + fake(lowerAlnum, 10)},
		{"langsmith_api_key", "ls__" + fake(hexChars, 32)},
		{"aws_bedrock_api_key", "ABSKQmVkcm9ja0FQSUtleS0" + fake(b64Chars, 80)},
		{"aws_bedrock_api_key", "ABSKQmVkcm9ja0FQSUtleS0" + fake(b64Chars, 260)},
		{"aws_bedrock_api_key", "ABSK" + fake(b64Chars, 130)},
		{"aws_bedrock_api_key", "AWS_BEARER_TOKEN_BEDROCK=ABSKQmVkcm9ja0FQSUtleS0..."},
		{"aws_bedrock_api_key", "bedrock-api-key-" + fake(b64Chars, 200)},
		{"langsmith_api_key", "lsv2_pt_" + fake(lowerAlnum, 31) + "_" + fake(lowerAlnum, 10)},
		{"onepassword_secret", "A3-" + dashed(fake(upperAlnum, 31), 6, 11, 5, 5, 4)},
		{"onepassword_secret", "A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX"},
		{"onepassword_secret", "ops_eyJ" + fake(b64Chars, 200)},
		{"adobe_client_secret", "p8e-" + fake(alnumChars, 31)},
		{"adobe_client_secret", "xp8e-" + fake(alnumChars, 32)},
		{"artifactory_token", "AKCp" + fake(alnumChars, 68)},
		{"artifactory_token", "AKCp" + strings.Repeat("x", 69)},
		{"artifactory_token", "cmVmd" + fake(alnumChars, 60)},
		{"artifactory_token", "dGhpcyBpcyBhIHJlZmVyZW5jZQ cmVmdXNlZA== (base64 of refused)"},
		{"authress_access_key", "sc_abc.def.acc_short.x"},
		{"clickhouse_api_secret", "4b1d" + fake(alnumChars, 37)},
		{"clickhouse_api_secret", "sha1 a94b1d" + fake(hexChars, 36)},
		{"clojars_api_token", "CLOJARS_" + fake(lowerAlnum, 59)},
		{"clojars_api_token", "CLOJARS_USERNAME=alice"},
		{"cloudflare_origin_ca_key", "v1.0-" + fake(hexChars, 24) + "-" + fake(hexChars, 145)},
		{"cloudflare_origin_ca_key", "release v1.0-beta.2"},
		{"defined_networking_token", "dnkey-" + fake(urlChars, 79)},
		{"duffel_api_token", "duffel_test_" + fake(urlChars, 42)},
		{"duffel_api_token", "duffel_test_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"dynatrace_api_token", "dt0c01." + fake(upperAlnum, 24) + "." + fake(alnumChars, 63)},
		{"dynatrace_api_token", "dt0c01." + strings.Repeat("X", 24) + "." + strings.Repeat("x", 64)},
		{"easypost_api_token", "EZAK" + fake(alnumChars, 53)},
		{"easypost_api_token", "EZAKxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"facebook_access_token", "EAAM" + fake(alnumChars, 80)},
		{"facebook_access_token", "EAAC" + strings.Repeat("ab12", 30)},
		{"flutterwave_secret_key", "FLWSECK_TEST-" + fake(hexChars, 31) + "-X"},
		{"flutterwave_secret_key", "FLWSECK_TEST-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-X"},
		{"frameio_api_token", "fio-u-" + fake(urlChars, 63)},
		{"harness_api_key", "pat." + fake(urlChars, 22) + "." + fake(alnumChars, 24) + "." + fake(alnumChars, 19)},
		{"harness_api_key", "compat." + fake(urlChars, 22) + "." + fake(alnumChars, 24) + "." + fake(alnumChars, 20)},
		{"harness_api_key", "The cat sat. It purred."},
		{"infracost_api_token", "ico-" + fake(alnumChars, 31)},
		{"infracost_api_token", "Mexico-" + fake(alnumChars, 32)},
		{"intra42_client_secret", "s-s4t2xx-" + fake(hexChars, 64)},
		{"maxmind_license_key", fake(alnumChars, 7) + "_" + fake(alnumChars, 29) + "_mmk"},
		{"maxmind_license_key", "abcdef_xxxxxxxxxxxxxxxxxxxxxxxxxxxxx_mmk"},
		{"octopus_deploy_api_key", "API-" + fake(upperAlnum, 25)},
		{"octopus_deploy_api_key", "see the REST API-GATEWAY docs"},
		{"octopus_deploy_api_key", "API-XXXXXXXXXXXXXXXXXXXXXXXXXX"},
		{"openshift_user_token", "sha256~" + fake(urlChars, 42)},
		{"openshift_user_token", "sha256:" + fake(hexChars, 64)},
		{"planetscale_token", "pscale_tkn_" + fake(urlChars, 31)},
		{"planetscale_token", "pscale_tkn_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"prefect_api_token", "pnu_" + fake(alnumChars, 35)},
		{"readme_api_token", "rdme_" + fake(lowerAlnum, 69)},
		{"rubygems_api_token", "rubygems_" + fake(hexChars, 47)},
		{"scalingo_api_token", "tk-us-" + fake(urlChars, 47)},
		{"scalingo_api_token", "tk-us-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"settlemint_token", "sm_pat_" + fake(alnumChars, 15)},
		{"settlemint_token", "sm_xat_" + fake(alnumChars, 16)},
		{"shippo_api_token", "shippo_live_" + fake(hexChars, 39)},
		{"shippo_api_token", "shippo_test_0000000000000000000000000000000000000000"},
		{"sourcegraph_token", "sgp_" + fake(hexChars, 39)},
		{"typeform_api_token", "tfp_" + fake(urlChars, 58)},
		{"slack_token", "hugs xoxo-love-you-forever-and-ever"},
		{"stripe_key", "sk_prod_" + fake(alnumChars, 19)},
	}
	for _, tt := range tests {
		for _, h := range New().Scan("found "+tt.text+" in the log", nil) {
			require.NotEqual(t, "secrets."+tt.policy, h.Policy, "%q", tt.text)
		}
	}
}

// BenchmarkScanGateFlood: 256 KiB of one gate repeated, for every gate: a
// new prefix must not cost more than the floods of the existing ones.
func BenchmarkScanGateFlood(b *testing.B) {
	seen := map[string]bool{}
	for _, refs := range gateTable {
		for _, g := range refs {
			if seen[g.gate] {
				continue
			}
			seen[g.gate] = true
			text := strings.Repeat(g.gate, 256<<10/len(g.gate))
			b.Run(g.gate, func(b *testing.B) {
				s := New()
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					s.Scan(text, nil)
				}
			})
		}
	}
}
