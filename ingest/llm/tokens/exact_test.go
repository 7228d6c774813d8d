package tokens

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/stretchr/testify/require"
	"github.com/tiktoken-go/tokenizer/codec"
)

// The tokenizer's codec is the reference: the counts must be its counts.
// Its split regexps, compiled here from the same patterns, get the same
// generated matchers (regexp2.RegisterEngine in the codec's regexp.gen.go),
// so the pieces can be compared too, which catches a split that happens to
// give the same count.
var references = []struct {
	name  string
	codec func() *codec.Codec
	split *regexp2.Regexp
	enc   func() *encoding
}{
	{"o200k_base", sync.OnceValue(codec.NewO200kBase), regexp2.MustCompile(
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		regexp2.None), o200k},
	{"cl100k_base", sync.OnceValue(codec.NewCl100kBase), regexp2.MustCompile(
		`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		regexp2.None), cl100k},
}

// checkExact fails unless text has the codec's pieces and count.
func checkExact(t testing.TB, text string) {
	t.Helper()
	for _, ref := range references {
		var want []string
		m, err := ref.split.FindStringMatch(text)
		for ; m != nil && err == nil; m, err = ref.split.FindNextMatch(m) {
			want = append(want, m.String())
		}
		require.NoError(t, err)
		e := ref.enc()
		got := slices.Collect(e.pieces(text))
		require.Equal(t, want, got, "%s: pieces of %q", ref.name, text)
		ids, toks, err := ref.codec().Encode(text)
		require.NoError(t, err)
		n := e.count(text)
		if n == len(ids) {
			continue
		}
		// Find the first piece the codec tokenizes differently.
		for p := range e.pieces(text) {
			var joined string
			n := 0
			for len(joined) < len(p) && n < len(toks) {
				joined += toks[n]
				n++
			}
			if joined != p || n != e.vocab.count(p, new(*buffers)) {
				t.Fatalf("%s: %q: count %d, codec %d; piece %q is %d tokens, codec's next tokens %q",
					ref.name, text, n, len(ids), p, e.vocab.count(p, new(*buffers)), toks[:n])
			}
			toks = toks[n:]
		}
		t.Fatalf("%s: %q: count %d, codec %d; codec's tokens left over %q", ref.name, text, n, len(ids), toks)
	}
}

func TestVocabSizes(t *testing.T) {
	// Decode reads the vocabularies out until the first unknown ID; these
	// are their published sizes, so no ID was missed.
	require.Len(t, o200k().vocab.ends, 199998)
	require.Len(t, cl100k().vocab.ends, 100256)
}

func TestClassTable(t *testing.T) {
	tab := classTable()
	for r := range rune(tabled) {
		if tab[r] != runeClass(r) {
			t.Fatalf("U+%04X: table %07b, unicode %07b", r, tab[r], runeClass(r))
		}
	}
}

func TestExactCases(t *testing.T) {
	for _, text := range []string{
		"", " ", "  ", "\n", "\n\n", "\n \n", " \n \n  x", "a \n\t\n b", "\r\n\r\n", "x  ", "x  y", "x\t\ty",
		"\u00a0\u3000 x", "a\u2028b", "\x85x",
		"don't", "DON'T", "I'M", "we'Ll", "they'RE", "you'VE", "he'D", "it'ſ", "'s", "''s", "'", "a'", "'ll", "'l", "'lL",
		"hello world", " Hello", "HELLOworld", "helloWORLD", "CamelCaseWord", "XMLHttpRequest", "ǅemal", "ʰello",
		"12345678", "½¾", "Ⅻ", "١٢٣٤", " 123", "a1b2", "$1.2M", "12%",
		"a\x7fb", "\x7f", " \x7f", "\x7f\x7f\n", "!\x7f!",
		"a\xffb\x00c", "\xff\xfe", "\xed\xa0\x80", "\xe4\xb8", "caf\xc3", "\xef\xbf\xbd\xff",
		"//comment\n", "a//b", "!!!\n\n", "?/\r\n/x", " ...\n/",
		"é", "e\u0301", "\u0301", "\u0301a", " \u0301", "\u0301\u0301", "A\u0301B", "中文", "中A", "中AAAB", "Ab中",
		"こんにちは、世界！", "안녕하세요", "Привет, Мир!", "مرحبا بالعالم", "שלום", "🙂🙃 👍🏽", "👨‍👩‍👧", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
		`{"id": 1, "name": "x", "tags": ["a", "b"]}`,
		"func main() {\n\tfmt.Println(\"hi\")\n}\n",
		strings.Repeat("a", 300), strings.Repeat("ab", 200), strings.Repeat(" ", 200), strings.Repeat("中", 100),
		strings.Repeat("-", 130), strings.Repeat("Zz9", 100), strings.Repeat("\n \n", 40), strings.Repeat(" \r\n\t", 50) + "x",
	} {
		checkExact(t, text)
	}
	// Every ASCII byte alone, after a letter, and before one.
	var all, between strings.Builder
	for b := range byte(utf8.RuneSelf) {
		all.WriteByte(b)
		between.WriteString("x")
		between.WriteByte(b)
		between.WriteString("y 1")
	}
	checkExact(t, all.String())
	checkExact(t, between.String())
}

// scripts are the alphabets random texts are drawn from.
var scripts = [][]rune{
	[]rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \t\n\r!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\x00\x7f"),
	[]rune("sStTdDmMlLrReEvV' ſ"), // contractions
	[]rune("中文字词语言汉漢日本語かなカナ한국어。，、！？「」0１２"),                                        // CJK
	[]rune("абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙ ,.!"),                    // Cyrillic
	[]rune("ابتثجحخدذرزسشصضطظعغفقكلمنهوي٠١٢٣ ،؟\u064b\u064e\u0650"),               // Arabic with harakat
	[]rune("🙂🙃👍🏽👨\u200d👩❤️🇫🇷✨ "),                                                  // emoji
	[]rune("e\u0301\u0300\u0327\u20dd\u0903a \u00a0\u2003\u3000\u2028\u0085\v\f"), // marks, Unicode spaces
	[]rune("ǅǈʰˆ々Ⅻⅻ½²ꝏ𝔘𝔫\U0001F100"),                                              // Lt, Lm, Nl, No, beyond the BMP
}

// randomText mixes runs from random scripts, and sometimes stray bytes.
func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		s := scripts[rng.IntN(len(scripts))]
		for range 1 + rng.IntN(12) {
			b.WriteRune(s[rng.IntN(len(s))])
		}
		if rng.IntN(20) == 0 {
			b.WriteByte(byte(0x80 + rng.IntN(0x80))) // invalid UTF-8
		}
	}
	return b.String()
}

func TestExactRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 2026))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for range n {
		checkExact(t, randomText(rng, 1+rng.IntN(200)))
	}
	// Runes from anywhere, one script class or another.
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(40) {
			r := rune(rng.IntN(0x30000))
			if rng.IntN(2) == 0 {
				r = rune(rng.IntN(0x3000))
			}
			if utf8.ValidRune(r) && (unicode.IsPrint(r) || unicode.IsSpace(r) || unicode.IsMark(r)) || rng.IntN(10) == 0 {
				b.WriteRune(r)
			}
		}
		checkExact(t, b.String())
	}
}

func FuzzCount(f *testing.F) {
	for _, s := range []string{
		"The quarterly revenue grew by 12% to $1.2M compared with last year. ",
		"don't STOP'LL\n\n \n\t x", "中文 Привет 🙂 e\u0301 ١٢٣", "a\x7f\xffb", `{"a": [1, 2]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkExact(t, text)
	})
}

func TestCountConcurrent(t *testing.T) {
	// Counts share the vocabularies and pool their merge buffers.
	rng := rand.New(rand.NewPCG(5, 19))
	texts := make([]string, 64)
	want := make([]int, len(texts))
	for i := range texts {
		texts[i] = randomText(rng, 50+rng.IntN(400))
		want[i], _ = Count("gpt-4o", texts[i])
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range texts {
				k := (i + g*16) % len(texts)
				if n, _ := Count("gpt-4o", texts[k]); n != want[k] {
					t.Errorf("%q: %d, alone %d", texts[k], n, want[k])
				}
			}
		})
	}
	wg.Wait()
}
