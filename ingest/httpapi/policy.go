package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/query"
)

// PolicyBodyLimit caps a PUT /api/console/apps/{id}/policy body.
const PolicyBodyLimit = 256 << 10

// policyCache holds each application's compiled policy. An entry is trusted
// for ttl; after that one cheap store read compares the version and
// recompiles only on change. A PUT on this replica drops the entry at once;
// other replicas see an edit within ttl.
type policyCache struct {
	eng   *governance.Engine
	store query.Store
	ttl   time.Duration
	now   func() time.Time
	log   *slog.Logger

	mu sync.Mutex
	m  map[string]*policyEntry // by app id
	// def is the default policy compiled once.
	def *governance.Compiled
	// timer times the decisions of every policy get returns.
	timer *engineTimer
}

type policyEntry struct {
	version   int64
	compiled  *governance.Compiled
	checkedAt time.Time
}

func newPolicyCache(eng *governance.Engine, store query.Store, ttl time.Duration, now func() time.Time, log *slog.Logger, timer *engineTimer) (*policyCache, error) {
	def, err := eng.Compile(governance.DefaultPolicy())
	if err != nil {
		return nil, err
	}
	return &policyCache{eng: eng, store: store, ttl: ttl, now: now, log: log, m: map[string]*policyEntry{}, def: def, timer: timer}, nil
}

// get returns the compiled policy of app.
func (p *policyCache) get(ctx context.Context, app query.App) (judge, error) {
	compiled, err := p.compiled(ctx, app)
	if err != nil {
		return judge{}, err
	}
	return judge{Compiled: compiled, timer: p.timer}, nil
}

// compiled is app's compiled policy, from the cache when it is fresh.
func (p *policyCache) compiled(ctx context.Context, app query.App) (*governance.Compiled, error) {
	now := p.now()
	p.mu.Lock()
	e := p.m[app.ID]
	p.mu.Unlock()
	if e != nil && now.Sub(e.checkedAt) < p.ttl {
		return e.compiled, nil
	}
	doc, version, err := p.store.AppPolicy(ctx, app.OrgID, app.ID)
	if err != nil {
		return nil, err
	}
	if e != nil && e.version == version {
		p.put(app.ID, &policyEntry{version: version, compiled: e.compiled, checkedAt: now})
		return e.compiled, nil
	}
	compiled := p.def
	if doc != nil {
		pol, overrun, err := governance.ParseStoredPolicy(doc)
		if err == nil {
			compiled, err = p.eng.Compile(pol)
		}
		if err != nil {
			// Stored documents were validated on PUT; one that no longer
			// compiles (an engine change) must not silently fall back to
			// other rules: the request fails and the error names it.
			return nil, fmt.Errorf("stored policy of app %s version %d does not compile: %w", app.ID, version, err)
		}
		if overrun != nil {
			// Saved before the budget: it keeps applying (turning
			// the app off, or running it on other rules, would be worse),
			// and operators can find such apps here, once per version.
			p.log.Warn("stored policy is over the custom rules' budget; it applies until its next PUT, which must fit",
				"app", app.ID, "version", version, "cost", overrun.Cost, "budget", overrun.Budget, "largest", overrun.Largest,
				"shared_phrase", overrun.Phrase, "reason", overrun.Error())
		}
	}
	p.put(app.ID, &policyEntry{version: version, compiled: compiled, checkedAt: now})
	return compiled, nil
}

func (p *policyCache) put(appID string, e *policyEntry) {
	p.mu.Lock()
	p.m[appID] = e
	p.mu.Unlock()
}

func (p *policyCache) invalidate(appID string) {
	p.mu.Lock()
	delete(p.m, appID)
	p.mu.Unlock()
}

// judge is an application's compiled policy as the handlers call it: each
// decision's time in the engine goes to gateway_governance_duration_seconds
// by the stage it judged, so an operator sees what governance adds to a
// request apart from the LLM, the log and HTTP.
type judge struct {
	*governance.Compiled
	timer *engineTimer // nil: untimed (tests)
}

// Verify is governance.Compiled.Verify, timed: an input with an answer is a
// post-flight decision, one without a pre-flight one (prompt and tool
// outputs).
func (j judge) Verify(in governance.Input) governance.Decision {
	if j.timer == nil {
		return j.Compiled.Verify(in)
	}
	start := time.Now()
	d := j.Compiled.Verify(in)
	if in.Answer != "" {
		j.timer.post.Observe(time.Since(start).Seconds())
	} else {
		j.timer.pre.Observe(time.Since(start).Seconds())
	}
	return d
}

// VerifyArguments is governance.Compiled.VerifyArguments, timed.
func (j judge) VerifyArguments(args string, canRegenerate bool) governance.Decision {
	if j.timer == nil {
		return j.Compiled.VerifyArguments(args, canRegenerate)
	}
	start := time.Now()
	d := j.Compiled.VerifyArguments(args, canRegenerate)
	j.timer.tool.Observe(time.Since(start).Seconds())
	return d
}

// engineTimer holds the histogram's series by stage, resolved once.
type engineTimer struct {
	pre, post, tool prometheus.Observer
}

// newEngineTimer registers gateway_governance_duration_seconds on reg.
func newEngineTimer(reg prometheus.Registerer) (*engineTimer, error) {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "gateway_governance_duration_seconds",
		Help: "Time of one policy decision in the governance engine (scanners, grounding, rules), by stage: pre-flight (a prompt and its tool outputs), post-flight (an answer) and tool_arguments (a tool call's arguments).",
		// The engine takes tens of µs on a short prompt and about 0.5 ms on
		// a 2 KB answer against an 8 KB source: finer than the HTTP buckets.
		Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1, 5},
	}, []string{"stage"})
	if err := reg.Register(h); err != nil {
		return nil, fmt.Errorf("register metrics: %w", err)
	}
	return &engineTimer{
		pre:  h.WithLabelValues(string(governance.StagePre)),
		post: h.WithLabelValues(string(governance.StagePost)),
		tool: h.WithLabelValues("tool_arguments"),
	}, nil
}

// policyView is the console's view of an application's policy.
type policyView struct {
	AppID   string            `json:"app_id"`
	Version int64             `json:"version"`
	Default bool              `json:"default"`
	Policy  governance.Policy `json:"policy"`
}

// getPolicy is GET /api/console/apps/{id}/policy.
func (s *Server) getPolicy(c echo.Context) error {
	app, err := s.loadApp(c)
	if err != nil {
		return err
	}
	doc, version, err := s.store.AppPolicy(c.Request().Context(), app.OrgID, app.ID)
	switch {
	case errors.Is(err, query.ErrNotFound):
		return errNotFound
	case err != nil:
		return unavailable("cannot read the policy right now; retry", err)
	}
	v := policyView{AppID: app.ID, Version: version}
	if doc == nil {
		v.Default, v.Policy = true, governance.DefaultPolicy()
	} else if err := json.Unmarshal(doc, &v.Policy); err != nil {
		return &apiError{status: http.StatusInternalServerError, msg: "the stored policy cannot be read", cause: err}
	}
	return c.JSON(http.StatusOK, v)
}

// putPolicy is PUT /api/console/apps/{id}/policy: the whole document,
// validated (unknown fields, bad rules, regexps that do not compile: 400).
func (s *Server) putPolicy(c echo.Context) error {
	app, err := s.loadApp(c)
	if err != nil {
		return err
	}
	if err := requireJSON(c); err != nil {
		return err
	}
	body, err := readBody(c, PolicyBodyLimit)
	if err != nil {
		return err
	}
	pol, err := governance.ParsePolicy(body)
	if err != nil {
		return fail(http.StatusBadRequest, "%s", err.Error())
	}
	if _, err := s.gov.Compile(pol); err != nil {
		return fail(http.StatusBadRequest, "%s", err.Error())
	}
	doc, err := json.Marshal(pol)
	if err != nil {
		return err
	}
	version, err := s.store.SetAppPolicy(c.Request().Context(), app.OrgID, app.ID, doc)
	switch {
	case errors.Is(err, query.ErrNotFound):
		return errNotFound
	case err != nil:
		return unavailable("cannot store the policy right now; retry", err)
	}
	s.policies.invalidate(app.ID)
	return c.JSON(http.StatusOK, policyView{AppID: app.ID, Version: version, Policy: pol})
}

// deletePolicy is DELETE /api/console/apps/{id}/policy: back to the default.
func (s *Server) deletePolicy(c echo.Context) error {
	app, err := s.loadApp(c)
	if err != nil {
		return err
	}
	_, err = s.store.SetAppPolicy(c.Request().Context(), app.OrgID, app.ID, nil)
	switch {
	case errors.Is(err, query.ErrNotFound):
		return errNotFound
	case err != nil:
		return unavailable("cannot store the policy right now; retry", err)
	}
	s.policies.invalidate(app.ID)
	return c.NoContent(http.StatusNoContent)
}
