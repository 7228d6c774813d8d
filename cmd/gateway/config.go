package main

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/pricing"
	"github.com/governance-gateway/gateway/topics/embedded"
)

// Roles of `gateway serve`.
const (
	roleAll       = "all"
	roleAPI       = "api"
	roleProcessor = "processor"
)

// config is everything `gateway serve` reads from its environment and flags.
// Names follow DESIGN.md section 3; docs/configuration.md lists them all.
type config struct {
	Role              string
	Addr              string   // GATEWAY_ADDR
	DataDir           string   // GATEWAY_DATA_DIR
	LakeDir           string   // GATEWAY_LAKE_DIR, default <data dir>/lake
	KafkaBrokers      []string // KAFKA_BROKERS; empty: embedded broker
	EmbeddedKafkaAddr string   // GATEWAY_EMBEDDED_KAFKA_ADDR
	Partitions        int32    // GATEWAY_PARTITIONS: partitions of the traces topic when we create it
	// BrokerFsync: GATEWAY_BROKER_FSYNC, the embedded broker's fsync policy
	// ("batch" or an interval; embedded.Config.FsyncInterval).
	BrokerFsync   time.Duration
	DatabaseURL   string        // DATABASE_URL; empty: SQLite under the data dir
	MasterKey     []byte        // GATEWAY_MASTER_KEY (32 bytes, hex or base64)
	FlushRows     int           // GATEWAY_FLUSH_ROWS
	FlushInterval time.Duration // GATEWAY_FLUSH_INTERVAL
	// FlushConcurrency (GATEWAY_FLUSH_CONCURRENCY) bounds the partitions a
	// processor flushes at once; 0 is GOMAXPROCS.
	FlushConcurrency int
	PprofAddr        string // GATEWAY_PPROF_ADDR: Go profiler listener, off when empty
	MemoryLimit      int64  // GATEWAY_MEMORY_LIMIT_MB: soft Go heap limit in bytes (GOMEMLIMIT wins)
	Demo             bool
	// ProviderURLs / ProviderKeys: GATEWAY_PROVIDER_<NAME>_BASE_URL and
	// _API_KEY by vendor value (the Managed pool's keys; never logged).
	ProviderURLs map[string]string
	ProviderKeys map[string]string
	LLMTimeout   time.Duration // GATEWAY_LLM_TIMEOUT, default 30 s
	// BedrockRegion: GATEWAY_PROVIDER_BEDROCK_REGION (default us-east-1).
	BedrockRegion string
	// UpstreamURL / UpstreamTimeout: the proxy's upstream
	// (GATEWAY_UPSTREAM_URL, GATEWAY_UPSTREAM_TIMEOUT).
	UpstreamURL     string
	UpstreamTimeout time.Duration
	// ProxyDefaultMode: GATEWAY_PROXY_DEFAULT_MODE, the proxy's mode for a
	// request without X-Service-Mode whose organisation set none (observe).
	ProxyDefaultMode string
	// VertexProject / VertexLocation: GATEWAY_PROVIDER_VERTEX_PROJECT and
	// _LOCATION (default us-central1).
	VertexProject, VertexLocation string
	// PricesFile: GATEWAY_PRICES_FILE, a JSON price table merged over the
	// built-in list prices (ingest/llm/pricing) for cost_usd.
	PricesFile string
	// SessionRetention: GATEWAY_SESSION_RETENTION, how long Full Control
	// session turns are kept (0: the default, 30 days; negative: forever).
	SessionRetention time.Duration
}

func defaultConfig() config {
	return config{
		Role:              roleAll,
		Addr:              "127.0.0.1:8080",
		DataDir:           "./data",
		EmbeddedKafkaAddr: "127.0.0.1:19092",
		Partitions:        6,
		FlushRows:         5000,
		FlushInterval:     200 * time.Millisecond,
		MemoryLimit:       384 << 20,
	}
}

// loadConfig overlays the environment on the defaults. Flags are applied by
// the caller afterwards, so they win over the environment.
func loadConfig(getenv func(string) string) (config, error) {
	c := defaultConfig()
	if v := getenv("GATEWAY_ADDR"); v != "" {
		c.Addr = v
	}
	if v := getenv("GATEWAY_DATA_DIR"); v != "" {
		c.DataDir = v
	}
	c.LakeDir = getenv("GATEWAY_LAKE_DIR")
	if v := getenv("KAFKA_BROKERS"); v != "" {
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" {
				c.KafkaBrokers = append(c.KafkaBrokers, b)
			}
		}
	}
	if v := getenv("GATEWAY_EMBEDDED_KAFKA_ADDR"); v != "" {
		c.EmbeddedKafkaAddr = v
	}
	if v := getenv("GATEWAY_PARTITIONS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return c, fmt.Errorf("GATEWAY_PARTITIONS: %w", err)
		}
		c.Partitions = int32(n)
	}
	if v := getenv("GATEWAY_BROKER_FSYNC"); v != "" {
		d, err := parseFsync(v)
		if err != nil {
			return c, fmt.Errorf("GATEWAY_BROKER_FSYNC: %w", err)
		}
		c.BrokerFsync = d
	}
	c.DatabaseURL = getenv("DATABASE_URL")
	c.PprofAddr = getenv("GATEWAY_PPROF_ADDR")
	if v := getenv("GATEWAY_MEMORY_LIMIT_MB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return c, fmt.Errorf("GATEWAY_MEMORY_LIMIT_MB: %q is not a non-negative integer", v)
		}
		c.MemoryLimit = n << 20
	}
	if v := getenv("GATEWAY_MASTER_KEY"); v != "" {
		k, err := parseMasterKey(v)
		if err != nil {
			return c, fmt.Errorf("GATEWAY_MASTER_KEY: %w", err)
		}
		c.MasterKey = k
	}
	c.ProviderURLs, c.ProviderKeys = map[string]string{}, map[string]string{}
	for _, v := range llm.Vendors() {
		name := strings.ToUpper(v)
		if u := getenv("GATEWAY_PROVIDER_" + name + "_BASE_URL"); u != "" {
			c.ProviderURLs[v] = strings.TrimRight(u, "/")
		}
		if k := getenv("GATEWAY_PROVIDER_" + name + "_API_KEY"); k != "" {
			c.ProviderKeys[v] = k
		}
	}
	c.BedrockRegion = getenv("GATEWAY_PROVIDER_BEDROCK_REGION")
	c.UpstreamURL = getenv("GATEWAY_UPSTREAM_URL")
	if v := getenv("GATEWAY_UPSTREAM_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("GATEWAY_UPSTREAM_TIMEOUT: %q is not a positive duration", v)
		}
		c.UpstreamTimeout = d
	}
	c.ProxyDefaultMode = "observe"
	if v := getenv("GATEWAY_PROXY_DEFAULT_MODE"); v != "" {
		switch v {
		case "observe", "guard", "verify", "full":
			c.ProxyDefaultMode = v
		default:
			return c, fmt.Errorf("GATEWAY_PROXY_DEFAULT_MODE: %q is not one of observe, guard, verify, full", v)
		}
	}
	c.VertexProject, c.VertexLocation = getenv("GATEWAY_PROVIDER_VERTEX_PROJECT"), getenv("GATEWAY_PROVIDER_VERTEX_LOCATION")
	c.PricesFile = strings.TrimSpace(getenv("GATEWAY_PRICES_FILE"))
	c.LLMTimeout = 30 * time.Second
	if v := getenv("GATEWAY_LLM_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("GATEWAY_LLM_TIMEOUT: %q is not a positive duration", v)
		}
		c.LLMTimeout = d
	}
	if v := getenv("GATEWAY_SESSION_RETENTION"); v != "" {
		d, err := parseRetention(v)
		if err != nil {
			return c, fmt.Errorf("GATEWAY_SESSION_RETENTION: %w", err)
		}
		c.SessionRetention = d
	}
	if v := getenv("GATEWAY_FLUSH_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return c, fmt.Errorf("GATEWAY_FLUSH_ROWS: %w", err)
		}
		c.FlushRows = n
	}
	if v := getenv("GATEWAY_FLUSH_CONCURRENCY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return c, fmt.Errorf("GATEWAY_FLUSH_CONCURRENCY %q: want a count >= 0 (0: GOMAXPROCS)", v)
		}
		c.FlushConcurrency = n
	}
	if v := getenv("GATEWAY_FLUSH_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return c, fmt.Errorf("GATEWAY_FLUSH_INTERVAL: %w", err)
		}
		c.FlushInterval = d
	}
	return c, nil
}

// parseRetention reads a retention: a Go duration ("720h"), whole days
// ("30d"), or "0" / "off" for keeping forever (returned as -1).
func parseRetention(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "0" || strings.EqualFold(v, "off") {
		return -1, nil
	}
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > 100*365 {
			return 0, fmt.Errorf("%q: want a duration such as 720h or 30d, or 0 to keep forever", v)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: want a duration such as 720h or 30d, or 0 to keep forever", v)
	}
	return d, nil
}

// parseMasterKey accepts 32 bytes as 64 hex characters or standard base64.
func parseMasterKey(s string) ([]byte, error) {
	if b, err := hex.DecodeString(s); err == nil && len(b) == 32 {
		return b, nil
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == 32 {
		return b, nil
	}
	return nil, errors.New("must be 32 bytes, as 64 hex characters or base64")
}

func (c *config) finish() {
	if c.LakeDir == "" {
		c.LakeDir = filepath.Join(c.DataDir, "lake")
	}
}

// embedded reports whether this process runs the in-process broker.
func (c config) embedded() bool { return len(c.KafkaBrokers) == 0 }

func (c config) Validate() error {
	switch c.Role {
	case roleAll, roleAPI, roleProcessor:
	default:
		return fmt.Errorf("--role %q: must be all, api or processor", c.Role)
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("GATEWAY_ADDR %q: %w", c.Addr, err)
	}
	if c.embedded() && c.Role != roleAll {
		return fmt.Errorf("--role=%s needs KAFKA_BROKERS: the embedded broker lives inside `serve --role=all` (or run `gateway broker`)", c.Role)
	}
	if c.DataDir == "" {
		return errors.New("GATEWAY_DATA_DIR must not be empty")
	}
	if c.Partitions < 1 {
		return errors.New("GATEWAY_PARTITIONS must be at least 1")
	}
	if c.FlushRows < 1 || c.FlushInterval <= 0 {
		return errors.New("GATEWAY_FLUSH_ROWS and GATEWAY_FLUSH_INTERVAL must be positive")
	}
	if c.Demo && !isLoopback(c.Addr) {
		return errors.New("--demo is for a local laptop: GATEWAY_ADDR must be a loopback address")
	}
	if c.Role != roleProcessor { // only the API prices LLM calls
		if err := c.prices().Validate(); err != nil {
			return fmt.Errorf("GATEWAY_PRICES_FILE: %w", err)
		}
	}
	return nil
}

// parseFsync reads the embedded broker's fsync policy: "batch" (fsync before
// every ack) or a positive interval such as "100ms" (background fsync).
func parseFsync(v string) (time.Duration, error) {
	if v == "batch" {
		return embedded.FsyncEveryBatch, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: want \"batch\" or a positive duration such as 100ms", v)
	}
	return d, nil
}

// prices is the price table's configuration.
func (c config) prices() pricing.Config { return pricing.Config{File: c.PricesFile} }

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
