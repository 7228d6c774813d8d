package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/llmfake"
	"github.com/governance-gateway/gateway/ingest/llm/openai"
	"github.com/governance-gateway/gateway/schemas"
	"github.com/governance-gateway/gateway/topics"
)

const verifyLLMKey = "sk-verify-byok-secret-4242"

// regenUpstream is an OpenAI-format fake LLM that records the keys it was
// sent and can be told to stall (a call that times out).
type regenUpstream struct {
	fake  *llmfake.Server
	stall atomic.Bool
	mu    sync.Mutex
	keys  []string
}

func (u *regenUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.keys = append(u.keys, r.Header.Get("Authorization"))
	u.mu.Unlock()
	if u.stall.Load() {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Second):
		}
		return
	}
	u.fake.ServeHTTP(w, r)
}

func (u *regenUpstream) calls() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.keys)
}

func (u *regenUpstream) lastKey() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.keys[len(u.keys)-1]
}

type verifyRegenEnv struct {
	*env
	up   *regenUpstream
	acct account
	app  createdApp // BYOK OpenAI LLM, a post-flight pii regenerate rule
	logs *syncBuffer
}

func newVerifyRegenEnv(t *testing.T, opts ...envOpt) *verifyRegenEnv {
	up := &regenUpstream{fake: &llmfake.Server{}}
	srv := httptest.NewServer(up)
	t.Cleanup(srv.Close)
	logs := &syncBuffer{}
	e := newEnv(t, append([]envOpt{withMasterKey, func(c *Config, d *Deps) {
		d.Providers = map[string]llm.Provider{llm.OpenAI: openai.New(llm.Config{BaseURL: srv.URL, RetryDelay: time.Millisecond, Timeout: 300 * time.Millisecond})}
		d.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}}, opts...)...)
	a := e.signup("verify-regen@example.com")
	app := e.createApp(a, map[string]any{"name": "checker", "mode": "verify", "provider": "openai", "model": "gpt-4o-mini", "llm_api_key": verifyLLMKey})
	regeneratePolicy(t, e, a, app)
	return &verifyRegenEnv{env: e, up: up, acct: a, app: app, logs: logs}
}

// TestVerifyRegenerate: a Verify application with an LLM regenerates a
// withheld answer from the request's prompt; the new answer is judged
// again, at most MaxRegenerations calls; a failed call falls back to the
// decision without regenerate and is noted on the trace.
func TestVerifyRegenerate(t *testing.T) {
	ve := newVerifyRegenEnv(t)
	boom := llmfake.Reply{Status: 500, Body: `{"error":{"message":"boom","type":"server_error"}}`}
	const violating = "Mail jane.doe@example.com"
	tests := []struct {
		name       string
		script     []llmfake.Reply
		stall      bool
		body       map[string]any
		governance string
		answer     string
		status     string
		calls      int            // LLM requests received (a 5xx is retried once)
		meta       map[string]any // expected members of the trace's metadata
		failure    string         // regenerate_error_type, "" for none
		withheld   bool           // the caller's answer was replaced: its finding is on the trace
	}{
		{name: "regenerated", script: []llmfake.Reply{{Content: "Please use the contact form."}},
			body:       map[string]any{"prompt": "contact?", "answer": violating},
			governance: "regenerate", answer: "Please use the contact form.", status: schemas.StatusRegenerated, calls: 1,
			meta: map[string]any{"regenerate_calls": 1.0, "regenerate_provider": "openai", "regenerate_model": "gpt-4o-mini"}, withheld: true},
		{name: "second attempt passes", script: []llmfake.Reply{{Content: "x@y.io"}, {Content: "Use the form."}},
			body:       map[string]any{"prompt": "contact?", "answer": violating},
			governance: "regenerate", answer: "Use the form.", status: schemas.StatusRegenerated, calls: 2,
			meta: map[string]any{"regenerate_calls": 2.0}, withheld: true},
		{name: "keeps violating: bounded, then rewrite", script: []llmfake.Reply{{Content: "a@b.io"}, {Content: "c@d.io"}},
			body:       map[string]any{"prompt": "contact?", "answer": violating},
			governance: "rewrite", answer: "[EMAIL]", status: schemas.StatusRewritten, calls: MaxRegenerations,
			meta: map[string]any{"regenerate_calls": float64(MaxRegenerations)}, withheld: true},
		{name: "upstream 500: the caller's answer is rewritten", script: []llmfake.Reply{boom, boom},
			body:       map[string]any{"prompt": "contact?", "answer": violating},
			governance: "rewrite", answer: "Mail [EMAIL]", status: schemas.StatusRewritten, calls: 2,
			meta: map[string]any{"regenerate_calls": 0.0, "regenerate_http_status": 500.0}, failure: llm.ErrStatus},
		{name: "second call fails: the first new answer is judged", script: []llmfake.Reply{{Content: "Write to x@y.io"}, boom, boom},
			body:       map[string]any{"prompt": "contact?", "answer": violating},
			governance: "rewrite", answer: "Write to [EMAIL]", status: schemas.StatusRewritten, calls: 3,
			meta: map[string]any{"regenerate_calls": 1.0}, failure: llm.ErrStatus, withheld: true},
		{name: "upstream timeout", stall: true,
			body:       map[string]any{"prompt": "contact?", "answer": violating},
			governance: "rewrite", answer: "Mail [EMAIL]", status: schemas.StatusRewritten, calls: 1,
			meta: map[string]any{"regenerate_http_status": 504.0}, failure: llm.ErrTimeout},
		{name: "empty new answer", script: []llmfake.Reply{{ToolCalls: `[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]`}},
			body:       map[string]any{"prompt": "contact?", "answer": violating},
			governance: "rewrite", answer: "Mail [EMAIL]", status: schemas.StatusRewritten, calls: 1,
			meta: map[string]any{"regenerate_calls": 1.0}, failure: llm.ErrBadResponse},
		{name: "no prompt: nothing to regenerate from",
			body:       map[string]any{"answer": violating},
			governance: "rewrite", answer: "Mail [EMAIL]", status: schemas.StatusRewritten, calls: 0},
		{name: "blank prompt: nothing to regenerate from",
			body:       map[string]any{"prompt": "  ", "answer": violating},
			governance: "rewrite", answer: "Mail [EMAIL]", status: schemas.StatusRewritten, calls: 0},
		{name: "nothing fires: no call",
			body:       map[string]any{"prompt": "contact?", "answer": "Use the contact form."},
			governance: "allow", answer: "Use the contact form.", status: schemas.StatusOK, calls: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ve.log.reset()
			ve.up.stall.Store(tt.stall)
			defer ve.up.stall.Store(false)
			ve.up.fake.Push(tt.script...)
			before := ve.up.calls()
			r := ve.postVerify(ve.app.Key, tt.body)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			m := r.JSON(t)
			require.Equal(t, tt.governance, m["governance"])
			require.Equal(t, tt.answer, m["answer"])
			require.Equal(t, tt.answer != tt.body["answer"], m["answer_changed"])
			require.Equal(t, tt.calls, ve.up.calls()-before, "LLM calls")
			if tt.governance == "regenerate" {
				require.Equal(t, "pii.email", m["reasons"].([]any)[0].(map[string]any)["policy"], "the reasons say why the answer was regenerated")
				require.Contains(t, m["explanation"].(map[string]any)["summary"], "regenerated")
			}

			envs := ve.log.all()
			require.Len(t, envs, 1)
			tr := envs[0].Trace
			require.Equal(t, m["request_id"], tr.RequestID)
			require.Equal(t, tt.status, tr.Status)
			require.Equal(t, tt.governance, tr.FinalDecision)
			require.Equal(t, tt.answer, tr.Answer)
			require.NoError(t, tr.Validate())
			// The finding that withheld the caller's answer is on the trace
			// (spec 2: the policies that fired), without spans: they index
			// an answer the trace does not keep.
			var spanless []schemas.PolicyHit
			for _, h := range tr.PolicyHits {
				if len(h.Spans) == 0 {
					spanless = append(spanless, h)
				}
			}
			if tt.withheld {
				require.Len(t, spanless, 1, "%+v", tr.PolicyHits)
				require.Equal(t, "pii.email", spanless[0].Policy)
				require.Equal(t, "post-flight", spanless[0].Stage)
				require.Equal(t, spanless[0], tr.PolicyHits[0], "first: it decided")
			} else {
				require.Empty(t, spanless, "%+v", tr.PolicyHits)
			}
			// The trace's tokens are Verify's counted ones (what Verify
			// bills), whatever the LLM used.
			u := countVerifyUsage("", fmt.Sprint(tt.body["prompt"]), tt.body["answer"].(string), "")
			if tt.body["prompt"] == nil {
				u = countVerifyUsage("", "", tt.body["answer"].(string), "")
			}
			require.Equal(t, u.prompt, tr.PromptTokens)
			require.Equal(t, u.completion, tr.CompletionTokens)
			var meta map[string]any
			require.NoError(t, json.Unmarshal(tr.Metadata, &meta))
			for k, v := range tt.meta {
				require.Equal(t, v, meta[k], "metadata.%s in %s", k, tr.Metadata)
			}
			if tt.meta == nil {
				for k := range meta {
					require.False(t, strings.HasPrefix(k, "regenerate"), "no LLM call, no regenerate metadata: %s", tr.Metadata)
				}
				require.Nil(t, tr.CostUSD, "no LLM call: cost_usd stays unset, as before")
				return
			}
			usage := meta["regenerate_usage"].(map[string]any)
			require.NotNil(t, tr.CostUSD)
			require.InDelta(t, (usage["prompt_tokens"].(float64)*0.15+usage["completion_tokens"].(float64)*0.60)/1e6, *tr.CostUSD, 1e-15,
				"cost_usd is the LLM calls' list price")
			if meta["regenerate_calls"].(float64) > 0 && tt.failure != llm.ErrBadResponse {
				require.Positive(t, usage["completion_tokens"])
			}
			if tt.failure == "" {
				require.NotContains(t, meta, "regenerate_error")
			} else {
				require.Equal(t, tt.failure, meta["regenerate_error_type"])
				require.NotEmpty(t, meta["regenerate_error"])
			}
			require.Equal(t, "Bearer "+verifyLLMKey, ve.up.lastKey(), "the application's BYOK key")
		})
	}
}

// TestVerifyRegenerateMessages: the LLM gets the prompt, the tool_result as
// context (redacted as Full Control redacts tool output), the withheld
// answer and Full Control's corrective notice as the last, user, turn.
func TestVerifyRegenerateMessages(t *testing.T) {
	ve := newVerifyRegenEnv(t)
	ve.up.fake.Push(llmfake.Reply{Content: "Refunds within 30 days."})
	r := ve.postVerify(ve.app.Key, map[string]any{"prompt": "refund policy?", "answer": "Ask bob@example.com",
		"tool_result": "Refunds within 30 days.", "model": "caller-model", "provider": "caller-vendor"})
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	require.Equal(t, "regenerate", r.JSON(t)["governance"])
	rec := ve.up.fake.Received()
	require.Len(t, rec, 1)
	var sent struct {
		Model    string           `json:"model"`
		Messages []map[string]any `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(rec[0], &sent))
	require.Equal(t, "gpt-4o-mini", sent.Model, "the application's model, not the caller's")
	require.Len(t, sent.Messages, 4)
	require.Equal(t, "system", sent.Messages[0]["role"])
	require.Contains(t, sent.Messages[0]["content"], "Refunds within 30 days.")
	require.Equal(t, map[string]any{"role": "user", "content": "refund policy?"}, sent.Messages[1])
	require.Equal(t, map[string]any{"role": "assistant", "content": "Ask bob@example.com"}, sent.Messages[2])
	require.Equal(t, "user", sent.Messages[3]["role"])
	// The first reason names what was withheld: the e-mail, or the claim
	// the tool result does not support (grounding).
	why := r.JSON(t)["reasons"].([]any)[0].(map[string]any)["policy"]
	require.Equal(t, fmt.Sprintf(regenerateNotice, why, why), sent.Messages[3]["content"])
	tr := ve.log.all()[0].Trace
	require.Equal(t, "caller-vendor", tr.Provider, "the trace names the caller's LLM")
	require.Equal(t, "caller-model", tr.Model)
}

// TestVerifyRegenerateKeyNeverShown: the BYOK key reaches the LLM only:
// not the response, the trace, or the logs, also when the upstream echoes
// it in an error message.
func TestVerifyRegenerateKeyNeverShown(t *testing.T) {
	ve := newVerifyRegenEnv(t)
	echo := llmfake.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + verifyLLMKey + `","type":"invalid_request_error"}}`}
	ve.up.fake.Push(llmfake.Reply{Content: "Use the form."}, echo)
	var bodies []string
	for range 2 {
		r := ve.postVerify(ve.app.Key, map[string]any{"prompt": "contact?", "answer": "Mail jane.doe@example.com"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		bodies = append(bodies, string(r.Body))
	}
	require.Contains(t, bodies[0], `"governance":"regenerate"`)
	require.Contains(t, bodies[1], `"governance":"rewrite"`)
	envs := ve.log.all()
	require.Len(t, envs, 2)
	require.Contains(t, string(envs[1].Trace.Metadata), "Incorrect API key provided: [REDACTED]")
	for _, e := range envs {
		raw, err := e.Marshal()
		require.NoError(t, err)
		bodies = append(bodies, string(raw))
	}
	apps := ve.do("GET", "/api/console/apps", nil, bearer(ve.acct.token)...)
	bodies = append(bodies, string(apps.Body), ve.logs.String())
	for _, b := range bodies {
		require.NotContains(t, b, verifyLLMKey)
		require.NotContains(t, b, "sk-verify-byok")
	}
	require.Contains(t, ve.logs.String(), "verify regenerate failed", "the failure is logged")
}

// TestVerifyRegenerateManaged: a Managed Verify application regenerates
// with the operator's key; without that key, or the provider's adapter, on
// the server the answer is judged without regenerate and the trace says why.
func TestVerifyRegenerateManaged(t *testing.T) {
	body := map[string]any{"prompt": "contact?", "answer": "Mail jane.doe@example.com"}
	managedApp := func(ve *verifyRegenEnv, provider string) createdApp {
		app := ve.createApp(ve.acct, map[string]any{"name": provider, "mode": "verify", "provider_option": "managed", "provider": provider, "model": "gpt-4o-mini"})
		regeneratePolicy(t, ve.env, ve.acct, app)
		return app
	}
	ve := newVerifyRegenEnv(t, func(c *Config, _ *Deps) { c.ManagedKeys = map[string]string{llm.OpenAI: "sk-managed-test"} })
	ve.up.fake.Push(llmfake.Reply{Content: "Use the form."})
	m := ve.postVerify(managedApp(ve, llm.OpenAI).Key, body).JSON(t)
	require.Equal(t, "regenerate", m["governance"])
	require.Equal(t, "Bearer sk-managed-test", ve.up.lastKey())

	noKey := newVerifyRegenEnv(t)
	for _, tt := range []struct {
		env      *verifyRegenEnv
		provider string
		status   string
	}{
		{noKey, llm.OpenAI, `"regenerate_http_status":503`}, // no Managed key
		{ve, llm.Anthropic, `"regenerate_http_status":501`}, // no adapter
	} {
		tt.env.log.reset()
		r := tt.env.postVerify(managedApp(tt.env, tt.provider).Key, body)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		require.Equal(t, "rewrite", r.JSON(t)["governance"])
		meta := string(tt.env.log.all()[0].Trace.Metadata)
		require.Contains(t, meta, `"regenerate_error_type":"llm_unavailable"`)
		require.Contains(t, meta, tt.status, meta)
	}
	require.Zero(t, noKey.up.calls())
}

// TestVerifyWithoutLLMUnchanged: an application without an LLM (also one
// with a provider and model but no provider_option, as before) never calls
// one: a regenerate rule acts as rewrite or block.
func TestVerifyWithoutLLMUnchanged(t *testing.T) {
	ve := newVerifyRegenEnv(t)
	for _, body := range []map[string]any{
		{"name": "plain", "mode": "verify"},
		{"name": "described", "mode": "verify", "provider": "openai", "model": "gpt-4o-mini"},
	} {
		app := ve.createApp(ve.acct, body)
		regeneratePolicy(t, ve.env, ve.acct, app)
		ve.log.reset()
		m := ve.postVerify(app.Key, map[string]any{"prompt": "contact?", "answer": "Mail jane.doe@example.com"}).JSON(t)
		require.Equal(t, "rewrite", m["governance"])
		require.Equal(t, "Mail [EMAIL]", m["answer"])
		tr := ve.log.all()[0].Trace
		require.NotContains(t, string(tr.Metadata), "regenerate")
		require.Nil(t, tr.CostUSD)
	}
	require.Empty(t, ve.up.fake.Received())
}

// TestVerifyRegenerateLogDown: the regenerated decision is recorded before
// the answer; a log that cannot take it is the only 5xx.
func TestVerifyRegenerateLogDown(t *testing.T) {
	ve := newVerifyRegenEnv(t)
	ve.log.failWith(fmt.Errorf("produce: %w", topics.ErrUnavailable))
	ve.up.fake.Push(llmfake.Reply{Content: "Use the form."})
	r := ve.postVerify(ve.app.Key, map[string]any{"prompt": "contact?", "answer": "Mail jane.doe@example.com"})
	requireError(t, r, http.StatusServiceUnavailable)
	require.NotContains(t, string(r.Body), "Use the form.")
}
