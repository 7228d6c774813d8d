package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Event is one canonical trace for POST /v1/events. Zero fields are left
// out; RequestID is the idempotency key (1-64 characters).
type Event struct {
	RequestID        string         `json:"request_id"`
	Mode             string         `json:"mode,omitempty"`
	StartedAt        *time.Time     `json:"started_at,omitempty"`
	FinishedAt       *time.Time     `json:"finished_at,omitempty"`
	Provider         string         `json:"provider,omitempty"`
	Model            string         `json:"model,omitempty"`
	UseCase          string         `json:"use_case,omitempty"`
	TeamID           string         `json:"team_id,omitempty"`
	IntegrationID    string         `json:"integration_id,omitempty"`
	EndUserID        string         `json:"end_user_id,omitempty"`
	UserID           string         `json:"user_id,omitempty"`
	SessionID        string         `json:"session_id,omitempty"`
	PromptTokens     int64          `json:"prompt_tokens,omitempty"`
	CompletionTokens int64          `json:"completion_tokens,omitempty"`
	CostUSD          *float64       `json:"cost_usd,omitempty"`
	LatencyMs        *int64         `json:"latency_ms,omitempty"`
	Status           string         `json:"status,omitempty"`
	FinalDecision    string         `json:"final_decision,omitempty"`
	RiskScore        *float64       `json:"risk_score,omitempty"`
	Prompt           string         `json:"prompt,omitempty"`
	Answer           string         `json:"answer,omitempty"`
	Metadata         map[string]any `json:"metadata,omitempty"`
}

// Rejection is one event the gateway refused in a batch.
type Rejection struct {
	Index     int    `json:"index"`
	RequestID string `json:"request_id"`
	Error     string `json:"error"`
}

// BatchResult is the answer to a batch (HTTP 200 or 207).
type BatchResult struct {
	Accepted int         `json:"accepted"`
	Skipped  int         `json:"skipped"`
	Rejected []Rejection `json:"rejected"`
	Total    int         `json:"total"`
}

// MaxBatch is the Events batch limit.
const MaxBatch = 500

// SendEvents posts up to 500 events as one batch. A partly rejected batch
// (207) is not an error: the rejections are in the result.
func (c *Client) SendEvents(ctx context.Context, events []Event) (BatchResult, error) {
	if len(events) == 0 || len(events) > MaxBatch {
		return BatchResult{}, fmt.Errorf("gateway: a batch holds 1 to %d events, not %d", MaxBatch, len(events))
	}
	_, body, err := c.do(ctx, EventsTimeout, "/v1/events", map[string]any{"events": events}, nil)
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && ge.Status == http.StatusBadRequest {
			// All rejected: the body still lists why.
			var r BatchResult
			if json.Unmarshal(ge.Body, &r) == nil && len(r.Rejected) > 0 {
				return r, err
			}
		}
		return BatchResult{}, err
	}
	var r BatchResult
	if err := json.Unmarshal(body, &r); err != nil {
		return BatchResult{}, fmt.Errorf("gateway: decode batch answer: %w", err)
	}
	return r, nil
}

// SendEvent posts one canonical event.
func (c *Client) SendEvent(ctx context.Context, e Event) (BatchResult, error) {
	return c.SendEvents(ctx, []Event{e})
}

// ExporterConfig configures a background Exporter.
type ExporterConfig struct {
	BatchSize     int           // default 500 (the limit)
	FlushInterval time.Duration // default 1 s
	QueueSize     int           // default 10,000; Add drops (and counts) beyond it
	// OnRejected receives every event the gateway rejected, and every
	// batch that could not be sent (err set), so nothing is lost silently.
	OnRejected func(rejected []Rejection, err error)
}

// Exporter batches events in the background: Add never blocks the caller.
type Exporter struct {
	c     *Client
	cfg   ExporterConfig
	queue chan Event
	flush chan chan struct{}
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	drops int
}

// NewExporter starts a background exporter; Close it at exit to flush.
func (c *Client) NewExporter(cfg ExporterConfig) *Exporter {
	if cfg.BatchSize <= 0 || cfg.BatchSize > MaxBatch {
		cfg.BatchSize = MaxBatch
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = time.Second
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 10000
	}
	x := &Exporter{c: c, cfg: cfg, queue: make(chan Event, cfg.QueueSize), flush: make(chan chan struct{}), done: make(chan struct{})}
	go x.run()
	return x
}

// Add queues an event; false when the queue is full (the event is dropped
// and counted in Dropped).
func (x *Exporter) Add(e Event) bool {
	select {
	case x.queue <- e:
		return true
	default:
		x.mu.Lock()
		x.drops++
		x.mu.Unlock()
		return false
	}
}

// Dropped is the number of events Add refused because the queue was full.
func (x *Exporter) Dropped() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.drops
}

// Flush sends everything queued so far and waits for it.
func (x *Exporter) Flush() {
	ch := make(chan struct{})
	select {
	case x.flush <- ch:
		<-ch
	case <-x.done:
	}
}

// Close flushes and stops the exporter.
func (x *Exporter) Close() {
	x.once.Do(func() { close(x.queue) })
	<-x.done
}

func (x *Exporter) run() {
	defer close(x.done)
	tick := time.NewTicker(x.cfg.FlushInterval)
	defer tick.Stop()
	var batch []Event
	send := func() {
		if len(batch) == 0 {
			return
		}
		r, err := x.c.SendEvents(context.Background(), batch)
		if x.cfg.OnRejected != nil && (err != nil || len(r.Rejected) > 0) {
			x.cfg.OnRejected(r.Rejected, err)
		}
		batch = batch[:0]
	}
	drain := func() {
		for {
			select {
			case e, ok := <-x.queue:
				if !ok {
					return
				}
				batch = append(batch, e)
				if len(batch) == x.cfg.BatchSize {
					send()
				}
			default:
				return
			}
		}
	}
	for {
		select {
		case e, ok := <-x.queue:
			if !ok {
				send()
				return
			}
			batch = append(batch, e)
			if len(batch) == x.cfg.BatchSize {
				send()
			}
		case <-tick.C:
			send()
		case ch := <-x.flush:
			drain()
			send()
			close(ch)
		}
	}
}
