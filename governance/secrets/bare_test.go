package secrets

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// discordToken builds a bot token of a fake user id: the id's digits in
// unpadded base64, then a timestamp part and an HMAC part of fake bytes.
func discordToken(id string, hmac int) string {
	return base64.RawStdEncoding.EncodeToString([]byte(id)) + "." + fake(urlChars, 6) + "." + fake(urlChars, hmac)
}

// TestBareTokens: a Discord bot token and a PagerDuty key found without
// an identifier naming the vendor (stop 19), and their look-alikes.
func TestBareTokens(t *testing.T) {
	bot18, bot19 := discordToken("823456789012345678", 38), discordToken("1098765432109876543", 27)
	bot17, bot20 := discordToken("80351110224678912", 30), discordToken("12345678901234567890", 38)
	pd := "y_NbAk+c66ryYTWU-XEu"
	tests := []struct{ text, policy, secret string }{
		{`bot.run("` + bot18 + `")`, "secrets.discord_bot_token", bot18},
		{"client.login('" + bot19 + "');", "secrets.discord_bot_token", bot19},
		{"Authorization: Bot " + bot17, "secrets.discord_bot_token", bot17},
		{"token " + bot20 + ".", "secrets.discord_bot_token", bot20},
		{`curl -H "Authorization: Token token=` + pd + `" https://api.pagerduty.com/users`, "secrets.pagerduty_api_key", pd},
		{`headers = {"Authorization": "Token token=` + pd + `"}`, "secrets.pagerduty_api_key", pd},
		{"Authorization: Token token='" + pd + "'", "secrets.pagerduty_api_key", pd},
	}
	for _, tt := range tests {
		hs := New().Scan(tt.text, nil)
		require.Len(t, hs, 1, "%q: %+v", tt.text, hs)
		require.Equal(t, tt.policy, hs[0].Policy, tt.text)
		require.Equal(t, tt.secret, tt.text[hs[0].Spans[0].Start:hs[0].Spans[0].End])
	}
	lookAlikes := []string{
		// The first part is base64, but not of a user id's digits.
		base64.RawStdEncoding.EncodeToString([]byte("this is no id!!!!!")) + "." + fake(urlChars, 6) + "." + fake(urlChars, 30),
		discordToken("023456789012345678", 30),       // a leading zero
		discordToken("1234567890123456", 30),         // 16 digits
		discordToken("123456789012345678", 26),       // HMAC too short
		discordToken("123456789012345678", 39),       // too long
		"x" + discordToken("123456789012345678", 30), // inside a word
		base64.RawStdEncoding.EncodeToString([]byte("123456789012345678")) + "." + fake(urlChars, 5) + "." + fake(urlChars, 30),
		"MTIzNDU2Nzg5MDEyMzQ1Njc4.XXXXXX.XXXXXXXXXXXXXXXXXXXXXXXXXXX", // the documentation's placeholder
		"The syntax is 2nd.order.thing; see www.example.com/a.b.c.d.e.f.g.h for details.",
		"Token token=" + pd[:19],
		"Token token=" + pd + "x",
		"Authorization: Token token=<PAGERDUTY_API_KEY>",
		"Token token=xxxxxxxxxxxxxxxxxxxx",
		"Token token=$PAGERDUTY_TOKEN",
	}
	for _, text := range lookAlikes {
		for _, h := range New().Scan("found "+text+" in the log", nil) {
			require.NotContains(t, []string{"secrets.discord_bot_token", "secrets.pagerduty_api_key"}, h.Policy, "%q", text)
		}
	}
}

// TestBase64Digits: every id of 17-20 digits decodes, and every one of its
// group joins is a gate.
func TestBase64Digits(t *testing.T) {
	gates := map[string]bool{}
	for _, g := range discordGates() {
		gates[g] = true
	}
	for _, id := range []string{"80351110224678912", "123456789012345678", "999999999999999999", "1098765432109876543", "10000000000000000000"} {
		b := base64.RawStdEncoding.EncodeToString([]byte(id))
		require.True(t, base64Digits(b), id)
		for k := 3; k+3 <= len(b)/4*4; k += 4 { // the joins of whole groups
			require.True(t, gates[b[k:k+3]], "%s at %d", b, k)
		}
	}
	for _, s := range []string{"MTIzNDU2Nzg5MDEyMzQ1Njc6", "MTIzNDU2Nzg5MDEyMzQ1Nj", "OjIzNDU2Nzg5MDEyMzQ1Njc4", strings.Repeat("A", 24)} {
		require.False(t, base64Digits(s), s)
	}
}

// TestDiscordBotTokensRandom: on random texts of token parts, dots and
// filler, discordBotTokens finds what a check of every start finds: a
// maximal run of alphanumerics after a byte no token holds, base64 of a
// user id, '.', 6 [\w-], '.' and a maximal run of 27-38 [\w-].
func TestDiscordBotTokensRandom(t *testing.T) {
	tok := discordToken("123456789012345678", 30)
	frags := []string{tok, tok[:24], tok[25:], "MTIzNDU2Nzg5MDEyMzQ1Njc4", ".", "..", ".abcdef.", "a", "M", "-", "_", " ", "x1", strings.Repeat("Z9", 8)}
	r := rand.New(rand.NewPCG(19, 1))
	word := func(c byte) bool { return isWord(c) || c == '-' }
	found := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(10) {
			b.WriteString(frags[r.IntN(len(frags))])
		}
		text := b.String()
		var want [][]int
		for st := 0; st < len(text); st++ {
			if st > 0 && word(text[st-1]) {
				continue
			}
			d := st
			for d < len(text) && isAlnum(text[d]) {
				d++
			}
			if d+7 >= len(text) || text[d] != '.' || text[d+7] != '.' || !tokenRun(text[d+1:d+7]) || !base64Digits(text[st:d]) {
				continue
			}
			en := d + 8
			for en < len(text) && word(text[en]) {
				en++
			}
			if n := en - d - 8; n >= 27 && n <= 38 {
				want = append(want, []int{st, en, st, en})
				st = en
			}
		}
		require.Equal(t, want, discordBotTokens(text, nil), "%q", text)
		found += len(want)
	}
	require.Greater(t, found, 1000)
}

// BenchmarkScanBareFlood: 256 KiB built against the rules of stop 19 that
// have no literal prefix to jump to: dots the Discord matcher must look
// around (a dot every 7 bytes, "M" and dots, a near-token whose HMAC part
// is too short, real tokens), PagerDuty's header with a value one byte
// short, and Vercel's and Bedrock's prefixes taking in themselves (the
// short-lived Bedrock prefix stops its class at each '-'). Run with
// -benchtime 3x.
func BenchmarkScanBareFlood(b *testing.B) {
	token := discordToken("123456789012345678", 38)
	units := []string{".abcdef", "M......", "MTIzNDU2Nzg5MDEyMzQ1Njc4.abcdef.", token + " ", "Token token=" + strings.Repeat("a1", 9) + "b ", "vcp_", "wMDwMD.", "MTIzNDU2Nzg5MDEy", "ABSKQmVkcm9ja0FQSUtleS", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t"}
	for _, unit := range units {
		text := strings.Repeat(unit, (256<<10)/len(unit))
		b.Run(strings.ReplaceAll(unit[:min(len(unit), 16)], " ", "_"), func(b *testing.B) {
			s := New()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				s.Scan(text, nil)
			}
		})
	}
}
