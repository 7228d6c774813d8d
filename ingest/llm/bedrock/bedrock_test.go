package bedrock

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/llmtest"
)

func TestBodyGolden(t *testing.T) {
	mt, temp := 256, 0.3
	b, err := Body(llm.Request{Model: "anthropic.claude-3-haiku-20240307-v1:0", MaxTokens: &mt, Temperature: &temp,
		Messages: []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hello"}}})
	require.NoError(t, err)
	require.JSONEq(t, `{"messages":[{"role":"user","content":[{"text":"Hello"}]}],"system":[{"text":"Be brief."}],
		"inferenceConfig":{"maxTokens":256,"temperature":0.3}}`, string(b))
}

func TestComplete(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/model/anthropic.claude-3-haiku-20240307-v1:0/converse", r.URL.Path)
		require.Equal(t, "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse", r.RequestURI, "the colon is sent as %3A, as botocore does")
		b, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		require.Equal(t, awsAuthorization(r, b, "AKIDTEST", "secretkey", "eu-west-1", "bedrock"), auth)
		require.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/"), auth)
		require.Contains(t, auth, "/eu-west-1/bedrock/aws4_request")
		require.Contains(t, auth, "SignedHeaders=content-type;host;x-amz-date")
		require.NotEmpty(t, r.Header.Get("X-Amz-Date"))
		w.Header().Set("Content-Type", "application/json")
		// The documented Converse response shape.
		_, _ = io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[{"text":"Hello! How can I help?"}]}},
			"stopReason":"end_turn","usage":{"inputTokens":12,"outputTokens":7,"totalTokens":19},"metrics":{"latencyMs":300}}`)
	}))
	defer srv.Close()
	a := New(llm.Config{BaseURL: srv.URL, Region: "eu-west-1"})
	resp, err := a.Complete(context.Background(), llm.Request{Model: "anthropic.claude-3-haiku-20240307-v1:0",
		Messages: []llm.Message{{Role: "user", Content: "Hello"}}}, llm.Credentials{APIKey: "AKIDTEST:secretkey"})
	require.NoError(t, err)
	require.Equal(t, "Hello! How can I help?", resp.Content)
	require.Equal(t, "stop", resp.FinishReason)
	require.Equal(t, llm.Usage{PromptTokens: 12, CompletionTokens: 7}, resp.Usage)

	_, err = a.Complete(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "x"}}}, llm.Credentials{APIKey: "not-aws"})
	require.ErrorContains(t, err, "ACCESS_KEY_ID")
}

// frameOf builds one application/vnd.amazon.eventstream message from
// encoded headers and a payload, with both CRCs.
func frameOf(headers []byte, payload string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(12+len(headers)+len(payload)+4))
	b = binary.BigEndian.AppendUint32(b, uint32(len(headers)))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	b = append(append(b, headers...), payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// header encodes one header: name length, name, value type, value.
func header(name string, typ byte, value ...byte) []byte {
	return append(append(append([]byte{byte(len(name))}, name...), typ), value...)
}

// encodeFrame builds a message with string headers (name, value pairs).
func encodeFrame(payload string, headers ...string) []byte {
	var h []byte
	for i := 0; i < len(headers); i += 2 {
		h = append(h, header(headers[i], 7, binary.BigEndian.AppendUint16(nil, uint16(len(headers[i+1])))...)...)
		h = append(h, headers[i+1]...)
	}
	return frameOf(h, payload)
}

// event is one ConverseStream event as Bedrock frames it.
func event(typ, payload string) []byte {
	return encodeFrame(payload, ":event-type", typ, ":content-type", "application/json", ":message-type", "event")
}

func TestReadFrame(t *testing.T) {
	// The empty message of AWS's event stream test vectors
	// (aws-c-event-stream): no headers, no payload.
	f, err := readFrame(bytes.NewReader([]byte{0, 0, 0, 0x10, 0, 0, 0, 0, 0x05, 0xc2, 0x48, 0xeb, 0x7d, 0x98, 0xc8, 0xff}))
	require.NoError(t, err)
	require.Empty(t, f.headers)
	require.Empty(t, f.payload)

	// Every header value type: the string ones are kept, the others skipped.
	allTypes := slices.Concat(header("true", 0), header("false", 1), header("byte", 2, 0xff), header("short", 3, 0, 1),
		header("int", 4, 0, 0, 0, 1), header("long", 5, 0, 0, 0, 0, 0, 0, 0, 1), header("bytes", 6, 0, 2, 0xde, 0xad),
		header(":event-type", 7, append([]byte{0, 17}, "contentBlockDelta"...)...), header("time", 8, 0, 0, 0, 0, 0, 0, 0, 1),
		header("uuid", 9, make([]byte, 16)...))
	payload := `{"delta":{"text":"x"}}`
	r := bytes.NewReader(slices.Concat(frameOf(allTypes, payload), encodeFrame("{}", ":event-type", "messageStop")))
	f, err = readFrame(r)
	require.NoError(t, err)
	require.Equal(t, map[string]string{":event-type": "contentBlockDelta"}, f.headers)
	require.Equal(t, payload, string(f.payload))
	f, err = readFrame(r)
	require.NoError(t, err)
	require.Equal(t, "messageStop", f.headers[":event-type"])
	_, err = readFrame(r)
	require.ErrorIs(t, err, io.EOF, "a clean end between messages")

	good := event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hi"}}`)
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[(i+len(b))%len(b)] ^= 1
		return b
	}
	for name, b := range map[string][]byte{
		"prelude CRC":           flip(9),
		"total length":          flip(3),
		"message CRC":           flip(-1),
		"payload bit":           flip(-6),
		"unknown header type":   frameOf(header("x", 42), "{}"),
		"header value too long": frameOf(header(":event-type", 7, 0, 200, 'a'), "{}"),
		"header name too long":  frameOf([]byte{9, 'a'}, "{}"),
	} {
		_, err := readFrame(bytes.NewReader(b))
		require.ErrorIs(t, err, errCorrupt, name)
	}
	_, err = readFrame(bytes.NewReader(good[:len(good)-3]))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut inside a message")
	_, err = readFrame(bytes.NewReader(good[:5]))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut inside the prelude")
}

func TestStream(t *testing.T) {
	start := event("messageStart", `{"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW","role":"assistant"}`)
	deltas := slices.Concat(
		event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hello"},"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRST"}`),
		event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"! How can I help?"},"p":"abcdefghijklmnopqrstuvwxyz"}`),
		event("contentBlockStop", `{"contentBlockIndex":0,"p":"abcdefghijklmnopq"}`))
	stop := func(reason string) []byte {
		return event("messageStop", `{"p":"abcdefghijklmnopqrstuvwxyzABCDEFG","stopReason":"`+reason+`"}`)
	}
	meta := event("metadata", `{"metrics":{"latencyMs":300},"p":"abcdefghijklmnopqrstuvwxyzABCDEF","usage":{"inputTokens":12,"outputTokens":7,"totalTokens":19}}`)
	corrupt := bytes.Clone(meta)
	corrupt[len(corrupt)-1] ^= 0xff
	tests := []struct {
		name       string
		status     int // answered instead of the stream when set
		body       []byte
		text       string
		finish     string
		usage      *llm.Usage
		errStatus  int
		errType    string
		errMessage string
	}{
		{name: "answer", body: slices.Concat(start, deltas, stop("end_turn"), meta), text: "Hello! How can I help?", finish: "stop", usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 7}},
		{name: "max tokens", body: slices.Concat(start, deltas, stop("max_tokens"), meta), text: "Hello! How can I help?", finish: "length", usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 7}},
		{name: "upstream status", status: http.StatusTooManyRequests, body: []byte(`{"message":"Too many requests, please wait before trying again."}`),
			errStatus: 429, errType: llm.ErrStatus, errMessage: "Too many requests"},
		{name: "exception in the stream", body: slices.Concat(start, encodeFrame(`{"message":"Your request was denied due to exceeding the account quotas for Amazon Bedrock."}`,
			":exception-type", "throttlingException", ":content-type", "application/json", ":message-type", "exception")),
			errStatus: 429, errType: llm.ErrStatus, errMessage: "throttlingException"},
		{name: "no metadata (truncated)", body: slices.Concat(start, deltas, stop("end_turn")), text: "Hello! How can I help?", errStatus: 502, errType: llm.ErrBadResponse, errMessage: "truncated"},
		{name: "no messageStop (truncated)", body: slices.Concat(start, deltas), text: "Hello! How can I help?", errStatus: 502, errType: llm.ErrBadResponse, errMessage: "truncated"},
		{name: "cut inside a message", body: slices.Concat(start, deltas, stop("end_turn"), meta[:len(meta)-10]), text: "Hello! How can I help?", errStatus: 502, errType: llm.ErrBadResponse, errMessage: "truncated"},
		{name: "corrupt message CRC", body: slices.Concat(start, deltas, stop("end_turn"), corrupt), text: "Hello! How can I help?", errStatus: 502, errType: llm.ErrBadResponse, errMessage: "message CRC"},
	}
	type received struct {
		path, uri, accept, auth, wantAuth string
		body                              []byte
	}
	signedAt := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan received, 2)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				// AWS's signature of the request as received: it must cover
				// this path, host and body.
				got <- received{r.URL.Path, r.RequestURI, r.Header.Get("Accept"), r.Header.Get("Authorization"),
					awsAuthorization(r, b, "AKIDTEST", "secretkey", "eu-west-1", "bedrock"), b}
				if tt.status != 0 {
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set("X-Amzn-ErrorType", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/")
					w.WriteHeader(tt.status)
					_, _ = w.Write(tt.body)
					return
				}
				w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
				_, _ = w.Write(tt.body)
			}))
			defer srv.Close()
			a := New(llm.Config{BaseURL: srv.URL, Region: "eu-west-1", RetryDelay: time.Millisecond})
			a.now = func() time.Time { return signedAt }
			mt := 256
			st, err := a.Stream(context.Background(), llm.Request{Model: "anthropic.claude-3-haiku-20240307-v1:0", MaxTokens: &mt,
				Messages: []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hello"}}}, llm.Credentials{APIKey: "AKIDTEST:secretkey"})
			var text, fin string
			var usage *llm.Usage
			if err == nil {
				var d llmtest.Drained
				d, err = llmtest.Drain(t, st)
				text, fin, usage = d.Text, d.Finish, d.Usage
				require.NoError(t, st.Close())
			}

			r := <-got
			require.Equal(t, "/model/anthropic.claude-3-haiku-20240307-v1:0/converse-stream", r.path)
			require.Equal(t, "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream", r.uri)
			require.Equal(t, "application/vnd.amazon.eventstream", r.accept)
			require.True(t, strings.HasPrefix(r.auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/20250301/eu-west-1/bedrock/aws4_request, "), r.auth)
			require.Equal(t, r.wantAuth, r.auth)
			require.JSONEq(t, `{"messages":[{"role":"user","content":[{"text":"Hello"}]}],"system":[{"text":"Be brief."}],
				"inferenceConfig":{"maxTokens":256}}`, string(r.body))
			require.Equal(t, tt.text, text)
			if tt.errType != "" {
				var le *llm.Error
				require.True(t, errors.As(err, &le), "want *llm.Error, got %v", err)
				require.Equal(t, tt.errStatus, le.Status)
				require.Equal(t, tt.errType, le.Type)
				require.Contains(t, le.Message, tt.errMessage)
				require.NotContains(t, le.Error(), "secretkey")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.finish, fin)
			require.Equal(t, tt.usage, usage)
		})
	}
}

// TestStreamToolUse: ConverseStream's toolUse blocks (contentBlockStart
// with start.toolUse, contentBlockDelta with delta.toolUse.input fragments)
// become OpenAI-style tool call pieces indexed among the tool calls.
func TestStreamToolUse(t *testing.T) {
	body := slices.Concat(
		event("messageStart", `{"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW","role":"assistant"}`),
		event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Let me check."},"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRST"}`),
		event("contentBlockStop", `{"contentBlockIndex":0,"p":"abcdefghijklmnopq"}`),
		event("contentBlockStart", `{"contentBlockIndex":1,"p":"abcdefghijklmnopqrstuv","start":{"toolUse":{"name":"get_weather","toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"}}}`),
		event("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"location\":\"Par"}},"p":"abcdefghijklmnopqrstuvwxyzABCDE"}`),
		event("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"is\",\"unit\":\"c"}},"p":"abcdefghijklmnopqrstuvwxyz"}`),
		event("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"elsius\"}"}},"p":"abcdefghijklmnopqrstuvwxyzABC"}`),
		event("contentBlockStop", `{"contentBlockIndex":1,"p":"abcdefghijklmnopq"}`),
		event("contentBlockStart", `{"contentBlockIndex":2,"p":"abcdefghij","start":{"toolUse":{"name":"get_time","toolUseId":"tooluse_2"}}}`),
		event("contentBlockStop", `{"contentBlockIndex":2,"p":"abcdefghijklmnopq"}`),
		event("messageStop", `{"p":"abcdefghijklmnopqrstuvwxyzABCDEFG","stopReason":"tool_use"}`),
		event("metadata", `{"metrics":{"latencyMs":300},"p":"abcdefghijklmnopqrstuvwxyzABCDEF","usage":{"inputTokens":40,"outputTokens":30,"totalTokens":70}}`))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	a := New(llm.Config{BaseURL: srv.URL, Region: "eu-west-1", RetryDelay: time.Millisecond})
	st, err := a.Stream(context.Background(), llm.Request{Model: "anthropic.claude-3-haiku-20240307-v1:0",
		Messages: []llm.Message{{Role: "user", Content: "Weather in Paris?"}}}, llm.Credentials{APIKey: "AKIDTEST:secretkey"})
	require.NoError(t, err)
	defer st.Close()
	d, err := llmtest.Drain(t, st)
	require.NoError(t, err)
	text, finish, pieces := d.Text, d.Finish, d.ToolCalls
	require.Equal(t, "Let me check.", text)
	require.Equal(t, "tool_calls", finish)
	require.Equal(t, []llm.ToolCallDelta{
		{Index: 0, ID: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", Name: "get_weather"},
		{Index: 0, Arguments: `{"location":"Par`}, {Index: 0, Arguments: `is","unit":"c`}, {Index: 0, Arguments: `elsius"}`},
		{Index: 1, ID: "tooluse_2", Name: "get_time"},
		{Index: 1, Arguments: `{}`},
	}, pieces)
	require.JSONEq(t, `{"location":"Paris","unit":"celsius"}`, pieces[1].Arguments+pieces[2].Arguments+pieces[3].Arguments)
}
