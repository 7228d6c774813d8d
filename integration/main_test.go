// Package integration is the gateway's integration suite: real gateway
// processes (built from ./cmd/gateway) driven only through the HTTP API and
// the process CLI. The harness picks the log and store (DESIGN.md section
// 9): KAFKA_BROKERS / DATABASE_URL, else testcontainers, else the embedded
// defaults; GATEWAY_REQUIRE_REAL=1 forbids the fallback.
package integration

import (
	"testing"

	"github.com/governance-gateway/gateway/integration/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
