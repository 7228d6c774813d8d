package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/topics"
)

// FreshGroup prepares a shared real Kafka for a new deployment whose
// processors must see only the records of this test: it moves the committed
// offsets of the processors' group to the end of the traces topic, so
// records left by earlier deployments (earlier tests, earlier runs on a
// reused broker) are not replayed into this deployment's store and lake.
// It does nothing when the topic does not exist yet, and fails the test if
// the group has live members (another deployment is consuming right now).
// The embedded broker of a `serve --role=all` process never needs this.
func FreshGroup(t testing.TB, brokers string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...))
	if err != nil {
		t.Fatalf("fresh group: client: %v", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	ends, err := adm.ListEndOffsets(ctx, topics.Traces)
	if err != nil {
		t.Fatalf("fresh group: end offsets: %v", err)
	}
	if ends.Error() != nil {
		// Unknown topic: nothing was ever written, nothing to skip.
		return
	}
	groups, err := adm.DescribeGroups(ctx, topics.TraceWriterGroup)
	if err != nil {
		t.Fatalf("fresh group: describe: %v", err)
	}
	if g, ok := groups[topics.TraceWriterGroup]; ok && len(g.Members) > 0 {
		t.Fatalf("fresh group: group %q has %d live members: another deployment shares this Kafka; "+
			"the suite needs the broker to itself", topics.TraceWriterGroup, len(g.Members))
	}
	offsets := kadm.Offsets{}
	ends.Each(func(o kadm.ListedOffset) {
		offsets.Add(kadm.Offset{Topic: o.Topic, Partition: o.Partition, At: o.Offset, LeaderEpoch: -1})
	})
	resp, err := adm.CommitOffsets(ctx, topics.TraceWriterGroup, offsets)
	if err != nil {
		t.Fatalf("fresh group: commit: %v", err)
	}
	if err := resp.Error(); err != nil {
		t.Fatalf("fresh group: commit: %v", err)
	}
}
