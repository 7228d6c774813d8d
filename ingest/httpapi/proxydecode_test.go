package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// deep nests n arrays.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

var proxyRequestSeeds = []struct {
	body string
	fast bool // decodeProxyRequest must take it (else it must decline)
}{
	{chatBody, true},
	{` { "model" : "gpt-4o" ,` + "\n\t" + `"stream":true, "messages":[ {"role":"system","content":"Be brief."} , {"role":"user","content":"hi"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"42"}], "tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],` +
		`"max_tokens":100,"temperature":0.7e0,"top_p":-1,"stop":null,"logit_bias":{},"n":1,"user":"u"} `, true},
	{`{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:x"}}]}]}`, true},
	{`{"model":null,"stream":null,"messages":null}`, true},
	{`{"stream":false,"messages":[]}`, true},
	{`{"messages":[null,{"role":"user"}]}`, true},
	{`{"messages":[{"role":"user","content":null}]}`, true},
	{`{"model":"gpt\u002d4o \"q\" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00","messages":[{"role":"us\u0065r","content":"x"}]}`, true},
	{`{"model":"modèle ✓ 日本","messages":[{"role":"usér","content":"héllo"}]}`, true},
	{`{"x":` + deep(60) + `,"messages":[{"content":` + deep(60) + `}]}`, true},
	{`{}`, true},
	{`{"Model":"x"}`, false}, // encoding/json matches names without case
	{`{"MESSAGES":[]}`, false},
	{`{"messages":[{"Role":"user"}]}`, false},
	{`{"messages":[{"role":"user","CONTENT":"x"}]}`, false},
	{`{"mod\u0065l":"x"}`, false},
	{`{"ſtream":true}`, false}, // U+017F folds to s
	{`{"model":"a","model":"b"}`, false},
	{`{"messages":[],"messages":null}`, false},
	{`{"messages":[{"role":"a","role":"b"}]}`, false},
	{`{"messages":[{"content":"a","content":"b"}]}`, false},
	{`{"stream":"true"}`, false},
	{`{"stream":1}`, false},
	{`{"model":5}`, false},
	{`{"messages":{}}`, false},
	{`{"messages":[1]}`, false},
	{`{"messages":[{"role":1}]}`, false},
	{`{"model":"\ud83d"}`, false}, // a lone surrogate
	{"{\"model\":\"a\xffb\"}", false},
	{"{\"model\":\"a\x01\"}", false},
	{`{"model":"a\x"}`, false},
	{`{"x":` + deep(70) + `}`, false},
	{`{"x":1,}`, false},
	{`{"x":01}`, false},
	{`{"x":nulls}`, false},
	{`{"model":"a"`, false},
	{`{"model":"a"} x`, false},
	{`{"messages":[{"role":"user","content":"x"},]}`, false},
	{`[]`, false},
	{`null`, false},
	{``, false},
}

var contentSeeds = []struct {
	raw  string
	fast bool // contentTextFast must take it
}{
	{`"hello"`, true},
	{`"caf\u00e9 \ud83d\ude00 \n \"q\""`, true},
	{`"héllo ✓"`, true},
	{`null`, true},
	{`[]`, true},
	{`[null]`, true},
	{`[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x","detail":"low"}},{"type":"text","text":"b"},{"text":"c","type":"text"}]`, true},
	{`[{"type":"text"},{"text":"x"},{"type":null,"text":null},{"type":"te\u0078t","text":"y"}]`, true},
	{`[{"type":"text","text":""},{"type":"text","text":"z"}]`, true},
	{``, false},
	{`5`, false},
	{`true`, false},
	{`{}`, false},
	{`[1]`, false},
	{`[{"type":"text","text":5}]`, false},
	{`[{"Type":"text","text":"a"}]`, false},
	{`[{"type":"text","TEXT":"a"}]`, false},
	{`[{"type":"text","text":"a","text":"b"}]`, false},
	{`"\ud800"`, false},
	{"\"a\xffb\"", false},
	{`"a" "b"`, false},
}

var completionSeeds = []struct {
	raw  string
	fast bool // completionTextFast must take it
}{
	{`{"choices":[{"finish_reason":"stop","index":0,"message":{"content":"You said: hello proxy","role":"assistant"}}],"created":0,"id":"chatcmpl-fake","model":"gpt-4o-mini","object":"chat.completion","usage":{"completion_tokens":4,"prompt_tokens":5,"total_tokens":9}}` + "\n", true},
	{`{"id":"c","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}],"refusal":null},"logprobs":null,"finish_reason":"tool_calls"},` +
		`{"index":1,"message":{"role":"assistant","content":"two"}}],"usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}},"system_fingerprint":"fp"}`, true},
	{`{"model":"m","choices":[{"message":{"content":"no usage"}}]}`, true},
	{`{"model":"m","choices":[],"usage":null}`, true},
	{`{"choices":null,"usage":{"prompt_tokens":null}}`, true},
	{`{"choices":[null,{},{"message":null},{"message":{}}]}`, true},
	{`{"choices":[{"message":{"content":"caf\u00e9 \ud83d\ude00 \n ✓ 日本"}}],"model":"m\u00e9"}`, true},
	{`{"usage":{"prompt_tokens":0,"completion_tokens":123456789012345678}}`, true},
	{`{}`, true},
	{`{"choices":{}}`, false},
	{`{"Choices":[]}`, false},
	{`{"choices":[{"Message":{}}]}`, false},
	{`{"choices":[{"message":{"Content":"x"}}]}`, false},
	{`{"usage":{"Prompt_Tokens":1}}`, false},
	{`{"usage":{"prompt_tokens":1.0}}`, false},
	{`{"usage":{"prompt_tokens":-1}}`, false},
	{`{"usage":{"prompt_tokens":1e2}}`, false},
	{`{"usage":{"prompt_tokens":1234567890123456789}}`, false},
	{`{"usage":{"prompt_tokens":"1"}}`, false},
	{`{"usage":[]}`, false},
	{`{"model":"a","model":"b"}`, false},
	{`{"choices":[{"message":{"content":"a"},"message":{"role":"x"}}]}`, false},
	{`{"choices":[{"message":{"content":"a","content":"b"}}]}`, false},
	{`{"usage":{"prompt_tokens":1,"prompt_tokens":2}}`, false},
	{`{"choices":[{"message":{"content":5}}]}`, false},
	{`{"choices":[{"message":{"content":"\udc00"}}]}`, false},
	{"{\"choices\":[{\"message\":{\"content\":\"\xc3\"}}]}", false},
	{`{"x":` + deep(70) + `}`, false},
	{`{"model":"x"} {}`, false},
	{`not json`, false},
	{`null`, false},
	{`[]`, false},
	{``, false},
}

func TestDecodeProxyRequest(t *testing.T) {
	for _, tc := range proxyRequestSeeds {
		var got, want proxyRequest
		ok := decodeProxyRequest([]byte(tc.body), &got)
		require.Equal(t, tc.fast, ok, "%s", tc.body)
		if !ok {
			require.Equal(t, proxyRequest{}, got, "declining leaves the request untouched: %s", tc.body)
			continue
		}
		require.NoError(t, json.Unmarshal([]byte(tc.body), &want), "%s", tc.body)
		require.Equal(t, want, got, "%s", tc.body)
	}
	var pr proxyRequest
	require.True(t, decodeProxyRequest([]byte(`{"messages":[]}`), &pr))
	require.NotNil(t, pr.Messages, "[] is an empty slice, as encoding/json decodes it")
}

func TestContentTextFast(t *testing.T) {
	for _, tc := range contentSeeds {
		got, ok := contentTextFast([]byte(tc.raw))
		require.Equal(t, tc.fast, ok, "%s", tc.raw)
		want := contentTextJSON(json.RawMessage(tc.raw))
		if ok {
			require.Equal(t, want, got, "%s", tc.raw)
		}
		require.Equal(t, want, contentText(json.RawMessage(tc.raw)), "%s", tc.raw)
	}
	got, _ := contentTextFast([]byte(contentSeeds[6].raw))
	require.Equal(t, "abc", got)
}

func TestCompletionTextFast(t *testing.T) {
	for _, tc := range completionSeeds {
		c, u, m, ok := completionTextFast([]byte(tc.raw))
		require.Equal(t, tc.fast, ok, "%s", tc.raw)
		wc, wu, wm, wok := completionTextJSON([]byte(tc.raw))
		if ok {
			require.True(t, wok, "%s", tc.raw)
			require.Equal(t, wc, c, "%s", tc.raw)
			require.NotNil(t, c, "contents are never nil")
			require.Equal(t, wu, u, "%s", tc.raw)
			require.Equal(t, wm, m, "%s", tc.raw)
		}
		c, u, m, ok = completionText([]byte(tc.raw))
		require.Equal(t, []any{wc, wu, wm, wok}, []any{c, u, m, ok}, "%s", tc.raw)
	}
	c, u, m, ok := completionText([]byte(completionSeeds[1].raw))
	require.True(t, ok)
	require.Equal(t, []string{"", "two"}, c)
	require.Equal(t, &proxyUsage{PromptTokens: 12}, u)
	require.Equal(t, "gpt-4o", m)
}

// FuzzDecodeProxyRequest: whatever decodeProxyRequest accepts, encoding/json
// decodes to the same request; whatever contentTextFast accepts (a message's
// content, or the input itself), contentText's encoding/json path reads the
// same text from.
func FuzzDecodeProxyRequest(f *testing.F) {
	for _, tc := range proxyRequestSeeds {
		f.Add([]byte(tc.body))
	}
	for _, tc := range contentSeeds {
		f.Add([]byte(`{"messages":[{"role":"user","content":` + tc.raw + `}]}`))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if s, ok := contentTextFast(body); ok {
			require.Equal(t, contentTextJSON(body), s, "%q", body)
		}
		var got, want proxyRequest
		if !decodeProxyRequest(body, &got) {
			return
		}
		require.NoError(t, json.Unmarshal(body, &want), "%q", body)
		require.Equal(t, want, got, "%q", body)
		for _, m := range want.Messages {
			if s, ok := contentTextFast(m.Content); ok {
				require.Equal(t, contentTextJSON(m.Content), s, "%q", m.Content)
			}
		}
	})
}

// FuzzCompletionText: whatever completionTextFast accepts, the
// encoding/json path reads the same way.
func FuzzCompletionText(f *testing.F) {
	for _, tc := range completionSeeds {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, u, m, ok := completionTextFast(raw)
		if !ok {
			return
		}
		wc, wu, wm, wok := completionTextJSON(raw)
		require.True(t, wok, "%q", raw)
		require.Equal(t, wc, c, "%q", raw)
		require.Equal(t, wu, u, "%q", raw)
		require.Equal(t, wm, m, "%q", raw)
	})
}

// bigChatBody is a longer request: a system prompt, three turns, a tool
// definition, sampling parameters.
var bigChatBody = func() string {
	b, _ := json.Marshal(map[string]any{
		"model": "gpt-4o-mini", "temperature": 0.2, "max_tokens": 512, "stream": false,
		"messages": []any{
			map[string]any{"role": "system", "content": strings.Repeat("You are a careful assistant for the finance team. ", 8)},
			map[string]any{"role": "user", "content": "Summarise the quarterly numbers for the board in three sentences."},
			map[string]any{"role": "assistant", "content": strings.Repeat("Revenue grew 12% quarter on quarter; margins held. ", 4)},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Now the risks, with café names like Zürich — “quoted”."}}},
		},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "lookup", "parameters": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}}}},
	})
	return string(b)
}()

// BenchmarkDecodeProxyRequest: the request decode and the message texts,
// encoding/json against the fast path.
func BenchmarkDecodeProxyRequest(b *testing.B) {
	for _, in := range []struct{ name, body string }{{"small", chatBody}, {"big", bigChatBody}} {
		body := []byte(in.body)
		b.Run(in.name+"/json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var pr proxyRequest
				if json.Unmarshal(body, &pr) != nil {
					b.Fatal("undecodable")
				}
				for _, m := range pr.Messages {
					_ = contentTextJSON(m.Content)
				}
			}
		})
		b.Run(in.name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var pr proxyRequest
				if !decodeProxyRequest(body, &pr) {
					b.Fatal("declined")
				}
				for _, m := range pr.Messages {
					_ = contentText(m.Content)
				}
			}
		})
	}
}

// BenchmarkCompletionText: the upstream answer of BenchmarkProxyOverhead
// (llmfake's) and one with two choices and detailed usage.
func BenchmarkCompletionText(b *testing.B) {
	for _, in := range []struct{ name, raw string }{{"fake", completionSeeds[0].raw}, {"tools", completionSeeds[1].raw}} {
		raw := []byte(in.raw)
		b.Run(in.name+"/json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, _, ok := completionTextJSON(raw); !ok {
					b.Fatal("unreadable")
				}
			}
		})
		b.Run(in.name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, _, ok := completionText(raw); !ok {
					b.Fatal("unreadable")
				}
			}
		})
	}
}
