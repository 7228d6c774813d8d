// Package pricing turns the token usage of an LLM call into its cost in USD
// from a price table: (provider, model) -> USD per 1,000,000 input tokens and
// per 1,000,000 output tokens. The gateway records the result as a trace's
// cost_usd (docs/api.md); a model the table does not know has no cost (null),
// never a guess.
//
// Matching (case-insensitive): the exact model name first, then the longest
// configured name of which the model is a dated or numbered snapshot, so
// "gpt-4o-mini-2024-07-18" prices as "gpt-4o-mini" and
// "anthropic.claude-3-5-sonnet-20240620-v1:0" as "anthropic.claude-3-5-sonnet"
// (see Table.Lookup). azure_openai falls back to the OpenAI prices by model
// (deployment) name.
//
// The built-in table (Default) holds vendor list prices as of DefaultDate;
// operators override or extend it with a JSON file (GATEWAY_PRICES_FILE,
// Config).
package pricing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// Price is the price of one model in USD per 1,000,000 tokens.
type Price struct {
	InputPerMillion  float64 `json:"input_per_million"`
	OutputPerMillion float64 `json:"output_per_million"`
}

// Prices is provider -> model -> price, the shape of the prices file.
type Prices map[string]map[string]Price

// Table is an immutable price table, safe for concurrent use. The zero
// value and nil know no model.
type Table struct {
	providers map[string]*models
}

type models struct {
	exact map[string]Price
	names []string // lower-case, longest first: prefix candidates
}

// New builds a table from prices after checking them (Validate).
func New(p Prices) (*Table, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	t := &Table{providers: map[string]*models{}}
	for prov, ms := range p {
		m := &models{exact: map[string]Price{}}
		for name, pr := range ms {
			name = strings.ToLower(strings.TrimSpace(name))
			m.exact[name] = pr
			m.names = append(m.names, name)
		}
		sort.Slice(m.names, func(i, j int) bool {
			if len(m.names[i]) != len(m.names[j]) {
				return len(m.names[i]) > len(m.names[j])
			}
			return m.names[i] < m.names[j]
		})
		t.providers[strings.ToLower(prov)] = m
	}
	return t, nil
}

// Validate reports the first unusable entry: an unknown provider (the
// values of llm.Vendors), an empty model name, two names equal but for
// case, a negative or non-finite price.
func (p Prices) Validate() error {
	for _, prov := range sortedKeys(p) {
		if !slices.Contains(llm.Vendors(), prov) {
			return fmt.Errorf("provider %q is not one of %s", prov, strings.Join(llm.Vendors(), ", "))
		}
		seen := map[string]string{}
		for _, name := range sortedKeys(p[prov]) {
			pr := p[prov][name]
			key := strings.ToLower(strings.TrimSpace(name))
			if key == "" {
				return fmt.Errorf("%s: a model name is empty", prov)
			}
			if other, dup := seen[key]; dup {
				return fmt.Errorf("%s: models %q and %q differ only in case (matching is case-insensitive)", prov, other, name)
			}
			seen[key] = name
			for _, v := range []struct {
				field string
				x     float64
			}{{"input_per_million", pr.InputPerMillion}, {"output_per_million", pr.OutputPerMillion}} {
				if math.IsNaN(v.x) || math.IsInf(v.x, 0) || v.x < 0 {
					return fmt.Errorf("%s.%s: %s must be a non-negative number, got %v", prov, name, v.field, v.x)
				}
			}
		}
	}
	return nil
}

// Merge returns base with every entry of over added or replacing base's
// entry of the same provider and model (case-insensitive).
func Merge(base, over Prices) Prices {
	out := Prices{}
	for _, src := range []Prices{base, over} {
		for prov, ms := range src {
			if out[prov] == nil {
				out[prov] = map[string]Price{}
			}
			for name, pr := range ms {
				for old := range out[prov] {
					if strings.EqualFold(old, name) {
						delete(out[prov], old)
					}
				}
				out[prov][name] = pr
			}
		}
	}
	return out
}

// Lookup returns the price of provider's model: the exact name first, then
// the longest configured name of which model is a snapshot, i.e. model is
// that name followed by '-', '@', '_' or ':' and then either a date or build
// number of at least three digits ("-2024-07-18", "-20240620-v1:0", "-002",
// "@20240620") or "latest". So "gpt-4.1-nano" does not price as "gpt-4.1",
// nor "claude-opus-4-5" as "claude-opus-4": a different model is unknown
// unless configured. Case-insensitive. On Bedrock a cross-region inference
// profile prefix ("us.", "eu.", "apac.", "global." ...) and an ARN's path are
// ignored. azure_openai falls back to the OpenAI prices.
func (t *Table) Lookup(provider, model string) (Price, bool) {
	if t == nil {
		return Price{}, false
	}
	provider = strings.ToLower(strings.TrimSpace(provider))
	model = strings.ToLower(strings.TrimSpace(model))
	if model == "" {
		return Price{}, false
	}
	if provider == llm.Bedrock {
		model = bedrockModel(model)
	}
	if pr, ok := t.providers[provider].lookup(model); ok {
		return pr, true
	}
	if provider == llm.AzureOpenAI {
		return t.providers[llm.OpenAI].lookup(model)
	}
	return Price{}, false
}

// Cost is the USD cost of a call with the given token counts, ok=false when
// the model has no price (the trace's cost stays null).
func (t *Table) Cost(provider, model string, promptTokens, completionTokens int64) (usd float64, ok bool) {
	pr, ok := t.Lookup(provider, model)
	if !ok {
		return 0, false
	}
	return (float64(max(promptTokens, 0))*pr.InputPerMillion + float64(max(completionTokens, 0))*pr.OutputPerMillion) / 1e6, true
}

func (m *models) lookup(model string) (Price, bool) {
	if m == nil {
		return Price{}, false
	}
	if pr, ok := m.exact[model]; ok {
		return pr, true
	}
	for _, name := range m.names {
		if len(name) < len(model) && strings.HasPrefix(model, name) && snapshotSuffix(model[len(name):]) {
			return m.exact[name], true
		}
	}
	return Price{}, false
}

// snapshotSuffix: a separator, then "latest" or a run of at least three
// digits ending the name or followed by a non-alphanumeric character.
func snapshotSuffix(rest string) bool {
	if len(rest) < 2 || !strings.ContainsRune("-@_:", rune(rest[0])) {
		return false
	}
	rest = rest[1:]
	if after, ok := strings.CutPrefix(rest, "latest"); ok {
		return after == "" || !isAlnum(after[0])
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	return n >= 3 && (n == len(rest) || !isAlnum(rest[n]))
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// bedrockRegions are the prefixes of Bedrock cross-region inference profiles.
var bedrockRegions = []string{"us.", "us-gov.", "eu.", "apac.", "jp.", "au.", "ca.", "global."}

func bedrockModel(model string) string {
	if strings.HasPrefix(model, "arn:") {
		if i := strings.LastIndexByte(model, '/'); i >= 0 {
			model = model[i+1:]
		}
	}
	for _, r := range bedrockRegions {
		if rest, ok := strings.CutPrefix(model, r); ok {
			return rest
		}
	}
	return model
}

// Config selects the price table (cmd/gateway: GATEWAY_PRICES_FILE).
type Config struct {
	// File is a JSON prices file merged over the built-in table:
	// {"openai": {"gpt-4o": {"input_per_million": 2.5, "output_per_million": 10}}, ...}.
	// Both prices of an entry are required (0 is a valid price). Empty: the
	// built-in table alone.
	File string
}

// Validate reports an unreadable or invalid prices file, naming the file and
// the entry.
func (c Config) Validate() error {
	_, err := c.Table()
	return err
}

// Table is the built-in table with the file's entries merged over it.
func (c Config) Table() (*Table, error) {
	if c.File == "" {
		return Default(), nil
	}
	over, err := ReadFile(c.File)
	if err != nil {
		return nil, err
	}
	t, err := New(Merge(DefaultPrices(), over))
	if err != nil {
		return nil, fmt.Errorf("prices file %s: %w", c.File, err)
	}
	return t, nil
}

// ReadFile reads and checks a prices file. Errors name the file and entry.
func ReadFile(path string) (Prices, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("prices file: %w", err)
	}
	p, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("prices file %s: %w", path, err)
	}
	return p, nil
}

// Parse decodes and checks a prices document. Unknown fields and entries
// missing a price are errors: a misspelt field must not silently price a
// model at 0.
func Parse(raw []byte) (Prices, error) {
	var doc map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("not a JSON object of {provider: {model: {input_per_million, output_per_million}}}: %w", err)
	}
	if doc == nil {
		return nil, errors.New("not a JSON object of {provider: {model: {input_per_million, output_per_million}}}")
	}
	out := Prices{}
	for _, prov := range sortedKeys(doc) {
		ms := doc[prov]
		if !slices.Contains(llm.Vendors(), prov) {
			return nil, fmt.Errorf("provider %q is not one of %s", prov, strings.Join(llm.Vendors(), ", "))
		}
		out[prov] = map[string]Price{}
		for _, name := range sortedKeys(ms) {
			v := ms[name]
			var e struct {
				In  *float64 `json:"input_per_million"`
				Out *float64 `json:"output_per_million"`
			}
			dec := json.NewDecoder(bytes.NewReader(v))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&e); err != nil {
				return nil, fmt.Errorf("%s.%s: want {\"input_per_million\": number, \"output_per_million\": number}: %w", prov, name, err)
			}
			if e.In == nil || e.Out == nil {
				return nil, fmt.Errorf("%s.%s: both input_per_million and output_per_million are required", prov, name)
			}
			out[prov][name] = Price{InputPerMillion: *e.In, OutputPerMillion: *e.Out}
		}
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
