// Package harness runs the gateway binary as real processes for the
// integration suite: it picks the log and store the processes use
// (DESIGN.md section 9), builds the binary once per test run, and starts,
// stops and kills processes with their logs captured for failure reports.
//
// Everything a test observes goes through the HTTP API and the process CLI,
// never through our packages, so the suite checks what an operator gets.
package harness

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Environment variables the harness reads.
const (
	EnvKafkaBrokers = "KAFKA_BROKERS"
	EnvDatabaseURL  = "DATABASE_URL"
	// EnvRequireReal=1 makes a missing real Kafka or PostgreSQL a test
	// failure instead of a fallback to the embedded defaults.
	EnvRequireReal = "GATEWAY_REQUIRE_REAL"
	// EnvNoContainers=1 skips the Docker probe (saves its timeout on
	// machines where a docker CLI exists without an engine).
	EnvNoContainers = "GATEWAY_NO_TESTCONTAINERS"
)

// Source says where an Env came from.
type Source string

const (
	SourceEnv            Source = "environment"
	SourceTestcontainers Source = "testcontainers"
	SourceEmbedded       Source = "embedded"
)

// Env is the log and query store the gateway processes of a test run use.
// Empty KafkaBrokers means each `serve --role=all` runs its own embedded
// broker; empty DatabaseURL means SQLite under the process's data dir.
type Env struct {
	KafkaBrokers string
	DatabaseURL  string
	Kafka, Store Source
}

// Real reports whether both the log and the store are real servers.
func (e Env) Real() bool { return e.KafkaBrokers != "" && e.DatabaseURL != "" }

func (e Env) String() string {
	return fmt.Sprintf("kafka=%s(%s) store=%s(%s)", e.Kafka, orNone(e.KafkaBrokers), e.Store, redactURL(e.DatabaseURL))
}

// RequireReal reports GATEWAY_REQUIRE_REAL=1.
func RequireReal() bool { return os.Getenv(EnvRequireReal) == "1" }

var (
	envOnce sync.Once
	envVal  Env
	envErr  error
)

// Environment picks, once per test binary and in this order: KAFKA_BROKERS /
// DATABASE_URL from the environment (each independently); real Kafka and
// PostgreSQL from testcontainers-go when a Docker engine answers; otherwise
// the embedded defaults. With GATEWAY_REQUIRE_REAL=1 a missing real server
// fails the test instead of falling back.
func Environment(t testing.TB) Env {
	t.Helper()
	envOnce.Do(func() { envVal, envErr = pickEnv() })
	if envErr != nil {
		t.Fatalf("harness environment: %v", envErr)
	}
	if RequireReal() && !envVal.Real() {
		t.Fatalf("GATEWAY_REQUIRE_REAL=1 but no real Kafka and PostgreSQL: %s; set KAFKA_BROKERS and DATABASE_URL "+
			"(deploy/local/kafka.sh start, deploy/local/postgres.sh start) or run a Docker engine", envVal)
	}
	return envVal
}

func pickEnv() (Env, error) {
	e := Env{
		KafkaBrokers: os.Getenv(EnvKafkaBrokers),
		DatabaseURL:  os.Getenv(EnvDatabaseURL),
		Kafka:        SourceEnv,
		Store:        SourceEnv,
	}
	if e.KafkaBrokers == "" || e.DatabaseURL == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if os.Getenv(EnvNoContainers) != "1" && dockerAvailable(ctx) {
			if err := startContainers(ctx, &e); err != nil {
				return e, fmt.Errorf("testcontainers: %w", err)
			}
		}
	}
	if e.KafkaBrokers == "" {
		e.Kafka = SourceEmbedded
	}
	if e.DatabaseURL == "" {
		e.Store = SourceEmbedded
	}
	return e, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// redactURL hides the password of a database URL in test output.
func redactURL(u string) string {
	if u == "" {
		return "none"
	}
	at := strings.LastIndex(u, "@")
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return u
	}
	userinfo := u[scheme+3 : at]
	if i := strings.Index(userinfo, ":"); i >= 0 {
		userinfo = userinfo[:i] + ":***"
	}
	return u[:scheme+3] + userinfo + u[at:]
}
