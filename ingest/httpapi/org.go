package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/query"
)

// orgView is GET/PATCH /api/console/org.
type orgView struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreditUSD float64   `json:"credit_usd"`
	CreatedAt time.Time `json:"created_at"`
	// DefaultProxyMode is the organisation's own setting (null: none, the
	// operator's default applies); EffectiveProxyMode is what the proxy uses
	// when a request sends no X-Service-Mode.
	DefaultProxyMode   *string `json:"default_proxy_mode"`
	EffectiveProxyMode string  `json:"effective_proxy_mode"`
}

func (s *Server) viewOrg(o query.Org) orgView {
	v := orgView{ID: o.ID, Name: o.Name, CreditUSD: o.CreditUSD, CreatedAt: o.CreatedAt, EffectiveProxyMode: s.cfg.ProxyDefaultMode}
	if o.DefaultProxyMode != "" {
		v.DefaultProxyMode, v.EffectiveProxyMode = &o.DefaultProxyMode, o.DefaultProxyMode
	}
	return v
}

// getOrg is GET /api/console/org.
func (s *Server) getOrg(c echo.Context) error {
	o, err := s.store.Org(c.Request().Context(), orgOf(c))
	if err != nil {
		return unavailable("cannot read the organisation right now; retry", err)
	}
	return c.JSON(http.StatusOK, s.viewOrg(o))
}

// patchOrg is PATCH /api/console/org {default_proxy_mode}: observe, guard,
// verify, full, or null for the operator's default. It applies at once on
// this replica and within the policy TTL on the others.
func (s *Server) patchOrg(c echo.Context) error {
	var req struct {
		DefaultProxyMode json.RawMessage `json:"default_proxy_mode"`
	}
	if err := s.decodeJSON(c, &req); err != nil {
		return err
	}
	if len(req.DefaultProxyMode) == 0 {
		return fail(http.StatusBadRequest, "default_proxy_mode is required: observe, guard, verify, full, or null for the operator's default")
	}
	mode := ""
	if string(req.DefaultProxyMode) != "null" {
		if json.Unmarshal(req.DefaultProxyMode, &mode) != nil || !proxyModes[mode] {
			return fail(http.StatusBadRequest, "default_proxy_mode must be observe, guard, verify, full, or null")
		}
	}
	ctx := c.Request().Context()
	if err := s.store.SetOrgDefaultProxyMode(ctx, orgOf(c), mode); err != nil {
		return unavailable("cannot update the organisation right now; retry", err)
	}
	s.orgModes.forget(orgOf(c))
	return s.getOrg(c)
}

// orgModeCache holds each organisation's default proxy mode for ttl, so the
// proxy's hot path reads no table.
type orgModeCache struct {
	store query.Store
	ttl   time.Duration
	now   func() time.Time

	mu sync.Mutex
	m  map[string]orgModeEntry
}

type orgModeEntry struct {
	mode      string
	checkedAt time.Time
}

func newOrgModeCache(store query.Store, ttl time.Duration, now func() time.Time) *orgModeCache {
	return &orgModeCache{store: store, ttl: ttl, now: now, m: map[string]orgModeEntry{}}
}

// get returns the organisation's own default mode ("" when it has none).
func (c *orgModeCache) get(ctx context.Context, orgID string) (string, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.m[orgID]
	c.mu.Unlock()
	if ok && now.Sub(e.checkedAt) < c.ttl {
		return e.mode, nil
	}
	o, err := c.store.Org(ctx, orgID)
	if errors.Is(err, query.ErrNotFound) {
		o, err = query.Org{}, nil // traces may outlive their organisation's row; no setting
	}
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.m[orgID] = orgModeEntry{mode: o.DefaultProxyMode, checkedAt: now}
	c.mu.Unlock()
	return o.DefaultProxyMode, nil
}

func (c *orgModeCache) forget(orgID string) {
	c.mu.Lock()
	delete(c.m, orgID)
	c.mu.Unlock()
}
