// Package tokens counts tokens the way OpenAI's models do, for answers whose
// upstream reported no usage (a stream without stream_options.include_usage).
// The o200k_base and cl100k_base vocabularies are compiled into the binary
// (github.com/tiktoken-go/tokenizer) and built on first use, so nothing is
// downloaded and a gateway that never needs a count never pays for them.
package tokens

import (
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

var (
	o200k  = sync.OnceValue(codec.NewO200kBase)
	cl100k = sync.OnceValue(codec.NewCl100kBase)
)

// cl100kModels use cl100k_base; every other OpenAI family below o200k_base.
var cl100kModels = []string{"gpt-4", "gpt-3.5", "text-embedding-3", "text-embedding-ada"}

var o200kModels = []string{"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "gpt-oss"}

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
	c := o200k()
	if name == "cl100k_base" {
		c = cl100k()
	}
	n, err := c.Count(text) // errors only in the strict UTF-8 mode, not used
	if err != nil {
		return 0, false
	}
	return n, exact
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
