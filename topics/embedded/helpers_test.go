package embedded_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
	"github.com/governance-gateway/gateway/topics/embedded"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testPartitions = 3

// start starts a broker on addr ("127.0.0.1:0" for a fresh port) over dir.
func start(t testing.TB, dir, addr string) *embedded.Broker {
	t.Helper()
	return startFsync(t, dir, addr, 0)
}

// startFsync is start with a Config.FsyncInterval (0: the default).
func startFsync(t testing.TB, dir, addr string, fsync time.Duration) *embedded.Broker {
	t.Helper()
	b, err := embedded.Start(embedded.Config{Dir: dir, Addr: addr, Partitions: testPartitions, FsyncInterval: fsync})
	require.NoError(t, err)
	return b
}

// topicsConfig connects in process, as serve does; markEnd and readAll
// connect over TCP, so every test crosses both.
func topicsConfig(b *embedded.Broker) topics.Config {
	return topics.Config{
		Brokers:        b.Addrs(),
		Dial:           b.Dial,
		Partitions:     testPartitions,
		ProduceTimeout: 3 * time.Second,
		TxnPool:        2,
	}
}

func newProducer(t testing.TB, cfg topics.Config) *topics.Producer {
	t.Helper()
	p, err := topics.NewProducer(context.Background(), cfg, nil)
	require.NoError(t, err)
	return p
}

// envelope is a valid envelope of about 400 bytes of JSON.
func envelope(org, id string) schemas.Envelope {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cost := 0.0012
	return schemas.Envelope{
		SchemaVersion: schemas.EnvelopeVersion,
		Kind:          schemas.KindTrace,
		OrgID:         org,
		AppID:         "app-1",
		ReceivedAt:    now,
		Trace: schemas.Trace{
			RequestID:        id,
			Mode:             schemas.ModeIngest,
			StartedAt:        now,
			Model:            "gpt-4o-mini",
			Provider:         "openai",
			PromptTokens:     12,
			CompletionTokens: 30,
			TotalTokens:      42,
			CostUSD:          &cost,
			Status:           schemas.StatusOK,
			Prompt:           "What is the capital of France?",
			Answer:           "Paris is the capital of France.",
			ReceivedAt:       now,
		},
	}
}

func envelopes(org, prefix string, n int) []schemas.Envelope {
	out := make([]schemas.Envelope, n)
	for i := range out {
		out[i] = envelope(org, fmt.Sprintf("%s-%04d", prefix, i))
	}
	return out
}

func keysOf(envs []schemas.Envelope) []string {
	out := make([]string, len(envs))
	for i, e := range envs {
		out[i] = string(schemas.Key(e.OrgID, e.Trace.RequestID))
	}
	return out
}

// markEnd produces one committed sentinel record per partition of the traces
// topic and returns their keys. A reader that has seen every sentinel has
// read everything produced before them, which turns "this record never
// appears" into an assertion that does not depend on waiting.
func markEnd(t testing.TB, brokers []string) map[string]bool {
	t.Helper()
	cl, err := kgo.NewClient(append(topics.ClientOpts(topics.Config{Brokers: brokers}),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	require.NoError(t, err)
	defer cl.Close()
	keys := map[string]bool{}
	nonce := time.Now().UnixNano()
	for p := range int32(testPartitions) {
		k := fmt.Sprintf("sentinel/%d-%d", nonce, p)
		keys[k] = true
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := cl.ProduceSync(ctx, &kgo.Record{Topic: topics.Traces, Partition: p, Key: []byte(k)}).FirstErr()
		cancel()
		require.NoError(t, err)
	}
	return keys
}

// readAll reads the traces topic from the start with the given isolation
// until every sentinel is seen, and returns the non-sentinel records.
func readAll(t testing.TB, brokers []string, iso kgo.IsolationLevel, sentinels map[string]bool) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(append(topics.ClientOpts(topics.Config{Brokers: brokers}),
		kgo.FetchIsolationLevel(iso),
		kgo.ConsumeTopics(topics.Traces),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	seen := map[string]bool{}
	var out []*kgo.Record
	for len(seen) < len(sentinels) {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "sentinels seen: %d of %d", len(seen), len(sentinels))
		fs.EachError(func(_ string, _ int32, err error) { t.Logf("fetch error: %v", err) })
		fs.EachRecord(func(r *kgo.Record) {
			k := string(r.Key)
			switch {
			case sentinels[k]:
				seen[k] = true
			case strings.HasPrefix(k, "sentinel/"):
			default:
				out = append(out, r)
			}
		})
	}
	return out
}

func keys(recs []*kgo.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r.Key)
	}
	return out
}
