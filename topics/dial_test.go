package topics_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/topics"
)

// Config.Dial opens every connection of our clients, and DialTimeout still
// bounds each dial (kgo.Dialer alone would drop it).
func TestConfigDial(t *testing.T) {
	c := cluster(t)
	var (
		mu        sync.Mutex
		addrs     []string
		deadlines []time.Duration
	)
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		mu.Lock()
		addrs = append(addrs, address)
		if dl, ok := ctx.Deadline(); ok {
			deadlines = append(deadlines, time.Until(dl))
		}
		mu.Unlock()
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
	cfg := topics.Config{Brokers: c.ListenAddrs(), Dial: dial, DialTimeout: 1500 * time.Millisecond}
	p, err := topics.NewProducer(context.Background(), cfg, nil)
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Produce(context.Background(), envelopes("dial", 1)))

	cl, err := kgo.NewClient(topics.ConsumerOpts(cfg)...)
	require.NoError(t, err)
	defer cl.Close()
	require.NoError(t, cl.Ping(context.Background()))

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, addrs)
	for _, a := range addrs {
		require.Contains(t, c.ListenAddrs(), a)
	}
	require.Len(t, deadlines, len(addrs), "every dial has DialTimeout's deadline")
	for _, d := range deadlines {
		// kgo's own contexts carry later deadlines (the 5s produce timeout).
		require.LessOrEqual(t, d, 1500*time.Millisecond)
	}
}
