package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

var verifyBodySeeds = []struct {
	body string
	fast bool // decodeVerifyBody must take it (else it must decline)
}{
	{`{"answer":"Refunds within 30 days."}`, true},
	{` { "prompt" : "q?" ,` + "\n\t" + `"answer":"a", "tool_result":"src", "model":"m", "provider":"openai" } `, true},
	{`{}`, true},
	{`{"answer":null,"prompt":null}`, true},
	{`{"answer":"first","answer":"second"}`, false},
	{`{"answer":null,"answer":"second"}`, false},
	{`{"answer":"esc \" \\ \/ \b \f \n \r \t \u00e9 \u20AC caf\u00E9 end"}`, true},
	{`{"answer":"héllo wörld ✓ 日本"}`, true},
	{`{"answer":"` + strings.Repeat("x", 5000) + `\n"}`, true},
	{`{"answer":"\ud83d\ude00 \uD83D\uDE00"}`, true}, // surrogate pairs
	{`{"answer":"\ud83d"}`, false},                   // a lone surrogate
	{`{"Answer":"a"}`, false},                        // encoding/json matches names without case
	{`{"answer":"a","extra":1}`, false},
	{`{"answer":5}`, false},
	{`{"answer":"a"`, false},
	{`{"answer":"a"} x`, false},
	{`{"answer":"a\x"}`, false},
	{"{\"answer\":\"a\x01\"}", false},
	{`{"ans\u0077er":"a"}`, false},
	{`[]`, false},
	{``, false},
	{`{"answer":nul}`, false},
	{`{"answer":"a",}`, false},
}

func TestDecodeVerifyBody(t *testing.T) {
	for _, tc := range verifyBodySeeds {
		var got, want verifyBody
		ok := decodeVerifyBody([]byte(tc.body), &got)
		require.Equal(t, tc.fast, ok, "%s", tc.body)
		if ok {
			require.NoError(t, json.Unmarshal([]byte(tc.body), &want), "%s", tc.body)
			require.Equal(t, want, got, "%s", tc.body)
		}
	}
}

// FuzzDecodeVerifyBody: whatever the fast path accepts, encoding/json
// decodes to the same value.
func FuzzDecodeVerifyBody(f *testing.F) {
	for _, tc := range verifyBodySeeds {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) {
			return // postVerify refuses it before decoding
		}
		var got, want verifyBody
		if !decodeVerifyBody(body, &got) {
			return
		}
		require.NoError(t, json.Unmarshal(body, &want), "%q", body)
		require.Equal(t, want, got, "%q", body)
	})
}
