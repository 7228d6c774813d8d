package pipeline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/query"
)

func ch(first, last int64) query.Chunk {
	return query.Chunk{Topic: "t", Partition: 2, FirstOffset: first, LastOffset: last}
}

// cuts feeds offsets to a cutter and returns the chunks it cut, followed by
// Final's cut when final is set.
func cuts(c *Cutter, offsets []int64, final bool) []query.Chunk {
	var out []query.Chunk
	now := time.Unix(0, 0)
	for _, o := range offsets {
		for _, p := range c.Add(&kgo.Record{Partition: 2, Offset: o}, now) {
			for _, r := range p.Records {
				if r.Offset < p.Chunk.FirstOffset || r.Offset > p.Chunk.LastOffset {
					panic("record outside its chunk")
				}
			}
			out = append(out, p.Chunk)
		}
	}
	if final {
		if p, ok := c.Final(); ok {
			out = append(out, p.Chunk)
		}
	}
	return out
}

func TestCutter(t *testing.T) {
	tests := []struct {
		name    string
		max     int
		bounds  []query.Chunk
		offsets []int64
		final   bool
		want    []query.Chunk
		holding bool
	}{
		{name: "fresh by size", max: 3, offsets: []int64{0, 1, 2, 3, 4, 5, 6}, want: []query.Chunk{ch(0, 2), ch(3, 5)}},
		{name: "fresh by size, final cuts the rest", max: 3, offsets: []int64{0, 1, 2, 3}, final: true, want: []query.Chunk{ch(0, 2), ch(3, 3)}},
		{name: "offset gaps (transaction markers) are fine", max: 2, offsets: []int64{0, 2, 5, 6}, want: []query.Chunk{ch(0, 2), ch(5, 6)}},
		{
			name: "recorded boundaries replayed whatever the size limit", max: 2,
			bounds:  []query.Chunk{ch(10, 14), ch(15, 15)},
			offsets: []int64{10, 11, 12, 13, 14, 15, 16, 17, 18},
			want:    []query.Chunk{ch(10, 14), ch(15, 15), ch(16, 17)},
		},
		{
			name: "boundary waits for its last record", max: 2, bounds: []query.Chunk{ch(10, 14)},
			offsets: []int64{10, 11, 12}, final: true, want: nil, holding: true,
		},
		{
			name: "boundary whose last record is gone is cut when passed", max: 100, bounds: []query.Chunk{ch(10, 14)},
			offsets: []int64{10, 12, 20}, final: true, want: []query.Chunk{ch(10, 14), ch(20, 20)},
		},
		{
			name: "records before a recorded chunk form their own chunk", max: 100, bounds: []query.Chunk{ch(10, 12)},
			offsets: []int64{7, 8, 10, 11, 12}, want: []query.Chunk{ch(7, 8), ch(10, 12)},
		},
		{
			name: "passed boundary with records before it", max: 100, bounds: []query.Chunk{ch(10, 12)},
			offsets: []int64{7, 13}, final: true, want: []query.Chunk{ch(7, 7), ch(13, 13)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCutter("t", 2, tc.max, tc.bounds)
			require.Equal(t, tc.want, cuts(c, tc.offsets, tc.final))
			require.Equal(t, tc.holding, c.Holding())
		})
	}
}

func TestCutterIdle(t *testing.T) {
	t0 := time.Unix(100, 0)
	c := NewCutter("t", 2, 10, nil)
	_, ok := c.IdleDue(time.Second)
	require.False(t, ok, "nothing buffered")
	c.Add(&kgo.Record{Offset: 4}, t0)
	c.Add(&kgo.Record{Offset: 5}, t0.Add(900*time.Millisecond))
	due, ok := c.IdleDue(time.Second)
	require.True(t, ok)
	require.Equal(t, t0.Add(time.Second), due, "due counts from the first buffered record")
	_, ok = c.CutIdle(t0.Add(999*time.Millisecond), time.Second)
	require.False(t, ok)
	p, ok := c.CutIdle(t0.Add(time.Second), time.Second)
	require.True(t, ok)
	require.Equal(t, ch(4, 5), p.Chunk)
	require.Zero(t, c.Len())

	// A pending recorded boundary is never cut by time.
	c = NewCutter("t", 2, 10, []query.Chunk{ch(0, 3)})
	c.Add(&kgo.Record{Offset: 0}, t0)
	_, ok = c.CutIdle(t0.Add(time.Hour), time.Second)
	require.False(t, ok)
}

func TestReplayBounds(t *testing.T) {
	keep, skipped := ReplayBounds([]query.Chunk{ch(5, 12), ch(13, 14), ch(15, 20)}, 10)
	require.Equal(t, []query.Chunk{ch(13, 14), ch(15, 20)}, keep)
	require.Equal(t, []query.Chunk{ch(5, 12)}, skipped)
}
