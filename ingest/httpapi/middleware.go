package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// apiError is an error answer with its status and client-facing message.
type apiError struct {
	status int
	msg    string
	cause  error // logged, never sent
}

func (e *apiError) Error() string {
	if e.cause != nil {
		return e.msg + ": " + e.cause.Error()
	}
	return e.msg
}

func (e *apiError) Unwrap() error { return e.cause }

func fail(status int, format string, args ...any) *apiError {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

// unavailable is a 503 whose cause is logged but not shown.
func unavailable(msg string, cause error) *apiError {
	return &apiError{status: http.StatusServiceUnavailable, msg: msg, cause: cause}
}

type errorBody struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// handleError is Echo's error handler: every error becomes JSON.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var ue *upstreamError
	if errors.As(err, &ue) {
		// Written after waiting for the upstream, which may outlast the
		// write deadline that started with the request.
		s.renewWriteDeadline(c)
		_ = c.JSON(ue.status, ue.body)
		return
	}
	status, msg := http.StatusInternalServerError, "internal server error"
	var ae *apiError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &ae):
		status, msg = ae.status, ae.msg
	case errors.As(err, &he):
		status = he.Code
		switch status {
		case http.StatusNotFound:
			msg = "not found"
		case http.StatusMethodNotAllowed:
			msg = "method not allowed"
		case http.StatusRequestEntityTooLarge:
			msg = "request body too large"
		default:
			msg = http.StatusText(status)
			if m, ok := he.Message.(string); ok && status < 500 {
				msg = m
			}
		}
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	_ = c.JSON(status, errorBody{OK: false, Error: msg})
}

const keyRequestID = "request_id"

// requestID takes a well-formed X-Request-Id from the caller or makes one,
// and echoes it in the response.
func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(echo.HeaderXRequestID)
		if !validRequestHeaderID(id) {
			id = s.newID()
		}
		c.Set(keyRequestID, id)
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		return next(c)
	}
}

func validRequestHeaderID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// observe writes the one log line of a request and its duration metric. It
// commits error answers itself so that it sees their final status.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		done := false
		defer func() {
			if !done {
				// An aborted response (http.ErrAbortHandler, re-panicked by
				// recover: a proxied stream the upstream broke) still counts
				// in the duration metric; its handler logged the abort.
				s.metrics.duration.WithLabelValues(c.Request().Method, c.Path(), "aborted").Observe(time.Since(start).Seconds())
			}
		}()
		err := next(c)
		done = true
		if err != nil {
			c.Error(err)
		}
		status := c.Response().Status
		route := c.Path()
		if route == "" || status == http.StatusNotFound && isNotFoundRoute(route) {
			route = "unmatched"
		}
		elapsed := time.Since(start)
		s.metrics.duration.WithLabelValues(c.Request().Method, route, strconv.Itoa(status)).Observe(elapsed.Seconds())

		level := slog.LevelInfo
		switch {
		case status >= 500:
			level = slog.LevelError
		case route == "/healthz" || route == "/readyz" || route == "/metrics":
			level = slog.LevelDebug
		}
		attrs := []slog.Attr{
			slog.String("request_id", c.Get(keyRequestID).(string)),
			slog.String("method", c.Request().Method),
			slog.String("route", route),
			slog.Int("status", status),
			slog.Duration("duration", elapsed),
			slog.Int64("bytes_in", c.Request().ContentLength),
			slog.Int64("bytes_out", c.Response().Size),
		}
		if v, ok := c.Get(keyOrgID).(string); ok {
			attrs = append(attrs, slog.String("org_id", v))
		}
		if v, ok := c.Get(keyAppID).(string); ok {
			attrs = append(attrs, slog.String("app_id", v))
		}
		if err != nil && (status >= 500 || status == 0) {
			attrs = append(attrs, slog.String("err", err.Error()))
		}
		s.logger.LogAttrs(c.Request().Context(), level, "http request", attrs...)
		return nil
	}
}

func isNotFoundRoute(route string) bool {
	return route == "/*" || len(route) >= 2 && route[len(route)-2:] == "/*"
}

// recover turns a panic into a 500 JSON answer, logging the stack.
func (s *Server) recover(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			buf := make([]byte, 8<<10)
			buf = buf[:runtime.Stack(buf, false)]
			s.logger.Error("panic in handler", "request_id", c.Get(keyRequestID), "panic", fmt.Sprint(r), "stack", string(buf))
			err = fmt.Errorf("panic: %v", r)
		}()
		return next(c)
	}
}

// metrics are the front end's Prometheus collectors.
type metrics struct {
	duration      *prometheus.HistogramVec
	events        *prometheus.CounterVec
	produceErrors prometheus.Counter
	turnsDeleted  prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gateway_http_request_duration_seconds",
			Help:    "Duration of HTTP requests by method, route pattern and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route", "code"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_events_total",
			Help: "Events received on POST /v1/events by outcome (accepted, skipped, rejected).",
		}, []string{"outcome"}),
		produceErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_events_produce_errors_total",
			Help: "POST /v1/events requests answered 503 because the trace log did not acknowledge.",
		}),
		turnsDeleted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_session_turns_deleted_total",
			Help: "Full Control session turns deleted by this replica for being older than GATEWAY_SESSION_RETENTION.",
		}),
	}
	for _, c := range []prometheus.Collector{m.duration, m.events, m.produceErrors, m.turnsDeleted} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	for _, o := range []string{"accepted", "skipped", "rejected"} {
		m.events.WithLabelValues(o) // export zeros from the start
	}
	return m, nil
}

func metricsHandler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{})
}
