package pipeline

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/query"
)

// Pending is a cut chunk waiting for its flush: the chunk and every record it
// covers, in offset order. A chunk's LastOffset is always the offset of its
// last record, so a replay can tell exactly when the chunk is complete.
type Pending struct {
	Chunk   query.Chunk
	Records []*kgo.Record
}

// Cutter cuts one partition's records into chunks. Fresh chunks close at
// maxRecords records or when idle for the flush interval (CutIdle); chunks
// already recorded in the store (replay after a crash or a rebalance) are
// cut again at exactly their recorded boundaries, whatever the limits, so a
// replay writes the same Parquet files with the same rows. Not safe for
// concurrent use: one partition, one goroutine.
type Cutter struct {
	topic      string
	partition  int32
	maxRecords int
	bounds     []query.Chunk // recorded chunks still ahead, in offset order
	buf        []*kgo.Record
	since      time.Time // when buf got its first record
}

// NewCutter returns a cutter for topic/partition that replays bounds (the
// store's recorded chunks from the partition's resume point, see
// ReplayBounds) before cutting fresh chunks of up to maxRecords records.
func NewCutter(topic string, partition int32, maxRecords int, bounds []query.Chunk) *Cutter {
	return &Cutter{topic: topic, partition: partition, maxRecords: max(maxRecords, 1), bounds: bounds}
}

// ReplayBounds splits the recorded chunks of a partition (Store.Chunks from
// the resume offset) into those a consumer starting at first, the offset of
// the first record it sees, can replay exactly, and those it must not:
// a chunk beginning before first lost records from the log (retention, or a
// manual offset reset), and cutting it again with fewer records would
// overwrite its lake file with part of its rows. Skipped ranges are cut
// afresh; the caller logs them, since their lake rows may then appear in two
// files.
func ReplayBounds(recorded []query.Chunk, first int64) (keep, skipped []query.Chunk) {
	for _, c := range recorded {
		if c.FirstOffset < first {
			skipped = append(skipped, c)
			continue
		}
		keep = append(keep, c)
	}
	return keep, skipped
}

// Len is the number of buffered (not yet cut) records.
func (c *Cutter) Len() int { return len(c.buf) }

// Add buffers rec (offsets must increase) and returns the chunks it closed,
// in offset order.
func (c *Cutter) Add(rec *kgo.Record, now time.Time) []Pending {
	var out []Pending
	// A recorded chunk whose last record the log no longer shows: cut what
	// we hold of it rather than wait forever.
	for len(c.bounds) > 0 && rec.Offset > c.bounds[0].LastOffset {
		out = c.cutBound(out)
	}
	// Records before a recorded chunk that no recorded chunk covers (the
	// store has a gap): they form their own chunk.
	if len(c.bounds) > 0 && rec.Offset >= c.bounds[0].FirstOffset && len(c.buf) > 0 && c.buf[0].Offset < c.bounds[0].FirstOffset {
		out = append(out, c.cutAll())
	}
	if len(c.buf) == 0 {
		c.since = now
	}
	c.buf = append(c.buf, rec)
	switch {
	case len(c.bounds) > 0:
		if rec.Offset == c.bounds[0].LastOffset {
			out = c.cutBound(out)
		}
	case len(c.buf) >= c.maxRecords:
		out = append(out, c.cutAll())
	}
	return out
}

// IdleDue reports when the buffered records are due for an idle cut; ok is
// false when nothing is buffered or a recorded boundary is pending (which
// only its own last record may close).
func (c *Cutter) IdleDue(interval time.Duration) (due time.Time, ok bool) {
	if len(c.buf) == 0 || len(c.bounds) > 0 {
		return time.Time{}, false
	}
	return c.since.Add(interval), true
}

// CutIdle cuts the buffer if it has waited interval or longer.
func (c *Cutter) CutIdle(now time.Time, interval time.Duration) (Pending, bool) {
	due, ok := c.IdleDue(interval)
	if !ok || now.Before(due) {
		return Pending{}, false
	}
	return c.cutAll(), true
}

// Holding reports whether the buffer holds records of a recorded chunk whose
// last record has not been seen yet: a reader stopping now would cut that
// chunk short.
func (c *Cutter) Holding() bool {
	return len(c.buf) > 0 && len(c.bounds) > 0 && c.buf[len(c.buf)-1].Offset >= c.bounds[0].FirstOffset
}

// Final cuts whatever is buffered, for a reader that has reached the end it
// was asked to read. It returns false when the buffer is empty or Holding.
func (c *Cutter) Final() (Pending, bool) {
	if len(c.buf) == 0 || c.Holding() {
		return Pending{}, false
	}
	return c.cutAll(), true
}

// cutAll cuts the whole buffer as a fresh chunk.
func (c *Cutter) cutAll() Pending {
	p := Pending{
		Chunk:   query.Chunk{Topic: c.topic, Partition: c.partition, FirstOffset: c.buf[0].Offset, LastOffset: c.buf[len(c.buf)-1].Offset},
		Records: c.buf,
	}
	c.buf = nil
	return p
}

// cutBound pops the next recorded chunk and cuts the buffered records inside
// it under exactly its boundaries (records before it, a store gap, first go
// out as their own chunk).
func (c *Cutter) cutBound(out []Pending) []Pending {
	b := c.bounds[0]
	c.bounds = c.bounds[1:]
	i := 0
	for i < len(c.buf) && c.buf[i].Offset < b.FirstOffset {
		i++
	}
	if i > 0 {
		out = append(out, Pending{
			Chunk:   query.Chunk{Topic: c.topic, Partition: c.partition, FirstOffset: c.buf[0].Offset, LastOffset: c.buf[i-1].Offset},
			Records: c.buf[:i:i],
		})
	}
	if inside := c.buf[i:]; len(inside) > 0 {
		out = append(out, Pending{Chunk: b, Records: inside})
	}
	c.buf = nil
	return out
}
