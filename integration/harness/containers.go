package harness

import (
	"context"
	"fmt"
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
// seconds.
func dockerAvailable(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return false
	}
	defer p.Close()
	return p.Health(ctx) == nil
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
