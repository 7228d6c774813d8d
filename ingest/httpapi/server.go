// Package httpapi is the gateway's HTTP front end (Echo): POST /v1/events,
// the health, readiness and metrics endpoints, and the console API the
// dashboard uses (DESIGN.md sections 5, 6 and 8).
//
// Every error answer is JSON {"ok": false, "error": "<message>"} — unknown
// routes (404), wrong methods (405), oversized bodies (413) and recovered
// panics (500) included; never HTML. One structured log line is written per
// request (method, route, status, duration, request id); bodies, API keys,
// console tokens and passwords are never logged.
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/auth"
	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/pricing"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

// LogWriter is the trace log as the front end sees it (topics.Producer).
type LogWriter interface {
	// Produce writes envs as one atomic batch and returns nil only after the
	// broker acknowledged all of them. An error means none may be reported
	// accepted: errors wrapping topics.ErrUnavailable answer 503 (the client
	// retries), topics.ErrTooLarge 413, anything else 500.
	Produce(ctx context.Context, envs []schemas.Envelope) error
}

// Config configures the front end. Zero fields take the defaults of Defaults.
type Config struct {
	// BodyLimit caps a POST /v1/events body (413 above). Default 10 MiB.
	BodyLimit int64
	// ConsoleBodyLimit caps console request bodies. Default 64 KiB.
	ConsoleBodyLimit int64

	// http.Server timeouts used by HTTPServer.
	ReadHeaderTimeout time.Duration // default 10 s
	ReadTimeout       time.Duration // default 60 s (a 10 MiB body from a slow client)
	WriteTimeout      time.Duration // default 60 s
	IdleTimeout       time.Duration // default 120 s

	// ProduceTimeout bounds the wait for the broker's acknowledgement of one
	// Events request; past it the answer is 503. Default 10 s.
	ProduceTimeout time.Duration
	// LookupTimeout bounds the store lookup that counts resends as skipped;
	// past it (or if the store fails) the events are produced anyway and
	// counted accepted — the processors still store one row per id. Default 2 s.
	LookupTimeout time.Duration

	// Keys configures the API key cache (its TTL is the cross-replica
	// revocation window).
	Keys auth.ResolverConfig
	// ConsoleTokenTTL is the validity of a console token. Default 7 days.
	ConsoleTokenTTL time.Duration
	// BcryptCost of console password hashes. Default auth.BcryptCost.
	BcryptCost int
	// ManagedKeys are the operator's upstream keys by vendor value
	// (GATEWAY_PROVIDER_<NAME>_API_KEY), used by Managed applications.
	// Never logged or returned.
	ManagedKeys map[string]string
	// UpstreamURL is the proxy's upstream chat-completions base URL
	// (GATEWAY_UPSTREAM_URL). Default https://api.openai.com/v1.
	UpstreamURL string
	// UpstreamTimeout bounds a proxied answer read at once, headers and
	// body (504 past it), and each read of a proxied stream (aborted past
	// it). Default 30 s.
	UpstreamTimeout time.Duration
	// ProxyDefaultMode applies when X-Service-Mode is absent. Default observe.
	ProxyDefaultMode string
	// ProxyIntegrationID is the default integration_id of proxied traces,
	// naming the upstream vendor. Default proxy:openai, which gateway serve
	// keeps: spec 4.1 makes it a fixed id, and the proxy speaks OpenAI's API.
	ProxyIntegrationID string
	// PolicyTTL is how long a compiled application policy is used before
	// its version is checked again in the store: the window in which other
	// API replicas still apply a policy edited elsewhere. Default 5 s.
	PolicyTTL time.Duration
	// MasterKey (32 bytes, GATEWAY_MASTER_KEY) seals BYOK LLM keys. Empty:
	// BYOK keys are refused with 400.
	MasterKey []byte
	// Prices turns the token usage of Full Control and proxy calls into
	// their traces' cost_usd (GATEWAY_PRICES_FILE merged over the built-in
	// list prices). Nil: pricing.Default(). &pricing.Table{} knows no model:
	// cost_usd stays null.
	Prices *pricing.Table
	// SessionRetention is how long a stored Full Control session turn is
	// kept (GATEWAY_SESSION_RETENTION); older turns are deleted every
	// SessionSweepInterval, so a session idle for longer starts afresh.
	// Default 30 days; negative: kept forever.
	SessionRetention time.Duration
	// SessionSweepInterval is the time between two retention sweeps.
	// Default 1 h.
	SessionSweepInterval time.Duration
}

// Defaults fills zero fields.
func (c *Config) Defaults() {
	def := func(p *time.Duration, d time.Duration) {
		if *p == 0 {
			*p = d
		}
	}
	if c.BodyLimit == 0 {
		c.BodyLimit = 10 << 20
	}
	if c.ConsoleBodyLimit == 0 {
		c.ConsoleBodyLimit = 64 << 10
	}
	def(&c.ReadHeaderTimeout, 10*time.Second)
	def(&c.ReadTimeout, 60*time.Second)
	def(&c.WriteTimeout, 60*time.Second)
	def(&c.IdleTimeout, 120*time.Second)
	def(&c.ProduceTimeout, 10*time.Second)
	def(&c.LookupTimeout, 2*time.Second)
	def(&c.PolicyTTL, 5*time.Second)
	def(&c.UpstreamTimeout, 30*time.Second)
	def(&c.SessionRetention, 30*24*time.Hour)
	def(&c.SessionSweepInterval, time.Hour)
	if c.UpstreamURL == "" {
		c.UpstreamURL = "https://api.openai.com/v1"
	}
	c.UpstreamURL = strings.TrimRight(c.UpstreamURL, "/")
	if c.ProxyDefaultMode == "" {
		c.ProxyDefaultMode = "observe"
	}
	if c.ProxyIntegrationID == "" {
		c.ProxyIntegrationID = "proxy:openai"
	}
	if c.Prices == nil {
		c.Prices = pricing.Default()
	}
	def(&c.ConsoleTokenTTL, auth.ConsoleTokenTTL)
	if c.BcryptCost == 0 {
		c.BcryptCost = auth.BcryptCost
	}
	c.Keys.Defaults()
}

// Validate reports an unusable configuration.
func (c Config) Validate() error {
	if c.BodyLimit < 1024 || c.ConsoleBodyLimit < 1024 {
		return fmt.Errorf("body limits must be at least 1 KiB (events %d, console %d)", c.BodyLimit, c.ConsoleBodyLimit)
	}
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": c.ReadHeaderTimeout, "ReadTimeout": c.ReadTimeout,
		"WriteTimeout": c.WriteTimeout, "IdleTimeout": c.IdleTimeout,
		"ProduceTimeout": c.ProduceTimeout, "LookupTimeout": c.LookupTimeout,
		"ConsoleTokenTTL": c.ConsoleTokenTTL, "SessionSweepInterval": c.SessionSweepInterval,
	} {
		if d <= 0 {
			return fmt.Errorf("%s must be positive, got %s", name, d)
		}
	}
	if len(c.MasterKey) != 0 && len(c.MasterKey) != 32 {
		return fmt.Errorf("master key must be 32 bytes, got %d", len(c.MasterKey))
	}
	return c.Keys.Validate()
}

// Deps are the front end's collaborators. Store and Log are required.
type Deps struct {
	Store query.Store
	Log   LogWriter
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Registerer receives the front end's metrics; /metrics serves Gatherer,
	// or Registerer when it is also a Gatherer (a *prometheus.Registry).
	// Nil: a private registry.
	Registerer prometheus.Registerer
	Gatherer   prometheus.Gatherer
	// Ready reports readiness (log and store reachable). Nil: Store.Ping.
	Ready func(ctx context.Context) error
	// Now defaults to time.Now; NewID (simple-form request ids, entity ids)
	// defaults to UUIDv7.
	Now   func() time.Time
	NewID func() string
	// Providers are the LLM adapters of POST /v1/chat by vendor value
	// (llm.OpenAI, ...); a vendor without one answers 501.
	Providers map[string]llm.Provider
	// Governance is the policy engine of POST /v1/verify. Nil:
	// governance.New() (the shipped scanners).
	Governance *governance.Engine
}

// Server is the HTTP front end. Close it to stop its caches.
type Server struct {
	cfg       Config
	store     query.Store
	log       LogWriter
	logger    *slog.Logger
	ready     func(ctx context.Context) error
	now       func() time.Time
	newID     func() string
	keys      *auth.Resolver
	gov       *governance.Engine
	emitter   *emitter
	upstream  *http.Client
	providers map[string]llm.Provider
	policies  *policyCache
	orgModes  *orgModeCache
	pw        *auth.Passwords
	sealer    *auth.Sealer
	metrics   *metrics
	e         *echo.Echo
	// stopSweep ends the session-retention sweep; sweepDone closes when
	// it has returned.
	stopSweep  context.CancelFunc
	sweepDone  chan struct{}
	sweepBatch int
}

// New builds the server and its routes.
func New(cfg Config, deps Deps) (*Server, error) {
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("httpapi config: %w", err)
	}
	if deps.Store == nil || deps.Log == nil {
		return nil, errors.New("httpapi: Store and Log are required")
	}
	s := &Server{cfg: cfg, store: deps.Store, log: deps.Log, logger: deps.Logger,
		ready: deps.Ready, now: deps.Now, newID: deps.NewID}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if s.ready == nil {
		s.ready = deps.Store.Ping
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.newID == nil {
		s.newID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	reg, gath := deps.Registerer, deps.Gatherer
	if reg == nil {
		r := prometheus.NewRegistry()
		reg, gath = r, r
	}
	if gath == nil {
		g, ok := reg.(prometheus.Gatherer)
		if !ok {
			return nil, errors.New("httpapi: Registerer is not a Gatherer; set Deps.Gatherer")
		}
		gath = g
	}
	var err error
	if s.metrics, err = newMetrics(reg); err != nil {
		return nil, err
	}
	if s.pw, err = auth.NewPasswords(cfg.BcryptCost); err != nil {
		return nil, err
	}
	if s.sealer, err = auth.NewSealer(cfg.MasterKey); err != nil {
		return nil, err
	}
	if s.keys, err = auth.NewResolver(deps.Store, cfg.Keys); err != nil {
		return nil, err
	}
	s.providers = deps.Providers
	s.upstream = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment,
		MaxIdleConns: 1024, MaxIdleConnsPerHost: 256, IdleConnTimeout: 90 * time.Second, ForceAttemptHTTP2: true}}
	if s.emitter, err = newEmitter(deps.Log, s.logger, reg); err != nil {
		return nil, err
	}
	s.gov = deps.Governance
	if s.gov == nil {
		s.gov = governance.New()
	}
	s.orgModes = newOrgModeCache(deps.Store, cfg.PolicyTTL, s.now)
	timer, err := newEngineTimer(reg)
	if err != nil {
		return nil, err
	}
	if s.policies, err = newPolicyCache(s.gov, deps.Store, cfg.PolicyTTL, s.now, s.logger, timer); err != nil {
		return nil, err
	}
	s.e = s.routes(gath)
	var sweepCtx context.Context
	sweepCtx, s.stopSweep = context.WithCancel(context.Background())
	s.sweepDone, s.sweepBatch = make(chan struct{}), sweepBatch
	go s.sweepSessions(sweepCtx)
	return s, nil
}

// Handler is the HTTP handler of every route.
func (s *Server) Handler() http.Handler { return s.e }

// Echo exposes the router so that other front ends (verify, chat, proxy) can
// register their routes behind the same middleware.
func (s *Server) Echo() *echo.Echo { return s.e }

// Keys is the API key resolver, shared with other front ends so that a
// deletion here revokes the key for them at once too.
func (s *Server) Keys() *auth.Resolver { return s.keys }

// Sealer opens BYOK LLM keys (nil when no master key is configured).
func (s *Server) Sealer() *auth.Sealer { return s.sealer }

// HTTPServer returns an http.Server for addr with the configured timeouts.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s.e,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
}

// Close releases the server's caches. The handler must not be used afterwards.
func (s *Server) Close() {
	s.stopSweep()
	<-s.sweepDone
	s.emitter.Close()
	s.keys.Close()
}

func (s *Server) routes(gath prometheus.Gatherer) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.Use(s.requestID, s.observe, s.recover)

	e.GET("/", s.dashboardPage)
	e.GET("/ui/app.js", s.dashboardScript)
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", echo.WrapHandler(metricsHandler(gath)))

	e.POST("/v1/events", s.postEvents)
	e.POST("/v1/verify", s.postVerify)
	e.POST("/v1/chat", s.postChat)
	e.POST("/v1/chat/completions", s.postChatCompletions)
	e.GET("/v1/chat/completions/health", s.proxyHealth)

	e.POST("/api/console/signup", s.signup)
	e.POST("/api/console/login", s.login)
	// Route-level (not group-level) middleware: an Echo group with
	// middleware answers every unknown method under its prefix with 404,
	// where a wrong method must be 405.
	const p = "/api/console"
	e.GET(p+"/apps", s.listApps, s.consoleAuth)
	e.POST(p+"/apps", s.createApp, s.consoleAuth)
	e.GET(p+"/apps/:id", s.getApp, s.consoleAuth)
	e.PATCH(p+"/apps/:id", s.patchApp, s.consoleAuth)
	e.DELETE(p+"/apps/:id", s.deleteApp, s.consoleAuth)
	e.GET(p+"/apps/:id/policy", s.getPolicy, s.consoleAuth)
	e.PUT(p+"/apps/:id/policy", s.putPolicy, s.consoleAuth)
	e.DELETE(p+"/apps/:id/policy", s.deletePolicy, s.consoleAuth)
	e.GET(p+"/requests", s.listRequests, s.consoleAuth)
	e.GET(p+"/requests/:id", s.getRequest, s.consoleAuth)
	e.GET(p+"/sessions/:id", s.getSession, s.consoleAuth)
	e.GET(p+"/billing", s.getBilling, s.consoleAuth)
	e.GET(p+"/kpis", s.getKPIs, s.consoleAuth)
	e.GET(p+"/org", s.getOrg, s.consoleAuth)
	e.PATCH(p+"/org", s.patchOrg, s.consoleAuth)
	return e
}
