package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/ingest/auth"
	"github.com/governance-gateway/gateway/ingest/events"
	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

const (
	keyOrgID = "org_id"
	keyAppID = "app_id"
)

// receivedAtLayout is RFC 3339 in UTC with milliseconds.
const receivedAtLayout = "2006-01-02T15:04:05.000Z07:00"

type simpleResponse struct {
	OK         bool   `json:"ok"`
	RequestID  string `json:"request_id"`
	ReceivedAt string `json:"received_at"`
}

type rejection struct {
	Index     int    `json:"index"`
	RequestID string `json:"request_id"`
	Error     string `json:"error"`
}

type batchResponse struct {
	OK       bool        `json:"ok"`
	Error    string      `json:"error,omitempty"`
	Accepted int         `json:"accepted"`
	Skipped  int         `json:"skipped"`
	Rejected []rejection `json:"rejected"`
	Total    int         `json:"total"`
}

// serviceApp authenticates the service API key of the request and checks
// that its application has the given mode (401, 403; 503 if the store
// cannot answer).
func (s *Server) serviceApp(c echo.Context, mode, endpoint string) (query.App, error) {
	app, err := s.keys.Resolve(c.Request().Context(), auth.ExtractAPIKey(c.Request().Header))
	switch {
	case errors.Is(err, auth.ErrInvalidKey):
		if shaped, _ := c.Get(keyChatShape).(bool); shaped {
			return app, fail(http.StatusUnauthorized, chatShapeKeyMissing)
		}
		return app, fail(http.StatusUnauthorized, "invalid or missing API key: send the application's key in X-API-Key or Authorization: Bearer")
	case err != nil:
		return app, unavailable("cannot check the API key right now; retry", err)
	}
	c.Set(keyOrgID, app.OrgID)
	c.Set(keyAppID, app.ID)
	if app.Mode != mode {
		article := "a"
		if strings.HasPrefix(app.Mode, "e") { // events
			article = "an"
		}
		return app, fail(http.StatusForbidden, "this API key belongs to %s %s-mode application; %s accepts only keys of %s-mode applications", article, app.Mode, endpoint, mode)
	}
	return app, nil
}

// requireJSON answers 415 unless the request's media type is application/json.
func requireJSON(c echo.Context) error {
	ct := c.Request().Header.Get(echo.HeaderContentType)
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != echo.MIMEApplicationJSON {
		return fail(http.StatusUnsupportedMediaType, "Content-Type must be application/json, got %q", ct)
	}
	return nil
}

// readBody reads the whole request body, answering 413 beyond limit bytes.
func readBody(c echo.Context, limit int64) ([]byte, error) {
	r := c.Request()
	tooLarge := func() error {
		return fail(http.StatusRequestEntityTooLarge, "request body is larger than the limit of %d bytes", limit)
	}
	if r.ContentLength > limit {
		return nil, tooLarge()
	}
	// Size the buffer from Content-Length (bytes.Buffer wants MinRead spare
	// bytes to detect EOF without growing); unknown length starts small.
	size := int64(64 << 10)
	if r.ContentLength >= 0 {
		size = r.ContentLength + bytes.MinRead
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	// One byte past the limit tells "exactly at the limit" from "over it".
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1)); err != nil {
		return nil, fail(http.StatusBadRequest, "could not read the request body: %v", err)
	}
	if int64(buf.Len()) > limit {
		return nil, tooLarge()
	}
	return buf.Bytes(), nil
}

// postEvents is POST /v1/events (spec 4.4, DESIGN.md section 5).
//
// Order of checks: API key (401), application mode (403), Content-Type
// (415), body size (413), body form (400, or 413 past 500 events), then per
// event. Valid events whose request_id the organisation already has in the
// query store, or that repeat an earlier id of the same body, are counted
// skipped and not produced; the rest are produced in ONE call, so either all
// are acknowledged by the log (2xx) or the answer is 503 and none is reported
// accepted.
//
// The skipped count is exact for ids already written to the store. A resend
// that arrives while its first copy is between the log and the store (the
// processors' flush interval plus one store write, normally well under a
// second) — or while the store cannot answer within LookupTimeout — is
// produced again and counted accepted; the processors still store exactly
// one row per (org_id, request_id).
func (s *Server) postEvents(c echo.Context) error {
	app, err := s.serviceApp(c, query.AppModeEvents, "POST /v1/events")
	if err != nil {
		return err
	}
	if err := requireJSON(c); err != nil {
		return err
	}
	body, err := readBody(c, s.cfg.BodyLimit)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	dec, err := events.Decode(body, now, s.newID)
	if err != nil {
		if errors.Is(err, events.ErrTooManyEvents) {
			return fail(http.StatusRequestEntityTooLarge, "%s", err.Error())
		}
		return fail(http.StatusBadRequest, "%s", err.Error())
	}

	if dec.Form == events.FormSimple {
		return s.simpleEvent(c, app, dec.Items[0], now)
	}

	resp := batchResponse{Rejected: []rejection{}, Total: len(dec.Items)}
	live := make([]int, 0, len(dec.Items))
	for i := range dec.Items {
		it := &dec.Items[i]
		switch {
		case it.Err != nil:
			resp.Rejected = append(resp.Rejected, rejection{Index: it.Index, RequestID: it.RequestID, Error: it.Err.Error()})
		case it.Duplicate:
			resp.Skipped++
		default:
			live = append(live, i)
		}
	}
	live = s.dropExisting(c, app.OrgID, dec.Items, live, &resp.Skipped)

	if len(live) > 0 {
		envs := make([]schemas.Envelope, len(live))
		for j, i := range live {
			envs[j] = dec.Items[i].Envelope
			s.stamp(&envs[j], app, now)
		}
		if err := s.produce(c, envs); err != nil {
			return err
		}
	}
	resp.Accepted = len(live)

	s.metrics.events.WithLabelValues("accepted").Add(float64(resp.Accepted))
	s.metrics.events.WithLabelValues("skipped").Add(float64(resp.Skipped))
	s.metrics.events.WithLabelValues("rejected").Add(float64(len(resp.Rejected)))

	status := http.StatusOK
	switch {
	case len(resp.Rejected) == 0:
		resp.OK = true
	case len(resp.Rejected) == resp.Total:
		status = http.StatusBadRequest
		if resp.Total == 1 {
			resp.Error = "the event was rejected: " + resp.Rejected[0].Error
		} else {
			resp.Error = "all events were rejected"
		}
	default:
		status = http.StatusMultiStatus
	}
	return c.JSON(status, resp)
}

func (s *Server) simpleEvent(c echo.Context, app query.App, it events.Item, now time.Time) error {
	if it.Err != nil {
		s.metrics.events.WithLabelValues("rejected").Inc()
		return fail(http.StatusBadRequest, "%s", it.Err.Error())
	}
	env := it.Envelope
	s.stamp(&env, app, now)
	if err := s.produce(c, []schemas.Envelope{env}); err != nil {
		return err
	}
	s.metrics.events.WithLabelValues("accepted").Inc()
	return c.JSON(http.StatusAccepted, simpleResponse{
		OK:         true,
		RequestID:  env.Trace.RequestID,
		ReceivedAt: env.ReceivedAt.UTC().Format(receivedAtLayout),
	})
}

// stamp fills the tenant fields the decoder leaves to the front end.
func (s *Server) stamp(env *schemas.Envelope, app query.App, now time.Time) {
	env.OrgID, env.AppID = app.OrgID, app.ID
	if env.SchemaVersion == 0 {
		env.SchemaVersion = schemas.EnvelopeVersion
	}
	if env.ReceivedAt.IsZero() {
		env.ReceivedAt = now
	}
	if env.Trace.ReceivedAt.IsZero() {
		env.Trace.ReceivedAt = env.ReceivedAt
	}
}

// dropExisting removes from live the items whose request_id the organisation
// already stored, counting them skipped. A store failure degrades to "none
// stored" (see postEvents): the log, not the store, decides availability.
func (s *Server) dropExisting(c echo.Context, orgID string, items []events.Item, live []int, skipped *int) []int {
	if len(live) == 0 {
		return live
	}
	ids := make([]string, len(live))
	for j, i := range live {
		ids[j] = items[i].RequestID
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.LookupTimeout)
	defer cancel()
	existing, err := s.store.ExistingRequestIDs(ctx, orgID, ids)
	if err != nil {
		s.logger.WarnContext(ctx, "skipped lookup failed; producing all events",
			"request_id", c.Get(keyRequestID), "org_id", orgID, "err", err)
		return live
	}
	if len(existing) == 0 {
		return live
	}
	kept := live[:0]
	for _, i := range live {
		if existing[items[i].RequestID] {
			*skipped++
			continue
		}
		kept = append(kept, i)
	}
	return kept
}

// produce writes envs to the log. Nothing is reported accepted unless it
// returns nil: an unreachable log is 503 (the client retries), a record over
// the broker's size limit 413 (retrying cannot help), anything else 500.
func (s *Server) produce(c echo.Context, envs []schemas.Envelope) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.ProduceTimeout)
	defer cancel()
	err := s.log.Produce(ctx, envs)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, topics.ErrTooLarge):
		return &apiError{status: http.StatusRequestEntityTooLarge, cause: err,
			msg: "an event is larger than the trace log accepts; nothing was recorded (shorten prompt, answer or metadata)"}
	case errors.Is(err, topics.ErrUnavailable):
		s.metrics.produceErrors.Inc()
		return unavailable("the trace log is unavailable; nothing was recorded, retry the request", err)
	default:
		s.metrics.produceErrors.Inc()
		return &apiError{status: http.StatusInternalServerError, cause: err,
			msg: "the events could not be written to the trace log; nothing was recorded, retry the request"}
	}
}

// healthz is liveness: the process serves HTTP.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]bool{"ok": true})
}

// readyz is readiness: the log and the store are reachable (Deps.Ready).
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
	defer cancel()
	if err := s.ready(ctx); err != nil {
		return &apiError{status: http.StatusServiceUnavailable, msg: "not ready: " + err.Error(), cause: err}
	}
	return c.JSON(http.StatusOK, map[string]bool{"ok": true})
}
