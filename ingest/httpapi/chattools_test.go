package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/governance"
	"github.com/governance-gateway/gateway/ingest/llm/llmfake"
	"github.com/governance-gateway/gateway/schemas"
)

const (
	toolSecret = "AKIAIOSFODNN7EXAMPLF" // AWS access key id shape, blocked by the default policy
	toolEmail  = "jane.doe@example.com"
)

// oneCall is an OpenAI tool_calls array with one call.
func oneCall(id, name, args string) string {
	b, _ := json.Marshal([]any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}})
	return string(b)
}

var sendEmailTool = []any{map[string]any{"type": "function", "function": map[string]any{"name": "send_email", "parameters": map[string]any{"type": "object"}}}}

// setPolicy replaces the application's policy through the console.
func setPolicy(t *testing.T, e *env, acct account, appID string, rules ...map[string]any) {
	t.Helper()
	r := e.do("PUT", "/api/console/apps/"+appID+"/policy", map[string]any{"rules": rules}, bearer(acct.token)...)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
}

var (
	ruleSecretsBlock    = map[string]any{"match": "secrets", "action": "block"}
	rulePostPIIRewrite  = map[string]any{"match": "pii", "stages": []string{"post-flight"}, "action": "rewrite"}
	rulePostPIIRecord   = map[string]any{"match": "pii", "stages": []string{"post-flight"}, "action": "allow"}
	rulePostPIIRegen    = map[string]any{"match": "pii", "stages": []string{"post-flight"}, "action": "regenerate"}
	defaultPolicyMarker []map[string]any // nil: the application keeps the default policy
	rewritePolicy       = []map[string]any{ruleSecretsBlock, rulePostPIIRewrite}
)

// TestChatToolCallGovernance: the post-flight policy runs over the
// arguments of each tool call the LLM asks for (POST /v1/chat, not streamed).
func TestChatToolCallGovernance(t *testing.T) {
	tests := []struct {
		name       string
		policy     []map[string]any
		script     []llmfake.Reply
		governance string
		stage      string
		args       []string // the arguments returned, per call; nil: no tool_calls
		answer     string
		reasonTool string // the tool named by the first reason
		hits       []string
		child      []string // child traces' final_decision
		llmCalls   int
		never      string // never in the response nor on the log
	}{
		{"clean call untouched", defaultPolicyMarker,
			[]llmfake.Reply{{ToolCalls: oneCall("call_1", "get_weather", `{ "city" : "Paris",	"note": "a<b & \"c\" \u00e9" }`)}},
			"allow", "", []string{`{ "city" : "Paris",	"note": "a<b & \"c\" \u00e9" }`}, "", "", nil, []string{"allow"}, 1, ""},
		{"secret blocked", defaultPolicyMarker,
			[]llmfake.Reply{{ToolCalls: oneCall("call_1", "send_email", `{"to":"ops@corp.example","body":"the key is `+toolSecret+`"}`)}},
			"block", "post-flight", nil, DefaultFallbackForTest, "send_email", []string{"secrets.aws_access_key_id", "pii.email"}, []string{"block"}, 1, toolSecret},
		{"email rewritten inside the JSON", rewritePolicy,
			[]llmfake.Reply{{Content: "Sending it.", ToolCalls: oneCall("call_1", "send_email", `{"to":"`+toolEmail+`","subject":"Hi \"Jane\"","cc":["bob@corp.com"],"n":2}`)}},
			"rewrite", "post-flight", []string{`{"to":"[EMAIL]","subject":"Hi \"Jane\"","cc":["[EMAIL]"],"n":2}`}, "Sending it.", "send_email", []string{"pii.email"}, []string{"rewrite"}, 1, toolEmail},
		{"arguments not JSON are one string", []map[string]any{rulePostPIIRewrite},
			[]llmfake.Reply{{ToolCalls: oneCall("call_1", "notify", `mail `+toolEmail)}},
			"rewrite", "post-flight", []string{`mail [EMAIL]`}, "", "notify", []string{"pii.email"}, []string{"rewrite"}, 1, toolEmail},
		{"allow and record", []map[string]any{rulePostPIIRecord},
			[]llmfake.Reply{{ToolCalls: oneCall("call_1", "send_email", `{"to":"`+toolEmail+`"}`)}},
			"allow", "", []string{`{"to":"` + toolEmail + `"}`}, "", "", []string{"pii.email"}, []string{"allow"}, 1, ""},
		{"one call of two blocked blocks the answer", defaultPolicyMarker,
			[]llmfake.Reply{{ToolCalls: `[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},` +
				`{"id":"c2","type":"function","function":{"name":"upload","arguments":"{\"data\":\"` + toolSecret + `\"}"}}]`}},
			"block", "post-flight", nil, DefaultFallbackForTest, "upload", []string{"secrets.aws_access_key_id"}, []string{"block", "block"}, 1, toolSecret},
		{"regenerate asks again without the arguments", []map[string]any{rulePostPIIRegen},
			[]llmfake.Reply{{ToolCalls: oneCall("call_1", "send_email", `{"to":"`+toolEmail+`"}`)}, {ToolCalls: oneCall("call_2", "send_email", `{"to":"support"}`)}},
			"regenerate", "post-flight", []string{`{"to":"support"}`}, "", "", nil, []string{"allow"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := newChatEnv(t)
			if tt.policy != nil {
				setPolicy(t, ce.env, ce.acct, ce.app.ID, tt.policy...)
			}
			ce.fake.Push(tt.script...)
			r := ce.chat(map[string]any{"prompt": "please handle it", "tools": sendEmailTool})
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			m := r.JSON(t)
			require.Equal(t, tt.governance, m["governance"])
			require.Equal(t, tt.governance, m["governance_action"])
			require.Equal(t, tt.answer, m["answer"])
			require.Equal(t, tt.llmCalls, len(ce.fake.Received()))
			if tt.stage == "" {
				require.NotContains(t, m, "stage")
			} else {
				require.Equal(t, tt.stage, m["stage"])
			}
			if tt.args == nil {
				require.NotContains(t, m, "tool_calls")
			} else {
				calls := m["tool_calls"].([]any)
				require.Len(t, calls, len(tt.args))
				for i, c := range calls {
					fn := c.(map[string]any)["function"].(map[string]any)
					require.Equal(t, tt.args[i], fn["arguments"], "arguments byte for byte")
					require.Equal(t, "function", c.(map[string]any)["type"])
				}
			}
			if tt.reasonTool != "" {
				reason := m["reasons"].([]any)[0].(map[string]any)
				require.Equal(t, tt.reasonTool, reason["tool"])
				require.NotEmpty(t, reason["tool_call_id"])
				require.Equal(t, "post-flight", reason["stage"])
				require.Equal(t, reason["policy"], m["policy"])
				require.Equal(t, tt.hits[0], reason["policy"])
			}
			var hits []string
			rawHits, _ := m["policy_hits"].([]any)
			for _, h := range rawHits {
				hm := h.(map[string]any)
				hits = append(hits, hm["policy"].(string))
				require.Equal(t, "post-flight", hm["stage"])
				require.NotEmpty(t, hm["tool"], "a tool call's finding names its tool")
			}
			require.Equal(t, tt.hits, hits)

			envs := ce.log.all()
			require.Len(t, envs, 1+len(tt.child))
			parent := envs[0].Trace
			require.Equal(t, tt.governance, parent.FinalDecision)
			require.Equal(t, statusOf(governance.Action(tt.governance)), parent.Status)
			for i, want := range tt.child {
				child := envs[1+i].Trace
				require.Equal(t, parent.RequestID, child.ParentRequestID)
				require.Equal(t, want, child.FinalDecision)
				require.Equal(t, statusOf(governance.Action(want)), child.Status)
				require.NoError(t, child.Validate())
			}
			if tt.args != nil {
				require.Equal(t, tt.args[len(tt.args)-1], envs[len(envs)-1].Trace.Prompt, "the trace keeps the delivered arguments")
			}
			if tt.never != "" {
				require.NotContains(t, string(r.Body), tt.never)
				logged, _ := json.Marshal(envs)
				require.NotContains(t, string(logged), tt.never, "the log never holds the un-redacted value")
			}
			if tt.llmCalls > 1 {
				again := string(ce.fake.Received()[1])
				require.Contains(t, again, "withheld")
				require.Contains(t, again, "send_email")
				require.NotContains(t, again, toolEmail, "the withheld arguments are not sent back")
			}
		})
	}
}

// TestChatToolCallGovernanceShape: the chat-completions shape returns the
// redacted calls, and a blocked call becomes a content_filter completion.
func TestChatToolCallGovernanceShape(t *testing.T) {
	ce := newChatEnv(t)
	do := func() map[string]any {
		r := ce.do("POST", "/v1/chat/completions", map[string]any{"model": "gpt-4o-mini", "tools": sendEmailTool,
			"messages": []any{map[string]any{"role": "user", "content": "mail it"}}}, "Authorization", "Bearer "+ce.app.Key)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		require.NotContains(t, string(r.Body), toolSecret)
		require.NotContains(t, string(r.Body), toolEmail)
		return r.JSON(t)
	}
	ce.fake.Push(llmfake.Reply{ToolCalls: oneCall("call_1", "send_email", `{"to":"`+toolEmail+`"}`)})
	m := do()
	ch := m["choices"].([]any)[0].(map[string]any)
	require.Equal(t, "tool_calls", ch["finish_reason"])
	fn := ch["message"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	require.Equal(t, `{"to":"[EMAIL]"}`, fn["arguments"])
	require.Equal(t, "rewrite", m["governance"].(map[string]any)["action"])

	ce.fake.Push(llmfake.Reply{ToolCalls: oneCall("call_1", "send_email", `{"body":"`+toolSecret+`"}`)})
	m = do()
	ch = m["choices"].([]any)[0].(map[string]any)
	require.Equal(t, "content_filter", ch["finish_reason"])
	require.NotContains(t, ch["message"], "tool_calls")
	require.Equal(t, DefaultFallbackForTest, ch["message"].(map[string]any)["content"])
}

// streamedAnswer is what a client assembles from a Full Control stream.
type streamedAnswer struct {
	text       string
	calls      map[int]*streamedCall
	finish     []string
	governance struct {
		Action        string  `json:"action"`
		Stage         string  `json:"stage"`
		AnswerChanged bool    `json:"answer_changed"`
		Answer        *string `json:"answer"`
		Reasons       []struct {
			Policy, Stage, Tool string
			ToolCallID          string `json:"tool_call_id"`
		} `json:"reasons"`
	}
	chunks []string // every event before the governance event
}

type streamedCall struct{ id, name, args string }

func readStream(t *testing.T, body string) streamedAnswer {
	t.Helper()
	evs := sseEvents(body)
	require.GreaterOrEqual(t, len(evs), 2)
	require.Equal(t, "[DONE]", evs[len(evs)-1])
	var a streamedAnswer
	a.calls = map[int]*streamedCall{}
	a.chunks = evs[:len(evs)-2]
	for _, ev := range a.chunks {
		var ch struct {
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		require.NoError(t, json.Unmarshal([]byte(ev), &ch), ev)
		for _, c := range ch.Choices {
			if c.Delta.Content != nil {
				a.text += *c.Delta.Content
			}
			for _, tc := range c.Delta.ToolCalls {
				sc := a.calls[tc.Index]
				if sc == nil {
					sc = &streamedCall{}
					a.calls[tc.Index] = sc
				}
				sc.id += tc.ID
				sc.name += tc.Function.Name
				sc.args += tc.Function.Arguments
			}
			if c.FinishReason != nil {
				a.finish = append(a.finish, *c.FinishReason)
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(evs[len(evs)-2]), &struct {
		Governance any `json:"governance"`
	}{Governance: &a.governance}))
	return a
}

// openAIToolStream is an OpenAI upstream streaming one tool call whose
// arguments arrive in two fragments.
func openAIToolStream(name, args string) []string {
	half := len(args) / 2
	frag := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return []string{
		`{"id":"chatcmpl-9","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"On it."},"finish_reason":null}]}`,
		`{"id":"chatcmpl-9","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"index":0,"id":"call_s1","type":"function","function":{"name":"` + name + `","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-9","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + frag(args[:half]) + `}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-9","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + frag(args[half:]) + `}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-9","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"chatcmpl-9","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":15,"total_tokens":45}}`,
	}
}

// anthropicToolStream is an Anthropic upstream streaming a text block and
// one tool_use block whose input arrives in two fragments.
func anthropicToolStream(name, args string) string {
	half := len(args) / 2
	ev := func(typ string, v any) string {
		b, _ := json.Marshal(v)
		return "event: " + typ + "\ndata: " + string(b) + "\n\n"
	}
	return ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_9", "type": "message", "role": "assistant", "content": []any{}, "model": "claude-sonnet-4-5", "usage": map[string]any{"input_tokens": 20, "output_tokens": 1}}}) +
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}) +
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "On it."}}) +
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}) +
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 1, "content_block": map[string]any{"type": "tool_use", "id": "toolu_s1", "name": name, "input": map[string]any{}}}) +
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": args[:half]}}) +
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": args[half:]}}) +
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 1}) +
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use"}, "usage": map[string]any{"output_tokens": 20}}) +
		ev("message_stop", map[string]any{"type": "message_stop"})
}

// TestChatStreamingToolCallGovernance: streamed tool calls are held back
// until complete, checked with the post-flight policy, then sent as
// received (allow), redacted (rewrite) or not at all (block), for a
// pass-through vendor (OpenAI) and a translated one (Anthropic).
func TestChatStreamingToolCallGovernance(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		action   string
		wantArgs string // "": no call reaches the client
		finish   string
		child    string
		never    string
	}{
		{"clean", `{"city": "Paris", "note": "a<b"}`, "allow", `{"city": "Paris", "note": "a<b"}`, "tool_calls", "allow", ""},
		{"secret blocked", `{"to":"ops","body":"the key is ` + toolSecret + `"}`, "block", "", "content_filter", "block", toolSecret},
		{"email rewritten", `{"to":"` + toolEmail + `","subject":"hi"}`, "rewrite", `{"to":"[EMAIL]","subject":"hi"}`, "tool_calls", "rewrite", toolEmail},
	}
	vendors := []struct {
		name string
		run  func(t *testing.T, args string) (resp, *env)
	}{
		{"openai pass-through", func(t *testing.T, args string) (resp, *env) {
			e := openAIStreamEnv(t, openAIToolStream("send_email", args))
			app := e.createApp(e.signup("tools-openai@example.com"), map[string]any{"name": "fc", "mode": "full_control", "provider": "openai", "model": "gpt-4o-mini"})
			return e.do("POST", "/v1/chat", map[string]any{"prompt": "mail it", "stream": true, "tools": sendEmailTool}, "X-API-Key", app.Key), e
		}},
		{"anthropic translated", func(t *testing.T, args string) (resp, *env) {
			e, app := anthropicChatEnv(t, "tools-anthropic@example.com", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, anthropicToolStream("send_email", args))
			}))
			return e.do("POST", "/v1/chat", map[string]any{"prompt": "mail it", "stream": true, "tools": sendEmailTool}, "X-API-Key", app.Key), e
		}},
	}
	for _, v := range vendors {
		for _, tt := range tests {
			t.Run(v.name+"/"+tt.name, func(t *testing.T) {
				r, e := v.run(t, tt.args)
				require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
				a := readStream(t, string(r.Body))
				require.Equal(t, tt.action, a.governance.Action)
				require.Equal(t, []string{tt.finish}, a.finish)
				if tt.wantArgs == "" {
					require.Empty(t, a.calls, "a blocked call never reaches the client")
					require.True(t, a.governance.AnswerChanged)
					require.Equal(t, DefaultFallbackForTest, *a.governance.Answer)
					require.Equal(t, "On it."+DefaultFallbackForTest, a.text, "the fallback ends the streamed text")
				} else {
					require.Len(t, a.calls, 1)
					require.Equal(t, "send_email", a.calls[0].name)
					require.NotEmpty(t, a.calls[0].id)
					require.Equal(t, tt.wantArgs, a.calls[0].args)
					require.True(t, json.Valid([]byte(a.calls[0].args)))
					require.False(t, a.governance.AnswerChanged, "the answer's text is not changed by its tool calls")
					require.Equal(t, "On it.", a.text)
				}
				if tt.action != "allow" {
					require.Equal(t, "post-flight", a.governance.Stage)
					require.Equal(t, "send_email", a.governance.Reasons[0].Tool)
					require.Equal(t, "post-flight", a.governance.Reasons[0].Stage)
				}
				if tt.action == "allow" && v.name == "openai pass-through" {
					require.Equal(t, openAIToolStream("send_email", tt.args), a.chunks, "an allowed call's chunks pass through byte for byte")
				}
				envs := e.log.all()
				require.Len(t, envs, 2)
				child := envs[1].Trace
				require.Equal(t, tt.child, child.FinalDecision)
				require.Equal(t, statusOf(governance.Action(tt.child)), child.Status)
				require.Equal(t, tt.action, envs[0].Trace.FinalDecision)
				if tt.wantArgs != "" {
					require.Equal(t, tt.wantArgs, child.Prompt)
				} else {
					require.Empty(t, child.Prompt)
					require.Equal(t, schemas.StatusBlocked, envs[0].Trace.Status)
				}
				if tt.never != "" {
					require.NotContains(t, string(r.Body), tt.never, "the un-redacted value never reaches the client")
					logged, _ := json.Marshal(envs)
					require.NotContains(t, string(logged), tt.never, "nor the log")
				}
			})
		}
	}
}

// BenchmarkChatToolCallCheck: the post-flight check of one tool call's
// arguments (a 1 KB JSON object), clean and with an e-mail to redact.
func BenchmarkChatToolCallCheck(b *testing.B) {
	pol, err := governance.New().Compile(governance.DefaultPolicy())
	if err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("Revenue grew in every region and the team shipped on time. ", 16)[:900]
	for _, c := range []struct{ name, args string }{
		{"clean", fmt.Sprintf(`{"to":"board","subject":"Q3","body":%q}`, body)},
		{"rewrite", fmt.Sprintf(`{"to":"%s","subject":"Q3","body":%q}`, toolEmail, body)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var tc toolCall
				tc.ID, tc.Function.Name, tc.Function.Arguments = "call_1", "send_email", c.args
				_ = checkToolCalls(judge{Compiled: pol}, []toolCall{tc}, false)
			}
		})
	}
}
