package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm/llmfake"
	"github.com/governance-gateway/gateway/schemas"
)

// TestProxyToolCallGovernance: in verify and full (not streamed) the proxy
// judges the arguments of the upstream's tool calls with the post-flight
// rules; observe and guard pass them through.
func TestProxyToolCallGovernance(t *testing.T) {
	const body = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"please handle it"}],"tools":[{"type":"function","function":{"name":"send_email","parameters":{"type":"object"}}}]}`
	secretCall := oneCall("call_1", "send_email", `{"to":"ops@corp.example","body":"the key is `+toolSecret+`"}`)
	tests := []struct {
		name, mode string
		policy     []map[string]any // nil: the default policy
		reply      llmfake.Reply
		verdict    string // "block", "rewrite" or "same" (byte for byte the upstream's)
		args       string // rewrite: the arguments returned (the first call)
		content    any    // rewrite: the content returned
		decision   string // the trace's final_decision
		hits       []string
		never      string // never in the response (unless "same") nor on the log
	}{
		{"verify blocks a secret in the arguments", "verify", nil, llmfake.Reply{ToolCalls: secretCall},
			"block", "", nil, "block", []string{"secrets.aws_access_key_id", "pii.email"}, toolSecret},
		{"full blocks a secret in the arguments", "full", nil, llmfake.Reply{ToolCalls: secretCall},
			"block", "", nil, "block", []string{"secrets.aws_access_key_id", "pii.email"}, toolSecret},
		{"observe passes the secret through", "observe", nil, llmfake.Reply{ToolCalls: secretCall},
			"same", "", nil, "pass", nil, ""},
		{"guard has no post-flight", "guard", nil, llmfake.Reply{ToolCalls: secretCall},
			"same", "", nil, "allow", nil, ""},
		{"one call of two blocks the answer", "verify", nil, llmfake.Reply{ToolCalls: `[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},` +
			`{"id":"c2","type":"function","function":{"name":"upload","arguments":"{\"data\":\"` + toolSecret + `\"}"}}]`},
			"block", "", nil, "block", []string{"secrets.aws_access_key_id"}, toolSecret},
		{"arguments sent as an object are judged whole", "verify", nil, llmfake.Reply{ToolCalls: `[{"id":"c1","type":"function","function":{"name":"upload","arguments":{"data":"` + toolSecret + `"}}}]`},
			"block", "", nil, "block", []string{"secrets.aws_access_key_id"}, toolSecret},
		{"a custom tool's input is judged", "verify", nil, llmfake.Reply{ToolCalls: `[{"id":"c1","type":"custom","custom":{"name":"shell","input":"echo ` + toolSecret + `"}}]`},
			"block", "", nil, "block", []string{"secrets.aws_access_key_id"}, toolSecret},
		{"email rewritten inside the JSON arguments", "verify", rewritePolicy,
			llmfake.Reply{ToolCalls: oneCall("call_1", "send_email", `{"to":"`+toolEmail+`","subject":"Hi \"Jane\"","cc":["bob@corp.com"],"n":2}`)},
			"rewrite", `{"to":"[EMAIL]","subject":"Hi \"Jane\"","cc":["[EMAIL]"],"n":2}`, nil, "rewrite", []string{"pii.email"}, toolEmail},
		{"content and arguments both rewritten", "full", rewritePolicy,
			llmfake.Reply{Content: "Writing to " + toolEmail, ToolCalls: oneCall("call_1", "send_email", `{"to":"`+toolEmail+`"}`)},
			"rewrite", `{"to":"[EMAIL]"}`, "Writing to [EMAIL]", "rewrite", []string{"pii.email", "pii.email"}, toolEmail},
		{"allow and record", "verify", []map[string]any{rulePostPIIRecord},
			llmfake.Reply{ToolCalls: oneCall("call_1", "send_email", `{"to":"`+toolEmail+`"}`)},
			"same", "", nil, "allow", []string{"pii.email"}, ""},
		{"clean call byte for byte", "full", nil,
			llmfake.Reply{ToolCalls: oneCall("call_1", "get_weather", `{ "city" : "Paris",	"note": "a<b & \"c\" \u00e9" }`)},
			"same", "", nil, "allow", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pe := newProxyEnv(t, "")
			if tt.policy != nil {
				setPolicy(t, pe.env, pe.acct, pe.appID, tt.policy...)
			}
			pe.fake.Push(tt.reply)
			upstream := pe.direct(t, body) // the same reply, straight from the upstream
			pe.fake.Push(tt.reply)
			r := pe.call(body, "X-Service-Mode", tt.mode)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			require.Equal(t, tt.mode, r.Header.Get("X-Service-Mode"))
			switch tt.verdict {
			case "same":
				require.Equal(t, string(upstream), string(r.Body), "the upstream's body byte for byte")
			case "block":
				m := r.JSON(t)
				ch := m["choices"].([]any)[0].(map[string]any)
				require.Equal(t, map[string]any{"role": "assistant", "content": proxyBlockNotice}, ch["message"], "no tool_calls left")
				require.Equal(t, "content_filter", ch["finish_reason"])
				require.Equal(t, "service_blocked", m["system_fingerprint"])
				require.True(t, strings.HasPrefix(m["id"].(string), "chatcmpl-svc-"))
				require.Regexp(t, `^secrets\.aws_access_key_id \(confidence 0\.\d\d\)$`, m["svc_block"].(map[string]any)["reason"], "names the policy and a confidence")
				require.Equal(t, map[string]any{"prompt_tokens": 0.0, "completion_tokens": 0.0, "total_tokens": 0.0}, m["usage"])
			case "rewrite":
				m := r.JSON(t)
				msg := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
				require.Equal(t, tt.content, msg["content"])
				args := msg["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)
				require.Equal(t, tt.args, args)
				require.True(t, json.Valid([]byte(args)), "the arguments stay JSON")
				// Everything but the replaced strings is the upstream's.
				var want, got map[string]any
				require.NoError(t, json.Unmarshal(upstream, &want))
				require.NoError(t, json.Unmarshal(r.Body, &got))
				wmsg := want["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
				wmsg["content"] = tt.content
				wmsg["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"] = tt.args
				require.Equal(t, want, got)
			}
			if tt.never != "" {
				require.NotContains(t, string(r.Body), tt.never)
			}
			tr := pe.traces(t, 1)[0].Trace
			require.Equal(t, tt.decision, tr.FinalDecision)
			require.Equal(t, map[string]string{"block": schemas.StatusBlocked, "rewrite": schemas.StatusRewritten, "pass": schemas.StatusOK, "allow": schemas.StatusOK}[tt.decision], tr.Status)
			var hits []string
			for _, h := range tr.PolicyHits {
				hits = append(hits, h.Policy)
				require.Equal(t, "post-flight", h.Stage)
			}
			require.Equal(t, tt.hits, hits)
			require.Positive(t, tr.CompletionTokens+tr.PromptTokens, "the upstream was called and paid")
			require.NoError(t, tr.Validate())
			logged, err := json.Marshal(pe.log.all())
			require.NoError(t, err)
			if tt.never != "" {
				require.NotContains(t, string(logged), tt.never, "the log never holds the un-redacted value")
			}
			if tt.verdict == "rewrite" {
				require.Equal(t, tt.content == nil, tr.Answer == "", "the trace keeps the (redacted) content only")
			}
		})
	}
}

// TestProxyToolCallRewriteKeepsBytes: a rewrite replaces only the redacted
// arguments' string; the upstream's formatting, key order, escapes and
// unknown members are kept. Also the legacy function_call shape, and a
// stream (verify is downgraded to observe: its calls pass unchecked).
func TestProxyToolCallRewriteKeepsBytes(t *testing.T) {
	upURL, setReply := scriptedUpstream(t)
	pe := newProxyEnv(t, upURL)
	setPolicy(t, pe.env, pe.acct, pe.appID, rewritePolicy...)
	const upstreamBody = "{\n  \"zeta\": 1.000000000000000000001,\n  \"id\": \"chatcmpl-x\", \"object\": \"chat.completion\", \"model\": \"gpt-4o-mini\",\n" +
		"  \"choices\": [ { \"index\": 0, \"message\": { \"role\": \"assistant\", \"content\": null, \"refusal\": null,\n" +
		"    \"tool_calls\": [ {\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Caf\\u00e9 \\u003cParis\\u003e\\\"}\"}},\n" +
		"                    {\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"send_email\",\"arguments\":\"{\\\"to\\\": \\\"jane.doe@example.com\\\", \\\"note\\\":\\\"caf\\u00e9 <b>\\\"}\"}} ] },\n" +
		"    \"finish_reason\": \"tool_calls\" } ],\n  \"usage\": {\"prompt_tokens\": 5, \"completion_tokens\": 7, \"total_tokens\": 12}\n}\n"
	tests := []struct {
		name, upstream, body, mode, want string
		decision                         string
	}{
		{"only the redacted string changes", upstreamBody, chatBody, "verify",
			strings.Replace(upstreamBody, `"{\"to\": \"jane.doe@example.com\", \"note\":\"caf\u00e9 <b>\"}"`,
				`"{\"to\": \"[EMAIL]\", \"note\":\"café <b>\"}"`, 1), "rewrite"},
		{"legacy function_call", `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,` +
			`"function_call":{"name":"send_email","arguments":"{\"to\":\"jane.doe@example.com\"}"}},"finish_reason":"function_call"}]}`, chatBody, "verify",
			`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,` +
				`"function_call":{"name":"send_email","arguments":"{\"to\":\"[EMAIL]\"}"}},"finish_reason":"function_call"}]}`, "rewrite"},
		{"streamed: verify is observe, passed through", "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"type\":\"function\"," +
			"\"function\":{\"name\":\"send_email\",\"arguments\":\"{\\\"to\\\":\\\"jane.doe@example.com\\\"}\"}}]}}]}\n\ndata: [DONE]\n\n",
			`{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}`, "observe", "", "pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setReply(tt.upstream)
			r := pe.call(tt.body, "X-Service-Mode", "verify")
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			require.Equal(t, tt.mode, r.Header.Get("X-Service-Mode"))
			want := tt.want
			if want == "" {
				want = tt.upstream
			}
			require.Equal(t, want, string(r.Body))
			tr := pe.traceOf(t, r)
			require.Equal(t, tt.decision, tr.FinalDecision)
		})
	}
}

// TestReviewProxyToolCallsCheap: an answer without tool calls is not decoded
// nor judged (a judge without a policy would panic).
func TestReviewProxyToolCallsCheap(t *testing.T) {
	rv := reviewProxyToolCalls(judge{}, []byte(`{"choices":[{"message":{"role":"assistant","content":"hi"}}]}`))
	require.Empty(t, rv.calls)
	require.Empty(t, rv.edits)
	require.Empty(t, rv.governance)
}

// TestProxyEveryChoiceGoverned: a request with "n": 2 gets every choice
// judged, its content and its tool calls; the trace keeps choice 0. A
// stream of two choices keeps choice 0's text in the trace.
func TestProxyEveryChoiceGoverned(t *testing.T) {
	upURL, setReply := scriptedUpstream(t)
	pe := newProxyEnv(t, upURL)
	setPolicy(t, pe.env, pe.acct, pe.appID, rewritePolicy...)
	two := func(second string) string {
		return `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"All good."},"finish_reason":"stop"},` +
			`{"index":1,"message":` + second + `,"finish_reason":"stop"}]}`
	}
	const nBody = `{"model":"gpt-4o-mini","n":2,"messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name, upstream, want, decision string
		hits                           []string
	}{
		{"second content rewritten", two(`{"role":"assistant","content":"Mail ` + toolEmail + `."}`),
			two(`{"role":"assistant","content":"Mail [EMAIL]."}`), "rewrite", []string{"pii.email"}},
		{"second content blocks", two(`{"role":"assistant","content":"The key is ` + toolSecret + `."}`),
			"", "block", []string{"secrets.aws_access_key_id"}},
		{"second choice's tool call rewritten", two(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"send_email","arguments":"{\"to\":\"` + toolEmail + `\"}"}}]}`),
			two(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"send_email","arguments":"{\"to\":\"[EMAIL]\"}"}}]}`), "rewrite", []string{"pii.email"}},
		{"clean choices byte for byte", two(`{"role":"assistant","content":"Also fine."}`), "", "allow", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setReply(tt.upstream)
			r := pe.call(nBody, "X-Service-Mode", "verify")
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			switch tt.decision {
			case "block":
				require.Equal(t, "service_blocked", r.JSON(t)["system_fingerprint"])
				require.NotContains(t, string(r.Body), toolSecret)
			case "allow":
				require.Equal(t, tt.upstream, string(r.Body))
			default:
				require.Equal(t, tt.want, string(r.Body))
			}
			tr := pe.traceOf(t, r)
			require.Equal(t, tt.decision, tr.FinalDecision)
			var hits []string
			for _, h := range tr.PolicyHits {
				hits = append(hits, h.Policy)
			}
			require.Equal(t, tt.hits, hits)
			if tt.decision != "block" {
				require.Equal(t, "All good.", tr.Answer, "the trace keeps choice 0")
			}
		})
	}

	t.Run("stream of two choices", func(t *testing.T) {
		setReply("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"Bonjour\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\" le monde\"}}]}\n\ndata: [DONE]\n\n")
		r := pe.call(`{"model":"gpt-4o-mini","n":2,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		tr := pe.traceOf(t, r)
		require.Equal(t, "Hello world", tr.Answer)
		require.Greater(t, tr.CompletionTokens, int64(2), "both choices' tokens are counted")
	})
}
