package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/oklog/ulid/v2"

	"github.com/governance-gateway/gateway/ingest/auth"
	"github.com/governance-gateway/gateway/query"
)

// SignupCreditUSD is the free credit of a new organisation (spec section 1).
const SignupCreditUSD = 50.0

// Provider values of a Full Control application, and of a Verify
// application's LLM for regeneration (DESIGN.md section 5).
var providers = map[string]bool{"openai": true, "azure_openai": true, "anthropic": true, "bedrock": true, "vertex": true}

const (
	providerBYOK    = "byok"
	providerManaged = "managed"
)

const keyUserID = "user_id"

var errNotFound = fail(http.StatusNotFound, "not found")

// newEntityID returns a prefixed, time-sortable id ("org_01J…"). It never
// contains '/', which the log key uses as its separator.
func newEntityID(prefix string) string { return prefix + ulid.Make().String() }

// decodeJSON reads a console request body into v: application/json only,
// size-limited, unknown fields rejected, exactly one JSON value.
func (s *Server) decodeJSON(c echo.Context, v any) error {
	if err := requireJSON(c); err != nil {
		return err
	}
	body, err := readBody(c, s.cfg.ConsoleBodyLimit)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			return fail(http.StatusBadRequest, "%s: must be a %s", te.Field, te.Type.Kind())
		case errors.Is(err, io.EOF):
			return fail(http.StatusBadRequest, "request body is empty; send a JSON object")
		}
		return fail(http.StatusBadRequest, "invalid JSON body: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fail(http.StatusBadRequest, "invalid JSON body: unexpected data after the JSON object")
	}
	return nil
}

// consoleAuth requires a valid, unexpired console bearer token and puts its
// organisation in the context.
func (s *Server) consoleAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		tok := auth.BearerToken(c.Request().Header)
		if tok == "" || len(tok) > 256 {
			return fail(http.StatusUnauthorized, "missing console token: send Authorization: Bearer <token> from /api/console/login")
		}
		t, err := s.store.ConsoleTokenByHash(c.Request().Context(), auth.Hash(tok))
		switch {
		case errors.Is(err, query.ErrNotFound):
			return fail(http.StatusUnauthorized, "invalid or expired console token")
		case err != nil:
			return unavailable("cannot check the console token right now; retry", err)
		}
		if !s.now().Before(t.ExpiresAt) {
			return fail(http.StatusUnauthorized, "invalid or expired console token")
		}
		c.Set(keyOrgID, t.OrgID)
		c.Set(keyUserID, t.UserID)
		return next(c)
	}
}

func orgOf(c echo.Context) string { return c.Get(keyOrgID).(string) }

// issueToken creates and stores a console token for the user.
func (s *Server) issueToken(c echo.Context, u query.User) (string, time.Time, error) {
	tok, err := auth.NewConsoleToken()
	if err != nil {
		return "", time.Time{}, err
	}
	now := s.now().UTC()
	exp := now.Add(s.cfg.ConsoleTokenTTL)
	if err := s.store.CreateConsoleToken(c.Request().Context(), query.ConsoleToken{
		Hash: tok.Hash, UserID: u.ID, OrgID: u.OrgID, ExpiresAt: exp, CreatedAt: now,
	}); err != nil {
		return "", time.Time{}, unavailable("cannot create a console session right now; retry", err)
	}
	return tok.Plain, exp, nil
}

type signupRequest struct {
	Email        string `json:"email"`
	Password     string `json:"password"`
	Organization string `json:"organization"`
}

type signupResponse struct {
	Token     string    `json:"token"`
	OrgID     string    `json:"org_id"`
	CreditUSD float64   `json:"credit_usd"`
	ExpiresAt time.Time `json:"expires_at"`
}

// normalizeEmail validates an address ("name@domain", no display name) and
// lower-cases it.
func normalizeEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("email is required")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || len(s) > 254 || !strings.Contains(s, "@") {
		return "", errors.New("email must be a valid address like name@example.com")
	}
	return strings.ToLower(s), nil
}

func checkLen(field, v string, minChars, maxChars int) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s must be valid UTF-8", field)
	}
	n := utf8.RuneCountInString(v)
	if n < minChars || n > maxChars {
		if minChars > 0 {
			return fmt.Errorf("%s must be %d to %d characters", field, minChars, maxChars)
		}
		return fmt.Errorf("%s must be at most %d characters", field, maxChars)
	}
	return nil
}

// signup is POST /api/console/signup: a new organisation with its first user.
func (s *Server) signup(c echo.Context) error {
	var req signupRequest
	if err := s.decodeJSON(c, &req); err != nil {
		return err
	}
	email, err := normalizeEmail(req.Email)
	if err != nil {
		return fail(http.StatusBadRequest, "%s", err.Error())
	}
	if err := auth.ValidatePassword(req.Password); err != nil {
		return fail(http.StatusBadRequest, "%s", err.Error())
	}
	orgName := strings.TrimSpace(req.Organization)
	if err := checkLen("organization", orgName, 1, 200); err != nil {
		return fail(http.StatusBadRequest, "%s", err.Error())
	}
	hash, err := s.pw.Hash(req.Password)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	org := query.Org{ID: newEntityID("org_"), Name: orgName, CreditUSD: SignupCreditUSD, CreatedAt: now}
	user := query.User{ID: newEntityID("usr_"), OrgID: org.ID, Email: email, PasswordHash: hash, CreatedAt: now}
	switch err := s.store.CreateOrg(c.Request().Context(), org, user); {
	case errors.Is(err, query.ErrConflict):
		return fail(http.StatusConflict, "an account with this email already exists")
	case err != nil:
		return unavailable("cannot create the account right now; retry", err)
	}
	c.Set(keyOrgID, org.ID)
	tok, exp, err := s.issueToken(c, user)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, signupResponse{Token: tok, OrgID: org.ID, CreditUSD: org.CreditUSD, ExpiresAt: exp})
}

type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

type loginResponse struct {
	Token     string    `json:"token"`
	OrgID     string    `json:"org_id"`
	ExpiresAt time.Time `json:"expires_at"`
}

// login is POST /api/console/login. Unknown e-mail and wrong password get the
// same answer and take the same bcrypt time.
func (s *Server) login(c echo.Context) error {
	var req loginRequest
	if err := s.decodeJSON(c, &req); err != nil {
		return err
	}
	bad := fail(http.StatusUnauthorized, "invalid email or password")
	email, err := normalizeEmail(req.Email)
	if err != nil {
		s.pw.Check(nil, req.Password)
		return bad
	}
	u, err := s.store.UserByEmail(c.Request().Context(), email)
	switch {
	case errors.Is(err, query.ErrNotFound):
		s.pw.Check(nil, req.Password)
		return bad
	case err != nil:
		return unavailable("cannot log in right now; retry", err)
	}
	if !s.pw.Check(u.PasswordHash, req.Password) {
		return bad
	}
	c.Set(keyOrgID, u.OrgID)
	tok, exp, err := s.issueToken(c, u)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, loginResponse{Token: tok, OrgID: u.OrgID, ExpiresAt: exp})
}

// appView is an application as the console shows it: never the API key
// (except APIKey once, at creation) and never the LLM key.
type appView struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Mode           string    `json:"mode"`
	ProviderOption string    `json:"provider_option,omitempty"`
	Provider       string    `json:"provider,omitempty"`
	Model          string    `json:"model,omitempty"`
	KeyPrefix      string    `json:"key_prefix"`
	HasLLMAPIKey   bool      `json:"has_llm_api_key"`
	CreatedAt      time.Time `json:"created_at"`
	APIKey         string    `json:"api_key,omitempty"`
}

func viewApp(a query.App) appView {
	return appView{ID: a.ID, Name: a.Name, Mode: a.Mode, ProviderOption: a.ProviderOption,
		Provider: a.Provider, Model: a.Model, KeyPrefix: a.KeyPrefix,
		HasLLMAPIKey: len(a.LLMKeyCipher) > 0, CreatedAt: a.CreatedAt}
}

// appRequest is the body of POST and PATCH /api/console/apps. Pointers tell
// "not sent" from "".
type appRequest struct {
	Name           *string `json:"name"`
	Mode           *string `json:"mode"`
	ProviderOption *string `json:"provider_option"`
	Provider       *string `json:"provider"`
	Model          *string `json:"model"`
	LLMAPIKey      *string `json:"llm_api_key"`
}

// applyApp validates req and applies it to a (a new app when creating). The
// rules: mode is fixed at creation; provider is one of the five vendor
// values; the LLM settings (applyLLM) exist only for full_control and
// verify applications.
func (s *Server) applyApp(a *query.App, req appRequest, creating bool) error {
	if req.Name != nil {
		name := strings.TrimSpace(*req.Name)
		if err := checkLen("name", name, 1, 200); err != nil {
			return fail(http.StatusBadRequest, "%s", err.Error())
		}
		a.Name = name
	} else if creating {
		return fail(http.StatusBadRequest, "name is required (1 to 200 characters)")
	}
	if creating {
		if req.Mode == nil {
			return fail(http.StatusBadRequest, "mode is required: events, verify or full_control")
		}
		switch *req.Mode {
		case query.AppModeEvents, query.AppModeVerify, query.AppModeFullControl:
			a.Mode = *req.Mode
		default:
			return fail(http.StatusBadRequest, "mode must be events, verify or full_control, got %q", *req.Mode)
		}
	} else if req.Mode != nil && *req.Mode != a.Mode {
		return fail(http.StatusBadRequest, "mode cannot be changed; create a new application for another mode")
	}
	if req.Provider != nil {
		if *req.Provider != "" && !providers[*req.Provider] {
			return fail(http.StatusBadRequest, "provider must be one of openai, azure_openai, anthropic, bedrock, vertex, got %q", *req.Provider)
		}
		a.Provider = *req.Provider
	}
	if req.Model != nil {
		if err := checkLen("model", *req.Model, 0, 256); err != nil {
			return fail(http.StatusBadRequest, "%s", err.Error())
		}
		a.Model = *req.Model
	}
	switch a.Mode {
	case query.AppModeFullControl, query.AppModeVerify:
		return s.applyLLM(a, req, creating)
	}
	if req.ProviderOption != nil || req.LLMAPIKey != nil {
		return fail(http.StatusBadRequest, "provider_option and llm_api_key apply only to verify and full_control applications")
	}
	return nil
}

// applyLLM applies the LLM settings: provider_option byok (an LLM key, sent
// now or stored before, sealed at rest) or managed (the operator's key;
// drops a stored LLM key). A full_control application always has one
// (managed unless a key is sent). A verify application has one only when
// asked for (an LLM to regenerate with, docs/api.md): then provider and
// model are required, and provider_option "" removes it again.
func (s *Server) applyLLM(a *query.App, req appRequest, creating bool) error {
	verify := a.Mode == query.AppModeVerify
	opt := a.ProviderOption
	switch {
	case req.ProviderOption != nil:
		opt = *req.ProviderOption
	case req.LLMAPIKey != nil && (creating || opt == ""):
		opt = providerBYOK
	case creating && !verify:
		opt = providerManaged
	}
	switch opt {
	case "":
		if !verify {
			return fail(http.StatusBadRequest, "provider_option must be byok or managed, got \"\"")
		}
		if req.LLMAPIKey != nil {
			return fail(http.StatusBadRequest, "llm_api_key is only for provider_option byok")
		}
		a.LLMKeyCipher = nil // no LLM: no key kept either
	case providerManaged:
		if req.LLMAPIKey != nil {
			return fail(http.StatusBadRequest, "llm_api_key is only for provider_option byok")
		}
		a.LLMKeyCipher = nil // a managed app keeps no customer key
	case providerBYOK:
		if err := s.sealLLMKey(a, req.LLMAPIKey); err != nil {
			return err
		}
	default:
		return fail(http.StatusBadRequest, "provider_option must be byok or managed, got %q", opt)
	}
	if verify && opt != "" && (a.Provider == "" || a.Model == "") {
		return fail(http.StatusBadRequest, "a verify application with provider_option %s needs provider and model: the LLM it regenerates answers with", opt)
	}
	a.ProviderOption = opt
	return nil
}

// sealLLMKey seals a BYOK key sent now into a; without one, a needs the
// key it already stores.
func (s *Server) sealLLMKey(a *query.App, key *string) error {
	if key != nil {
		if err := checkLen("llm_api_key", *key, 1, 4096); err != nil {
			return fail(http.StatusBadRequest, "%s", err.Error())
		}
		if s.sealer == nil {
			return fail(http.StatusBadRequest, "llm_api_key cannot be stored: the server has no GATEWAY_MASTER_KEY configured")
		}
		sealed, err := s.sealer.Seal([]byte(*key), auth.SealAAD(a.OrgID, a.ID))
		if err != nil {
			return fmt.Errorf("seal llm_api_key: %w", err)
		}
		a.LLMKeyCipher = sealed
	}
	if len(a.LLMKeyCipher) == 0 {
		return fail(http.StatusBadRequest, "llm_api_key is required for provider_option byok")
	}
	return nil
}

// createApp is POST /api/console/apps; the answer is the only place the API
// key ever appears.
func (s *Server) createApp(c echo.Context) error {
	var req appRequest
	if err := s.decodeJSON(c, &req); err != nil {
		return err
	}
	app := query.App{ID: newEntityID("app_"), OrgID: orgOf(c), CreatedAt: s.now().UTC()}
	if err := s.applyApp(&app, req, true); err != nil {
		return err
	}
	key, err := auth.NewAPIKey()
	if err != nil {
		return err
	}
	app.KeyHash, app.KeyPrefix = key.Hash, key.Prefix
	if err := s.store.CreateApp(c.Request().Context(), app); err != nil {
		return unavailable("cannot create the application right now; retry", err)
	}
	v := viewApp(app)
	v.APIKey = key.Plain
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusCreated, v)
}

type appsResponse struct {
	Data []appView `json:"data"`
}

func (s *Server) listApps(c echo.Context) error {
	apps, err := s.store.Apps(c.Request().Context(), orgOf(c))
	if err != nil {
		return unavailable("cannot list applications right now; retry", err)
	}
	out := appsResponse{Data: make([]appView, len(apps))}
	for i, a := range apps {
		out.Data[i] = viewApp(a)
	}
	return c.JSON(http.StatusOK, out)
}

// pathParam returns the unescaped path parameter (Echo matches on the raw
// path when it has escapes, e.g. a request_id holding "/").
func pathParam(c echo.Context, name string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v, nil
	}
	u, err := url.PathUnescape(v)
	if err != nil {
		return "", fail(http.StatusBadRequest, "invalid %s in the path", name)
	}
	return u, nil
}

// loadApp returns the organisation's live app named in the path, or 404.
func (s *Server) loadApp(c echo.Context) (query.App, error) {
	id, err := pathParam(c, "id")
	if err != nil {
		return query.App{}, err
	}
	app, err := s.store.App(c.Request().Context(), orgOf(c), id)
	switch {
	case errors.Is(err, query.ErrNotFound):
		return app, errNotFound
	case err != nil:
		return app, unavailable("cannot read the application right now; retry", err)
	}
	return app, nil
}

func (s *Server) getApp(c echo.Context) error {
	app, err := s.loadApp(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewApp(app))
}

// patchApp is PATCH /api/console/apps/{id}: rename, switch BYOK/Managed,
// change provider, model or the BYOK key. The API key does not change. The
// key cache holds the whole application (its sealed LLM key too), so it is
// invalidated as on delete: the next request here uses the new settings.
func (s *Server) patchApp(c echo.Context) error {
	app, err := s.loadApp(c)
	if err != nil {
		return err
	}
	var req appRequest
	if err := s.decodeJSON(c, &req); err != nil {
		return err
	}
	if err := s.applyApp(&app, req, false); err != nil {
		return err
	}
	switch err := s.store.UpdateApp(c.Request().Context(), app); {
	case errors.Is(err, query.ErrNotFound):
		return errNotFound // deleted meanwhile
	case err != nil:
		return unavailable("cannot update the application right now; retry", err)
	}
	s.keys.Invalidate(app.KeyHash)
	return c.JSON(http.StatusOK, viewApp(app))
}

// deleteApp is DELETE /api/console/apps/{id}: the key stops working at once
// on this replica (cache invalidated) and within the key cache TTL on others.
func (s *Server) deleteApp(c echo.Context) error {
	app, err := s.loadApp(c)
	if err != nil {
		return err
	}
	switch err := s.store.DeleteApp(c.Request().Context(), app.OrgID, app.ID); {
	case errors.Is(err, query.ErrNotFound):
		return errNotFound
	case err != nil:
		return unavailable("cannot delete the application right now; retry", err)
	}
	s.keys.Invalidate(app.KeyHash)
	return c.NoContent(http.StatusNoContent)
}
