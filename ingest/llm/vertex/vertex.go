// Package vertex is the Google Vertex AI adapter for Gemini models:
// POST {endpoint}/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent
// with an OAuth bearer token. The credential is either an access token or
// a service-account key (JSON), from which the adapter mints tokens itself
// (a self-signed RS256 JWT exchanged at the key's token_uri) and caches them
// until shortly before they expire.
package vertex

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// Scope of the minted tokens.
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// Adapter talks to Vertex AI in one project and location.
type Adapter struct {
	cfg    llm.Config
	client *http.Client
	now    func() time.Time

	mu     sync.Mutex
	tokens map[string]cachedToken // by service account e-mail
}

type cachedToken struct {
	token   string
	expires time.Time
}

// New returns the adapter; cfg.Region (the location) defaults to
// us-central1 and cfg.BaseURL to https://{location}-aiplatform.googleapis.com.
func New(cfg llm.Config) *Adapter {
	cfg.Defaults()
	if cfg.Region == "" {
		cfg.Region = "us-central1"
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://" + cfg.Region + "-aiplatform.googleapis.com"
	}
	return &Adapter{cfg: cfg, now: time.Now, tokens: map[string]cachedToken{}, client: &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second, ForceAttemptHTTP2: true}}}
}

// Name implements llm.Provider.
func (a *Adapter) Name() string { return llm.Vertex }

type part struct {
	Text string `json:"text,omitempty"`
}

type turn struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

// Body translates req to a generateContent request (text turns; tool calls
// are not translated yet).
func Body(req llm.Request) ([]byte, error) {
	w := struct {
		Contents          []turn         `json:"contents"`
		SystemInstruction *turn          `json:"systemInstruction,omitempty"`
		GenerationConfig  map[string]any `json:"generationConfig,omitempty"`
	}{}
	var system []part
	for _, m := range req.Messages {
		role := "user"
		switch m.Role {
		case "system":
			system = append(system, part{Text: m.Content})
			continue
		case "assistant":
			role = "model"
		}
		if n := len(w.Contents); n > 0 && w.Contents[n-1].Role == role {
			w.Contents[n-1].Parts = append(w.Contents[n-1].Parts, part{Text: m.Content})
			continue
		}
		w.Contents = append(w.Contents, turn{Role: role, Parts: []part{{Text: m.Content}}})
	}
	if len(system) > 0 {
		w.SystemInstruction = &turn{Role: "system", Parts: system}
	}
	gc := map[string]any{}
	if req.Temperature != nil {
		gc["temperature"] = *req.Temperature
	}
	if req.MaxTokens != nil {
		gc["maxOutputTokens"] = *req.MaxTokens
	}
	if v, ok := req.Extra["top_p"]; ok {
		var p float64
		if json.Unmarshal(v, &p) == nil {
			gc["topP"] = p
		}
	}
	if len(gc) > 0 {
		w.GenerationConfig = gc
	}
	return json.Marshal(w)
}

var finish = map[string]string{"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter", "RECITATION": "content_filter", "BLOCKLIST": "content_filter", "PROHIBITED_CONTENT": "content_filter"}

// Complete implements llm.Provider.
func (a *Adapter) Complete(ctx context.Context, req llm.Request, cred llm.Credentials) (llm.Response, error) {
	body, err := a.body(req)
	if err != nil {
		return llm.Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	token, err := a.token(ctx, cred.APIKey)
	if err != nil {
		return llm.Response{}, err
	}
	u := a.endpoint(req.Model, "generateContent")
	return llm.Retry(ctx, a.cfg.RetryDelay, func() (llm.Response, error) { return a.once(ctx, u, body, token, req.Model) })
}

// body checks the configuration and translates req.
func (a *Adapter) body(req llm.Request) ([]byte, error) {
	if a.cfg.Project == "" {
		return nil, &llm.Error{Status: http.StatusServiceUnavailable, Type: llm.ErrStatus, Message: "Vertex AI needs GATEWAY_PROVIDER_VERTEX_PROJECT"}
	}
	body, err := Body(req)
	if err != nil {
		return nil, &llm.Error{Status: http.StatusBadRequest, Type: llm.ErrBadResponse, Message: "cannot translate the request for Vertex AI"}
	}
	return body, nil
}

// endpoint is the URL of a model method (generateContent,
// streamGenerateContent?alt=sse).
func (a *Adapter) endpoint(model, method string) string {
	return fmt.Sprintf("%s/v1/projects/%s/locations/%s/publishers/google/models/%s:%s",
		a.cfg.BaseURL, url.PathEscape(a.cfg.Project), url.PathEscape(a.cfg.Region), url.PathEscape(model), method)
}

func transport(ctx context.Context, err error) *llm.Error {
	var ne net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return &llm.Error{Status: http.StatusGatewayTimeout, Type: llm.ErrTimeout, Message: "the upstream LLM did not answer in time"}
	}
	return &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "cannot reach the upstream LLM"}
}

// post sends body to u with the bearer token and returns the response of a
// successful status; the caller closes its body.
func (a *Adapter) post(ctx context.Context, u string, body []byte, token string) (*http.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "bad upstream URL"}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Authorization", "Bearer "+token)
	res, err := a.client.Do(hr)
	if err != nil {
		return nil, transport(ctx, err)
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		// Only the error's message is echoed, nothing else of the body.
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		msg := "the upstream LLM answered HTTP " + http.StatusText(res.StatusCode)
		if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		return nil, &llm.Error{Status: res.StatusCode, Type: llm.ErrStatus, Message: msg}
	}
	return res, nil
}

// wireResponse is a GenerateContentResponse, whole or one streamed piece.
type wireResponse struct {
	Candidates []struct {
		Content struct {
			Parts []part `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata struct {
		PromptTokenCount     int64 `json:"promptTokenCount"`
		CandidatesTokenCount int64 `json:"candidatesTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
}

func (a *Adapter) once(ctx context.Context, u string, body []byte, token, model string) (llm.Response, error) {
	res, err := a.post(ctx, u, body, token)
	if err != nil {
		return llm.Response{}, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return llm.Response{}, transport(ctx, err)
	}
	var w wireResponse
	if err := json.Unmarshal(raw, &w); err != nil || len(w.Candidates) == 0 {
		return llm.Response{}, &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrBadResponse, Message: "the upstream answered with an unreadable generateContent response"}
	}
	var text strings.Builder
	for _, p := range w.Candidates[0].Content.Parts {
		text.WriteString(p.Text)
	}
	m := w.ModelVersion
	if m == "" {
		m = model
	}
	return llm.Response{Content: text.String(), Model: m, FinishReason: finish[w.Candidates[0].FinishReason],
		Usage: llm.Usage{PromptTokens: w.UsageMetadata.PromptTokenCount, CompletionTokens: w.UsageMetadata.CandidatesTokenCount}}, nil
}

type serviceAccount struct {
	Type        string `json:"type"`
	ClientEmail string `json:"client_email"`
	PrivateKey  string `json:"private_key"`
	TokenURI    string `json:"token_uri"`
}

// token returns the bearer token: the credential itself, or one minted
// from a service-account key.
func (a *Adapter) token(ctx context.Context, cred string) (string, error) {
	if !strings.HasPrefix(strings.TrimSpace(cred), "{") {
		return cred, nil
	}
	var sa serviceAccount
	if err := json.Unmarshal([]byte(cred), &sa); err != nil || sa.ClientEmail == "" || sa.PrivateKey == "" || sa.TokenURI == "" {
		return "", &llm.Error{Status: http.StatusBadRequest, Type: llm.ErrStatus, Message: "the Vertex credential is neither an access token nor a service-account key"}
	}
	now := a.now()
	a.mu.Lock()
	if t, ok := a.tokens[sa.ClientEmail]; ok && now.Before(t.expires.Add(-time.Minute)) {
		a.mu.Unlock()
		return t.token, nil
	}
	a.mu.Unlock()
	assertion, err := signJWT(sa, now)
	if err != nil {
		return "", &llm.Error{Status: http.StatusBadRequest, Type: llm.ErrStatus, Message: "the service-account private key cannot sign: " + err.Error()}
	}
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, sa.TokenURI, strings.NewReader(form.Encode()))
	if err != nil {
		return "", &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrNetwork, Message: "bad token_uri"}
	}
	hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := a.client.Do(hr)
	if err != nil {
		return "", transport(ctx, err)
	}
	defer res.Body.Close()
	var tr struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&tr) != nil || tr.AccessToken == "" {
		return "", &llm.Error{Status: http.StatusBadGateway, Type: llm.ErrStatus, Message: fmt.Sprintf("the Google token endpoint refused the service account (HTTP %d)", res.StatusCode)}
	}
	a.mu.Lock()
	a.tokens[sa.ClientEmail] = cachedToken{token: tr.AccessToken, expires: now.Add(time.Duration(tr.ExpiresIn) * time.Second)}
	a.mu.Unlock()
	return tr.AccessToken, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// signJWT builds the RS256 assertion of Google's service-account flow.
func signJWT(sa serviceAccount, now time.Time) (string, error) {
	block, _ := pem.Decode([]byte(sa.PrivateKey))
	if block == nil {
		return "", errors.New("no PEM block")
	}
	var key *rsa.PrivateKey
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return "", errors.New("not an RSA key")
		}
		key = rk
	} else if rk, err2 := x509.ParsePKCS1PrivateKey(block.Bytes); err2 == nil {
		key = rk
	} else {
		return "", err
	}
	header := b64([]byte(`{"alg":"RS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"iss": sa.ClientEmail, "scope": Scope, "aud": sa.TokenURI,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	signing := header + "." + b64(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	return signing + "." + b64(sig), nil
}
