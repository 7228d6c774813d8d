package pricing

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDefaultLookup(t *testing.T) {
	tab := Default()
	tests := []struct {
		provider, model string
		in, out         float64
		ok              bool
	}{
		{"openai", "gpt-4o", 2.50, 10.00, true},
		{"openai", "gpt-4o-mini", 0.15, 0.60, true},
		{"openai", "gpt-4o-mini-2024-07-18", 0.15, 0.60, true}, // dated snapshot: longest prefix
		{"openai", "gpt-4o-2024-08-06", 2.50, 10.00, true},
		{"openai", "gpt-4o-2024-05-13", 5.00, 15.00, true}, // exact beats prefix
		{"openai", "GPT-4O-Mini", 0.15, 0.60, true},        // case-insensitive
		{"openai", "gpt-4o-latest", 2.50, 10.00, true},
		{"openai", "gpt-4.1", 2.00, 8.00, true},
		{"openai", "gpt-4.1-mini-2025-04-14", 0.40, 1.60, true},
		{"openai", "gpt-4.1-nano", 0.10, 0.40, true},
		{"openai", "o3-mini-2025-01-31", 1.10, 4.40, true},
		{"openai", "o3-pro", 0, 0, false},                  // a different model, not a snapshot of o3
		{"openai", "gpt-4o-realtime-preview", 0, 0, false}, // idem
		{"openai", "gpt-4o-minix", 0, 0, false},
		{"openai", "gpt-4", 0, 0, false},
		{"openai", "my-finetune", 0, 0, false},
		{"openai", "", 0, 0, false},
		{"anthropic", "claude-3-5-sonnet-20241022", 3.00, 15.00, true},
		{"anthropic", "claude-3-5-sonnet-latest", 3.00, 15.00, true},
		{"anthropic", "claude-sonnet-4-20250514", 3.00, 15.00, true},
		{"anthropic", "claude-3-5-haiku-20241022", 0.80, 4.00, true},
		{"anthropic", "claude-opus-4-20250514", 15.00, 75.00, true},
		{"anthropic", "claude-opus-4-5-20251101", 5.00, 25.00, true},
		{"anthropic", "gpt-4o", 0, 0, false}, // prices are per provider
		{"vertex", "gemini-1.5-pro", 1.25, 5.00, true},
		{"vertex", "gemini-1.5-pro-002", 1.25, 5.00, true},
		{"vertex", "gemini-1.5-flash", 0.075, 0.30, true},
		{"vertex", "gemini-1.5-flash-8b", 0.0375, 0.15, true},
		{"vertex", "gemini-2.0-flash-001", 0.10, 0.40, true},
		{"vertex", "gemini-2.0-flash-lite-001", 0.075, 0.30, true},
		{"bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0", 3.00, 15.00, true},
		{"bedrock", "us.anthropic.claude-3-5-haiku-20241022-v1:0", 0.80, 4.00, true},
		{"bedrock", "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-opus-4-20250514-v1:0", 15.00, 75.00, true},
		{"bedrock", "claude-3-5-sonnet", 0, 0, false},
		{"bedrock", "meta.llama3-70b-instruct-v1:0", 0, 0, false},
		{"azure_openai", "gpt-4o", 2.50, 10.00, true}, // OpenAI prices by deployment name
		{"azure_openai", "gpt-4o-mini-2024-07-18", 0.15, 0.60, true},
		{"azure_openai", "prod-chat", 0, 0, false},
		{"unknown", "gpt-4o", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.model, func(t *testing.T) {
			pr, ok := tab.Lookup(tt.provider, tt.model)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, Price{tt.in, tt.out}, pr)
		})
	}
}

func TestCost(t *testing.T) {
	tab := Default()
	tests := []struct {
		name               string
		provider, model    string
		prompt, completion int64
		want               float64
		ok                 bool
	}{
		{"gpt-4o-mini", "openai", "gpt-4o-mini", 1_000_000, 1_000_000, 0.75, true},
		{"small call", "openai", "gpt-4o", 1200, 300, (1200*2.50 + 300*10.00) / 1e6, true},
		{"snapshot", "openai", "gpt-4o-mini-2024-07-18", 2000, 500, (2000*0.15 + 500*0.60) / 1e6, true},
		{"no tokens", "anthropic", "claude-3-5-haiku", 0, 0, 0, true},
		{"negative counts count 0", "openai", "gpt-4o", -5, 100, 100 * 10.00 / 1e6, true},
		{"bedrock", "bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0", 1000, 1000, 0.018, true},
		{"unknown model", "openai", "gpt-99", 1000, 1000, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tab.Cost(tt.provider, tt.model, tt.prompt, tt.completion)
			require.Equal(t, tt.ok, ok)
			require.InDelta(t, tt.want, got, 1e-12)
		})
	}
	var nilTable *Table
	_, ok := nilTable.Cost("openai", "gpt-4o", 1, 1)
	require.False(t, ok, "a nil table knows no model")
}

func TestLongestPrefixWins(t *testing.T) {
	tab, err := New(Prices{"openai": {"ft-model": {1, 2}, "ft-model-large": {3, 4}}})
	require.NoError(t, err)
	pr, ok := tab.Lookup("openai", "ft-model-large-2025-01-01")
	require.True(t, ok)
	require.Equal(t, Price{3, 4}, pr)
	pr, ok = tab.Lookup("openai", "ft-model-2025-01-01")
	require.True(t, ok)
	require.Equal(t, Price{1, 2}, pr)
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr string
	}{
		{"ok", `{"openai": {"gpt-4o": {"input_per_million": 2.5, "output_per_million": 10}}, "bedrock": {"meta.llama3-70b-instruct-v1:0": {"input_per_million": 2.65, "output_per_million": 3.5}}}`, ""},
		{"zero price", `{"vertex": {"gemini-free": {"input_per_million": 0, "output_per_million": 0}}}`, ""},
		{"empty", `{}`, ""},
		{"bad json", `{"openai": `, "not a JSON object"},
		{"not an object", `[1, 2]`, "not a JSON object"},
		{"null", `null`, "not a JSON object"},
		{"unknown provider", `{"mistral": {"m": {"input_per_million": 1, "output_per_million": 1}}}`, `provider "mistral" is not one of`},
		{"negative price", `{"openai": {"gpt-4o": {"input_per_million": -1, "output_per_million": 10}}}`, "openai.gpt-4o: input_per_million must be a non-negative number"},
		{"missing price", `{"openai": {"gpt-4o": {"input_per_million": 2.5}}}`, "openai.gpt-4o: both input_per_million and output_per_million are required"},
		{"misspelt field", `{"openai": {"gpt-4o": {"input_per_milion": 2.5, "output_per_million": 10}}}`, `openai.gpt-4o: want {"input_per_million"`},
		{"string price", `{"openai": {"gpt-4o": {"input_per_million": "2.5", "output_per_million": 10}}}`, "openai.gpt-4o"},
		{"empty model", `{"openai": {" ": {"input_per_million": 1, "output_per_million": 1}}}`, "openai: a model name is empty"},
		{"case duplicate", `{"openai": {"GPT-4o": {"input_per_million": 1, "output_per_million": 1}, "gpt-4o": {"input_per_million": 1, "output_per_million": 1}}}`, "differ only in case"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(doc), 0o600))
		return p
	}
	override := write("override.json", `{"openai": {"GPT-4o": {"input_per_million": 2, "output_per_million": 8}, "my-ft": {"input_per_million": 3, "output_per_million": 12}},
		"azure_openai": {"prod-chat": {"input_per_million": 2.5, "output_per_million": 10}}}`)
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"no file: built-in table", Config{}, ""},
		{"override", Config{File: override}, ""},
		{"missing file", Config{File: filepath.Join(dir, "nope.json")}, "nope.json"},
		{"bad json", Config{File: write("bad.json", `{"openai": {`)}, "bad.json: not a JSON object"},
		{"negative", Config{File: write("neg.json", `{"anthropic": {"claude-x": {"input_per_million": 1, "output_per_million": -3}}}`)}, "neg.json: anthropic.claude-x: output_per_million"},
		{"unknown provider", Config{File: write("prov.json", `{"OpenAI": {"gpt-4o": {"input_per_million": 1, "output_per_million": 1}}}`)}, `prov.json: provider "OpenAI"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
		})
	}

	tab, err := Config{File: override}.Table()
	require.NoError(t, err)
	pr, _ := tab.Lookup("openai", "gpt-4o-2024-08-06")
	require.Equal(t, Price{2, 8}, pr, "the file replaces the built-in price, whatever the case of its name")
	pr, _ = tab.Lookup("azure_openai", "gpt-4o")
	require.Equal(t, Price{2, 8}, pr, "azure falls back to the overridden OpenAI price")
	pr, _ = tab.Lookup("openai", "my-ft")
	require.Equal(t, Price{3, 12}, pr, "the file extends the table")
	pr, _ = tab.Lookup("azure_openai", "prod-chat")
	require.Equal(t, Price{2.5, 10}, pr)
	pr, _ = tab.Lookup("openai", "gpt-4o-mini")
	require.Equal(t, Price{0.15, 0.60}, pr, "entries the file does not name keep the built-in price")
}

func TestDefaultTableIsValid(t *testing.T) {
	require.NoError(t, DefaultPrices().Validate())
	p := DefaultPrices()
	p["openai"]["gpt-4o"] = Price{99, 99}
	pr, _ := Default().Lookup("openai", "gpt-4o")
	require.Equal(t, Price{2.50, 10.00}, pr, "DefaultPrices is a copy")
}
