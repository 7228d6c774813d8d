package tokens

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEncoding(t *testing.T) {
	for _, tt := range []struct {
		model, enc string
		exact      bool
	}{
		{"gpt-4o-mini-2024-07-18", "o200k_base", true},
		{"GPT-4.1", "o200k_base", true},
		{"o3-mini", "o200k_base", true},
		{"openai/gpt-5", "o200k_base", true},
		{"gpt-4-turbo", "cl100k_base", true},
		{"gpt-4", "cl100k_base", true},
		{"gpt-3.5-turbo", "cl100k_base", true},
		{"llama-3.1-70b", "o200k_base", false},
		{"", "o200k_base", false},
	} {
		enc, exact := Encoding(tt.model)
		require.Equal(t, tt.enc, enc, tt.model)
		require.Equal(t, tt.exact, exact, tt.model)
	}
}

func TestCount(t *testing.T) {
	// tiktoken reference: cl100k_base encodes "tiktoken is great!" as
	// [83, 1609, 5963, 374, 2294, 0].
	n, exact := Count("gpt-4", "tiktoken is great!")
	require.True(t, exact)
	require.Equal(t, 6, n)
	n, _ = Count("gpt-4o", "")
	require.Zero(t, n)
	// Ordinary English runs at roughly 4 characters per token.
	text := strings.Repeat("The quarterly revenue grew by twelve percent compared with last year. ", 20)
	n, exact = Count("gpt-4o", text)
	require.True(t, exact)
	require.InDelta(t, len(text)/4, n, float64(len(text))/10)
	n, exact = Count("mistral-large", text)
	require.False(t, exact, "other vendors' models are approximated")
	require.Positive(t, n)
	// Invalid UTF-8 and control characters are counted, never an error.
	n, _ = Count("gpt-4o", "a\xffb\x00c")
	require.Positive(t, n)
}

func TestCountMessages(t *testing.T) {
	one, exact := CountMessages("gpt-4o", []Message{{"user", "hello"}})
	require.True(t, exact)
	two, _ := CountMessages("gpt-4o", []Message{{"system", "Be brief."}, {"user", "hello"}})
	role, _ := Count("gpt-4o", "system")
	content, _ := Count("gpt-4o", "Be brief.")
	require.Equal(t, one+3+role+content, two, "each message adds its role, content and 3 tokens of framing")
	n, _ := CountMessages("gpt-4o", nil)
	require.Equal(t, 3, n, "the reply priming")
}

func BenchmarkCount(b *testing.B) {
	benchmarkCount(b, strings.Repeat("The quarterly revenue grew by 12% to $1.2M compared with last year. ", 30)) // ~2 KB
}

// BenchmarkCount10KB is the size of a request POST /v1/verify prices by
// tokens: prose, JSON and code.
func BenchmarkCount10KB(b *testing.B) {
	benchmarkCount(b, strings.Repeat(`The assistant's answer cites the Q3 report: revenue grew 12% to $1.2M.
{"id": "chatcmpl-9x7Yz", "object": "chat.completion", "created": 1732406400, "usage": {"prompt_tokens": 1024}}
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if err := s.check(r.Context()); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
	}
}
`, 28))
}

func BenchmarkCountCJK(b *testing.B) {
	benchmarkCount(b, strings.Repeat("第三季度营收同比增长百分之十二，达到一百二十万美元。売上高は前年比12%増加しました。매출이 12% 증가했습니다. ", 14)) // ~2 KB
}

func benchmarkCount(b *testing.B, text string) {
	Count("gpt-4o", "warm")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Count("gpt-4o", text)
	}
}

// TestRankEveryToken looks every token of both vocabularies up, in the
// short table (1-8 bytes, packed) and the long one, and strings that are
// no token (each token with a byte changed or added, and a byte cut off),
// against a map of the tokens.
func TestRankEveryToken(t *testing.T) {
	for name, e := range map[string]*encoding{"o200k_base": o200k(), "cl100k_base": cl100k()} {
		t.Run(name, func(t *testing.T) {
			v := e.vocab
			want := make(map[string]uint32, len(v.ends))
			for r := range uint32(len(v.ends)) {
				if _, dup := want[v.token(r)]; !dup {
					want[v.token(r)] = r
				}
			}
			check := func(s string) {
				w, ok := want[s]
				if !ok {
					w = noRank
				}
				if got := v.rank(s); got != w {
					t.Fatalf("rank(%q) = %d, want %d", s, got, w)
				}
			}
			for r := range uint32(len(v.ends)) {
				tok := v.token(r)
				check(tok)
				check(tok[:len(tok)-1])
				check(tok + "\x00")
				check(tok + "e")
				b := []byte(tok)
				b[len(b)/2] ^= 0x20
				check(string(b))
				b[len(b)/2] ^= 0x21
				check(string(b))
			}
		})
	}
}
