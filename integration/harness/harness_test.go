package harness

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/topics"
)

func TestMain(m *testing.M) { Main(m) }

func TestMergeEnv(t *testing.T) {
	tests := []struct {
		name       string
		base, over []string
		want       []string
	}{
		{"add", []string{"A=1"}, []string{"B=2"}, []string{"A=1", "B=2"}},
		{"override keeps position", []string{"A=1", "B=2"}, []string{"A=3"}, []string{"A=3", "B=2"}},
		{"empty value unsets", []string{"KAFKA_BROKERS=x:1"}, []string{"KAFKA_BROKERS="}, []string{"KAFKA_BROKERS="}},
		{"last wins", nil, []string{"A=1", "A=2"}, []string{"A=2"}},
		{"value with equals", []string{"U=a=b"}, []string{"V=c=d"}, []string{"U=a=b", "V=c=d"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mergeEnv(tc.base, tc.over)
			require.Equal(t, tc.want, got)
			k, v, _ := strings.Cut(tc.want[len(tc.want)-1], "=")
			require.Equal(t, v, lookup(got, k))
		})
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "none"},
		{"postgres://gateway:secret@127.0.0.1:55432/gateway?sslmode=disable", "postgres://gateway:***@127.0.0.1:55432/gateway?sslmode=disable"},
		{"postgres://gateway@db/gateway", "postgres://gateway@db/gateway"},
		{"host=db user=x", "host=db user=x"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, redactURL(tc.in), tc.in)
	}
}

func TestPickEnvFromEnvironment(t *testing.T) {
	t.Setenv(EnvKafkaBrokers, "k1:9092,k2:9092")
	t.Setenv(EnvDatabaseURL, "postgres://u:p@h/db")
	e, err := pickEnv()
	require.NoError(t, err)
	require.Equal(t, Env{KafkaBrokers: "k1:9092,k2:9092", DatabaseURL: "postgres://u:p@h/db", Kafka: SourceEnv, Store: SourceEnv}, e)
	require.True(t, e.Real())
	require.NotContains(t, e.String(), ":p@")
}

func TestPickEnvEmbeddedFallback(t *testing.T) {
	t.Setenv(EnvKafkaBrokers, "")
	t.Setenv(EnvDatabaseURL, "")
	t.Setenv(EnvNoContainers, "1")
	e, err := pickEnv()
	require.NoError(t, err)
	require.Equal(t, Env{Kafka: SourceEmbedded, Store: SourceEmbedded}, e)
	require.False(t, e.Real())
}

// fake starts a shell script as a Process, so process control is tested
// without the gateway binary.
func fake(t *testing.T, script string) *Process {
	p := &Process{Name: "fake", bin: "/bin/sh"}
	p.start(t, []string{"-c", script}, nil)
	return p
}

func TestProcessReadyStopKill(t *testing.T) {
	t.Run("ready line then SIGTERM", func(t *testing.T) {
		p := fake(t, `trap 'echo got-term; exit 0' TERM; echo '{"level":"INFO","msg":"ready"}' >&2; while :; do sleep 0.05; done`)
		require.False(t, p.Exited())
		require.NoError(t, p.Stop())
		require.True(t, p.Exited())
		require.Contains(t, p.LogTail(5), "got-term")
		require.NoError(t, p.Stop(), "Stop is idempotent")
	})
	t.Run("stdout ready line then SIGKILL", func(t *testing.T) {
		p := fake(t, `trap '' TERM; echo 'Gateway ready on http://127.0.0.1:1'; while :; do sleep 0.05; done`)
		p.Kill()
		require.True(t, p.Exited())
		require.Error(t, p.Stop(), "a killed process reports its signal")
	})
	t.Run("log tail", func(t *testing.T) {
		p := fake(t, `for i in 1 2 3 4 5; do echo line$i; done; echo 'Gateway ready on x'; while :; do sleep 0.05; done`)
		require.Equal(t, "line5\nGateway ready on x", p.LogTail(2))
		p.Kill()
	})
}

func TestProcessPortReady(t *testing.T) {
	addr := FreeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3 for a tiny TCP listener")
	}
	p := &Process{Name: "listener", Addr: addr, bin: "/usr/bin/python3", waitPort: true}
	p.start(t, []string{"-c", "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1'," + port + "))\ns.listen()\ntime.sleep(60)"}, nil)
	require.False(t, p.Exited())
	p.Kill()
}

// TestFreshGroup runs against an in-process kfake broker: committed offsets
// of the processors' group move to the end of the traces topic.
func TestFreshGroup(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, topics.Traces))
	require.NoError(t, err)
	defer cluster.Close()
	brokers := strings.Join(cluster.ListenAddrs(), ",")

	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.DefaultProduceTopic(topics.Traces))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 30; i++ {
		require.NoError(t, cl.ProduceSync(ctx, kgo.StringRecord("x")).FirstErr())
	}

	FreshGroup(t, brokers)

	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, topics.Traces)
	require.NoError(t, err)
	committed, err := adm.FetchOffsets(ctx, topics.TraceWriterGroup)
	require.NoError(t, err)
	var sum int64
	ends.Each(func(o kadm.ListedOffset) {
		c, ok := committed.Lookup(o.Topic, o.Partition)
		require.True(t, ok, "partition %d has no committed offset", o.Partition)
		require.Equal(t, o.Offset, c.At, "partition %d", o.Partition)
		sum += c.At
	})
	require.EqualValues(t, 30, sum)
}

func TestFreshGroupNoTopic(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	defer cluster.Close()
	FreshGroup(t, strings.Join(cluster.ListenAddrs(), ","))
}

// TestRealKafkaTransactions checks the broker of the real lane
// (deploy/local/kafka.sh) does what the producer needs: transactions commit
// and a read_committed consumer sees them. It runs only with KAFKA_BROKERS.
func TestRealKafkaTransactions(t *testing.T) {
	brokers := os.Getenv(EnvKafkaBrokers)
	if brokers == "" {
		if RequireReal() {
			t.Fatal("GATEWAY_REQUIRE_REAL=1 but KAFKA_BROKERS is not set")
		}
		t.Skip("KAFKA_BROKERS not set: no real broker to check")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := "harness.txn-check." + time.Now().Format("20060102150405.000000000")
	admCl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...))
	require.NoError(t, err)
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	_, err = adm.CreateTopic(ctx, 2, -1, nil, topic)
	require.NoError(t, err)
	defer func() { _, _ = adm.DeleteTopics(context.Background(), topic) }()

	p, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...),
		kgo.TransactionalID("harness-txn-check-"+topic), kgo.DefaultProduceTopic(topic))
	require.NoError(t, err)
	defer p.Close()
	for _, commit := range []bool{false, true} {
		require.NoError(t, p.BeginTransaction())
		for i := 0; i < 5; i++ {
			p.Produce(ctx, kgo.StringRecord(map[bool]string{true: "committed", false: "aborted"}[commit]), nil)
		}
		require.NoError(t, p.Flush(ctx))
		require.NoError(t, p.EndTransaction(ctx, kgo.TransactionEndTry(commit)))
	}

	c, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer c.Close()
	var got []string
	for len(got) < 5 {
		fs := c.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "read_committed consumer saw %d of 5 records", len(got))
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	require.Equal(t, []string{"committed", "committed", "committed", "committed", "committed"}, got)
}

// TestDockerProbeNoEngine: without any Docker host the probe answers false
// (testcontainers itself would panic).
func TestDockerProbeNoEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "")
	t.Setenv("TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	if _, err := os.Stat("/var/run/docker.sock"); err == nil {
		t.Skip("/var/run/docker.sock exists on this machine")
	}
	require.False(t, dockerHostConfigured())
	require.False(t, dockerAvailable(context.Background()))
}

// TestDockerProbeUnreachableHost: a configured host without an engine
// behind it answers false within the probe's timeout instead of panicking.
func TestDockerProbeUnreachableHost(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+t.TempDir()+"/no-engine.sock")
	require.True(t, dockerHostConfigured())
	require.False(t, dockerAvailable(context.Background()))
}
