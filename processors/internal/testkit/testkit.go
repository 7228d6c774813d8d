// Package testkit holds the processors' test doubles: an in-memory store and
// lake with the exact semantics of the real ones' contracts, an in-process
// kfake cluster, and envelope producers.
package testkit

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

type idKey struct{ org, id string }

// Store is an in-memory pipeline.Store following query.Store's contract:
// the earliest position of an id in a call is offered, an id is held by the
// first position that wrote it, chunks are keyed by their first offset.
type Store struct {
	mu     sync.Mutex
	rows   map[idKey]query.TraceRow
	chunks map[query.Chunk]bool
	// FailWrites makes WriteTraces fail while positive (decremented per call).
	FailWrites int
	Calls      int
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{rows: map[idKey]query.TraceRow{}, chunks: map[query.Chunk]bool{}}
}

// WriteTraces implements pipeline.Store.
func (s *Store) WriteTraces(_ context.Context, chunk query.Chunk, rows []query.TraceRow) ([]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Calls++
	if s.FailWrites > 0 {
		s.FailWrites--
		return nil, fmt.Errorf("store down")
	}
	recorded := false
	for c := range s.chunks {
		if c.Topic == chunk.Topic && c.Partition == chunk.Partition && c.FirstOffset == chunk.FirstOffset {
			recorded = true
		}
	}
	if !recorded {
		s.chunks[chunk] = true
	}
	// The earliest position of each id in the call is the candidate; it is
	// stored if the id is new. A row owns its id iff the stored position is its.
	cand := map[idKey]query.TraceRow{}
	for _, r := range rows {
		k := idKey{r.OrgID, r.Trace.RequestID}
		if c, ok := cand[k]; !ok || r.Partition < c.Partition || (r.Partition == c.Partition && r.Offset < c.Offset) {
			cand[k] = r
		}
	}
	for k, r := range cand {
		if _, ok := s.rows[k]; !ok {
			s.rows[k] = r
		}
	}
	owner := make([]bool, len(rows))
	for i, r := range rows {
		cur := s.rows[idKey{r.OrgID, r.Trace.RequestID}]
		owner[i] = cur.Partition == r.Partition && cur.Offset == r.Offset
	}
	return owner, nil
}

// Chunks implements pipeline.Store.
func (s *Store) Chunks(_ context.Context, topic string, partition int32, from int64) ([]query.Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []query.Chunk
	for c := range s.chunks {
		if c.Topic == topic && c.Partition == partition && c.LastOffset >= from {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b query.Chunk) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	return out, nil
}

// Rows returns the stored rows keyed "org/request_id".
func (s *Store) Rows() map[string]query.TraceRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]query.TraceRow{}
	for k, r := range s.rows {
		out[k.org+"/"+k.id] = r
	}
	return out
}

// AllChunks returns every recorded chunk sorted by partition and offset.
func (s *Store) AllChunks() []query.Chunk {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedChunks(s.chunks)
}

func sortedChunks[V any](m map[query.Chunk]V) []query.Chunk {
	out := make([]query.Chunk, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b query.Chunk) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.FirstOffset, b.FirstOffset))
	})
	return out
}

// Lake is an in-memory pipeline.LakeWriter: one "file" per chunk, replaced
// on rewrite, like the real writer's deterministic names.
type Lake struct {
	mu    sync.Mutex
	files map[query.Chunk][]query.TraceRow
	// Fail, when set, makes every WriteChunk fail.
	Fail   bool
	Writes int
}

// NewLake returns an empty lake.
func NewLake() *Lake { return &Lake{files: map[query.Chunk][]query.TraceRow{}} }

// WriteChunk implements pipeline.LakeWriter.
func (l *Lake) WriteChunk(_ context.Context, chunk query.Chunk, rows []query.TraceRow) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Writes++
	if l.Fail {
		return fmt.Errorf("lake down")
	}
	for _, r := range rows {
		if r.Partition != chunk.Partition || r.Offset < chunk.FirstOffset || r.Offset > chunk.LastOffset {
			return fmt.Errorf("row outside chunk")
		}
	}
	if len(rows) > 0 {
		l.files[chunk] = slices.Clone(rows)
	}
	return nil
}

// SetFail switches failure injection.
func (l *Lake) SetFail(v bool) {
	l.mu.Lock()
	l.Fail = v
	l.mu.Unlock()
}

// Files returns the chunks that have a file, sorted.
func (l *Lake) Files() []query.Chunk {
	l.mu.Lock()
	defer l.mu.Unlock()
	return sortedChunks(l.files)
}

// RowCounts counts lake rows per "org/request_id" over all files.
func (l *Lake) RowCounts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for _, rows := range l.files {
		for _, r := range rows {
			out[r.OrgID+"/"+r.Trace.RequestID]++
		}
	}
	return out
}

// File returns one file's rows.
func (l *Lake) File(c query.Chunk) []query.TraceRow {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.files[c]
}

// Cluster starts a kfake cluster with the traces topic (partitions) and the
// dead-letter topic, closed at test end.
func Cluster(t testing.TB, partitions int32) []string {
	t.Helper()
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.SeedTopics(partitions, topics.Traces),
		kfake.SeedTopics(topics.DeadLetterPartitions, topics.DeadLetter),
	)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// Producer returns a client producing to the cluster, closed at test end.
func Producer(t testing.TB, brokers []string) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// Envelope is a valid canonical-trace envelope for org/id.
func Envelope(org, id string) schemas.Envelope {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return schemas.Envelope{
		SchemaVersion: schemas.EnvelopeVersion, Kind: schemas.KindTrace, OrgID: org, AppID: "app-1", ReceivedAt: at,
		Trace: schemas.Trace{RequestID: id, Mode: schemas.ModeIngest, Status: schemas.StatusOK, StartedAt: at,
			PromptTokens: 3, CompletionTokens: 4, Prompt: "p " + id, Answer: "a", ReceivedAt: at},
	}
}

// Record encodes env as a traces-topic record.
func Record(t testing.TB, env schemas.Envelope) *kgo.Record {
	t.Helper()
	v, err := env.Marshal()
	require.NoError(t, err)
	return &kgo.Record{Topic: topics.Traces, Key: schemas.Key(env.OrgID, env.Trace.RequestID), Value: v}
}

// Produce produces recs synchronously.
func Produce(t testing.TB, cl *kgo.Client, recs ...*kgo.Record) {
	t.Helper()
	require.NoError(t, cl.ProduceSync(context.Background(), recs...).FirstErr())
}
