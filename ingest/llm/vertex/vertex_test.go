package vertex

import (
	"context"
	"crypto"
	"crypto/rand"
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
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/llmtest"
)

func TestBodyGolden(t *testing.T) {
	temp := 0.2
	b, err := Body(llm.Request{Model: "gemini-2.0-flash", Temperature: &temp, Messages: []llm.Message{
		{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello"}, {Role: "user", Content: "Bye"}}})
	require.NoError(t, err)
	require.JSONEq(t, `{"contents":[{"role":"user","parts":[{"text":"Hi"}]},{"role":"model","parts":[{"text":"Hello"}]},{"role":"user","parts":[{"text":"Bye"}]}],
		"systemInstruction":{"role":"system","parts":[{"text":"Be brief."}]},"generationConfig":{"temperature":0.2}}`, string(b))
}

func TestServiceAccountFlow(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	var tokenCalls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		tokenCalls.Add(1)
		require.NoError(t, r.ParseForm())
		require.Equal(t, "urn:ietf:params:oauth:grant-type:jwt-bearer", r.Form.Get("grant_type"))
		parts := strings.Split(r.Form.Get("assertion"), ".")
		require.Len(t, parts, 3)
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		require.NoError(t, rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, sum[:], sig), "assertion signed with the account key")
		claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
		require.Contains(t, string(claims), `"iss":"sa@proj.iam.gserviceaccount.com"`)
		_, _ = io.WriteString(w, `{"access_token":"ya29.minted","expires_in":3599,"token_type":"Bearer"}`)
	})
	mux.HandleFunc("/v1/projects/proj/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent", func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "Bearer ya29.minted", r.Header.Get("Authorization"))
		// The documented generateContent response shape.
		_, _ = io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello there."}]},"finishReason":"STOP"}],
			"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":3,"totalTokenCount":7},"modelVersion":"gemini-2.0-flash-001"}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	sa, _ := json.Marshal(map[string]string{"type": "service_account", "client_email": "sa@proj.iam.gserviceaccount.com",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "token_uri": srv.URL + "/token"})
	a := New(llm.Config{BaseURL: srv.URL, Region: "europe-west4", Project: "proj"})
	for range 2 {
		resp, err := a.Complete(context.Background(), llm.Request{Model: "gemini-2.0-flash", Messages: []llm.Message{{Role: "user", Content: "Hi"}}}, llm.Credentials{APIKey: string(sa)})
		require.NoError(t, err)
		require.Equal(t, "Hello there.", resp.Content)
		require.Equal(t, "stop", resp.FinishReason)
		require.Equal(t, llm.Usage{PromptTokens: 4, CompletionTokens: 3}, resp.Usage)
	}
	require.Equal(t, int32(1), tokenCalls.Load(), "the minted token is cached")
}

// geminiEvents frames GenerateContentResponse pieces the way the
// streamGenerateContent?alt=sse endpoint does: "data: " + JSON + CRLF CRLF.
func geminiEvents(pieces ...string) string {
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString("data: " + p + "\r\n\r\n")
	}
	return b.String()
}

const (
	piece1 = `{"candidates": [{"content": {"role": "model","parts": [{"text": "The sky"}]}}],"usageMetadata": {},"modelVersion": "gemini-2.0-flash-001","createTime": "2025-03-01T10:00:00.000000Z","responseId": "r1"}`
	piece2 = `{"candidates": [{"content": {"role": "model","parts": [{"text": " is"}]}}],"usageMetadata": {},"modelVersion": "gemini-2.0-flash-001","createTime": "2025-03-01T10:00:00.000000Z","responseId": "r1"}`
	last   = `{"candidates": [{"content": {"role": "model","parts": [{"text": " blue."}]},"finishReason": "%s"}],"usageMetadata": {"promptTokenCount": 8,"candidatesTokenCount": 4,"totalTokenCount": 12,"trafficType": "ON_DEMAND"},"modelVersion": "gemini-2.0-flash-001","createTime": "2025-03-01T10:00:00.000000Z","responseId": "r1"}`
)

func TestStream(t *testing.T) {
	tests := []struct {
		name       string
		status     int // answered instead of the stream when set
		body       string
		text       string
		finish     string
		usage      *llm.Usage
		errStatus  int
		errType    string
		errMessage string
	}{
		{name: "answer", body: geminiEvents(piece1, piece2, fmt.Sprintf(last, "STOP")), text: "The sky is blue.", finish: "stop", usage: &llm.Usage{PromptTokens: 8, CompletionTokens: 4}},
		{name: "max tokens, LF framing", body: strings.ReplaceAll(geminiEvents(piece1, piece2, fmt.Sprintf(last, "MAX_TOKENS")), "\r", ""),
			text: "The sky is blue.", finish: "length", usage: &llm.Usage{PromptTokens: 8, CompletionTokens: 4}},
		{name: "prompt blocked", body: geminiEvents(`{"promptFeedback": {"blockReason": "SAFETY"},"usageMetadata": {"promptTokenCount": 8,"totalTokenCount": 8}}`),
			finish: "content_filter", usage: &llm.Usage{PromptTokens: 8}},
		{name: "upstream status", status: http.StatusTooManyRequests, body: `{"error": {"code": 429,"message": "Resource exhausted. Please try again later.","status": "RESOURCE_EXHAUSTED"}}`,
			errStatus: 429, errType: llm.ErrStatus, errMessage: "Resource exhausted"},
		{name: "truncated", body: geminiEvents(piece1, piece2), text: "The sky is", errStatus: 502, errType: llm.ErrBadResponse, errMessage: "truncated"},
		{name: "cut inside an event", body: geminiEvents(piece1) + "data: " + piece2[:40], text: "The sky", errStatus: 502, errType: llm.ErrBadResponse},
		{name: "error in the stream", body: geminiEvents(piece1, `{"error": {"code": 500,"message": "Internal error encountered.","status": "INTERNAL"}}`),
			text: "The sky", errStatus: 500, errType: llm.ErrStatus, errMessage: "Internal error"},
	}
	type received struct {
		path, query, auth string
		body              []byte
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan received, 2)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got <- received{r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), b}
				if tt.status != 0 {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tt.status)
					_, _ = io.WriteString(w, tt.body)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			a := New(llm.Config{BaseURL: srv.URL, Region: "europe-west4", Project: "proj", RetryDelay: time.Millisecond})
			temp := 0.2
			st, err := a.Stream(context.Background(), llm.Request{Model: "gemini-2.0-flash", Temperature: &temp,
				Messages: []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Sky colour?"}}}, llm.Credentials{APIKey: "ya29.secret-token"})
			var text, fin string
			var usage *llm.Usage
			if err == nil {
				var d llmtest.Drained
				d, err = llmtest.Drain(t, st)
				text, fin, usage = d.Text, d.Finish, d.Usage
				require.NoError(t, st.Close())
			}

			r := <-got
			require.Equal(t, "/v1/projects/proj/locations/europe-west4/publishers/google/models/gemini-2.0-flash:streamGenerateContent", r.path)
			require.Equal(t, "alt=sse", r.query)
			require.Equal(t, "Bearer ya29.secret-token", r.auth)
			require.JSONEq(t, `{"contents":[{"role":"user","parts":[{"text":"Sky colour?"}]}],
				"systemInstruction":{"role":"system","parts":[{"text":"Be brief."}]},"generationConfig":{"temperature":0.2}}`, string(r.body))
			require.Equal(t, tt.text, text)
			if tt.errType != "" {
				var le *llm.Error
				require.True(t, errors.As(err, &le), "want *llm.Error, got %v", err)
				require.Equal(t, tt.errStatus, le.Status)
				require.Equal(t, tt.errType, le.Type)
				require.Contains(t, le.Message, tt.errMessage)
				require.NotContains(t, le.Error(), "secret-token")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.finish, fin)
			require.Equal(t, tt.usage, usage)
		})
	}

	_, err := New(llm.Config{}).Stream(context.Background(), llm.Request{Model: "m"}, llm.Credentials{APIKey: "t"})
	require.ErrorContains(t, err, "GATEWAY_PROVIDER_VERTEX_PROJECT")
}

// TestTools: OpenAI tools, tool_calls and tool results in Gemini's
// functionDeclarations / functionCall / functionResponse form, and a
// functionCall answer back as OpenAI tool_calls.
func TestTools(t *testing.T) {
	req := llm.Request{Model: "gemini-2.0-flash",
		Tools: json.RawMessage(`[{"type":"function","function":{"name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`),
		Messages: []llm.Message{
			{Role: "user", Content: "Weather in Paris?"},
			{Role: "assistant", ToolCalls: json.RawMessage(`[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]`)},
			{Role: "tool", ToolCallID: "call_1", Content: `{"temp_c":21}`},
			{Role: "tool", ToolCallID: "call_unknown", Content: "plain text result"},
		}}
	b, err := Body(req)
	require.NoError(t, err)
	require.JSONEq(t, `{"contents":[
		{"role":"user","parts":[{"text":"Weather in Paris?"}]},
		{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temp_c":21}}},
			{"functionResponse":{"name":"call_unknown","response":{"content":"plain text result"}}}]}],
		"tools":[{"functionDeclarations":[{"name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]}]}`, string(b))

	_, err = Body(llm.Request{Tools: json.RawMessage(`{"not":"an array"}`)})
	require.Error(t, err)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},
			{"functionCall":{"name":"get_time","args":{}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":9}}`)
	}))
	defer srv.Close()
	a := New(llm.Config{BaseURL: srv.URL, Project: "p"})
	out, err := a.Complete(context.Background(), req, llm.Credentials{APIKey: "ya29.token"})
	require.NoError(t, err)
	require.Equal(t, "tool_calls", out.FinishReason)
	require.JSONEq(t, `[{"id":"call_0_get_weather","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
		{"id":"call_1_get_time","type":"function","function":{"name":"get_time","arguments":"{}"}}]`, string(out.ToolCalls))
	require.Empty(t, out.Content)
}

// TestStreamFunctionCall: a streamed functionCall part arrives whole and
// becomes one tool call piece with the same id as Complete gives it; STOP
// after calls (here in a later event) finishes with tool_calls.
func TestStreamFunctionCall(t *testing.T) {
	body := geminiEvents(
		`{"candidates": [{"content": {"role": "model","parts": [{"text": "Checking."}]}}],"usageMetadata": {},"modelVersion": "gemini-2.0-flash-001","responseId": "r2"}`,
		`{"candidates": [{"content": {"role": "model","parts": [{"functionCall": {"name": "get_weather","args": {"location": "Paris","unit": "celsius"}}},{"functionCall": {"name": "get_time"}}]}}],"usageMetadata": {},"modelVersion": "gemini-2.0-flash-001","responseId": "r2"}`,
		`{"candidates": [{"content": {"role": "model","parts": [{"functionCall": {"name": "get_weather","args": {"location": "Rome"}}}]},"finishReason": "STOP"}],"usageMetadata": {"promptTokenCount": 30,"candidatesTokenCount": 12,"totalTokenCount": 42},"modelVersion": "gemini-2.0-flash-001","responseId": "r2"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	a := New(llm.Config{BaseURL: srv.URL, Region: "europe-west4", Project: "proj", RetryDelay: time.Millisecond})
	st, err := a.Stream(context.Background(), llm.Request{Model: "gemini-2.0-flash",
		Messages: []llm.Message{{Role: "user", Content: "Weather in Paris and Rome?"}}}, llm.Credentials{APIKey: "ya29.secret-token"})
	require.NoError(t, err)
	defer st.Close()
	d, err := llmtest.Drain(t, st)
	require.NoError(t, err)
	text, finish, pieces := d.Text, d.Finish, d.ToolCalls
	require.Equal(t, "Checking.", text)
	require.Equal(t, "tool_calls", finish)
	require.Len(t, pieces, 3)
	require.Equal(t, llm.ToolCallDelta{Index: 0, ID: "call_0_get_weather", Name: "get_weather"}, llm.ToolCallDelta{Index: pieces[0].Index, ID: pieces[0].ID, Name: pieces[0].Name})
	require.JSONEq(t, `{"location":"Paris","unit":"celsius"}`, pieces[0].Arguments)
	require.Equal(t, llm.ToolCallDelta{Index: 1, ID: "call_1_get_time", Name: "get_time", Arguments: "{}"}, pieces[1])
	require.Equal(t, 2, pieces[2].Index)
	require.Equal(t, "call_2_get_weather", pieces[2].ID)
	require.JSONEq(t, `{"location":"Rome"}`, pieces[2].Arguments)

	// The same answer whole: Complete names the calls the same way.
	var whole []part
	require.NoError(t, json.Unmarshal([]byte(`[{"functionCall": {"name": "get_weather","args": {"location": "Paris","unit": "celsius"}}},{"functionCall": {"name": "get_time"}},{"functionCall": {"name": "get_weather","args": {"location": "Rome"}}}]`), &whole))
	var calls []struct{ ID string }
	require.NoError(t, json.Unmarshal(toolCalls(whole), &calls))
	for i, c := range calls {
		require.Equal(t, c.ID, pieces[i].ID)
	}
}
