package pricing

import "github.com/governance-gateway/gateway/ingest/llm"

// DefaultDate is the date of the built-in list prices (docs/configuration.md).
const DefaultDate = "2025-12-01"

// defaultPrices are the vendors' public list prices in USD per 1,000,000
// tokens as of DefaultDate: standard (on-demand) tier, text tokens, without
// batch, prompt-caching or long-context surcharges (models with a tiered
// price use their base tier: gemini-1.5-pro up to 128k prompt tokens,
// gemini-2.5-pro up to 200k). They are not fetched at run time: operators
// correct or extend them with GATEWAY_PRICES_FILE.
//
// azure_openai has no entries of its own: it falls back to the OpenAI prices
// by model (deployment) name. bedrock's Anthropic model ids
// (anthropic.<model>) are derived from the Anthropic prices in Default.
var defaultPrices = Prices{
	llm.OpenAI: {
		"gpt-4o":            {2.50, 10.00},
		"gpt-4o-2024-05-13": {5.00, 15.00}, // the first gpt-4o snapshot kept its launch price
		"gpt-4o-mini":       {0.15, 0.60},
		"gpt-4.1":           {2.00, 8.00},
		"gpt-4.1-mini":      {0.40, 1.60},
		"gpt-4.1-nano":      {0.10, 0.40},
		"gpt-5":             {1.25, 10.00},
		"gpt-5.1":           {1.25, 10.00},
		"gpt-5-mini":        {0.25, 2.00},
		"gpt-5-nano":        {0.05, 0.40},
		"o1":                {15.00, 60.00},
		"o3":                {2.00, 8.00},
		"o3-mini":           {1.10, 4.40},
		"o4-mini":           {1.10, 4.40},
	},
	llm.Anthropic: {
		"claude-3-haiku":    {0.25, 1.25},
		"claude-3-opus":     {15.00, 75.00},
		"claude-3-5-sonnet": {3.00, 15.00},
		"claude-3-5-haiku":  {0.80, 4.00},
		"claude-3-7-sonnet": {3.00, 15.00},
		"claude-sonnet-4":   {3.00, 15.00},
		"claude-sonnet-4-5": {3.00, 15.00},
		"claude-opus-4":     {15.00, 75.00},
		"claude-opus-4-1":   {15.00, 75.00},
		"claude-opus-4-5":   {5.00, 25.00},
		"claude-haiku-4-5":  {1.00, 5.00},
	},
	llm.Vertex: {
		"gemini-1.5-pro":        {1.25, 5.00},
		"gemini-1.5-flash":      {0.075, 0.30},
		"gemini-1.5-flash-8b":   {0.0375, 0.15},
		"gemini-2.0-flash":      {0.10, 0.40},
		"gemini-2.0-flash-lite": {0.075, 0.30},
		"gemini-2.5-pro":        {1.25, 10.00},
		"gemini-2.5-flash":      {0.30, 2.50},
		"gemini-2.5-flash-lite": {0.10, 0.40},
	},
}

// DefaultPrices returns a copy of the built-in prices, the Bedrock ids of
// the Anthropic models included.
func DefaultPrices() Prices {
	out := Prices{}
	for p, models := range defaultPrices {
		out[p] = map[string]Price{}
		for m, pr := range models {
			out[p][m] = pr
		}
	}
	out[llm.Bedrock] = map[string]Price{}
	for m, pr := range defaultPrices[llm.Anthropic] {
		out[llm.Bedrock]["anthropic."+m] = pr
	}
	return out
}

// Default is the table of the built-in prices.
func Default() *Table {
	t, err := New(DefaultPrices())
	if err != nil {
		panic("pricing: built-in table is invalid: " + err.Error())
	}
	return t
}
