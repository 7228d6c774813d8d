package httpapi

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/governance-gateway/gateway/query"
	"github.com/governance-gateway/gateway/schemas"
)

const (
	defaultListLimit = 50
	maxListLimit     = 1000
)

// traceView is a trace as the console API returns it: schemas.Trace plus
// app_id, with every field of the spec's Trace resource present, null when
// unknown, so a typed client reads one shape whatever the caller sent. The
// fields below shadow the trace's omitempty ones of the same JSON name;
// parent_request_id (a tool call's parent), prompt and answer (the listing
// leaves those two out) appear only when set.
type traceView struct {
	schemas.Trace
	AppID         string          `json:"app_id"`
	FinishedAt    *time.Time      `json:"finished_at"`
	Provider      *string         `json:"provider"`
	Model         *string         `json:"model"`
	UseCase       *string         `json:"use_case"`
	TeamID        *string         `json:"team_id"`
	IntegrationID *string         `json:"integration_id"`
	EndUserID     *string         `json:"end_user_id"`
	UserID        *string         `json:"user_id"`
	SessionID     *string         `json:"session_id"`
	FinalDecision *string         `json:"final_decision"`
	Metadata      json.RawMessage `json:"metadata"` // nil is null
}

// viewOf is the console view of a stored trace; policy_hits is an array,
// [] when nothing fired.
func viewOf(r query.TraceRow) traceView {
	t := r.Trace
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	if t.PolicyHits == nil {
		t.PolicyHits = []schemas.PolicyHit{}
	}
	return traceView{Trace: t, AppID: r.AppID, FinishedAt: t.FinishedAt, Provider: opt(t.Provider), Model: opt(t.Model),
		UseCase: opt(t.UseCase), TeamID: opt(t.TeamID), IntegrationID: opt(t.IntegrationID), EndUserID: opt(t.EndUserID),
		UserID: opt(t.UserID), SessionID: opt(t.SessionID), FinalDecision: opt(t.FinalDecision), Metadata: t.Metadata}
}

type listResponse struct {
	Data       []traceView `json:"data"`
	NextCursor *string     `json:"next_cursor"`
}

type sessionResponse struct {
	SessionID string      `json:"session_id"`
	Data      []traceView `json:"data"`
}

// listParams are the query parameters of GET /api/console/requests.
var listParams = map[string]bool{
	"limit": true, "cursor": true, "app_id": true, "status": true, "final_decision": true,
	"model": true, "use_case": true, "mode": true, "session_id": true, "since": true, "until": true,
}

// parseTime reads RFC 3339 or epoch seconds (integer or fractional).
func parseTime(name, v string) (*time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		t = t.UTC()
		return &t, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f < 253402300800 && !math.IsInf(f, 0) {
		sec, frac := math.Modf(f)
		t := time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
		return &t, nil
	}
	return nil, fail(http.StatusBadRequest, "%s must be an RFC 3339 timestamp or epoch seconds, got %q", name, v)
}

// parseFilter reads and validates every filter of DESIGN.md section 6.
// Unknown parameters are rejected so that a typo never silently widens the
// result.
func parseFilter(c echo.Context) (query.TraceFilter, error) {
	f := query.TraceFilter{Limit: defaultListLimit}
	for name, vals := range c.QueryParams() {
		if key, ok := strings.CutPrefix(name, "metadata."); ok {
			if key == "" {
				return f, fail(http.StatusBadRequest, "metadata filter needs a key: metadata.<key>=<value>")
			}
			if len(vals) != 1 {
				return f, fail(http.StatusBadRequest, "%s is given %d times; give each metadata key once", name, len(vals))
			}
			if f.Metadata == nil {
				f.Metadata = map[string]string{}
			}
			f.Metadata[key] = vals[0]
			continue
		}
		if !listParams[name] {
			return f, fail(http.StatusBadRequest, "unknown query parameter %q", name)
		}
		if len(vals) != 1 {
			return f, fail(http.StatusBadRequest, "%s is given %d times; give it once", name, len(vals))
		}
		v := vals[0]
		switch name {
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxListLimit {
				return f, fail(http.StatusBadRequest, "limit must be an integer from 1 to %d, got %q", maxListLimit, v)
			}
			f.Limit = n
		case "cursor":
			f.Cursor = v
		case "app_id":
			f.AppID = v
		case "status":
			if !schemas.ValidStatus(v) {
				return f, fail(http.StatusBadRequest, "status must be one of ok, error, blocked, rewritten, regenerated, got %q", v)
			}
			f.Status = v
		case "final_decision":
			f.FinalDecision = v
		case "model":
			f.Model = v
		case "use_case":
			f.UseCase = v
		case "mode":
			if !schemas.ValidMode(v) {
				return f, fail(http.StatusBadRequest, "mode must be one of ingest, sdk, proxy, vendor, got %q", v)
			}
			f.Mode = v
		case "session_id":
			f.SessionID = v
		case "since", "until":
			t, err := parseTime(name, v)
			if err != nil {
				return f, err
			}
			if name == "since" {
				f.Since = t
			} else {
				f.Until = t
			}
		}
	}
	if len(f.Metadata) > 16 {
		return f, fail(http.StatusBadRequest, "at most 16 metadata filters")
	}
	return f, nil
}

// listRequests is GET /api/console/requests: the organisation's traces,
// newest first, keyset-paged. The listing leaves out prompt and answer (up
// to 1 MiB each); GET /api/console/requests/{id} returns them.
func (s *Server) listRequests(c echo.Context) error {
	f, err := parseFilter(c)
	if err != nil {
		return err
	}
	rows, next, err := s.store.ListTraces(c.Request().Context(), orgOf(c), f)
	switch {
	case errors.Is(err, query.ErrBadCursor):
		return fail(http.StatusBadRequest, "cursor is not valid; use next_cursor of a previous page")
	case err != nil:
		return unavailable("cannot list requests right now; retry", err)
	}
	out := listResponse{Data: make([]traceView, len(rows))}
	for i, r := range rows {
		out.Data[i] = viewOf(r)
		out.Data[i].Prompt, out.Data[i].Answer = "", ""
	}
	if next != "" {
		out.NextCursor = &next
	}
	return c.JSON(http.StatusOK, out)
}

// getRequest is GET /api/console/requests/{request_id}, with prompt and answer.
func (s *Server) getRequest(c echo.Context) error {
	id, err := pathParam(c, "id")
	if err != nil {
		return err
	}
	row, err := s.store.Trace(c.Request().Context(), orgOf(c), id)
	switch {
	case errors.Is(err, query.ErrNotFound):
		return errNotFound
	case err != nil:
		return unavailable("cannot read the request right now; retry", err)
	}
	return c.JSON(http.StatusOK, viewOf(row))
}

// getSession is GET /api/console/sessions/{session_id}: the session's traces
// oldest first, with prompts and answers (multi-turn replay).
func (s *Server) getSession(c echo.Context) error {
	id, err := pathParam(c, "id")
	if err != nil {
		return err
	}
	rows, err := s.store.SessionTraces(c.Request().Context(), orgOf(c), id)
	switch {
	case errors.Is(err, query.ErrNotFound):
		return errNotFound
	case err != nil:
		return unavailable("cannot read the session right now; retry", err)
	}
	out := sessionResponse{SessionID: id, Data: make([]traceView, len(rows))}
	for i, r := range rows {
		out.Data[i] = viewOf(r)
	}
	return c.JSON(http.StatusOK, out)
}
