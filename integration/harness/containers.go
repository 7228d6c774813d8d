package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tckafka "github.com/testcontainers/testcontainers-go/modules/kafka"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Container images for the testcontainers path. This code runs only where a
// Docker engine answers (never on the project's CI machine, which has none);
// it is kept small on purpose.
const (
	kafkaImage    = "apache/kafka:3.9.1"
	postgresImage = "postgres:16-alpine"
)

var (
	containersMu sync.Mutex
	containers   []testcontainers.Container
)

// dockerAvailable reports whether a Docker engine answers within a few
// seconds. testcontainers panics when it finds no Docker host at all, so a
// cheap look for one comes first and a panic reads as "no engine".
func dockerAvailable(ctx context.Context) (ok bool) {
	if !dockerHostConfigured() {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return false
	}
	defer p.Close()
	return p.Health(ctx) == nil
}

// dockerHostConfigured reports whether DOCKER_HOST (or testcontainers'
// override) is set or a Docker socket exists where engines put it.
func dockerHostConfigured() bool {
	if os.Getenv("DOCKER_HOST") != "" || os.Getenv("TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE") != "" {
		return true
	}
	socks := []string{"/var/run/docker.sock"}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		socks = append(socks, filepath.Join(d, "docker.sock"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		socks = append(socks, filepath.Join(h, ".docker", "run", "docker.sock"), filepath.Join(h, ".docker", "desktop", "docker.sock"))
	}
	for _, s := range socks {
		if fi, err := os.Stat(s); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return true
		}
	}
	return false
}

// startContainers fills the empty fields of e from fresh containers.
func startContainers(ctx context.Context, e *Env) error {
	if e.KafkaBrokers == "" {
		k, err := tckafka.Run(ctx, kafkaImage, tckafka.WithClusterID("gateway-it"))
		if k != nil {
			track(k)
		}
		if err != nil {
			return fmt.Errorf("start kafka: %w", err)
		}
		brokers, err := k.Brokers(ctx)
		if err != nil {
			return fmt.Errorf("kafka brokers: %w", err)
		}
		e.KafkaBrokers, e.Kafka = strings.Join(brokers, ","), SourceTestcontainers
	}
	if e.DatabaseURL == "" {
		pg, err := tcpostgres.Run(ctx, postgresImage,
			tcpostgres.WithDatabase("gateway"), tcpostgres.WithUsername("gateway"), tcpostgres.WithPassword("gateway"),
			testcontainers.WithWaitStrategy(wait.ForLog("database system is ready to accept connections").
				WithOccurrence(2).WithStartupTimeout(time.Minute)))
		if pg != nil {
			track(pg)
		}
		if err != nil {
			return fmt.Errorf("start postgres: %w", err)
		}
		url, err := pg.ConnectionString(ctx, "sslmode=disable")
		if err != nil {
			return fmt.Errorf("postgres url: %w", err)
		}
		e.DatabaseURL, e.Store = url, SourceTestcontainers
	}
	return nil
}

func track(c testcontainers.Container) {
	containersMu.Lock()
	defer containersMu.Unlock()
	containers = append(containers, c)
}

// terminateContainers stops what startContainers started; Main calls it
// after the tests.
func terminateContainers() {
	containersMu.Lock()
	defer containersMu.Unlock()
	for _, c := range containers {
		_ = testcontainers.TerminateContainer(c)
	}
	containers = nil
}
