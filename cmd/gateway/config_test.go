package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/topics/embedded"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadConfig(t *testing.T) {
	c, err := loadConfig(envOf(map[string]string{
		"GATEWAY_ADDR": "127.0.0.1:9999", "KAFKA_BROKERS": " k1:9092, ,k2:9092 ", "GATEWAY_FLUSH_INTERVAL": "1s",
		"GATEWAY_MASTER_KEY": strings.Repeat("ab", 32), "GATEWAY_PARTITIONS": "12", "GATEWAY_PRICES_FILE": " /etc/gateway/prices.json ",
		"GATEWAY_PROXY_DEFAULT_MODE": "guard", "GATEWAY_BROKER_FSYNC": "250ms", "GATEWAY_FLUSH_CONCURRENCY": "1",
	}))
	require.NoError(t, err)
	c.finish()
	require.Equal(t, "127.0.0.1:9999", c.Addr)
	require.Equal(t, []string{"k1:9092", "k2:9092"}, c.KafkaBrokers)
	require.Equal(t, time.Second, c.FlushInterval)
	require.Equal(t, 1, c.FlushConcurrency)
	require.Len(t, c.MasterKey, 32)
	require.EqualValues(t, 12, c.Partitions)
	require.Equal(t, "/etc/gateway/prices.json", c.PricesFile)
	require.Equal(t, "guard", c.ProxyDefaultMode)
	require.Equal(t, 250*time.Millisecond, c.BrokerFsync)
	require.Equal(t, "data/lake", c.LakeDir)
	require.False(t, c.embedded())
	c.PricesFile = ""
	require.NoError(t, c.Validate())
}

// TestLoadConfigLLMTimeout: Full Control's LLM round trip waits 30 s by
// default (spec 8's recommended client timeout), GATEWAY_LLM_TIMEOUT else.
func TestLoadConfigLLMTimeout(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want time.Duration
	}{
		{map[string]string{}, 30 * time.Second},
		{map[string]string{"GATEWAY_LLM_TIMEOUT": "45s"}, 45 * time.Second},
	} {
		c, err := loadConfig(envOf(tc.env))
		require.NoError(t, err)
		require.Equal(t, tc.want, c.LLMTimeout)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"short master key":     {"GATEWAY_MASTER_KEY": "abcd"},
		"bad partitions":       {"GATEWAY_PARTITIONS": "many"},
		"bad interval":         {"GATEWAY_FLUSH_INTERVAL": "soon"},
		"bad rows":             {"GATEWAY_FLUSH_ROWS": "1.5"},
		"bad concurrency":      {"GATEWAY_FLUSH_CONCURRENCY": "two"},
		"negative concurrency": {"GATEWAY_FLUSH_CONCURRENCY": "-1"},
		"bad proxy mode":       {"GATEWAY_PROXY_DEFAULT_MODE": "paranoid"},
		"bad fsync":            {"GATEWAY_BROKER_FSYNC": "sometimes"},
		"zero fsync":           {"GATEWAY_BROKER_FSYNC": "0s"},
		"bad retention":        {"GATEWAY_SESSION_RETENTION": "a month"},
		"negative retention":   {"GATEWAY_SESSION_RETENTION": "-1h"},
		"zero days retention":  {"GATEWAY_SESSION_RETENTION": "0d"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := loadConfig(envOf(env))
			require.Error(t, err)
		})
	}
}

func TestParseRetention(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"720h": 720 * time.Hour, "30d": 30 * 24 * time.Hour, " 1d ": 24 * time.Hour, "90m": 90 * time.Minute,
		"0": -1, "off": -1, "OFF": -1,
	} {
		got, err := parseRetention(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	c, err := loadConfig(envOf(map[string]string{}))
	require.NoError(t, err)
	require.Zero(t, c.SessionRetention, "unset: httpapi's default (30 days)")
}

func TestParseFsync(t *testing.T) {
	d, err := parseFsync("batch")
	require.NoError(t, err)
	require.Equal(t, embedded.FsyncEveryBatch, d)
	d, err = parseFsync("1s")
	require.NoError(t, err)
	require.Equal(t, time.Second, d)
	_, err = parseFsync("-1s")
	require.Error(t, err)
}

func TestConfigValidate(t *testing.T) {
	dir := t.TempDir()
	goodPrices := filepath.Join(dir, "prices.json")
	require.NoError(t, os.WriteFile(goodPrices, []byte(`{"openai": {"my-ft": {"input_per_million": 3, "output_per_million": 12}}}`), 0o600))
	badPrices := filepath.Join(dir, "bad-prices.json")
	require.NoError(t, os.WriteFile(badPrices, []byte(`{"openai": {"gpt-4o": {"input_per_million": -1, "output_per_million": 10}}}`), 0o600))
	tests := []struct {
		name    string
		mutate  func(*config)
		wantErr string
	}{
		{"defaults", func(*config) {}, ""},
		{"unknown role", func(c *config) { c.Role = "worker" }, "--role"},
		{"processor without kafka", func(c *config) { c.Role = roleProcessor }, "KAFKA_BROKERS"},
		{"processor with kafka", func(c *config) { c.Role = roleProcessor; c.KafkaBrokers = []string{"k:9092"} }, ""},
		{"bad addr", func(c *config) { c.Addr = "8080" }, "GATEWAY_ADDR"},
		{"demo on public addr", func(c *config) { c.Demo = true; c.Addr = "0.0.0.0:8080" }, "loopback"},
		{"demo on localhost", func(c *config) { c.Demo = true; c.Addr = "localhost:8080" }, ""},
		{"zero partitions", func(c *config) { c.Partitions = 0 }, "PARTITIONS"},
		{"prices file", func(c *config) { c.PricesFile = goodPrices }, ""},
		{"missing prices file", func(c *config) { c.PricesFile = filepath.Join(dir, "nope.json") }, "GATEWAY_PRICES_FILE"},
		{"bad prices file", func(c *config) { c.PricesFile = badPrices }, "bad-prices.json: openai.gpt-4o: input_per_million"},
		{"processor ignores prices", func(c *config) {
			c.Role, c.KafkaBrokers, c.PricesFile = roleProcessor, []string{"k:9092"}, badPrices
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := defaultConfig()
			tt.mutate(&c)
			c.finish()
			err := c.Validate()
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestLogLevel(t *testing.T) {
	for v, want := range map[string]slog.Level{"": slog.LevelInfo, "debug": slog.LevelDebug, "INFO": slog.LevelInfo, " warn ": slog.LevelWarn, "warning": slog.LevelWarn, "error": slog.LevelError} {
		got, err := logLevel(v)
		require.NoError(t, err, v)
		require.Equal(t, want, got, v)
	}
	_, err := logLevel("loud")
	require.ErrorContains(t, err, "want debug, info, warn or error")
}
