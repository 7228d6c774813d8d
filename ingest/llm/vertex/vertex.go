// Package vertex is the Google Vertex AI adapter for Gemini models:
// POST {endpoint}/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent
// with an OAuth bearer token. The credential is either an access token or
// a service-account key (JSON), from which the adapter mints tokens itself
// (a self-signed RS256 JWT exchanged at the key's token_uri) and caches them
// until shortly before they expire.
package vertex

import (
	"bytes"
	"cmp"
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
	Text             string            `json:"text,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
}

type functionCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type functionResponse struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type turn struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

type functionDeclaration struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Body translates req to a generateContent request. OpenAI tools become
// functionDeclarations; an assistant's tool_calls become functionCall parts
// of a model turn; a tool message becomes a functionResponse part of a user
// turn, named after the call it answers (Gemini matches results to calls by
// function name: the tool_call_id is looked up in the earlier tool_calls).
func Body(req llm.Request) ([]byte, error) {
	w := struct {
		Contents          []turn         `json:"contents"`
		SystemInstruction *turn          `json:"systemInstruction,omitempty"`
		Tools             []any          `json:"tools,omitempty"`
		ToolConfig        map[string]any `json:"toolConfig,omitempty"`
		GenerationConfig  map[string]any `json:"generationConfig,omitempty"`
	}{}
	add := func(role string, p part) {
		if n := len(w.Contents); n > 0 && w.Contents[n-1].Role == role {
			w.Contents[n-1].Parts = append(w.Contents[n-1].Parts, p)
			return
		}
		w.Contents = append(w.Contents, turn{Role: role, Parts: []part{p}})
	}
	var system []part
	callNames := map[string]string{} // tool_call_id -> function name
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = append(system, part{Text: m.Content})
		case "assistant":
			if m.Content != "" || len(m.ToolCalls) == 0 {
				add("model", part{Text: m.Content})
			}
			if len(m.ToolCalls) > 0 {
				calls, err := llm.ParseToolCalls(m.ToolCalls)
				if err != nil {
					return nil, fmt.Errorf("vertex: %w", err)
				}
				for _, c := range calls {
					callNames[c.ID] = c.Name
					add("model", part{FunctionCall: &functionCall{Name: c.Name, Args: c.Arguments}})
				}
			}
		case "tool":
			name := cmp.Or(callNames[m.ToolCallID], m.Name, m.ToolCallID)
			// Gemini wants an object: JSON objects go as they are, anything
			// else is wrapped as {"content": ...}.
			resp := json.RawMessage(strings.TrimSpace(m.Content))
			if len(resp) == 0 || resp[0] != '{' || !json.Valid(resp) {
				resp, _ = json.Marshal(map[string]string{"content": m.Content})
			}
			add("user", part{FunctionResponse: &functionResponse{Name: name, Response: resp}})
		default:
			add("user", part{Text: m.Content})
		}
	}
	if len(system) > 0 {
		w.SystemInstruction = &turn{Role: "system", Parts: system}
	}
	if len(req.Tools) > 0 {
		tools, err := llm.ParseTools(req.Tools)
		if err != nil {
			return nil, fmt.Errorf("vertex: %w", err)
		}
		decls := make([]functionDeclaration, len(tools))
		for i, t := range tools {
			decls[i] = functionDeclaration(t)
		}
		w.Tools = []any{map[string]any{"functionDeclarations": decls}}
	}
	gc := map[string]any{}
	if req.Temperature != nil {
		gc["temperature"] = *req.Temperature
	}
	if req.MaxTokens != nil {
		gc["maxOutputTokens"] = *req.MaxTokens
	}
	tc, err := params(gc, len(w.Tools) > 0, req)
	if err != nil {
		return nil, err
	}
	w.ToolConfig = tc
	if len(gc) > 0 {
		w.GenerationConfig = gc
	}
	return json.Marshal(w)
}

// generation maps the OpenAI sampling parameters to their generationConfig
// names.
var generation = map[string]string{"top_p": "topP", "seed": "seed", "frequency_penalty": "frequencyPenalty",
	"presence_penalty": "presencePenalty"}

// params translates the parameters beyond messages and tools into the
// generationConfig gc (top_p, seed, penalties, stop as stopSequences,
// max_completion_tokens, response_format as responseMimeType and
// responseSchema) and returns the toolConfig of tool_choice (mode AUTO,
// ANY, NONE; a named function is ANY with allowedFunctionNames). A
// parameter Gemini cannot honour (parallel_tool_calls false, logprobs,
// logit_bias...) is an llm.Unsupported error unless it is sent at its
// default.
func params(gc map[string]any, hasTools bool, req llm.Request) (toolConfig map[string]any, err error) {
	if len(req.ResponseFormat) > 0 && !llm.IsDefault("response_format", req.ResponseFormat) {
		typ, schema, err := llm.ResponseFormat(req.ResponseFormat)
		if err != nil {
			return nil, llm.Invalid(llm.Vertex, err)
		}
		gc["responseMimeType"] = "application/json"
		if typ == "json_schema" {
			gc["responseSchema"] = schema
		}
	}
	err = llm.EachParam(llm.Vertex, req.Extra, nil, func(k string, v json.RawMessage) error {
		var err error
		switch k {
		case "top_p", "seed", "frequency_penalty", "presence_penalty":
			var n float64
			if err = json.Unmarshal(v, &n); err == nil {
				gc[generation[k]] = json.RawMessage(v)
			}
		case "stop":
			gc["stopSequences"], err = llm.Stop(v)
		case "max_completion_tokens":
			var n int
			if err = json.Unmarshal(v, &n); err == nil && req.MaxTokens == nil {
				gc["maxOutputTokens"] = n
			}
		case "tool_choice":
			var mode, name string
			if mode, name, err = llm.ToolChoice(v); err != nil {
				break
			}
			if !hasTools {
				if mode == "required" || mode == "function" {
					return llm.NeedsTools(llm.Vertex)
				}
				return nil
			}
			fc := map[string]any{"mode": map[string]string{"auto": "AUTO", "none": "NONE", "required": "ANY", "function": "ANY"}[mode]}
			if mode == "function" {
				fc["allowedFunctionNames"] = []string{name}
			}
			toolConfig = map[string]any{"functionCallingConfig": fc}
		default:
			return llm.Unsupported(llm.Vertex, k, "")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return toolConfig, nil
}

// toolCalls turns the functionCall parts of an answer into OpenAI
// tool_calls. Gemini gives calls no id: the id is derived from the call's
// position, stable for one answer.
func toolCalls(parts []part) json.RawMessage {
	var calls []map[string]any
	for _, p := range parts {
		if p.FunctionCall == nil {
			continue
		}
		args := string(p.FunctionCall.Args)
		if args == "" {
			args = "{}"
		}
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%s", len(calls), p.FunctionCall.Name), "type": "function",
			"function": map[string]any{"name": p.FunctionCall.Name, "arguments": args}})
	}
	if len(calls) == 0 {
		return nil
	}
	out, _ := json.Marshal(calls)
	return out
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
	var le *llm.Error
	if errors.As(err, &le) {
		return nil, le
	}
	if err != nil {
		return nil, &llm.Error{Status: http.StatusBadRequest, Type: llm.ErrBadResponse, Message: "cannot translate the request for Vertex AI: " + err.Error()}
	}
	return body, nil
}

// endpoint is the URL of a model method (generateContent,
// streamGenerateContent?alt=sse).
func (a *Adapter) endpoint(model, method string) string {
	return fmt.Sprintf("%s/v1/projects/%s/locations/%s/publishers/google/models/%s:%s",
		a.cfg.BaseURL, url.PathEscape(a.cfg.Project), url.PathEscape(a.cfg.Region), url.PathEscape(model), method)
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
		return nil, llm.TransportError(ctx, err)
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		return nil, llm.StatusError(res)
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
	raw, err := llm.ReadAnswer(ctx, res.Body)
	if err != nil {
		return llm.Response{}, err
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
	out := llm.Response{Content: text.String(), Model: m, FinishReason: finish[w.Candidates[0].FinishReason],
		ToolCalls: toolCalls(w.Candidates[0].Content.Parts),
		Usage:     llm.Usage{PromptTokens: w.UsageMetadata.PromptTokenCount, CompletionTokens: w.UsageMetadata.CandidatesTokenCount}}
	if out.ToolCalls != nil && out.FinishReason == "stop" {
		out.FinishReason = "tool_calls" // Gemini says STOP; OpenAI clients look for tool_calls
	}
	return out, nil
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
		return "", llm.TransportError(ctx, err)
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
