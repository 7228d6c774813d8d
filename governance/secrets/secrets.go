// Package secrets finds credentials: vendor API keys and tokens, private
// keys, credentials in URLs and assignments, and high-entropy strings next to
// a credential keyword. Coverage follows gitleaks' default rules and
// detect-secrets' plugins for the common vendors. Every rule has a literal
// gate (a prefix, a keyword, the joins of a bare Discord token's base64)
// found by one pass over the text before its regexp or matcher runs, so
// clean text costs that pass.
package secrets

import (
	"encoding/base64"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/governance-gateway/gateway/governance/scan"
)

// Placeholder replaces a secret when a policy rewrites instead of blocking.
const Placeholder = "[SECRET]"

type rule struct {
	id    string // policy id suffix: secrets.<id>
	gates []string
	re    *regexp.Regexp
	group int // submatch holding the secret (0: whole match)
	sev   scan.Severity
	conf  float64
	// entropy, when > 0, is the minimum Shannon entropy (bits/char) of the
	// secret; it filters placeholders such as "changeme" or "xxxxxxxx".
	entropy float64
	// foldGates matches gates case-insensitively.
	foldGates bool
	// wordStart requires a word boundary before the match. It is checked by
	// hand: a leading \b in the pattern would stop Go's regexp from jumping
	// to the literal prefix and make it scan every byte.
	wordStart bool
	// unquoted marks an assignment whose value is not quoted: it must mix
	// letters and digits and not be a reference ($VAR, a URL).
	unquoted bool
	// minRunes is the value's least length (0: none). A pattern whose
	// class takes in its own prefix (fo1_ then [\w-]) leaves the length
	// open ([…]+) and has it checked here: with a count ({43}) RE2 keeps a
	// thread per overlapping start, which made a flood of the prefix
	// several times dearer than one of a prefix the class stops at.
	minRunes int
	// maxRunes bounds the value's length (0: none). The pattern leaves it
	// open ({8,}, not {8,200}): a counted repetition compiles to one
	// program step per count, and RE2 then carries up to 200 threads over
	// every run of value bytes ("pwd=pwd=…" cost 1.5 s per MiB); a longer
	// value is dropped here instead.
	maxRunes int
	// valid, when set, is a last check of the secret.
	valid func(v string) bool
	// find, when set, replaces re: a matcher by hand for a format with no
	// literal a regexp could jump to (its matches as FindAll's, group 1).
	find func(text string, dst [][]int) [][]int
	// ident marks a pattern `(?i)\b` + identKeyword(...) + ...: it runs
	// through identMatches, from the identifiers holding a gate.
	ident    bool
	anchored *regexp.Regexp
	// typed marks a rule for a generated value (a vendor's token, a key):
	// one holding a run of six ascending letters of one case ("abcdef",
	// documentation's fill; ascendingRun) is not one. Passwords
	// (password_assignment) and URL passwords are chosen by people, and
	// "Passabcdef" may be a real one. Set by init.
	typed bool
	need  valueNeed
}

var rules = []rule{
	{id: "aws_access_key_id", gates: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, re: regexp.MustCompile(`(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`), wordStart: true, sev: scan.SeverityCritical, conf: 0.95},
	{id: "aws_secret_access_key", gates: []string{"aws", "AWS"}, foldGates: true, re: regexp.MustCompile(`(?i)aws.{0,20}?(?:secret|key).{0,20}?['"=:\s]\s*([A-Za-z0-9/+]{40})\b`), group: 1, sev: scan.SeverityCritical, conf: 0.9, entropy: 3.5},
	{id: "github_token", gates: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, re: regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,255}\b`), wordStart: true, sev: scan.SeverityCritical, conf: 0.97},
	{id: "github_token", gates: []string{"github_pat_"}, re: regexp.MustCompile(`github_pat_[A-Za-z0-9_]{82}\b`), wordStart: true, sev: scan.SeverityCritical, conf: 0.97},
	{id: "gitlab_token", gates: []string{"glpat-"}, re: regexp.MustCompile(`glpat-[A-Za-z0-9_\-]{20,}\b`), wordStart: true, sev: scan.SeverityCritical, conf: 0.97},
	{id: "slack_token", gates: []string{"xox"}, re: regexp.MustCompile(`xox[baprse]-[0-9A-Za-z-]{10,250}\b`), wordStart: true, sev: scan.SeverityHigh, conf: 0.95, valid: slackShape},
	{id: "slack_webhook", gates: []string{"hooks.slack.com"}, re: regexp.MustCompile(`https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,100}`), sev: scan.SeverityHigh, conf: 0.95},
	{id: "stripe_key", gates: []string{"sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"}, re: regexp.MustCompile(`[sr]k_(?:live|test|prod)_[0-9A-Za-z]{20,247}\b`), wordStart: true, sev: scan.SeverityCritical, conf: 0.97},
	{id: "anthropic_api_key", gates: []string{"sk-ant-"}, re: regexp.MustCompile(`sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{80,120}`), wordStart: true, sev: scan.SeverityCritical, conf: 0.98},
	{id: "openai_api_key", gates: []string{"sk-"}, re: regexp.MustCompile(`sk-[A-Za-z0-9_\-]*T3BlbkFJ[A-Za-z0-9_\-]+\b|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]+\b|\bsk-[A-Za-z0-9]{48}\b`), wordStart: true, sev: scan.SeverityCritical, conf: 0.95, valid: openAIKey},
	{id: "google_api_key", gates: []string{"AIza"}, re: regexp.MustCompile(`AIza[0-9A-Za-z_\-]{35}\b`), wordStart: true, sev: scan.SeverityHigh, conf: 0.95},
	{id: "gcp_service_account", gates: []string{"private_key_id"}, re: regexp.MustCompile(`"private_key_id"\s*:\s*"([0-9a-f]{40})"`), group: 1, sev: scan.SeverityCritical, conf: 0.95},
	{id: "azure_storage_key", gates: []string{"AccountKey="}, re: regexp.MustCompile(`AccountKey=([A-Za-z0-9+/]{86}==)`), group: 1, sev: scan.SeverityCritical, conf: 0.95},
	{id: "twilio", gates: []string{"SK", "AC"}, re: regexp.MustCompile(`(?:SK|AC)[0-9a-f]{32}\b`), wordStart: true, sev: scan.SeverityHigh, conf: 0.8},
	{id: "sendgrid", gates: []string{"SG."}, re: regexp.MustCompile(`SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b`), wordStart: true, sev: scan.SeverityHigh, conf: 0.97},
	{id: "npm_token", gates: []string{"npm_"}, re: regexp.MustCompile(`npm_[A-Za-z0-9]{36}\b`), wordStart: true, sev: scan.SeverityHigh, conf: 0.95},
	{id: "pypi_token", gates: []string{"pypi-AgE"}, re: regexp.MustCompile(`pypi-AgE[A-Za-z0-9_\-]{50,}`), wordStart: true, sev: scan.SeverityHigh, conf: 0.97},
	{id: "huggingface_token", gates: []string{"hf_"}, re: regexp.MustCompile(`hf_[A-Za-z]{34}\b`), wordStart: true, sev: scan.SeverityHigh, conf: 0.9},
	// Vendor formats added after gitleaks' default rules (config/gitleaks.toml;
	// the rule each follows is named in docs/governance.md). A gate is a
	// literal every match holds: the prefix, or the part of it whose first
	// three bytes are rare in prose ("n_api_" for lin_api_, "_v1_" for
	// dop_v1_), since openGates hashes a gate's first three bytes and "lin",
	// "dop" start common words. The entropy floor drops placeholders
	// ("lin_api_xxxx…") that the character class admits.
	{id: "shopify_token", gates: []string{"shpat_", "shpss_", "shpca_", "shppa_"}, re: token(`shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 2},
	{id: "digitalocean_token", gates: []string{"_v1_"}, re: token(`do[por]_v1_[a-f0-9]{64}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3},
	{id: "linear_api_key", gates: []string{"n_api_"}, re: token(`lin_api_[A-Za-z0-9]{40}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3},
	{id: "postman_api_key", gates: []string{"PMAK-"}, re: token(`PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3},
	{id: "pulumi_token", gates: []string{"ul-"}, re: token(`pul-[a-f0-9]{40}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 3},
	{id: "doppler_token", gates: []string{"dp.pt."}, re: token(`dp\.pt\.[A-Za-z0-9]{43}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3},
	{id: "databricks_token", gates: []string{"dapi"}, re: token(`dapi[a-f0-9]{32}(?:-\d)?`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 3},
	{id: "grafana_token", gates: []string{"glc_", "glsa_"}, re: token(`gl(?:c_[A-Za-z0-9+/]{32,}={0,3}|sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3, maxRunes: 404},
	{id: "grafana_token", gates: []string{"eyJrIjoi"}, re: token(`eyJrIjoi[A-Za-z0-9]+={0,3}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3, minRunes: 78, maxRunes: 408},
	{id: "vault_token", gates: []string{"hvs."}, re: token(`hvs\.[\w\-]{90,}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3.5, maxRunes: 124},
	{id: "vault_token", gates: []string{"hvb."}, re: token(`hvb\.[\w\-]{138,}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3.5, maxRunes: 304},
	{id: "terraform_token", gates: []string{"atlasv1"}, re: token(`[A-Za-z0-9]+\.atlasv1\.[A-Za-z0-9_=\-]{60,70}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3.5, valid: atlasLead},
	{id: "atlassian_api_token", gates: []string{"TT3"}, re: token(`ATATT3[A-Za-z0-9_\-=]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3.5, minRunes: 192, maxRunes: 192},
	{id: "azure_ad_client_secret", gates: []string{"Q~"}, re: regexp.MustCompile(`(?:^|[\\'"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.\-]{31,34})(?:$|[\\'"\x60\s<),])`), group: 1, sev: scan.SeverityCritical, conf: 0.9, entropy: 3},
	{id: "sentry_token", gates: []string{"sntryu_", "sntrys_"}, re: token(`sntry(?:u_[a-f0-9]{64}|s_eyJpYXQiO[A-Za-z0-9+/]{10,}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[A-Za-z0-9+/]{10,}={0,2}_[A-Za-z0-9+/]{43})`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3.5, maxRunes: 480},
	{id: "flyio_token", gates: []string{"fo1_"}, re: token(`fo1_[\w\-]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 4, minRunes: 47, maxRunes: 47},
	{id: "flyio_token", gates: []string{"fm1a_", "fm1r_", "fm2_"}, re: token(`fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 4},
	{id: "age_secret_key", gates: []string{"T-KEY-1"}, re: token(`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.98, entropy: 3},
	{id: "square_token", gates: []string{"EAAA"}, re: token(`EAAA[\w\-]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.9, entropy: 3.5, minRunes: 26, maxRunes: 64},
	{id: "square_token", gates: []string{"sq0atp-"}, re: token(`sq0atp-[\w\-]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3, minRunes: 29, maxRunes: 67},
	{id: "square_token", gates: []string{"sq0csp-"}, re: token(`sq0csp-[\w\-]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3, minRunes: 50, maxRunes: 50},
	{id: "new_relic_key", gates: []string{"NRAK-", "NRJS-"}, re: token(`NR(?:AK-[A-Za-z0-9]{27}|JS-[a-f0-9]{19})`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.9, entropy: 3},
	{id: "new_relic_key", gates: []string{"NRII-"}, re: token(`NRII-[A-Za-z0-9\-]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.9, entropy: 3, minRunes: 37, maxRunes: 37},
	{id: "heroku_api_key", gates: []string{"HRKU-AA"}, re: token(`HRKU-AA[\w\-]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 4, minRunes: 65, maxRunes: 65},
	{id: "perplexity_api_key", gates: []string{"plx-"}, re: token(`pplx-[A-Za-z0-9]{48}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 4},
	{id: "brevo_api_key", gates: []string{"xkeysib-"}, re: token(`xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3},
	{id: "notion_token", gates: []string{"ntn_"}, re: token(`ntn_[0-9]{11}[A-Za-z0-9]{35}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 4},
	{id: "discord_webhook", gates: []string{"/api/webhooks/"}, re: token(`https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_\-]{60,68}`), group: 1, sev: scan.SeverityHigh, conf: 0.97},
	// Formats gitleaks' default rules lack, after the vendors' documented
	// prefixes and lengths.
	{id: "google_oauth_client_secret", gates: []string{"GOCSPX-"}, re: token(`GOCSPX-[A-Za-z0-9_\-]{28}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3.5},
	{id: "groq_api_key", gates: []string{"gsk_"}, re: token(`gsk_[A-Za-z0-9]{52}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 4},
	{id: "xai_api_key", gates: []string{"xai-"}, re: token(`xai-[A-Za-z0-9]{80}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 4},
	{id: "replicate_api_token", gates: []string{"r8_"}, re: token(`r8_[A-Za-z0-9]{37}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3.5},
	{id: "supabase_token", gates: []string{"sbp_"}, re: token(`sbp_[a-f0-9]{40}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 3},
	// Stop 19. Vercel's prefixed tokens (personal, integration, app access,
	// app refresh, API key) after betterleaks' vercel rules: 56 [\w-], the
	// last 6 a base62 CRC32 of the 50 before (not checked). OpenRouter, Alibaba
	// Cloud's AccessKey ID, Hugging Face organization tokens and LangSmith
	// keys after gitleaks' openrouter-api-key, alibaba-access-key-id,
	// huggingface-organization-api-token and langsmith-api-key.
	{id: "vercel_token", gates: []string{"vcp_", "vci_", "vca_", "vcr_", "vck_"}, re: token(`vc[pirak]_[\w\-]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3.5, minRunes: 60, maxRunes: 60},
	{id: "openrouter_api_key", gates: []string{"sk-or-"}, re: token(`sk-or(?:-v\d+)?-[a-f0-9]{64}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3},
	{id: "alibaba_access_key_id", gates: []string{"LTAI"}, re: token(`LTAI[A-Za-z0-9]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 3, minRunes: 24, maxRunes: 24},
	{id: "huggingface_token", gates: []string{"i_org_"}, re: token(`api_org_[A-Za-z]{34}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3},
	// Amazon Bedrock API keys after gitleaks' aws-amazon-bedrock-api-key-
	// long-lived and -short-lived: "ABSK" + base64 of "BedrockAPIKey-…"
	// (109-269 base64 bytes, padding apart), and "bedrock-api-key-" + base64
	// of a presigned "bedrock.amazonaws.com" URL, taken whole (gitleaks
	// matches only its constant start). The gates are the base64 constants:
	// "abs" and "bed" start common words.
	{id: "aws_bedrock_api_key", gates: []string{"QmVkcm9ja0FQSUtleS"}, re: token(`ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]+={0,2}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3, valid: bedrockLongLived},
	{id: "aws_bedrock_api_key", gates: []string{"YmVkcm9jay5hbWF6b25hd3MuY29t"}, re: token(`bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/]*={0,2}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3},
	{id: "langsmith_api_key", gates: []string{"lsv2_"}, re: token(`lsv2_(?:pt|sk)_[a-z0-9]{32}_[a-z0-9]{10}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3},
	// GitLab's other token prefixes and Slack's app-level tokens, after
	// gitleaks' rules (cmd/generate/config/rules/gitlab.go, slack.go). The
	// GitLab bodies' class takes in their prefixes, so it is left open and
	// gitlabBody checks each prefix's length: counted, a flood of "gldt-"
	// would keep a regexp thread per overlapping start.
	{id: "gitlab_token", gates: []string{"lrt-", "ldt-", "lft-", "soat-", "ffct-", "cbt-", "imt-", "ptt-", "glagent-", "oas-"}, re: token(`gl(?:rt|dt|ft|soat|ffct|cbt|imt|ptt|agent|oas)-[\w\-]+(?:\.[0-9a-z]{9})?`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3, valid: gitlabBody},
	{id: "gitlab_token", gates: []string{"GR1348941"}, re: token(`GR1348941[\w\-]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3, minRunes: 29, maxRunes: 29},
	{id: "gitlab_token", gates: []string{"_gitlab_session="}, re: regexp.MustCompile(`_gitlab_session=([0-9a-z]{32})(?:[^\w\-]|\z)`), group: 1, sev: scan.SeverityHigh, conf: 0.95, entropy: 3},
	{id: "slack_token", gates: []string{"xapp-"}, re: token(`xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 2},
	// Stop 22: the prefixed formats of gitleaks' default rules that were
	// left out (docs/governance.md, "Secrets: coverage of gitleaks' default
	// rules"). Where the class takes in the prefix, the length is left open
	// and checked after the match (minRunes, maxRunes or valid); where it
	// admits a placeholder ("tk-us-xxxx…"), the floor is 3 bits/char.
	{id: "onepassword_secret", gates: []string{"A3-"}, re: token(`A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 3.8},
	{id: "onepassword_secret", gates: []string{"s_eyJ"}, re: token(`ops_eyJ[A-Za-z0-9+/]+={0,3}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 4, minRunes: 257},
	{id: "adobe_client_secret", gates: []string{"p8e-"}, re: token(`p8e-[A-Za-z0-9]{32}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3},
	{id: "artifactory_token", gates: []string{"AKCp"}, re: token(`AKCp[A-Za-z0-9]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 4.5, minRunes: 73, maxRunes: 73},
	{id: "artifactory_token", gates: []string{"cmVmd"}, re: token(`cmVmd[A-Za-z0-9]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.9, entropy: 4.5, minRunes: 64, maxRunes: 64},
	// Authress: the gate is the constant ".acc_" / ".acc-" inside the key;
	// its prefixes (sc_, ext_) start common identifiers.
	{id: "authress_access_key", gates: []string{".acc_", ".acc-"}, re: token(`(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_\-][a-z0-9\-]{10,32}\.[A-Za-z0-9+/_=\-]{30,120}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 3},
	{id: "clickhouse_api_secret", gates: []string{"4b1d"}, re: token(`4b1d[A-Za-z0-9]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.9, entropy: 3, minRunes: 42, maxRunes: 42},
	{id: "clojars_api_token", gates: []string{"clojars_"}, foldGates: true, re: token(`(?i)CLOJARS_[a-z0-9]{60}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3},
	{id: "cloudflare_origin_ca_key", gates: []string{"v1.0-"}, re: token(`v1\.0-[a-f0-9]{24}-[a-f0-9]+`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 2, minRunes: 176, maxRunes: 176},
	{id: "defined_networking_token", gates: []string{"dnkey-"}, re: token(`dnkey-[\w=\-]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3, valid: dnkeyShape},
	{id: "duffel_api_token", gates: []string{"el_test_", "el_live_"}, re: token(`duffel_(?:test|live)_[\w=\-]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3, minRunes: 55, maxRunes: 55},
	{id: "dynatrace_api_token", gates: []string{"dt0c01."}, re: token(`dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 4},
	{id: "easypost_api_token", gates: []string{"EZAK", "EZTK"}, re: token(`EZ[AT]K[A-Za-z0-9]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3, minRunes: 58, maxRunes: 58},
	{id: "facebook_access_token", gates: []string{"EAAM", "EAAC"}, re: token(`EAA[MC][A-Za-z0-9]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.9, entropy: 4, minRunes: 104},
	{id: "flutterwave_secret_key", gates: []string{"FLWSECK_TEST-"}, re: token(`FLWSECK_TEST-(?:[a-hA-H0-9]{32}-[Xx]|[a-hA-H0-9]{12})`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 2},
	{id: "frameio_api_token", gates: []string{"fio-u-"}, re: token(`fio-u-[\w=\-]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3, minRunes: 70, maxRunes: 70},
	{id: "harness_api_key", gates: []string{"pat."}, re: token(`pat\.[\w\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 3},
	{id: "harness_api_key", gates: []string{"sat."}, re: token(`sat\.[\w\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.95, entropy: 3},
	{id: "infracost_api_token", gates: []string{"ico-"}, re: token(`ico-[A-Za-z0-9]{32}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3},
	{id: "intra42_client_secret", gates: []string{"s4t2"}, re: token(`s-s4t2(?:ud|af)-[a-fA-F0-9]{64}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3},
	// MaxMind: no literal starts the key; its "_mmk" end is the gate and
	// maxmindShape checks the two parts' lengths.
	{id: "maxmind_license_key", gates: []string{"_mmk"}, re: token(`[A-Za-z0-9]+_[A-Za-z0-9]+_mmk`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 4, valid: maxmindShape},
	{id: "octopus_deploy_api_key", gates: []string{"API-"}, re: token(`API-[A-Z0-9]{26}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.9, entropy: 3},
	{id: "openshift_user_token", gates: []string{"56~"}, re: token(`sha256~[\w\-]{43}`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3.5},
	// The class holds '.', so a token ends at its last other byte: a
	// sentence's full stop after it is not taken in.
	{id: "planetscale_token", gates: []string{"pscale_"}, re: token(`pscale_(?:tkn|oauth|pw)_[\w=.\-]*[\w=\-]`), group: 1, wordStart: true, sev: scan.SeverityCritical, conf: 0.97, entropy: 3, valid: planetscaleBody},
	{id: "prefect_api_token", gates: []string{"pnu_"}, re: token(`pnu_[A-Za-z0-9]{36}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3},
	{id: "readme_api_token", gates: []string{"rdme_"}, re: token(`rdme_[a-z0-9]{70}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3},
	{id: "rubygems_api_token", gates: []string{"ygems_"}, re: token(`rubygems_[a-f0-9]{48}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 3},
	{id: "scalingo_api_token", gates: []string{"tk-us-"}, re: token(`tk-us-[\w\-]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3, minRunes: 54, maxRunes: 54},
	{id: "settlemint_token", gates: []string{"sm_aat_", "sm_pat_", "sm_sat_"}, re: token(`sm_[aps]at_[A-Za-z0-9]{16}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3},
	{id: "shippo_api_token", gates: []string{"o_live_", "o_test_"}, re: token(`shippo_(?:live|test)_[a-fA-F0-9]{40}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.97, entropy: 2},
	{id: "sourcegraph_token", gates: []string{"sgp_"}, re: token(`sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3},
	{id: "typeform_api_token", gates: []string{"tfp_"}, re: token(`tfp_[\w=.\-]*[\w=\-]`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3, minRunes: 63, maxRunes: 63},
	{id: "teams_webhook", gates: []string{"webhookb2/"}, re: regexp.MustCompile(`https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}`), sev: scan.SeverityHigh, conf: 0.97},
	// Aiven's service passwords, after detect-secrets' AivenTokenDetector
	// (not a gitleaks default): "AVNS_" and 8 or more \w.
	{id: "aiven_token", gates: []string{"AVNS_"}, re: token(`AVNS_\w+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 3, minRunes: 13},
	{id: "slack_token", gates: []string{"xoxo-"}, re: token(`xoxo-\d+-\d+-\d+-[a-fA-F0-9]+`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.95, entropy: 2},
	// Values with no prefix of their own count only after an identifier
	// naming the vendor, as gitleaks requires (its keyword and value class;
	// the gate is a part of the keyword rare in prose).
	vendorRule("datadog_api_key", []string{"datadog"}, []string{"tadog"}, `[a-f0-9]{40}|[a-f0-9]{32}`, "0-9a-fA-F", 32, scan.SeverityHigh, 0),
	vendorRule("mailgun_api_key", []string{"mailgun"}, []string{"lgun"}, `(?:pub)?key-[a-f0-9]{32}|[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}`, "0-9a-zA-Z-", 36, scan.SeverityHigh, 0),
	vendorRule("mailchimp_api_key", []string{"mailchimp"}, []string{"lchimp"}, `[a-f0-9]{32}-us[0-9]{1,2}`, "0-9a-fA-F", 32, scan.SeverityHigh, 0),
	vendorRule("telegram_bot_token", []string{"telegr"}, []string{"legr"}, `[0-9]{5,16}:(?-i:A)[a-z0-9_\-]{34}`, "0-9", 5, scan.SeverityHigh, 0),
	vendorRule("okta_api_token", []string{"okta"}, []string{"okta"}, `00[\w=\-]{40}`, "0", 2, scan.SeverityCritical, 4),
	vendorRule("cloudflare_api_key", []string{"cloudflare"}, []string{"dflare"}, `[a-z0-9_\-]{40}|[a-f0-9]{37}`, "0-9a-zA-Z_-", 37, scan.SeverityCritical, 0),
	vendorRule("heroku_api_key", []string{"heroku"}, []string{"oku"}, `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, "0-9a-fA-F", 8, scan.SeverityCritical, 0),
	vendorRule("cohere_api_key", []string{"cohere", "co_api_key"}, []string{"coh", "co_api_key"}, `[a-z0-9]{40}`, "0-9a-zA-Z", 40, scan.SeverityCritical, 4),
	// Stop 22: gitleaks' keyword rules of common vendors, with its value
	// classes (docs/governance.md lists them) but for '=' in Bitbucket's and
	// Netlify's: with it, "password=password=…" would hold a value's first
	// bytes after every identifier and reach the regexp. Other vendors'
	// values count only as high_entropy next to a credential keyword.
	vendorRule("twitter_api_key", []string{"twitter"}, []string{"twitter"}, `[0-9]{15,25}-[a-z0-9]{20,40}|a{22}[a-z0-9%]{80,100}|[a-z0-9]{50}|[a-z0-9]{45}|[a-z0-9]{25}`, "0-9a-zA-Z", 15, scan.SeverityHigh, 0),
	vendorRule("facebook_app_secret", []string{"facebook"}, []string{"ebook"}, `[a-f0-9]{32}|[0-9]{15,16}(?:\||%)[0-9a-z_\-]{27,40}`, "0-9a-fA-F", 15, scan.SeverityHigh, 3),
	vendorRule("bitbucket_client_secret", []string{"bitbucket"}, []string{"tbucket"}, `[a-z0-9_\-]{64}|[a-z0-9]{32}`, "0-9a-zA-Z_-", 32, scan.SeverityHigh, 0),
	vendorRule("dropbox_api_token", []string{"dropbox"}, []string{"opbox"}, `[a-z0-9]{11}a{10}[a-z0-9=_\-]{43}|[a-z0-9]{15}`, "0-9a-zA-Z", 15, scan.SeverityHigh, 0),
	vendorRule("hubspot_api_key", []string{"hubspot"}, []string{"bspot"}, `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, "0-9a-fA-F", 8, scan.SeverityHigh, 0),
	vendorRule("netlify_access_token", []string{"netlify"}, []string{"tlify"}, `[a-z0-9_\-]{40,46}`, "0-9a-zA-Z_-", 40, scan.SeverityHigh, 0),
	vendorRule("algolia_api_key", []string{"algolia"}, []string{"golia"}, `[a-z0-9]{32}`, "0-9a-zA-Z", 32, scan.SeverityHigh, 0),
	vendorRule("zendesk_secret_key", []string{"zendesk"}, []string{"ndesk"}, `[a-z0-9]{40}`, "0-9a-zA-Z", 40, scan.SeverityHigh, 0),
	vendorRule("snyk_api_token", []string{"snyk"}, []string{"snyk"}, `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, "0-9a-fA-F", 8, scan.SeverityHigh, 0),
	vendorRule("sentry_token", []string{"sentry"}, []string{"sentry"}, `[a-f0-9]{64}`, "0-9a-fA-F", 64, scan.SeverityHigh, 3),
	// Not in gitleaks' defaults: Discord bot tokens (detect-secrets'
	// DiscordBotTokenDetector, third part up to 38 as issued now), PagerDuty
	// API keys, Vercel tokens and Mistral API keys (trufflehog's detectors,
	// which also need the vendor's name nearby: the values have no prefix).
	vendorRule("discord_bot_token", []string{"discord"}, []string{"scord"}, `(?-i:[MNO])[a-z0-9_\-]{23,25}\.[a-z0-9_\-]{6}\.[a-z0-9_\-]{27,38}`, "A-Za-z0-9_-", 24, scan.SeverityCritical, 3),
	vendorRule("pagerduty_api_key", []string{"pagerduty"}, []string{"rduty"}, `(?-i:[a-z]\+[a-zA-Z]{9}-[a-z]{2}-[a-z0-9]{5})`, "A-Za-z+", 11, scan.SeverityHigh, 0),
	vendorRule("vercel_token", []string{"vercel"}, []string{"ercel"}, `[a-z0-9]{24}`, "0-9a-zA-Z", 24, scan.SeverityCritical, 3),
	vendorRule("mistral_api_key", []string{"mistral"}, []string{"mistr"}, `[a-z0-9]{32}`, "0-9a-zA-Z", 32, scan.SeverityCritical, 4),
	// Without the vendor's name (stop 19): a Discord bot token whose first
	// part is base64 of a user id's digits (see discordBotTokens; its gates
	// are the joins of that base64's groups), and PagerDuty's REST API key
	// (20 characters) in its documented header, "Authorization: Token
	// token=<key>".
	{id: "discord_bot_token", gates: discordGates(), find: discordBotTokens, group: 1, sev: scan.SeverityCritical, conf: 0.9, entropy: 3},
	{id: "pagerduty_api_key", gates: []string{"Token token="}, re: regexp.MustCompile(`Token token=["']?([\w+\-]{20})(?:[^\w+\-]|\z)`), group: 1, sev: scan.SeverityHigh, conf: 0.9, entropy: 3},
	{id: "jwt", gates: []string{"eyJ"}, re: regexp.MustCompile(`eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`), wordStart: true, sev: scan.SeverityHigh, conf: 0.9},
	// Stop 23: a JWT in standard base64 (a Kubernetes secret's data, an
	// environment file), after gitleaks' jwt-base64: "ZXlK" is base64 of
	// "eyJ" at a group's start, and the decoded text must be a JWT's
	// header and claims.
	{id: "jwt", gates: []string{"ZXlK"}, re: token(`ZXlK[A-Za-z0-9+/]+={0,2}`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.9, minRunes: 48, maxRunes: 8192, valid: base64JWT},
	// A key's body must hold 32 base64 bytes or more: "-----BEGIN PRIVATE
	// KEY-----\nanything\n-----END…" and an empty block are examples.
	{id: "private_key", gates: []string{"-----BEGIN"}, re: regexp.MustCompile(`-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----[\s\S]{16,}?(?:-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|$)`), sev: scan.SeverityCritical, conf: 0.99, valid: privateKeyBody},
	// Stop 23, after gitleaks' curl-auth-header and curl-auth-user: HTTP
	// Basic credentials in a header (base64 of "user:password", decoded
	// and checked) and curl's -u/--user (up to five continued lines after
	// "curl"), the span being the credentials.
	{id: "http_basic_auth", gates: []string{"Basic "}, re: regexp.MustCompile(`Basic ([A-Za-z0-9+/]{8,}={0,2})(?:[^\w+/=\-]|\z)`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.9, maxRunes: 1024, valid: basicCredentials},
	{id: "http_basic_auth", gates: []string{"curl"}, re: regexp.MustCompile(`curl\b(?:[^\n]*\\\r?\n){0,5}?[^\n]*?[ \t](?:-u|--user)(?:=|[ \t]+)["']?([^\s:"'$]{1,64}:["']?[^\s"']{3,128})`), group: 1, wordStart: true, sev: scan.SeverityHigh, conf: 0.85, valid: curlUser},
	{id: "basic_auth_url", gates: []string{"://"}, re: regexp.MustCompile(`[a-z][a-z0-9+.\-]{1,20}://[^\s:@/]{1,64}:([^\s:@/]{3,128})@[A-Za-z0-9.\-]+`), wordStart: true, group: 1, sev: scan.SeverityHigh, conf: 0.85, entropy: 2.0},
	{id: "password_assignment", gates: []string{"pass", "pwd", "secret", "token", "api_key", "apikey", "api-key", "api.key", "access_key", "accesskey", "access-key", "access.key", "credential"}, foldGates: true, ident: true, need: valueNeed{kind: needAssign, quote: true, lead: byteClass("^\"'`\t\n\f\r "), leadN: 8, ends: assignKeywordForms},
		re: regexp.MustCompile(`(?i)\b` + identKeyword(assignKeywords) + `\b` + typeAnnotation + `(?:["']?\s{0,32}(?:[:=]|=>|:{1,3}=|[?.]=)|["'],)\s{0,32}["'\x60]([^"'\x60\s]{8,})["'\x60]`), group: 1, sev: scan.SeverityHigh, conf: 0.8, entropy: 3.0, maxRunes: 200},
	// Unquoted values (.env, YAML, INI) only after password-like keywords:
	// an unquoted token or API key must pass the stricter high_entropy rule.
	{id: "password_assignment", gates: []string{"pass", "pwd", "secret", "credential"}, foldGates: true, ident: true, need: valueNeed{kind: needAssign, bare: true, lead: unquotedValue, leadN: 8, ends: passwordKeywordForms, long: longValue{class: unquotedValue, term: byteClass(",;)]}\t\n\f\r ")}},
		re: regexp.MustCompile(`(?i)\b` + identKeyword(passwordKeywords) + `\b` + typeAnnotation + `["']?[ \t]{0,32}(?:[:=]|=>|:{1,3}=|[?.]=)[ \t]{0,32}([^\s"'\x60,;(){}\[\]<>]{8,})(?:[\s,;)\]}]|\z)`), group: 1, sev: scan.SeverityHigh, conf: 0.8, entropy: 3.0, unquoted: true, maxRunes: 200},
}

// token compiles a vendor token pattern as submatch 1, ended where the
// token's characters end: the next byte is neither a word byte nor '-'. A
// trailing \b would cut a longer token at a '-' and miss one ending in '-'.
func token(p string) *regexp.Regexp {
	return regexp.MustCompile(`(` + p + `)(?:[^\w\-]|\z)`)
}

// openAIKey checks the lengths the OpenAI pattern leaves open: 48
// alphanumerics (the legacy form, counted by the pattern), 40 or more after
// a proj-, svcacct- or admin- prefix, or 20 or more either side of the
// T3BlbkFJ marker. Counted ({20,200}), the class, which takes in "sk-",
// kept a regexp thread per overlapping start: a request flooded with "sk-"
// cost 2.4 s of CPU. A run longer than the old 200 is now one key, whole.
func openAIKey(v string) bool {
	rest := v[len("sk-"):]
	if len(rest) == 48 && !strings.ContainsAny(rest, "_-") {
		return true
	}
	for _, p := range []string{"proj-", "svcacct-", "admin-"} {
		if strings.HasPrefix(rest, p) && len(rest)-len(p) >= 40 {
			return true
		}
	}
	const marker = "T3BlbkFJ"
	for i := 0; ; {
		k := strings.Index(rest[i:], marker)
		if k < 0 {
			return false
		}
		if k += i; k >= 20 && len(rest)-k-len(marker) >= 20 {
			return true
		}
		i = k + 1
	}
}

// gitlabBody checks the length gitleaks gives each GitLab prefix's body
// (the part after the prefix's '-'): 20 [\w-] for runner (glrt-), deploy,
// feed, SCIM and feature-flag tokens, 25 for incoming mail, 50 for agents,
// 64 for OAuth application secrets, 40 hex for pipeline triggers; a CI/CD
// job token is 1-5 alphanumerics, '_' and 20 more. A runner token may be
// routable: "t", a digit, '_', 27-300 bytes, '.' and 9 of [0-9a-z].
func gitlabBody(v string) bool {
	k := strings.IndexByte(v, '-')
	prefix, body := v[:k], v[k+1:]
	if dot := strings.IndexByte(body, '.'); dot >= 0 {
		n := dot - len("t0_")
		return prefix == "glrt" && len(body) > 3 && body[0] == 't' && body[1] >= '0' && body[1] <= '9' && body[2] == '_' && n >= 27 && n <= 300
	}
	switch prefix {
	case "glrt", "gldt", "glft", "glsoat", "glffct":
		return len(body) == 20
	case "glimt":
		return len(body) == 25
	case "glagent":
		return len(body) == 50
	case "gloas":
		return len(body) == 64
	case "glptt":
		return len(body) == 40 && isHex(body) && !strings.ContainsAny(body, "ABCDEF")
	case "glcbt":
		u := strings.IndexByte(body, '_')
		return u >= 1 && u <= 5 && len(body)-u-1 == 20 && !strings.ContainsAny(body[:u], "-")
	}
	return false
}

// atlasLead: a Terraform Cloud token has 14 alphanumerics before
// ".atlasv1.". The pattern leaves them open ([…]+, from the start of the
// run): counted, every alphanumeric of a text would start a thread that
// lives 14 bytes, and a flood of "atlasv1" cost more than any other gate's.
func atlasLead(v string) bool { return strings.Index(v, ".atlasv1.") == 14 }

// bedrockLongLived checks the length gitleaks gives a long-lived Bedrock
// key, 109-269 base64 bytes after "ABSK" and before the padding; the
// pattern leaves it open since its class takes in the prefix.
func bedrockLongLived(v string) bool {
	n := len(strings.TrimRight(v, "=")) - len("ABSK")
	return n >= 109 && n <= 269
}

// slackShape checks a Slack token's digits as gitleaks' slack rules give
// them: a bot token (xoxb-) starts with 8-14 digits and '-'; a user or
// configuration token (xoxp-, xoxe-) with three groups of 10-13 digits
// and 28 or more bytes; any of them with one digit, '-' and 140 or more
// (configuration and refresh tokens, xoxe.xoxb-1-…); a legacy one
// (xoxs-, xoxo-) with three groups of digits and a hex part; workspace
// tokens (xoxa-, xoxr-) with 8 or more alphanumerics.
// "xoxb-12345-abcd234" and "xoxp-1234567890" are examples.
func slackShape(v string) bool {
	kind, rest := v[3], v[len("xoxb-"):]
	parts := strings.Split(rest, "-")
	digits := func(p string, lo, hi int) bool {
		if len(p) < lo || len(p) > hi {
			return false
		}
		for i := 0; i < len(p); i++ {
			if !isDigitByte(p[i]) {
				return false
			}
		}
		return true
	}
	if (kind == 'b' || kind == 'p' || kind == 'e') && len(parts) >= 2 && digits(parts[0], 1, 1) {
		return len(rest)-2 >= 140 // xoxe.xoxb-1-…, xoxe.xoxp-1-…, xoxe-1-…
	}
	switch kind {
	case 'b':
		return len(parts) >= 2 && digits(parts[0], 8, 14) && len(rest)-len(parts[0]) > 10
	case 'p', 'e':
		return len(parts) >= 4 && digits(parts[0], 10, 13) && digits(parts[1], 10, 13) && digits(parts[2], 10, 13) && len(rest)-len(parts[0])-len(parts[1])-len(parts[2])-3 >= 28
	case 's', 'o':
		return len(parts) >= 4 && digits(parts[0], 1, 20) && digits(parts[1], 1, 20) && digits(parts[2], 1, 20) && isHex(strings.Join(parts[3:], ""))
	}
	return len(rest) >= 8 // a, r
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// basicCredentials: v, standard base64, decodes to printable "user:pass"
// with a password of 3 bytes or more that is no placeholder ("YnJvd3Nlcjo="
// is "browser:", "dXNlcjpwYXNzd29yZA==" "user:password").
func basicCredentials(v string) bool {
	dec, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		if dec, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "=")); err != nil {
			return false
		}
	}
	for _, c := range dec {
		if c < ' ' || c > '~' {
			return false
		}
	}
	_, pass, ok := strings.Cut(string(dec), ":")
	return ok && realPassword(pass)
}

// curlUser: curl's "user:password" (the password maybe quoted) with a
// real password: not a variable, a placeholder or the word itself.
func curlUser(v string) bool {
	user, pass, _ := strings.Cut(v, ":")
	pass = strings.Trim(pass, `"'`)
	return !strings.HasPrefix(pass, "$") && !strings.HasPrefix(pass, "%") && pass != user && !placeholderLike(v) && realPassword(pass)
}

// realPassword: 3 bytes or more, not one or two repeated ("yyy"), no
// placeholder ("[PASSWORD]", "<pass>", "password").
func realPassword(p string) bool {
	if len(p) < 3 || placeholderLike(p) || p[0] == '[' || entropy(p) < 1 {
		return false
	}
	switch strings.ToLower(p) {
	case "password", "pass", "passwd", "pwd", "secret", "token", "apikey", "api_key":
		return false
	}
	return true
}

// base64JWT: v, standard base64 (its padding optional, cut anywhere),
// decodes to a JWT's start: a header ("eyJ" and 5 or more base64url
// bytes), then '.' and claims starting "eyJ", or, cut before its end, a
// header of 64 bytes or more (a key set in the header).
func base64JWT(v string) bool {
	v = strings.TrimRight(v, "=")
	v = v[:len(v)-len(v)%4] // whole groups
	dec, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	head, claims, dot := strings.Cut(string(dec), ".")
	if len(head) < 8 || !strings.HasPrefix(head, "eyJ") || !base64URL(head) {
		return false
	}
	if !dot {
		return len(head) >= 64 && jsonObject(head)
	}
	return strings.HasPrefix(claims, "eyJ")
}

// jsonObject: the base64url part p decodes to printable ASCII holding a
// key ('"' then ':'), as a JWT header's JSON does.
func jsonObject(p string) bool {
	p = p[:len(p)-len(p)%4]
	dec, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return false
	}
	for _, c := range dec {
		if c < ' ' && c != '\n' && c != '\r' && c != '\t' || c > '~' {
			return false
		}
	}
	return strings.Contains(string(dec), `":`)
}

func base64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWord(c) && c != '-' {
			return false
		}
	}
	return true
}

// privateKeyBody: the text between a private key's header and its end
// line (or the text's end) holds 32 base64 bytes or more.
func privateKeyBody(v string) bool {
	body := v[strings.Index(v, "KEY")+len("KEY"):]
	body = body[strings.Index(body, "-----")+len("-----"):] // the header's own dashes
	if k := strings.Index(body, "-----END"); k >= 0 {
		body = body[:k]
	}
	n := 0
	for i := 0; i < len(body); i++ {
		if c := body[i]; isWord(c) && c != '_' || c == '+' || c == '/' {
			n++
		}
	}
	return n >= 32
}

// dnkeyShape: a Defined Networking key is "dnkey-", 26 bytes, '-' and 52;
// the class takes in the prefix and the '-', so the pattern leaves both
// open.
func dnkeyShape(v string) bool { return len(v) == 85 && v[32] == '-' }

// maxmindShape: a MaxMind license key is 6 alphanumerics, '_', 29 and
// "_mmk".
func maxmindShape(v string) bool {
	a, b, _ := strings.Cut(v, "_")
	return len(a) == 6 && len(b) == 29+len("_mmk")
}

// planetscaleBody: 32-64 bytes after a PlanetScale prefix.
func planetscaleBody(v string) bool {
	n := len(v) - len("pscale_") - strings.IndexByte(v[len("pscale_"):], '_') - 1
	return n >= 32 && n <= 64
}

// discordBotTokens finds bare Discord bot tokens: the bot's user id (a
// snowflake of 17-20 digits, no leading zero) in unpadded base64, '.', 6
// [\w-], '.', 27-38 [\w-] (detect-secrets' DiscordBotTokenDetector shape,
// the last part up to 38 as issued now). No literal starts a token, so the
// first part's decoding is the check: base64 of ASCII digits allows 3 to 10
// of 64 letters at each position, which words and random strings miss. It
// reads the text from dot to dot; each dot costs a bounded look around it.
func discordBotTokens(text string, dst [][]int) [][]int {
	for i := 0; ; {
		k := strings.IndexByte(text[i:], '.')
		if k < 0 {
			return dst
		}
		d := i + k
		i = d + 1
		if d+7 >= len(text) || text[d+7] != '.' || !tokenRun(text[d+1:d+7]) {
			continue
		}
		st := d
		for st > 0 && d-st <= 27 && isAlnum(text[st-1]) {
			st--
		}
		if st > 0 && tokenByte(text[st-1]) || !base64Digits(text[st:d]) {
			continue
		}
		en := d + 8
		for en < len(text) && en-d-8 <= 38 && tokenByte(text[en]) {
			en++
		}
		if n := en - d - 8; n < 27 || n > 38 {
			continue
		}
		dst = append(dst, []int{st, en, st, en})
		i = en
	}
}

// base64Digits reports whether s is unpadded base64 of 17-20 ASCII digits
// not starting with 0, its padding bits zero.
func base64Digits(s string) bool {
	if n := len(s); n != 23 && n != 24 && n != 26 && n != 27 {
		return false
	}
	var acc, bits uint
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v uint
		switch {
		case c >= 'A' && c <= 'Z':
			v = uint(c - 'A')
		case c >= 'a' && c <= 'z':
			v = uint(c-'a') + 26
		case c >= '0' && c <= '9':
			v = uint(c-'0') + 52
		default:
			return false
		}
		acc, bits = acc<<6|v, bits+6
		if bits >= 8 {
			bits -= 8
			b := acc >> bits
			if b < '0' || b > '9' || i < 2 && b == '0' {
				return false
			}
			acc &= 1<<bits - 1
		}
	}
	return acc == 0
}

// discordGates: the three bytes where one group of four of base64Digits'
// base64 meets the next (its last byte: 48 + a digit, w-z or 0-5; then the
// next digit's first two), so every id of 17 digits or more holds one.
// Their case-folded forms are rare in prose ("ynt" of syntax, "2nd").
func discordGates() []string {
	var gates []string
	for _, last := range "wxyz012345" {
		for d := range 10 {
			gates = append(gates, string([]byte{byte(last), "MNO"[d>>2], "DTjz"[d&3]}))
		}
	}
	return gates
}

func tokenRun(s string) bool {
	for i := 0; i < len(s); i++ {
		if !tokenByte(s[i]) {
			return false
		}
	}
	return true
}

// tokenByte is [\w-], the bytes of a Discord token's second and third parts.
func tokenByte(c byte) bool { return isWord(c) || c == '-' }

func isAlnum(c byte) bool { return isWord(c) && c != '_' }

// vendorRule is an identifier rule for a vendor value without a prefix of
// its own: an identifier holding one of kws (as identKeyword reads
// keywords), up to 20 more identifier bytes (DATADOG_API_KEY,
// mailgunPrivateKey), an assignment and the value (value: a regexp
// alternation, read case-insensitively). Every keyword holds one of gates.
// Every value starts with leadN bytes of lead (a byteClass spec, holding
// the case folds of value's letters): identMatches skips an identifier
// whose assignment is followed by anything else without running the
// regexp. entropy is gitleaks' floor for the rule, 0 where it sets none:
// the value then needs 2.5 bits/char, which drops "0000…" and "abcabc…".
func vendorRule(id string, kws, gates []string, value, lead string, leadN int, sev scan.Severity, entropy float64) rule {
	re := regexp.MustCompile(`(?i)\b` + identKeyword(kws) + `[\w.\-]{0,20}` + typeAnnotation + `(?:["']?[ \t]{0,3}(?:[:=]|=>|:{1,3}=|[?.]=|>)|["'],)\s{0,5}["'\x60]?(` + value + `)(?:[^\w\-]|\z)`)
	return rule{id: id, gates: gates, foldGates: true, ident: true, need: valueNeed{kind: needAssign, lead: byteClass(lead), leadN: leadN},
		re: re, group: 1, sev: sev, conf: 0.85, entropy: max(entropy, 2.5)}
}

// typeAnnotation is an optional string type between an identifier and its
// assignment (stop 23, after gitleaks' sample syntaxes): Go's "var
// apiToken string = …", TypeScript's and Kotlin's "apiKey: string = …",
// Rust's "&str". Only these names: any word there would read "secret
// name = …" as an assignment to a secret.
const typeAnnotation = `(?:[ \t]*:?[ \t]*(?:string|str|&str|\[\]byte))?`

// typeNames are typeAnnotation's names, longest first, lower-case.
var typeNames = []string{"string", "[]byte", "&str", "str"}

// Credential keywords (regexps). In the assignment rules the keyword ends
// the identifier (a \b follows it): "DB_PASSWORD", "dbPassword",
// "spring.datasource.password" are credentials, "password_reset_url" and
// "tokenizer" are not.
var (
	// passwordKeywordForms and assignKeywordForms spell out each keyword
	// of passwordKeywords and assignKeywords (valueNeed.ends); a test holds
	// them to the regexps.
	passwordKeywordForms = []string{"password", "passwd", "pwd", "secret", "credential", "credentials"}
	assignKeywordForms   = append([]string{"token", "apikey", "api_key", "api.key", "api-key", "accesskey", "access_key", "access.key", "access-key"}, passwordKeywordForms...)

	passwordKeywords = []string{"password", "passwd", "pwd", "secret", "credentials?"}
	assignKeywords   = append([]string{"token", `api[_.\-]?key`, `access[_.\-]?key`}, passwordKeywords...)
	entropyKeywords  = []string{"key", "token", "secret", "password", "passwd", "credential", "auth", "bearer"}
)

// identKeyword matches one of kws with the start of the identifier it is
// part of, as gitleaks' generic-api-key rule and detect-secrets'
// KeywordDetector allow: the keyword starts the identifier, follows a
// separator (DB_PASSWORD, my-api-key, spring.datasource.password) or starts
// a camelCase word after a lower-case letter or digit (dbPassword,
// stripeApiKey). A keyword inside a word ("monkey", "hotkey", "MONKEY")
// does not count. The pattern must be compiled case-insensitively; the
// identifier bytes before the keyword and the first letter of a camelCase
// keyword are matched case-sensitively (so the prefix is ASCII: (?i)\w
// would take in the Kelvin sign). The caller puts \b before it.
func identKeyword(kws []string) string {
	camel := make([]string, len(kws))
	for i, k := range kws {
		camel[i] = "(?-i:" + strings.ToUpper(k[:1]) + ")" + k[1:]
	}
	return `(?:(?-i:[\w.\-]*[_.\-])?(?:` + strings.Join(kws, "|") + `)|(?-i:[\w.\-]*[a-z0-9])(?:` + strings.Join(camel, "|") + `))`
}

// highEntropyRE: a credential keyword anywhere in an identifier's last
// words (API_KEY, AUTH_TOKEN_PROD, apiKeyId) or in prose ("the API key is"),
// then a long value; Scan keeps it only above detect-secrets' entropy.
var (
	highEntropyRE       = regexp.MustCompile(`(?i)\b` + identKeyword(entropyKeywords) + `\w{0,64}\b` + typeAnnotation + `["']?\s{0,32}(?:[:=]|=>|:{1,3}=|[?.]=|[>,]|is)?\s{0,32}["'\x60]?([A-Za-z0-9+/_\-]{20,}={0,2})`)
	highEntropyAnchored = anchor(highEntropyRE)
)

// anchor turns a pattern `(?i)\b<rest>` into `(?i)^<rest>` for
// identMatches, which checks the word boundary itself.
func anchor(re *regexp.Regexp) *regexp.Regexp {
	rest, ok := strings.CutPrefix(re.String(), `(?i)\b`)
	if !ok {
		panic("secrets: identifier pattern without (?i)\\b: " + re.String())
	}
	return regexp.MustCompile(`(?i)^` + rest)
}

// identWindow bounds the text an identifier rule's regexp reads after the
// identifier it starts in: the bounded parts of those patterns (the
// keyword, a suffix of 64 word bytes, blanks of up to 32, the separator)
// and the values Scan keeps (maxRunes) fit in it. A match that reaches the
// window's end is redone on the rest of the text (a long value: the
// patterns leave values open-ended).
const identWindow = 512

// maxIdent: a run of identifier bytes longer than this holding a keyword
// is not an identifier anyone writes; it is skipped, so that a text of one
// long run ("key_key_key_...") costs one pass, not one regexp run over
// the whole run (identKeyword's prefix keeps every keyword in it open).
const maxIdent = 256

// identMatches returns what re.FindAllStringSubmatchIndex(text, -1)
// returns for a rule pattern `(?i)\b` + identKeyword(...) + ..., given
// anchored = anchor(re) and gates such that every keyword of the pattern
// contains one, running the regexp only from the identifiers that hold a
// gate, except in runs of identifier bytes longer than maxIdent. A match
// starts at the first word boundary of the run of identifier
// bytes ([A-Za-z0-9_.-]) that holds its keyword, not before the previous
// match's end: the prefix of identKeyword takes in any later start in the
// same run, so that boundary is where leftmost-first search would start it.
// Gates are found case-folded as (?i) folds (the Kelvin sign is a k).
//
// When the text holds so many gates that the anchored runs would cost more
// than one pass of full (the unanchored rule pattern) over the whole text
// ("pwd=pwd=pwd=…": each gate a new identifier, each run reading its
// window), identMatches returns full's own matches instead: the same
// matches, plus those in runs longer than maxIdent.
func identMatches(text string, full, anchored *regexp.Regexp, gates []string, need valueNeed, dst [][]int) [][]int {
	n0 := len(dst)
	gateStart := gateStartTable(gates)
	budget := identRunBudget(len(text))
	last := 0      // end of the previous match
	run := 0       // start of the run of identifier bytes holding text[i]
	tried := -1    // the last start tried
	s, b := -1, -1 // the run start of the previous gate, and its first boundary (-1: none up to searched)
	searched := -1
	runEnd := 0 // end of the identifier bytes from the last gate tried
	var cur needCursor
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !gateStart[c] || !gateFoldAt(text[i:], gates) {
			if !identByte(c) {
				run = i + 1
			}
			continue
		}
		// run is the start of the identifier bytes before i (a gate can
		// start with a rune that is not one: the Kelvin sign).
		if st := max(run, last); st != s {
			s, b, searched = st, -1, st-1
		}
		for p := searched + 1; b < 0 && p <= i; p++ {
			if wordBoundary(text, p) {
				b = p
			}
			searched = p
		}
		if !identByte(c) {
			run = i + 1
		}
		// The run's first boundary; for a gate starting with a rune the
		// prefix cannot take in (the Kelvin sign), also the gate itself.
		from := [2]int{b, -1}
		if c >= utf8.RuneSelf && i != b && wordBoundary(text, i) {
			from[1] = i
		}
		if from[0] <= tried && from[1] <= tried {
			continue
		}
		if i >= runEnd {
			for runEnd = i; runEnd < len(text) && identByte(text[runEnd]); runEnd++ {
			}
		}
		if runEnd-max(from[0], 0) > maxIdent || !need.possible(text, i, runEnd, &cur) {
			continue
		}
		for _, st := range from {
			if st <= tried {
				continue
			}
			tried = st
			if budget--; budget < 0 {
				return append(dst[:n0], full.FindAllStringSubmatchIndex(text, -1)...)
			}
			end := min(len(text), runEnd+identWindow)
			for end < len(text) && !utf8.RuneStart(text[end]) {
				end-- // a rune cut in two reads as U+FFFD, which no value class of a folded letter holds
			}
			m := anchored.FindStringSubmatchIndex(text[st:end])
			if m != nil && m[1] == end-st && end < len(text) {
				switch need.long.extend(text, st, end, m, &cur) {
				case longNone:
					m = nil
				case longUnknown:
					m = anchored.FindStringSubmatchIndex(text[st:])
				}
			}
			if m == nil {
				continue
			}
			for k := range m {
				if m[k] >= 0 {
					m[k] += st
				}
			}
			dst = append(dst, m)
			budget++ // see identRunBudget
			last = m[1]
			i = max(i, last-1)
			break
		}
	}
	return dst
}

// identRunBudget is how many anchored runs identMatches makes on a text of
// n bytes before one pass of the full pattern is cheaper: a run reads up to
// identWindow bytes past its identifier, so about n/identWindow runs read
// as much as the full pass; real text has a handful of gates. A run that
// matches is not counted: it reads little past its match, which no later
// run reads again, so matches cost their length and a constant (about 1 µs
// for the backtracker's bitmap) each, and the full pattern's pass, about
// 0.5 µs per byte, was the dearer way for a flood of real assignments
// ("password='Xk9#mP2q' " or "password: " repeated, 13,000-26,000 matches
// in 256 KiB).
func identRunBudget(n int) int { return 64 + n/identWindow }

// valueNeed is what must follow an identifier rule's keyword for the
// regexp to have a chance: a cheap test that skips most keywords in prose
// and in floods of them (each regexp call clears a bitmap of its program
// times its input, and past identRunBudget calls the whole text goes to
// the unanchored pattern, about 0.5 µs per byte: "password=" repeated over
// a request at every size limit cost 0.5-0.8 s).
type valueNeed struct {
	kind needKind
	// For needAssign: the value after the assignment opens with a quote
	// (quote), then holds leadN bytes of lead (nil: no test).
	quote bool
	lead  *[256]bool
	leadN int
	long  longValue
	// bare: the value opens without a quote (the unquoted rule), which
	// the lead class excludes. ends: the identifier ends in one of these
	// keyword forms where a keyword can start (lower-case; nil: no test):
	// in the password rules the keyword ends the identifier ("pass=" has
	// a gate and no keyword, "fGpassword=" a keyword inside a word).
	bare bool
	ends []string
}

// longValue describes how a rule's pattern ends, for a match that runs to
// the end of identMatches' window: with its value, submatch 1, a greedy
// run of class bytes (>= 0x80: see ascii), then either a terminator byte
// (end: one byte of the ASCII set term, or the end of the text) or up to
// two '=' (equals). Class, term and '=' are disjoint.
//
// Then the match on the whole text is the window's, with the value run on
// to the end of its class bytes: every path of the pattern that reaches
// the window's end is in the value's loop (the parts before the value are
// bounded well inside the window), the one the window chose has the
// highest priority of those that succeed there, and they all go on alike
// through the class bytes. Redone by the regexp (the former way), a value
// run over a flood ("password=password=…" is one unquoted value) cost its
// pattern's NFA about 0.15 µs per byte: 0.15 s for a request at every size
// limit. extend answers false, leaving the redo to the regexp, where the
// run does not end as the pattern needs (an unquoted value followed by a
// quote or '(' fails there: lower-priority paths ending inside the window
// may then win) or meets a byte it does not cover.
type longValue struct {
	class  *[256]bool // nil: no shortcut
	ascii  bool       // a byte >= 0x80 in the run: no shortcut (class folds only ASCII letters; (?i) adds ſ and the Kelvin sign)
	term   *[256]bool // terminator bytes (nil: the equals form)
	equals bool
}

// What extend learnt of the match on the whole text.
const (
	longUnknown  = iota // left to the regexp
	longExtended        // m is now that match
	longNone            // there is none
)

// extend extends m, the anchored match of text[st:end] that reached end,
// to the match on text[st:]. An unquoted value whose run of class bytes
// ends at a byte that can neither go on nor end it ('(', a quote, '<')
// leaves no match at all: every path that succeeded in the window was in
// the value's loop (the separator's forms all start their value in the
// same run), and the run holds no terminator. Redone by the regexp, each
// gate in such a run read the rest of the text: "a_pwd=bc" repeated over
// 256 KiB then "(" cost 17 s, as many full reads as the run budget allows.
// cur remembers the last run's end, so gates in one run read it once.
func (l longValue) extend(text string, st, end int, m []int, cur *needCursor) int {
	if l.class == nil || len(m) < 4 || m[3] != end-st || !l.class[text[end-1]] {
		return longUnknown
	}
	k := cur.classRunEnd(text, end, l)
	if k < 0 {
		return longUnknown
	}
	switch {
	case l.equals:
		for n := 0; n < 2 && k < len(text) && text[k] == '='; n++ {
			k++
		}
		m[1], m[3] = k-st, k-st
	case k == len(text):
		m[1], m[3] = k-st, k-st
	case l.term[text[k]]:
		m[1], m[3] = k+1-st, k-st
	default:
		return longNone
	}
	return longExtended
}

// classRunEnd returns the end of the run of l.class bytes through
// text[from] (-1: a byte >= 0x80 in it and l.ascii). A later call from
// inside the same run answers from the last one.
func (c *needCursor) classRunEnd(text string, from int, l longValue) int {
	if !c.classUsed || from < c.classFrom || from > c.classStop {
		k := from
		for ; k < len(text) && l.class[text[k]]; k++ {
			if text[k] >= utf8.RuneSelf && l.ascii {
				break
			}
		}
		c.classUsed, c.classFrom, c.classStop = true, from, k
		c.classBail = k < len(text) && text[k] >= utf8.RuneSelf && l.ascii
	}
	if c.classBail {
		return -1
	}
	return c.classStop
}

type needKind uint8

const (
	needAssign needKind = iota + 1 // a ':' or '=' soon after the identifier
	needValue                      // a run of 20 value bytes soon after the gate
)

// possible reports whether a match can hold the gate at i, whose
// identifier bytes end at runEnd. The distances are upper bounds of the
// patterns' bounded parts (suffix 64, blanks 32 each side, quotes, a
// 2-byte rune ending a keyword). cur carries what earlier calls of the
// same identMatches read, so that gates every few bytes do not each read
// the next 72 or 200 bytes again.
func (n valueNeed) possible(text string, i, runEnd int, cur *needCursor) bool {
	switch n.kind {
	case needAssign:
		if !cur.sepBefore(text, i, min(len(text), runEnd+72)) && !quoteComma(text, runEnd) {
			return false
		}
		return n.lead == nil || n.assigned(text, runEnd)
	case needValue:
		return cur.valueRun(text, i, min(len(text), runEnd+200))
	}
	return true
}

// needCursor remembers, for calls of possible with increasing i, the next
// ':' or '=' and the state of the last search for a run of value bytes.
type needCursor struct {
	sepFrom, sep int // text[sep] is the first ':' or '=' from sepFrom (len(text): none)
	// The last valueRun scanned text[runFrom:runTo], counting run value
	// bytes (from runFrom) that end at runTo, and found its first run of
	// 20 ending at hit (inclusive; -1: none before runTo).
	runFrom, runTo, run, hit int
	used                     bool
	// text[classFrom:classStop] is class bytes, as the last classRunEnd
	// found, and text[classStop] is not (classBail: a byte >= 0x80 it
	// does not cover).
	classFrom, classStop int
	classUsed, classBail bool
}

// sepBefore reports whether text[i:end] holds ':', '=' or '>'.
func (c *needCursor) sepBefore(text string, i, end int) bool {
	if !c.used || i < c.sepFrom || i > c.sep {
		c.used, c.sepFrom, c.sep = true, i, len(text)
		if k := strings.IndexAny(text[i:], ":=>"); k >= 0 {
			c.sep = i + k
		}
	}
	return c.sep < end
}

// valueRun reports whether text[i:end] holds 20 value bytes in a row
// ([A-Za-z0-9+/_-] or >= 0x80). For a later i within the last scan it goes
// on from where that scan stopped: a run found then is still the first
// (counted from i, a run is no longer), and where none was, the count
// carries over, clipped to start at i.
func (c *needCursor) valueRun(text string, i, end int) bool {
	j, run := i, 0
	if c.runTo > 0 && i >= c.runFrom && i <= c.runTo {
		if c.hit >= 0 {
			if i <= c.hit-19 {
				return c.hit < end
			}
			j, run = c.hit+1, min(c.run, c.hit+1-i)
		} else {
			j, run = c.runTo, min(c.run, c.runTo-i)
		}
	}
	c.runFrom, c.hit = i, -1
	for ; j < end; j++ {
		ch := text[j]
		if ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '+' || ch == '/' || ch == '_' || ch == '-' || ch >= utf8.RuneSelf {
			if run++; run >= 20 {
				c.runTo, c.run, c.hit = j+1, run, j
				return true
			}
		} else {
			run = 0
		}
	}
	c.runTo, c.run = max(j, i), run
	return false
}

// assigned reports whether the text at runEnd can be what the assignment
// patterns read after their identifier: an optional quote, up to 32 blanks
// (\s; the vendor rules allow 3 spaces or tabs), ':' or '=' (or "=>",
// ":="), up to 32 blanks, the value's opening quote (quote, or an optional
// one) and its leadN first bytes. The identifier ends at runEnd: its bytes
// are ASCII identifier bytes ([st, runEnd)), a keyword ends at a \b, and
// what may follow a keyword (a quote, a blank, the separator; the vendor
// rules' 20 identifier bytes first) is no identifier byte. A keyword can
// hold a non-ASCII rune only past runEnd (ſ and the Kelvin sign fold to s
// and k): then the test answers true. So do bytes >= 0x80 in the value,
// which (?i) may fold into its class.
func (n valueNeed) assigned(text string, runEnd int) bool {
	j := runEnd
	if j < len(text) && text[j] >= utf8.RuneSelf {
		return true
	}
	if !n.separated(text, j) {
		t := afterType(text, j)
		if t < 0 || t < len(text) && text[t] >= utf8.RuneSelf || !n.separated(text, t) {
			return t == -2
		}
	}
	// Last: the dearest test, and floods of an identifier mostly fail the
	// others. An identifier run may end in the '.' of ".=".
	return n.ends == nil || keywordEnds(text, runEnd, n.ends) || runEnd > 0 && text[runEnd-1] == '.' && keywordEnds(text, runEnd-1, n.ends)
}

// separated reports whether text at j can be what the patterns read after
// an identifier (and its type): an optional quote, blanks, a separator
// (':', '=', '>', "=>", ":=", "::=", ":::=", "?=", ".="; ',' right after
// the quote, as in setProperty("API_TOKEN", "…")), blanks and the value's
// start (valueAt).
func (n valueNeed) separated(text string, j int) bool {
	quoted := j < len(text) && (text[j] == '"' || text[j] == '\'')
	if quoted {
		j++
		if j < len(text) && text[j] == ',' && n.valueAt(text, j+1) {
			return true
		}
	}
	j = skipBlanks(text, j)
	if j+1 < len(text) && (text[j] == '?' || text[j] == '.') && text[j+1] == '=' {
		j++
	}
	if j >= len(text) || text[j] != ':' && text[j] != '=' && text[j] != '>' {
		return false
	}
	// The value may start after any of the separator's first four bytes.
	ok := n.valueAt(text, j+1)
	for e := j + 1; !ok && e < len(text) && e-j < 4 && (text[e] == ':' || text[e] == '=' || text[e] == '>'); e++ {
		ok = n.valueAt(text, e+1)
	}
	return ok
}

// quoteComma reports whether the identifier ending at runEnd (or its
// type) is followed by a quote and ',': a call's key and value, the one
// separator sepBefore does not look for (commas are everywhere in prose).
func quoteComma(text string, runEnd int) bool {
	at := func(j int) bool {
		return j+1 < len(text) && (text[j] == '"' || text[j] == '\'') && text[j+1] == ','
	}
	if at(runEnd) {
		return true
	}
	t := afterType(text, runEnd)
	return t == -2 || t >= 0 && at(t)
}

// afterType returns where a typeAnnotation at j ends (-1: none there; -2:
// a byte >= 0x80 where (?i) could fold one into a name, as ſ into s).
func afterType(text string, j int) int {
	if j < len(text) && text[j] != ' ' && text[j] != '\t' && text[j] != ':' && text[j] != '[' && text[j] != '&' && text[j] < utf8.RuneSelf {
		return -1 // the identifier run ends at a byte no annotation starts with
	}
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j < len(text) && text[j] == ':' {
		j++
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
	}
	if j >= len(text) {
		return -1
	}
	if c := text[j]; c < utf8.RuneSelf && c|0x20 != 's' && c != '[' && c != '&' {
		return -1 // the first byte of no name: most text stops here
	}
	for k := j; k < min(len(text), j+6); k++ {
		if text[k] >= utf8.RuneSelf {
			return -2
		}
	}
	for _, name := range typeNames {
		if j+len(name) <= len(text) && scan.HasPrefixFold(text[j:], name) {
			return j + len(name)
		}
	}
	return -1
}

// valueAt: blanks, then the value's opening quote and lead bytes from v.
func (n valueNeed) valueAt(text string, v int) bool {
	v = skipBlanks(text, v)
	quoted := v < len(text) && (text[v] == '"' || text[v] == '\'' || text[v] == '`')
	if n.quote {
		return quoted && n.leadAt(text, v+1) && n.closedAt(text, v+1+n.leadN)
	}
	return n.leadAt(text, v) || !n.bare && quoted && n.leadAt(text, v+1)
}

// keywordEnds reports whether the identifier bytes before j end with one
// of forms (lower-case ASCII) where identKeyword can read a keyword: at
// the start of the run, after '_', '.' or '-', or, upper-case, after a
// lower-case letter or digit (camelCase). The bytes before j are ASCII, and
// (?i) folds an ASCII letter only to its other case there.
func keywordEnds(text string, j int, forms []string) bool {
	for _, f := range forms {
		p := j - len(f)
		if p < 0 || !scan.HasPrefixFold(text[p:j], f) {
			continue
		}
		if p == 0 {
			return true
		}
		b := text[p-1]
		if b == '_' || b == '.' || b == '-' || !identByte(b) {
			return true
		}
		if (b >= 'a' && b <= 'z' || b >= '0' && b <= '9') && text[p] >= 'A' && text[p] <= 'Z' {
			return true
		}
	}
	return false
}

func (n valueNeed) leadAt(text string, v int) bool {
	for k := range n.leadN {
		if v+k >= len(text) {
			return false
		}
		if c := text[v+k]; c >= utf8.RuneSelf {
			return true
		} else if !n.lead[c] {
			return false
		}
	}
	return true
}

// closedAt reports whether the run of lead bytes (and bytes >= 0x80,
// which no quote or blank folds to) from k ends at a quote, as the quoted
// pattern's value must: "apiToken := `apiToken := `…" then fails here, not
// in the regexp (each failed run spends identRunBudget, and past it the
// whole text went to the full pattern: 7.6x the cost of that flood). A run
// reaching identWindow bytes is left to the regexp.
func (n valueNeed) closedAt(text string, k int) bool {
	for end := min(len(text), k+identWindow); k < end; k++ {
		if c := text[k]; c < utf8.RuneSelf && !n.lead[c] {
			return c == '"' || c == '\'' || c == '`'
		}
	}
	return k < len(text)
}

// skipBlanks skips up to 32 bytes of \s ([\t\n\f\r ]) from j.
func skipBlanks(text string, j int) int {
	for end := min(len(text), j+32); j < end; j++ {
		if c := text[j]; c != ' ' && c != '\t' && c != '\n' && c != '\f' && c != '\r' {
			break
		}
	}
	return j
}

// byteClass builds the ASCII bytes of spec: single bytes and ranges
// ("a-f"; '-' first or last is itself), all bytes but those after a
// leading '^'.
func byteClass(spec string) *[256]bool {
	var t [256]bool
	neg := strings.HasPrefix(spec, "^")
	if neg {
		spec = spec[1:]
	}
	for k := 0; k < len(spec); k++ {
		lo, hi := spec[k], spec[k]
		if k+2 < len(spec) && spec[k+1] == '-' {
			hi = spec[k+2]
			k += 2
		}
		for c := int(lo); c <= int(hi); c++ {
			t[c] = true
		}
	}
	if neg {
		for c := range t {
			t[c] = !t[c]
		}
	}
	return &t
}

// gateStartTable marks the bytes one of gates can start with: both cases
// of its first letter, and the first byte of the other runes (?i) folds to
// it (K, the Kelvin sign, for k; ſ for s). It is built per call from the
// rule's own gates: a table shared by every identifier rule would stop
// the password rule at the first letter of each vendor keyword.
func gateStartTable(gates []string) (t [256]bool) {
	for _, g := range gates {
		c := rune(g[0])
		t[c] = true
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			var b [utf8.UTFMax]byte // not AppendRune(nil, …): this runs per call
			utf8.EncodeRune(b[:], f)
			t[b[0]] = true
		}
	}
	return t
}

func init() {
	for i := range rules {
		if rules[i].ident {
			rules[i].anchored = anchor(rules[i].re)
		}
		rules[i].typed = rules[i].id != "password_assignment" && rules[i].id != "basic_auth_url"
	}
}

// gateFoldAt reports whether s starts with one of gates (lower-case ASCII)
// under the case folding of regexp (?i): simple folding, rune by rune.
func gateFoldAt(s string, gates []string) bool {
	c := s[0]
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	for _, g := range gates {
		// An ASCII byte folds only to its other case: most gates stop
		// here, without a call.
		if c < utf8.RuneSelf && c != g[0] {
			continue
		}
		if hasPrefixSimpleFold(s, g) {
			return true
		}
	}
	return false
}

func hasPrefixSimpleFold(s, g string) bool {
	j := 0
	for k := 0; k < len(g); k++ {
		if j >= len(s) {
			return false
		}
		c, want := s[j], g[k]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != want {
				return false
			}
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		ok := false
		for f := unicode.SimpleFold(rune(want)); f != rune(want); f = unicode.SimpleFold(f) {
			ok = ok || f == r
		}
		if !ok {
			return false
		}
		j += n
	}
	return true
}

// wordBoundary is \b at p: word byte on one side only.
func wordBoundary(text string, p int) bool {
	return (p > 0 && isWord(text[p-1])) != (p < len(text) && isWord(text[p]))
}

func identByte(c byte) bool { return isWord(c) || c == '.' || c == '-' }

// Policies lists, sorted, the policy ids the scanner can emit
// ("secrets.<rule>").
func Policies() []string {
	seen := map[string]bool{"secrets.high_entropy": true}
	for _, r := range rules {
		seen["secrets."+r.id] = true
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Scanner finds secrets. New returns a ready scanner; it holds no mutable
// state and is safe for concurrent use.
type Scanner struct{}

// New returns a scanner.
func New() *Scanner { return &Scanner{} }

// highEntropyGate gates highEntropyRE; it is rule number len(rules) of the
// gate table.
var highEntropyGate = rule{gates: []string{"key", "token", "secret", "password", "passwd", "credential", "auth", "bearer"}, foldGates: true}

type gateRef struct {
	gate string // lower-cased when fold
	rule int
	fold bool
	// second is the gate's second byte and mask 0x20 when it is a folded
	// letter: text byte c can be it when c|mask == second. openAt tests it
	// before anything else, so that the gates sharing a first byte with a
	// common trigram ("sec", "pas", "API") cost a compare each, not a call.
	second, mask byte
}

// gateTable lists, by the text byte a gate can start with, the gates that
// start with it (folded gates under both cases of their first letter), so
// one pass over the text checks every gate.
var gateTable = func() (t [256][]gateRef) {
	if len(rules)+1 > maxRules {
		panic("secrets: raise maxRules")
	}
	all := append(append([]rule(nil), rules...), highEntropyGate)
	for i, r := range all {
		for _, g := range r.gates {
			if len(g) < 2 {
				panic("secrets: gates need two bytes")
			}
			if r.foldGates {
				g = strings.ToLower(g)
				ref := gateRef{gate: g, rule: i, fold: true, second: g[1]}
				if g[1] >= 'a' && g[1] <= 'z' {
					ref.mask = 0x20
				}
				t[g[0]] = append(t[g[0]], ref)
				if c := g[0]; c >= 'a' && c <= 'z' {
					t[c-'a'+'A'] = append(t[c-'a'+'A'], ref)
				}
				continue
			}
			t[g[0]] = append(t[g[0]], gateRef{gate: g, rule: i, second: g[1]})
		}
	}
	return t
}()

const maxRules = 136

// gateTriples has bit tripleHash(a, b, c) set when some gate can start
// with the bytes a, b, c (any third byte for two-byte gates): under 600 of
// its 2^17 bits. Prose passed the former filter on byte pairs at every
// common bigram ("se", "to", "pa"); few positions pass this one, so
// openGates tests it eight positions at a time without branching.
var gateTriples = func() (t [1 << 17 / 64]uint64) {
	set := func(k uint64) {
		h := tripleHash(k | fold)
		t[h>>6] |= 1 << (h & 63)
	}
	for _, refs := range gateTable {
		for _, g := range refs {
			k := uint64(g.gate[0]) | uint64(g.gate[1])<<8
			if len(g.gate) >= 3 {
				set(k | uint64(g.gate[2])<<16)
				continue
			}
			for c := range 256 {
				set(k | uint64(c)<<16)
			}
		}
	}
	return t
}()

// tripleHash hashes the three low bytes of k, in which the caller has set
// bit 0x20 of every byte (fold): a gate and each case variant the text can
// hold then hash alike, and other bytes to some key: it is only a filter.
func tripleHash(k uint64) uint64 {
	return k & 0xffffff * 0x9e3779b97f4a7c15 >> 47
}

// fold sets bit 0x20 of each byte of k.
const fold = 0x2020202020202020

// hasGate3 is 1 when the folded bytes at the low end of k may start a gate.
func hasGate3(k uint64) uint64 {
	h := tripleHash(k)
	return gateTriples[h>>6] >> (h & 63) & 1
}

// openGates reports, per rule (and highEntropyGate last), whether one of its
// gates occurs in text: what gated reports, in one pass over the text.
func openGates(text string) (open [maxRules]bool) {
	folds := asciiFolds(text)
	i := 0
	// Eight positions at a time while their triples lie in text: v holds
	// the triples of positions i to i+5, w (from i+2) those of i+6 and i+7.
	for ; i+10 <= len(text); i += 8 {
		v, w := scan.Load8(text, i)|fold, scan.Load8(text, i+2)|fold
		if hasGate3(v)|hasGate3(v>>8)|hasGate3(v>>16)|hasGate3(v>>24)|hasGate3(v>>32)|hasGate3(v>>40)|
			hasGate3(w>>32)|hasGate3(w>>40) == 0 {
			continue
		}
		for m := gateMask(v, w); m != 0; m &= m - 1 {
			openAt(text, i+bits.TrailingZeros64(m), folds, &open)
		}
	}
	for ; i+1 < len(text); i++ {
		openAt(text, i, folds, &open)
	}
	if !folds {
		var lower string
		for i := range rules {
			if rules[i].foldGates && !open[i] {
				open[i] = gated(text, &lower, &rules[i])
			}
		}
		open[len(rules)] = gated(text, &lower, &highEntropyGate)
	}
	return open
}

// gateMask has bit k set when position k of the block openGates loaded
// into v and w may start a gate. Only blocks that pass the filter compute
// it, and only its positions are checked: a common trigram that starts
// some gate ("dap" in "adapt") then costs one openAt, not eight.
func gateMask(v, w uint64) uint64 {
	return hasGate3(v) | hasGate3(v>>8)<<1 | hasGate3(v>>16)<<2 | hasGate3(v>>24)<<3 | hasGate3(v>>32)<<4 | hasGate3(v>>40)<<5 |
		hasGate3(w>>32)<<6 | hasGate3(w>>40)<<7
}

// asciiFolds reports whether folding the ASCII letters of text finds the
// gates strings.ToLower(text) holds: only İ (U+0130) and the Kelvin sign
// (U+212A) lower-case to ASCII letters (an invalid byte becomes U+FFFD,
// which no gate holds). Other text, ASCII or not, takes the one pass; the
// fallback to ToLower and a search per folded rule cost about half the
// scan on 64 KiB of prose with one curly quote.
func asciiFolds(text string) bool {
	return scan.IsASCII(text) || !strings.Contains(text, "\u0130") && !strings.Contains(text, "\u212A")
}

// openAt opens the rules of the gates that start at text[i]; folds: the
// text asciiFolds.
func openAt(text string, i int, folds bool, open *[maxRules]bool) {
	c1 := text[i+1] // callers keep i+1 < len(text)
	for _, g := range gateTable[text[i]] {
		if c1|g.mask != g.second || open[g.rule] {
			continue
		}
		if g.fold {
			// ASCII folding equals strings.ToLower only where asciiFolds.
			if folds && scan.HasPrefixFold(text[i:], g.gate) {
				open[g.rule] = true
			}
		} else if strings.HasPrefix(text[i:], g.gate) {
			open[g.rule] = true
		}
	}
}

// Scan appends one hit per secret found in text. Characters that hide a
// secret from a pattern but not from a reader (zero-width and other
// invisible characters, controls, fullwidth forms) are read through, as the
// PII scanner does: the spans then cover the original bytes.
func (s *Scanner) Scan(text string, dst []scan.Hit) []scan.Hit {
	return scan.ReadThroughHidden(text, dst, s.scan)
}

// The unquoted password value's bytes: [^\s"'\x60,;(){}\[\]<>]; every
// byte >= 0x80 is in it (any rune but those, and RE2 reads a stray byte as
// U+FFFD).
var unquotedValue = byteClass("^\"'`,;(){}[]<>\t\n\f\r ")

// highEntropyNeed: a run of 20 value bytes after the keyword; a value that
// runs past identMatches' window is [A-Za-z0-9+/_-]+ then up to two '='.
var highEntropyNeed = valueNeed{kind: needValue, long: longValue{class: byteClass("A-Za-z0-9+/_-"), ascii: true, equals: true}}

func (s *Scanner) scan(text string, dst []scan.Hit) []scan.Hit {
	// dst[runs[k]:runs[k+1]] (the last to len(dst)) are one rule's hits,
	// in order and apart: addHit searches each run instead of reading
	// every hit (a flood of real secrets, "password='Xk9#mP2q' " repeated,
	// has 13,000 in 256 KiB and the reading cost 0.6 s). Sixteen rules
	// with hits in one text fit on the stack; zeroing maxRules+1 cost 2%
	// of a 2 KB scan.
	var runStarts [16]int
	runs := runStarts[:1]
	runs[0] = len(dst)
	open := openGates(text)
	for i := range rules {
		r := &rules[i]
		if !open[i] {
			continue
		}
		if len(dst) > runs[len(runs)-1] {
			runs = append(runs, len(dst))
		}
		var ms [][]int
		if r.ident {
			ms = identMatches(text, r.re, r.anchored, r.gates, r.need, nil)
		} else if r.find != nil {
			ms = r.find(text, nil)
		} else {
			ms = r.re.FindAllStringSubmatchIndex(text, -1)
		}
		for _, m := range ms {
			st, en := m[2*r.group], m[2*r.group+1]
			if st < 0 || r.wordStart && m[0] > 0 && isWord(text[m[0]-1]) {
				continue
			}
			v := text[st:en]
			// Placeholder words only where the rule sets an entropy floor,
			// as before stop 23: AWS's documented AKIAIOSFODNN7EXAMPLE is
			// what users (and this repository's tests) paste to see a block.
			if r.entropy > 0 && (entropy(v) < r.entropy || placeholderLike(v)) || dominated(v) || r.typed && ascendingRun(v) {
				continue
			}
			// A backtick closes only a value it opened (`os.Getenv("X")`
			// is no value "os.Getenv(").
			if r.need.quote && (text[st-1] == '`') != (text[en] == '`') {
				continue
			}
			if r.unquoted && !plainValue(v) || !r.fits(v) || r.valid != nil && !r.valid(v) || r.ident && !identOK(text[m[0]:st], v) {
				continue
			}
			dst = addHit(dst, runs, "secrets."+r.id, r.sev, r.conf, st, en)
		}
	}
	if open[len(rules)] {
		if len(dst) > runs[len(runs)-1] {
			runs = append(runs, len(dst))
		}
		for _, m := range identMatches(text, highEntropyRE, highEntropyAnchored, highEntropyGate.gates, highEntropyNeed, nil) {
			st, en := m[2], m[3]
			v := text[st:en]
			if isHex(v) {
				if len(v) < 32 || entropy(v) < 3.0 || looksLikeHashContext(text, st) {
					continue
				}
			} else if entropy(v) < 4.5 || !mixedClasses(v) || placeholderLike(v) {
				continue
			}
			if ascendingRun(v) || elided(text, en) || publicName(text[m[0]:st]) {
				continue
			}
			dst = addHit(dst, runs, "secrets.high_entropy", scan.SeverityMedium, 0.7, st, en)
		}
	}
	return dst
}

// fits reports whether v's length is within the rule's bounds.
func (r *rule) fits(v string) bool {
	if r.minRunes == 0 && r.maxRunes == 0 {
		return true
	}
	n := utf8.RuneCountInString(v)
	return n >= r.minRunes && (r.maxRunes == 0 || n <= r.maxRunes)
}

func gated(text string, lower *string, r *rule) bool {
	for _, g := range r.gates {
		if r.foldGates {
			if *lower == "" {
				*lower = strings.ToLower(text)
			}
			if strings.Contains(*lower, strings.ToLower(g)) {
				return true
			}
		} else if strings.Contains(text, g) {
			return true
		}
	}
	return false
}

// addHit appends a hit unless a hit of this call already covers the span
// (a vendor rule beats the generic ones that run after it). runs are the
// starts of the runs of dst holding one rule's hits each, sorted and
// disjoint: in each, the first hit ending after st is the only one that
// can overlap.
func addHit(dst []scan.Hit, runs []int, policy string, sev scan.Severity, conf float64, st, en int) []scan.Hit {
	for k, from := range runs {
		to := len(dst)
		if k+1 < len(runs) {
			to = runs[k+1]
		}
		lo, hi := from, to
		for lo < hi {
			if mid := int(uint(lo+hi) >> 1); dst[mid].Spans[0].End > st {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		if lo < to && dst[lo].Spans[0].Start < en {
			return dst
		}
	}
	return append(dst, scan.Hit{Policy: policy, Severity: sev, Confidence: conf,
		Spans: []scan.Span{{Start: st, End: en}}, Placeholder: Placeholder})
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

func isWord(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// mixedClasses: generated credentials mix at least digits and letters.
func mixedClasses(s string) bool {
	var d, l bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		d = d || c >= '0' && c <= '9'
		l = l || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return d && l
}

// placeholderLike rejects documentation values: <YOUR_KEY>, xxxx, ****,
// "example", our own redaction markers.
func placeholderLike(v string) bool {
	// One pass, ASCII letters folded, no allocation: every rule's hit
	// checks it.
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == '<':
			return true
		case c == '$' || c == '{':
			if strings.HasPrefix(v[i+1:], "{") {
				return true
			}
		case placeholderWords[c] != "" && hasFoldAt(v, i, placeholderWords[c]):
			return true
		}
	}
	return false
}

// placeholderWords are placeholderLike's words by their first byte.
var placeholderWords = [256]string{'y': "your", 'e': "example", 'x': "xxxx", '*': "****", '.': "....",
	'c': "changeme", 'p': "placeholder", 'r': "redacted", 'd': "dummy", 's': "sample"}

// dominated reports whether one byte makes up more than half of v: a
// vendor token of one repeated filler ("ghp_xxxx…", "AKIAXXXX…",
// "AIzaaaaa…") is documentation. Every rule checks it; it costs a count,
// not entropy's logarithms (a hit in ordinary text pays it).
func dominated(v string) bool {
	var counts [256]uint32
	top := uint32(0)
	for i := 0; i < len(v); i++ {
		c := &counts[v[i]]
		*c++
		top = max(top, *c)
	}
	return 2*int(top) > len(v)
}

// ascendingRun reports whether s holds six ascending letters of one case
// in a row ("abcdef", "KLMNOP"), documentation's way to fill a token's
// shape ("AIzaSyabcdefghijklmnopqrstuvwxyz1234567", "sk_abcdef…"). A
// random base62 token of 64 characters holds one with a chance of about 1
// in 10^7. Digits are left alone: "123456789" fills this package's own
// tests, and ids hold such runs more often than letters do.
func ascendingRun(s string) bool {
	n := 1
	for i := 1; i < len(s); i++ {
		c, p := s[i], s[i-1]
		if c == p+1 && (isLower(c) && isLower(p) || isUpper(c) && isUpper(p)) {
			if n++; n >= 6 {
				return true
			}
		} else {
			n = 1
		}
	}
	return false
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// elided reports whether the value ending at text[en] is cut short by an
// ellipsis ("ops_eyJzaWdu..."): the rest was left out. Only for
// high_entropy, whose values have no length of their own; a vendor token
// checks its length.
func elided(text string, en int) bool {
	return strings.HasPrefix(text[en:], "...") || strings.HasPrefix(text[en:], "\u2026")
}

// publicName reports whether an identifier rule's match before its value
// names something public or derived, not a credential: publicKey,
// PUBLIC_TOKEN, pub_key, foreignKey, keyHash, csrf-token (a form's
// anti-forgery token, sent to every visitor), as gitleaks' generic-api-key
// allowlist reads them.
func publicName(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 { // no allocation: floods of assignments match thousands of times
		case 'p':
			if hasFoldAt(s, i, "public") || hasFoldAt(s, i, "pub_key") || hasFoldAt(s, i, "pubkey") {
				return true
			}
		case 'f':
			if hasFoldAt(s, i, "foreign") {
				return true
			}
		case 'h':
			if hasFoldAt(s, i, "hash") {
				return true
			}
		case 'c', 'x':
			if hasFoldAt(s, i+1, "srf") {
				return true
			}
		}
	}
	return false
}

// hasFoldAt reports whether s[i:] starts with w (lower-case ASCII),
// ASCII letters folded.
func hasFoldAt(s string, i int, w string) bool {
	return i+len(w) <= len(s) && scan.HasPrefixFold(s[i:], w)
}

// identOK checks an identifier rule's match: lead is the text before the
// value (identifier, separator, quote), v the value. A public name is no
// credential (publicName); a value after a call's key ("KEY", "value":
// the only separator holding ',') must mix letters and digits, as a list
// of names ["access_token", "refresh_token"] reads the same way.
func identOK(lead, v string) bool {
	return !publicName(lead) && (!strings.Contains(lead, ",") || mixedClasses(v))
}

// plainValue: an unquoted assignment value that can be a password, not a
// reference to one: it mixes letters and digits (which excludes
// settings.DB_PASSWORD, process.env.X, true, null) and is neither a
// variable ($DB_PASSWORD, %PASSWORD%) nor a URL.
func plainValue(v string) bool {
	return mixedClasses(v) && v[0] != '$' && v[0] != '%' && !strings.Contains(v, "://")
}

// looksLikeHashContext: a hex digest labelled as a hash or commit.
func looksLikeHashContext(text string, st int) bool {
	l := strings.ToLower(text[max(0, st-40):st])
	for _, w := range []string{"sha", "md5", "hash", "commit", "digest", "checksum", "etag"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}
