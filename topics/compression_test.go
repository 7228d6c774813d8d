package topics_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/governance-gateway/gateway/topics"
)

// TestProduceCompression: every produce path (single, each, transaction)
// sends its batches with Config.Compression's codec; kgo's snappy unless
// told otherwise (what real Kafka keeps), none when asked (what serve asks of
// the embedded broker).
func TestProduceCompression(t *testing.T) {
	for _, tc := range []struct {
		compression string
		want        kgo.CompressionCodecType
	}{
		{"", kgo.CodecSnappy},
		{topics.CompressionSnappy, kgo.CodecSnappy},
		{topics.CompressionNone, kgo.CodecNone},
		{topics.CompressionZstd, kgo.CodecZstd},
		{topics.CompressionLZ4, kgo.CodecLz4},
	} {
		t.Run("compression="+tc.compression, func(t *testing.T) {
			c := cluster(t)
			var (
				mu     sync.Mutex
				codecs = map[kgo.CompressionCodecType]int{}
			)
			c.ControlKey(int16(kmsg.Produce), func(kr kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				req := kr.(*kmsg.ProduceRequest)
				mu.Lock()
				defer mu.Unlock()
				for _, tp := range req.Topics {
					for _, pp := range tp.Partitions {
						var b kmsg.RecordBatch
						if err := b.ReadFrom(pp.Records); err != nil {
							t.Errorf("read batch: %v", err)
							continue
						}
						if b.Attributes&0x20 != 0 {
							continue // a transaction's control batch, never compressed
						}
						codecs[kgo.CompressionCodecType(b.Attributes&0x7)]++
					}
				}
				return nil, nil, false
			})
			p, err := topics.NewProducer(context.Background(), topics.Config{
				Brokers: c.ListenAddrs(), Compression: tc.compression, ProduceTimeout: 2 * time.Second,
			}, nil)
			require.NoError(t, err)
			defer p.Close()

			// Envelopes compress well (repeated field names), so a codec is
			// never skipped for making a batch larger.
			require.NoError(t, p.Produce(context.Background(), envelopes("single", 1)))
			require.NoError(t, p.ProduceEach(context.Background(), envelopes("each", 20)))
			require.NoError(t, p.Produce(context.Background(), envelopes("txn", 20)))
			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, codecs)
			require.Equal(t, map[kgo.CompressionCodecType]int{tc.want: codecs[tc.want]}, codecs)
		})
	}
}
