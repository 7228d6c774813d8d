package topics

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// DeadLetterPartitions is the partition count of the dead-letter topic: it
// carries only poison records, so one partition is plenty and keeps it in
// arrival order for whoever inspects it.
const DeadLetterPartitions int32 = 1

// EnsureTopics creates the traces topic (cfg.Partitions) and the dead-letter
// topic if they are missing, then waits until the cluster lists both with a
// leader for every partition. Idempotent and safe when several processes race
// to create them ("already exists" is success). An existing topic is never
// altered: its partition count fixes where each key lives.
func EnsureTopics(ctx context.Context, cfg Config) error {
	cfg = cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	cl, err := kgo.NewClient(ClientOpts(cfg)...)
	if err != nil {
		return fmt.Errorf("ensure topics: new client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	want := []struct {
		name       string
		partitions int32
	}{
		{Traces, cfg.Partitions},
		{DeadLetter, DeadLetterPartitions},
	}
	for _, t := range want {
		resp, err := adm.CreateTopic(ctx, t.partitions, cfg.ReplicationFactor, nil, t.name)
		if err == nil {
			err = resp.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("ensure topics: create %s: %w", t.name, err)
		}
	}

	// A created topic reaches every broker's metadata asynchronously on a
	// real cluster; wait so the first produce does not see
	// UNKNOWN_TOPIC_OR_PARTITION.
	for {
		details, err := adm.ListTopics(ctx, Traces, DeadLetter)
		if err == nil {
			err = details.Error()
		}
		if err == nil && details.Has(Traces) && details.Has(DeadLetter) && allLed(details) {
			return nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = errors.New("partitions without leader")
			}
			return fmt.Errorf("ensure topics: wait for metadata: %w (last: %w)", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func allLed(details kadm.TopicDetails) bool {
	for _, td := range details {
		if len(td.Partitions) == 0 {
			return false
		}
		for _, p := range td.Partitions {
			if p.Err != nil || p.Leader < 0 {
				return false
			}
		}
	}
	return true
}
