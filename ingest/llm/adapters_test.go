package llm_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/anthropic"
	"github.com/governance-gateway/gateway/ingest/llm/azure"
	"github.com/governance-gateway/gateway/ingest/llm/bedrock"
	"github.com/governance-gateway/gateway/ingest/llm/openai"
	"github.com/governance-gateway/gateway/ingest/llm/vertex"
)

// adapter is one vendor adapter under test, with a credential it accepts.
type adapter struct {
	name string
	new  func(llm.Config) llm.Provider
	cred string
}

var adapters = []adapter{
	{llm.OpenAI, func(c llm.Config) llm.Provider { return openai.New(c) }, "sk-test"},
	{llm.AzureOpenAI, func(c llm.Config) llm.Provider { return azure.New(c) }, "azure-key"},
	{llm.Anthropic, func(c llm.Config) llm.Provider { return anthropic.New(c) }, "sk-ant-test"},
	{llm.Bedrock, func(c llm.Config) llm.Provider { return bedrock.New(c) }, "AKIDTEST:secret"},
	{llm.Vertex, func(c llm.Config) llm.Provider { c.Project = "proj"; return vertex.New(c) }, "ya29.token"},
}

// call runs Complete, or opens a stream, with a one-message request.
func call(ctx context.Context, p llm.Provider, stream bool, cred string) error {
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "hi"}}}
	if !stream {
		_, err := p.Complete(ctx, req, llm.Credentials{APIKey: cred})
		return err
	}
	st, err := p.(llm.Streamer).Stream(ctx, req, llm.Credentials{APIKey: cred})
	if err == nil {
		st.Close()
	}
	return err
}

// TestRetryPolicy: every adapter, answering and streaming, repeats a
// request once after any 5xx before anything reached the caller, and never
// a 4xx.
func TestRetryPolicy(t *testing.T) {
	for _, tt := range []struct {
		status int
		calls  int32
	}{
		{500, 2}, {502, 2}, {503, 2}, {529, 2}, {400, 1}, {429, 1},
	} {
		for _, ad := range adapters {
			for _, stream := range []bool{false, true} {
				t.Run(ad.name+"/"+strconv.Itoa(tt.status)+"/stream="+strconv.FormatBool(stream), func(t *testing.T) {
					var calls atomic.Int32
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						calls.Add(1)
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(tt.status)
						_, _ = w.Write([]byte(`{"error":{"message":"upstream says no"},"message":"upstream says no"}`))
					}))
					defer srv.Close()
					p := ad.new(llm.Config{BaseURL: srv.URL, RetryDelay: time.Millisecond})
					err := call(context.Background(), p, stream, ad.cred)
					var le *llm.Error
					require.True(t, errors.As(err, &le), "%v", err)
					require.Equal(t, tt.status, le.Status)
					require.Equal(t, llm.ErrStatus, le.Type)
					require.Equal(t, tt.calls, calls.Load())
				})
			}
		}
	}
}

// TestErrorMessage: every adapter, answering and streaming, echoes only the
// vendor's own error message (OpenAI's shape, or Bedrock's top-level
// "message"), cut to 300 bytes at a rune start, and a generic one naming
// the status when the body has none; the rest of the body is not echoed.
func TestErrorMessage(t *testing.T) {
	long := strings.Repeat("a", 299) + "é and more"
	for _, tt := range []struct {
		name, body, want string
	}{
		{"openai shape", `{"error":{"message":"model not found","param":"sk-quoted"}}`, "model not found"},
		{"bedrock shape", `{"message":"The security token included in the request is invalid.","__type":"sk-quoted"}`, "The security token included in the request is invalid."},
		{"long", `{"error":{"message":"` + long + `"}}`, strings.Repeat("a", 299)},
		{"no message", `{"detail":"sk-quoted"}`, "the upstream LLM answered HTTP 404"},
		{"not JSON", `<html>sk-quoted</html>`, "the upstream LLM answered HTTP 404"},
	} {
		for _, ad := range adapters {
			for _, stream := range []bool{false, true} {
				t.Run(tt.name+"/"+ad.name+"/stream="+strconv.FormatBool(stream), func(t *testing.T) {
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						w.WriteHeader(http.StatusNotFound)
						_, _ = w.Write([]byte(tt.body))
					}))
					defer srv.Close()
					err := call(context.Background(), ad.new(llm.Config{BaseURL: srv.URL}), stream, ad.cred)
					var le *llm.Error
					require.True(t, errors.As(err, &le), "%v", err)
					require.Equal(t, http.StatusNotFound, le.Status)
					require.Equal(t, tt.want, le.Message)
				})
			}
		}
	}
}

// TestParseToolCalls: an assistant message's OpenAI tool_calls as the other
// vendors take them; arguments that are not JSON become an empty object.
func TestParseToolCalls(t *testing.T) {
	calls, err := llm.ParseToolCalls(json.RawMessage(`[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}},{"id":"c2","function":{"name":"g","arguments":"not json"}}]`))
	require.NoError(t, err)
	require.Equal(t, []llm.ToolCall{
		{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"x":1}`)},
		{ID: "c2", Name: "g", Arguments: json.RawMessage(`{}`)},
	}, calls)
	_, err = llm.ParseToolCalls(json.RawMessage(`{"id":"c1"}`))
	require.ErrorContains(t, err, "tool_calls")
}

// eventFrame is one Bedrock ConverseStream event in the
// application/vnd.amazon.eventstream framing (string headers, both CRCs).
func eventFrame(typ, payload string) []byte {
	var h []byte
	for _, kv := range [][2]string{{":event-type", typ}, {":content-type", "application/json"}, {":message-type", "event"}} {
		h = append(append(h, byte(len(kv[0]))), kv[0]...)
		h = binary.BigEndian.AppendUint16(append(h, 7), uint16(len(kv[1])))
		h = append(h, kv[1]...)
	}
	b := binary.BigEndian.AppendUint32(nil, uint32(12+len(h)+len(payload)+4))
	b = binary.BigEndian.AppendUint32(b, uint32(len(h)))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	b = append(append(b, h...), payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// TestStreamIdleTimeout: an upstream that sends its headers and a first
// chunk, then goes silent, ends the stream with an upstream_timeout (504)
// after the configured timeout, not when the upstream gives up; the
// started stream is not retried.
func TestStreamIdleTimeout(t *testing.T) {
	first := map[string][]byte{
		llm.OpenAI:      []byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n"),
		llm.AzureOpenAI: []byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n"),
		llm.Anthropic: []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0," +
			"\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n"),
		llm.Bedrock: eventFrame("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hel"}}`),
		llm.Vertex:  []byte("data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\"}]}}]}\n\n"),
	}
	const timeout, stall = 200 * time.Millisecond, 3 * time.Second
	for _, ad := range adapters {
		t.Run(ad.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				_, _ = w.Write(first[ad.name])
				w.(http.Flusher).Flush()
				select { // silent until the client gives up, or stall passes
				case <-r.Context().Done():
				case <-time.After(stall):
				}
			}))
			defer srv.Close()
			p := ad.new(llm.Config{BaseURL: srv.URL, Timeout: timeout, RetryDelay: time.Millisecond})
			st, err := p.(llm.Streamer).Stream(context.Background(),
				llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "hi"}}}, llm.Credentials{APIKey: ad.cred})
			require.NoError(t, err)
			defer st.Close()
			c, err := st.Next()
			require.NoError(t, err)
			require.Equal(t, "Hel", c.Delta)
			start := time.Now()
			_, err = st.Next()
			var le *llm.Error
			require.True(t, errors.As(err, &le), "%v", err)
			require.Equal(t, llm.ErrTimeout, le.Type, le.Message)
			require.Equal(t, http.StatusGatewayTimeout, le.Status)
			require.Less(t, time.Since(start), stall/2)
			require.GreaterOrEqual(t, time.Since(start), timeout-50*time.Millisecond)
			require.Equal(t, int32(1), calls.Load(), "a started stream is never retried")
		})
	}
}

// TestBrokenAnswerNotRepeated: a successful answer whose body breaks off
// after the headers is reported as a network failure and not repeated. The
// vendor has generated (and billed) that answer; a second call would bill it
// twice. A refused connection before any answer is still repeated.
func TestBrokenAnswerNotRepeated(t *testing.T) {
	for _, ad := range adapters {
		t.Run(ad.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", "4096")
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte(`{"id":"chatcmpl-1","choices":[{"message":{"content":"The answ`))
				w.(http.Flusher).Flush()
				// Close the connection with the body 4,000 bytes short.
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
			}))
			defer srv.Close()
			p := ad.new(llm.Config{BaseURL: srv.URL, RetryDelay: time.Millisecond})
			err := call(context.Background(), p, false, ad.cred)
			var le *llm.Error
			require.True(t, errors.As(err, &le), "%v", err)
			require.Equal(t, llm.ErrNetwork, le.Type)
			require.Equal(t, http.StatusBadGateway, le.Status)
			require.Contains(t, le.Message, "broke off")
			require.Equal(t, int32(1), calls.Load(), "a broken 200 answer must not be requested again")
		})
	}
}
