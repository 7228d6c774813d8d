// Package query is the query store: tenants (organisations, users, console
// tokens), applications and their keys, and the trace projection the console
// reads. One interface, two implementations (SQLite embedded, PostgreSQL
// scaled), one conformance suite run against both (querytest).
package query

import (
	"context"
	"errors"
	"time"

	"github.com/governance-gateway/gateway/schemas"
)

// Errors every implementation returns (wrapped or not; test with errors.Is).
var (
	// ErrNotFound: no such row, or it belongs to another organisation.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a unique value (an e-mail address) is already taken.
	ErrConflict = errors.New("already exists")
	// ErrBadCursor: a TraceFilter.Cursor that this store did not issue
	// (callers answer 400).
	ErrBadCursor = errors.New("invalid cursor")
)

// Application modes (DESIGN.md section 6).
const (
	AppModeEvents      = "events"
	AppModeVerify      = "verify"
	AppModeFullControl = "full_control"
)

// Org is a tenant.
type Org struct {
	ID        string
	Name      string
	CreditUSD float64
	CreatedAt time.Time
	// DefaultProxyMode is the proxy's X-Service-Mode when a request sends
	// none (observe, guard, verify, full); "" means the operator's default.
	DefaultProxyMode string
}

// User is a console user of one organisation.
type User struct {
	ID           string
	OrgID        string
	Email        string // lower-cased by the caller
	PasswordHash []byte // bcrypt
	CreatedAt    time.Time
}

// ConsoleToken is a console bearer token, stored only as its SHA-256 hash.
type ConsoleToken struct {
	Hash      []byte
	UserID    string
	OrgID     string
	ExpiresAt time.Time
	CreatedAt time.Time
}

// App is an application: one mode, one API key (stored only as its hash).
type App struct {
	ID             string
	OrgID          string
	Name           string
	Mode           string // AppModeEvents | AppModeVerify | AppModeFullControl
	ProviderOption string // "byok" | "managed" | "" (full_control; verify with an LLM to regenerate with)
	Provider       string
	Model          string
	KeyHash        []byte // SHA-256 of the API key
	KeyPrefix      string // the readable, non-secret start of the key, for display
	LLMKeyCipher   []byte // BYOK key sealed with AES-256-GCM; never returned by the API
	CreatedAt      time.Time
	DeletedAt      *time.Time // non-nil: revoked
}

// TraceRow is a trace as the store holds it: the envelope's tenant fields,
// the trace and the log position that first claimed its (org_id, request_id).
type TraceRow struct {
	OrgID     string
	AppID     string
	Trace     schemas.Trace
	Partition int32
	Offset    int64
}

// SessionTurn is one answered turn of a Full Control session: the turn's
// new messages as the LLM got them and the answer the client got, as a JSON
// array of chat messages (the store does not look inside it).
type SessionTurn struct {
	OrgID     string
	AppID     string
	SessionID string
	RequestID string // the turn's trace id; unique per organisation
	CreatedAt time.Time
	Messages  []byte
}

// Chunk is one unit of processor output for one partition: the offsets
// [FirstOffset, LastOffset] of Topic/Partition. Its lake file names derive
// from it, so a replay must cut exactly the same chunk again.
type Chunk struct {
	Topic       string
	Partition   int32
	FirstOffset int64
	LastOffset  int64
}

// UsageRow is one day of one application's usage at one price mode
// (events, verify, full_control).
type UsageRow struct {
	AppID            string
	Day              string // YYYY-MM-DD, UTC
	PriceMode        string
	Requests         int64
	PromptTokens     int64
	CompletionTokens int64
}

// KPIs are the dashboard's headline numbers of a window.
type KPIs struct {
	Requests         int64
	PromptTokens     int64
	CompletionTokens int64
	CostUSD          float64 // sum of the traces' cost_usd (unknown costs count 0)
	// LatencyP50Ms and LatencyP95Ms are the latencies at ranks n/2 and
	// n*95/100 (0-based) of the window's n traces with a latency, nil when
	// there are none. Exact for a window shorter than two hours or holding
	// at most 5,000 traces; otherwise read from an hourly histogram: the
	// upper bound of the histogram bucket holding the exact value (buckets
	// ~1.41x wide, so at most one bucket, ~+20% on average, above it;
	// beyond 10 minutes, 10 minutes).
	LatencyP50Ms *int64
	LatencyP95Ms *int64
	// ByDecision counts the traces of each final_decision. A trace without
	// one (a canonical event that did not send it) has no outcome to count:
	// it is in Requests only, so the counts may sum to less than Requests.
	// Naming it (as "pass", say) would invent a value the caller did not
	// send and disagree with the listing, which shows it as null.
	ByDecision map[string]int64
	ByMode     map[string]int64 // trace mode -> requests
	// Series is the window in buckets of the asked width, oldest first,
	// every bucket present (zeros included). Bucket starts are multiples of
	// the width since the Unix epoch, so the first may start before since.
	Series []KPIBucket
}

// MaxSeriesPoints bounds a KPI time series (callers answer 400 beyond it).
const MaxSeriesPoints = 1000

// KPIBucket is one point of the KPI time series.
type KPIBucket struct {
	Start     time.Time
	Requests  int64
	Tokens    int64 // prompt + completion
	Blocked   int64 // status blocked
	Rewritten int64 // status rewritten or regenerated
	Errors    int64 // status error
}

// TraceFilter selects traces for the console listing. Empty fields do not
// filter. Results are newest first by (received_at, request_id).
type TraceFilter struct {
	Limit         int // 1..1000, the caller validates
	Cursor        string
	AppID         string
	Status        string
	FinalDecision string
	Model         string
	UseCase       string
	Mode          string
	SessionID     string
	Since, Until  *time.Time        // on received_at; Since inclusive, Until exclusive
	Metadata      map[string]string // metadata.<key>=<value>, compared as text
}

// Store is the query store. Every method is safe for concurrent use. Methods
// taking an orgID never return another organisation's rows (ErrNotFound).
type Store interface {
	// CreateOrg creates an organisation and its first user in one
	// transaction. ErrConflict when the e-mail address is taken.
	CreateOrg(ctx context.Context, org Org, user User) error
	Org(ctx context.Context, orgID string) (Org, error)
	// SetOrgDefaultProxyMode stores the organisation's default proxy mode
	// ("" for the operator's). ErrNotFound for an unknown organisation.
	SetOrgDefaultProxyMode(ctx context.Context, orgID, mode string) error
	UserByEmail(ctx context.Context, email string) (User, error)

	// CreateConsoleToken stores a token hash. ConsoleTokenByHash returns
	// ErrNotFound for unknown hashes; expiry is the caller's check.
	CreateConsoleToken(ctx context.Context, t ConsoleToken) error
	ConsoleTokenByHash(ctx context.Context, hash []byte) (ConsoleToken, error)

	CreateApp(ctx context.Context, app App) error
	// Apps lists the organisation's live (not deleted) applications, oldest first.
	Apps(ctx context.Context, orgID string) ([]App, error)
	// App returns a live application of the organisation.
	App(ctx context.Context, orgID, appID string) (App, error)
	// UpdateApp rewrites the mutable fields (Name, ProviderOption, Provider,
	// Model, LLMKeyCipher) of a live application.
	UpdateApp(ctx context.Context, app App) error
	// DeleteApp marks the application deleted; its key stops resolving at
	// once. The application's stored session turns (conversation content no
	// request can reach any more) are deleted in the same transaction; its
	// traces stay for the console.
	DeleteApp(ctx context.Context, orgID, appID string) error
	// AppByKeyHash resolves a live application by the hash of its API key.
	AppByKeyHash(ctx context.Context, hash []byte) (App, error)
	// AppPolicy returns a live application's governance policy document
	// (nil: none stored, the default applies) and its version (0 when none
	// was ever stored). ErrNotFound for another organisation's app.
	AppPolicy(ctx context.Context, orgID, appID string) (doc []byte, version int64, err error)
	// SetAppPolicy stores the document (nil clears it back to the default)
	// and returns the new version, one more than the previous. The store
	// does not validate the document (governance.ParsePolicy does).
	SetAppPolicy(ctx context.Context, orgID, appID string, doc []byte) (version int64, err error)

	// ExistingRequestIDs returns which of ids the organisation already has
	// stored (used to count Events resends as skipped).
	ExistingRequestIDs(ctx context.Context, orgID string, ids []string) (map[string]bool, error)

	// WriteTraces records the chunk and inserts rows in one transaction.
	// A row whose (OrgID, request_id) is already held by another log position
	// is not inserted. It returns, per input row, whether that row's position
	// owns its id (true also for a replay of the owning position), so the
	// caller writes exactly the owners to the lake. Idempotent; returns nil
	// only after the transaction is durably committed.
	WriteTraces(ctx context.Context, chunk Chunk, rows []TraceRow) (owner []bool, err error)
	// Chunks returns the recorded chunks of topic/partition whose LastOffset
	// is >= from, in offset order: a processor taking over a partition
	// replays exactly these boundaries.
	Chunks(ctx context.Context, topic string, partition int32, from int64) ([]Chunk, error)

	// ListTraces pages the organisation's traces; next is "" on the last page.
	ListTraces(ctx context.Context, orgID string, f TraceFilter) (rows []TraceRow, next string, err error)
	// Trace returns one trace by request_id.
	Trace(ctx context.Context, orgID, requestID string) (TraceRow, error)
	// SessionTraces returns a session's traces oldest first (started_at,
	// received_at, request_id); ErrNotFound when the session has none.
	SessionTraces(ctx context.Context, orgID, sessionID string) ([]TraceRow, error)

	// AddSessionTurn stores a turn of a Full Control session. Idempotent on
	// (OrgID, RequestID): a turn already stored is left as it is and nil is
	// returned. Returns nil only after the row is durably committed, so a
	// turn sent after the answer reads it.
	AddSessionTurn(ctx context.Context, turn SessionTurn) error
	// SessionTurns returns the most recent limit turns (limit >= 1) of one
	// application's session, oldest first (CreatedAt, then RequestID). The
	// scope is the organisation, the application and the session together:
	// another application's turns under the same session id are never
	// returned. No turns is an empty result, not ErrNotFound.
	SessionTurns(ctx context.Context, orgID, appID, sessionID string, limit int) ([]SessionTurn, error)
	// DeleteSessionTurns deletes at most limit (>= 1) session turns created
	// before the given time, oldest first, and returns how many it deleted;
	// a caller repeats until fewer than limit come back. The bound keeps one
	// call from holding SQLite's single write lock for long.
	DeleteSessionTurns(ctx context.Context, before time.Time, limit int) (int, error)

	// Usage returns the organisation's usage aggregates of the UTC days
	// fromDay..toDay (YYYY-MM-DD, inclusive), kept by WriteTraces.
	Usage(ctx context.Context, orgID, fromDay, toDay string) ([]UsageRow, error)

	// KPIs aggregates the organisation's traces received in [since, until),
	// with a time series of bucket-wide points when bucket > 0. Windows of
	// two hours or more read their whole UTC hours from an hourly rollup
	// kept by WriteTraces (for a series too when bucket is a whole number
	// of hours), so they cost little more than their partial-hour edges.
	KPIs(ctx context.Context, orgID string, since, until time.Time, bucket time.Duration) (KPIs, error)

	// Ping checks the store is reachable (readiness).
	Ping(ctx context.Context) error
	Close() error
}
