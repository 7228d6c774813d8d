// Package tokens counts tokens the way OpenAI's models do, for answers whose
// upstream reported no usage (a stream without stream_options.include_usage)
// and for pricing by tokens. The o200k_base and cl100k_base vocabularies are
// compiled into the binary (github.com/tiktoken-go/tokenizer) and indexed on
// first use, so nothing is downloaded and a gateway that never needs a count
// never pays for them.
//
// Counts are exactly the tokenizer's codec's, for every input, without its
// cost (~600 µs and 3,428 allocations per 2 KB: a backtracking regexp over
// []rune, then a string and slices per piece). The split regexps are
// hand-written matchers (split.go) that keep the quirks of the codec's
// compiled regexp, and byte-pair merging runs on a compact rank table with
// stack or pooled buffers (bpe.go): no allocation for valid UTF-8.
// exact_test.go holds both to the codec's pieces and counts.
//
// Two of those quirks part from OpenAI's tiktoken, whose regexp engine
// backtracks as usual: a whitespace run is cut after its first line end
// ("\n \n" is two pieces, tiktoken's one), and DEL counts no token.
package tokens

import (
	"iter"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"
)

// encoding is a vocabulary and its split rules.
type encoding struct {
	vocab *vocab
	o200k bool // split as o200k_base does, else as cl100k_base
}

var (
	o200k  = sync.OnceValue(func() *encoding { return newEncoding(codec.NewO200kBase(), true) })
	cl100k = sync.OnceValue(func() *encoding { return newEncoding(codec.NewCl100kBase(), false) })
)

func newEncoding(c *codec.Codec, o200k bool) *encoding {
	// The codec keeps its vocabulary unexported; Decode reads it out one ID
	// at a time. IDs run from 0 without gaps (TestVocabSizes).
	var tokens []byte
	var ends []uint32
	id := []uint{0}
	for ; ; id[0]++ {
		t, err := c.Decode(id)
		if err != nil {
			break
		}
		tokens = append(tokens, t...)
		ends = append(ends, uint32(len(tokens)))
	}
	return &encoding{vocab: newVocab(string(tokens), ends), o200k: o200k}
}

// count returns the number of tokens of text.
func (e *encoding) count(text string) int {
	var bufs *buffers
	n := 0
	for p := range e.pieces(text) {
		n += e.vocab.count(p, &bufs)
	}
	release(bufs)
	return n
}

// pieces yields the pieces the split regexp matches in text, in order.
func (e *encoding) pieces(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if !utf8.ValidString(text) {
			// The codec's regexp matches []rune(text), so the pieces it
			// encodes carry U+FFFD for each byte that is not UTF-8.
			text = string([]rune(text))
		}
		sp := splitter{classTable()}
		for i := 0; i < len(text); {
			var end int
			if e.o200k {
				end = sp.o200k(text, i)
			} else {
				end = sp.cl100k(text, i)
			}
			if end < 0 { // no alternative matches: the regexp skips the rune
				_, w := utf8.DecodeRuneInString(text[i:])
				i += w
				continue
			}
			if !yield(text[i:end]) {
				return
			}
			i = end
		}
	}
}

// cl100kModels use cl100k_base; every other OpenAI family below o200k_base.
var cl100kModels = []string{"gpt-4", "gpt-3.5", "text-embedding-3", "text-embedding-ada"}

var o200kModels = []string{"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "gpt-oss"}

// Preload builds the o200k_base tables (about 90 ms and 14 MiB), which the
// first count otherwise builds: every Verify request counts, with
// o200k_base unless its model is a cl100k_base one, and a server's first
// request should not wait for them.
func Preload() { o200k() }

// Encoding names the vocabulary used for model, and whether that is the
// model's own (an OpenAI model of a known family). Other models are counted
// with o200k_base as an approximation.
func Encoding(model string) (name string, exact bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 { // "openai/gpt-4o" style routing prefixes
		m = m[i+1:]
	}
	for _, p := range o200kModels {
		if strings.HasPrefix(m, p) {
			return "o200k_base", true
		}
	}
	for _, p := range cl100kModels {
		if strings.HasPrefix(m, p) {
			return "cl100k_base", true
		}
	}
	return "o200k_base", false
}

// Count returns the number of tokens of text for model; exact as in Encoding.
func Count(model, text string) (int, bool) {
	name, exact := Encoding(model)
	e := o200k
	if name == "cl100k_base" {
		e = cl100k
	}
	return e().count(text), exact
}

// Message is the part of a chat message that is counted.
type Message struct{ Role, Content string }

// CountMessages returns the prompt tokens of a chat request the way the
// Chat Completions API bills them: each message's role and content plus 3
// tokens of framing, plus 3 that prime the reply (OpenAI's published
// counting recipe for the gpt-3.5 / gpt-4 / gpt-4o families).
func CountMessages(model string, msgs []Message) (int, bool) {
	total, exact := 3, true
	for _, m := range msgs {
		r, e1 := Count(model, m.Role)
		c, e2 := Count(model, m.Content)
		total += 3 + r + c
		exact = exact && e1 && e2
	}
	return total, exact
}
