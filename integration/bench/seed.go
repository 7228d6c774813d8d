package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// SeedConfig describes a synthetic trace history for one organisation.
type SeedConfig struct {
	OrgID  string
	Traces int           // how many traces (default 1,000,000)
	Span   time.Duration // spread of received_at before Now (default 30 days)
	Now    time.Time     // newest received_at (default time.Now)
	Apps   []string      // application ids the traces belong to (default app-0..app-4)
	Seed   uint64        // PRNG seed: the same seed gives the same traces
	Chunk  int           // rows per WriteTraces call (default 1000)
}

// Defaults fills zero fields.
func (c SeedConfig) Defaults() SeedConfig {
	if c.Traces == 0 {
		c.Traces = 1_000_000
	}
	if c.Span == 0 {
		c.Span = 30 * 24 * time.Hour
	}
	if c.Now.IsZero() {
		c.Now = time.Now().UTC()
	}
	if len(c.Apps) == 0 {
		c.Apps = []string{"app-0", "app-1", "app-2", "app-3", "app-4"}
	}
	if c.Chunk == 0 {
		c.Chunk = 1000
	}
	return c
}

// Validate reports a configuration that cannot be seeded.
func (c SeedConfig) Validate() error {
	switch {
	case c.OrgID == "":
		return fmt.Errorf("seed: an organisation id is required")
	case c.Traces < 1:
		return fmt.Errorf("seed: traces must be positive, got %d", c.Traces)
	case c.Span <= 0:
		return fmt.Errorf("seed: span must be positive")
	case c.Chunk < 1 || c.Chunk > 5000:
		return fmt.Errorf("seed: chunk must be 1..5000, got %d", c.Chunk)
	}
	return nil
}

// Seed vocabulary: the dimensions the console filters on, with skewed
// frequencies like a real tenant (a few models and customers dominate).
var (
	seedModes     = weighted{{schemas.ModeIngest, 40}, {schemas.ModeSDK, 25}, {schemas.ModeProxy, 30}, {schemas.ModeVendor, 5}}
	seedStatuses  = weighted{{schemas.StatusOK, 900}, {schemas.StatusBlocked, 40}, {schemas.StatusRewritten, 30}, {schemas.StatusError, 25}, {schemas.StatusRegenerated, 5}}
	seedModels    = weighted{{"gpt-4o-mini", 40}, {"gpt-4o", 20}, {"claude-3-5-sonnet", 15}, {"gemini-1.5-pro", 10}, {"llama-3.1-70b", 10}, {"mistral-large", 5}}
	seedUseCases  = weighted{{"support", 35}, {"search", 20}, {"summarize", 15}, {"default", 10}, {"code", 8}, {"sales", 6}, {"legal", 4}, {"hr", 2}}
	seedEnvs      = weighted{{"prod", 80}, {"staging", 20}}
	seedRegions   = weighted{{"eu-west", 40}, {"us-east", 35}, {"us-west", 15}, {"ap-south", 10}}
	seedDecisions = map[string]string{schemas.StatusOK: "pass", schemas.StatusBlocked: "block", schemas.StatusRewritten: "rewrite",
		schemas.StatusError: "", schemas.StatusRegenerated: "regenerate"}
)

type weighted []struct {
	v string
	w int
}

func (ws weighted) pick(r *rand.Rand) string {
	total := 0
	for _, x := range ws {
		total += x.w
	}
	n := r.IntN(total)
	for _, x := range ws {
		if n < x.w {
			return x.v
		}
		n -= x.w
	}
	return ws[len(ws)-1].v
}

// SeedTraces writes cfg.Traces synthetic traces for cfg.OrgID through the
// store's own write path (WriteTraces, which also keeps the usage
// aggregate), in chunks of a topic named after the organisation. Request ids
// and chunks are deterministic, so an interrupted seeding can be re-run: the
// chunks already written are skipped as replays. Progress goes to progress
// every 100,000 rows.
func SeedTraces(ctx context.Context, st query.Store, cfg SeedConfig, progress io.Writer) error {
	cfg = cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	topic := "seed." + cfg.OrgID
	start := time.Now()
	rows := make([]query.TraceRow, 0, cfg.Chunk)
	session, sessionTurns := "", 0
	for i := 0; i < cfg.Traces; i++ {
		// Oldest first, evenly spread, so offsets and received_at agree.
		at := cfg.Now.Add(-cfg.Span + time.Duration(float64(cfg.Span)*float64(i+1)/float64(cfg.Traces))).Truncate(time.Microsecond)
		tr := schemas.Trace{
			RequestID:  fmt.Sprintf("seed-%s-%08d", cfg.OrgID, i),
			Mode:       seedModes.pick(r),
			Model:      seedModels.pick(r),
			UseCase:    seedUseCases.pick(r),
			Status:     seedStatuses.pick(r),
			ReceivedAt: at,
		}
		tr.FinalDecision = seedDecisions[tr.Status]
		lat := int64(math.Exp(6 + 0.8*r.NormFloat64())) // median ~400 ms, long tail
		tr.StartedAt = at.Add(-time.Duration(lat) * time.Millisecond)
		tr.LatencyMs = &lat
		tr.PromptTokens, tr.CompletionTokens = int64(50+r.IntN(1500)), int64(20+r.IntN(600))
		tr.TotalTokens = tr.PromptTokens + tr.CompletionTokens
		cost := float64(tr.TotalTokens) * 0.000002
		tr.CostUSD = &cost
		// A fifth of the traffic is multi-turn chat: sessions of 2..8 turns.
		if sessionTurns == 0 && r.IntN(5) == 0 {
			session, sessionTurns = fmt.Sprintf("sess-%s-%07d", cfg.OrgID, i), 2+r.IntN(7)
		}
		if sessionTurns > 0 {
			tr.SessionID = session
			sessionTurns--
		}
		if tr.Status == schemas.StatusBlocked || tr.Status == schemas.StatusRewritten {
			risk := 0.7 + 0.3*r.Float64()
			tr.RiskScore = &risk
			tr.PolicyHits = []schemas.PolicyHit{{Policy: "pii.email", Severity: "medium", Confidence: 0.9, Stage: "post-flight"}}
		}
		tr.Prompt = "Summarise the latest account activity for the customer and list open tickets."
		tr.Answer = "The account shows three invoices paid this month and one open ticket about a delayed refund."
		md, _ := json.Marshal(map[string]string{
			// Zipf-like customers: c0 is the biggest of 500.
			"customer": fmt.Sprintf("c%d", int(math.Floor(math.Pow(500, r.Float64())))-1),
			"env":      seedEnvs.pick(r),
			"region":   seedRegions.pick(r),
		})
		tr.Metadata = md
		rows = append(rows, query.TraceRow{OrgID: cfg.OrgID, AppID: cfg.Apps[r.IntN(len(cfg.Apps))], Trace: tr, Offset: int64(i)})
		if len(rows) == cfg.Chunk || i == cfg.Traces-1 {
			chunk := query.Chunk{Topic: topic, FirstOffset: rows[0].Offset, LastOffset: rows[len(rows)-1].Offset}
			if _, err := st.WriteTraces(ctx, chunk, rows); err != nil {
				return fmt.Errorf("seed: write traces %d..%d: %w", chunk.FirstOffset, chunk.LastOffset, err)
			}
			rows = rows[:0]
			if done := i + 1; progress != nil && (done%100_000 == 0 || done == cfg.Traces) {
				el := time.Since(start)
				fmt.Fprintf(progress, "seeded %d/%d traces (%.0f rows/s)\n", done, cfg.Traces, float64(done)/el.Seconds())
			}
		}
	}
	return nil
}
