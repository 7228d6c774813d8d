// Package llm is the gateway's view of an LLM vendor: one request and
// response vocabulary (OpenAI's chat shape, the lingua franca) that each
// vendor adapter (ingest/llm/<vendor>) translates to its own wire format.
// Upstream keys travel in Credentials only: adapters never log them or put
// them in errors.
package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Vendor values of the chat API's `provider` field (DESIGN.md section 5).
const (
	OpenAI      = "openai"
	AzureOpenAI = "azure_openai"
	Anthropic   = "anthropic"
	Bedrock     = "bedrock"
	Vertex      = "vertex"
)

// Vendors lists the five provider values.
func Vendors() []string { return []string{OpenAI, AzureOpenAI, Anthropic, Bedrock, Vertex} }

// Message is one chat message (spec section 2), plus the tool-call fields
// OpenAI-style clients send.
type Message struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	Name       string          `json:"name,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
}

// Request is one completion request.
type Request struct {
	Model          string
	Messages       []Message
	Temperature    *float64
	MaxTokens      *int
	Tools          json.RawMessage // OpenAI tools array, passed through
	ResponseFormat json.RawMessage
	// Extra holds every other parameter of the caller's body, forwarded
	// unchanged where the vendor has a place for it.
	Extra map[string]json.RawMessage
}

// Usage is the token count the vendor reported.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// Response is a completed answer.
type Response struct {
	Content      string
	ToolCalls    json.RawMessage
	FinishReason string // OpenAI vocabulary: stop, length, tool_calls, content_filter
	Usage        Usage
	Model        string
}

// Credentials of one call: the BYOK key of the application or the
// operator's Managed key. Never logged.
type Credentials struct {
	APIKey string
}

// credentialMask replaces a credential found in an upstream's message.
const credentialMask = "[REDACTED]"

// Scrub removes cred from the message of err (an *Error) and returns err.
// Some upstreams echo the key they were sent in their error message
// ("Incorrect API key provided: sk-..."), and that message reaches the
// caller and the trace: a Managed key would be handed to a tenant, a BYOK
// key put on the log. The whole key is masked, and each part of a
// composite one (Bedrock's ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]).
func Scrub(err error, cred Credentials) error {
	var le *Error
	if err == nil || cred.APIKey == "" || !errors.As(err, &le) {
		return err
	}
	le.Message = ScrubText(le.Message, cred)
	return err
}

// ScrubText is s with cred masked (see Scrub).
func ScrubText(s string, cred Credentials) string {
	k := cred.APIKey
	if k == "" {
		return s
	}
	s = strings.ReplaceAll(s, k, credentialMask)
	if !strings.Contains(k, "{") { // not a JSON service-account key
		for _, part := range strings.Split(k, ":") {
			if len(part) >= 8 {
				s = strings.ReplaceAll(s, part, credentialMask)
			}
		}
	}
	return s
}

// Provider is one vendor adapter.
type Provider interface {
	Name() string
	// Complete sends req and returns the answer. Errors are *Error.
	Complete(ctx context.Context, req Request, cred Credentials) (Response, error)
}

// Error types.
const (
	ErrTimeout     = "upstream_timeout" // 504
	ErrNetwork     = "upstream_error"   // 502
	ErrStatus      = "upstream_status"  // the vendor's status
	ErrBadResponse = "bad_response"     // 502: the vendor answered something unreadable
)

// Error is a failed upstream call, with the HTTP status the gateway answers.
type Error struct {
	Status  int
	Type    string
	Message string
	// Answered: the vendor had begun a successful answer when the call
	// failed, so it has generated (and billed) it; Retry does not repeat it.
	Answered bool
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.Type, e.Status, e.Message) }

// Config of an adapter.
type Config struct {
	BaseURL string        // vendor endpoint root, e.g. https://api.openai.com/v1
	Timeout time.Duration // whole call, default 30 s
	// RetryDelay before the one retry of an idempotent failure (connection
	// refused or reset before an answer, any 5xx). Default 100 ms.
	RetryDelay time.Duration
	// Region is the AWS region of Bedrock (GATEWAY_PROVIDER_BEDROCK_REGION)
	// or the Google Cloud location of Vertex AI.
	Region string
	// Project is the Google Cloud project of Vertex AI.
	Project string
}

// Defaults fills zero fields.
func (c *Config) Defaults() {
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Second
	}
	if c.RetryDelay == 0 {
		c.RetryDelay = 100 * time.Millisecond
	}
}

// Chunk is one streamed piece of an answer.
type Chunk struct {
	Delta        string
	FinishReason string
	Usage        *Usage // set on the chunk that carries the usage, if any
	// ToolCalls are the pieces of the answer's tool calls this event
	// carries, in OpenAI's streaming shape (see ToolCallDelta).
	ToolCalls []ToolCallDelta
	// Raw is the upstream event's data, unchanged, for pass-through to a
	// client that asked for the upstream's stream format.
	Raw []byte
}

// ToolCallDelta is one piece of a streamed tool call, mirroring an item of
// OpenAI's choices[0].delta.tool_calls ({index, id, type: "function",
// function: {name, arguments}}). The first piece of a call carries its
// Index, ID and Name (and maybe the start of Arguments); later pieces carry
// the Index and the next fragment of Arguments. The call's arguments are the
// concatenation of its fragments, in order: a JSON object as text, readable
// only once the call is complete.
type ToolCallDelta struct {
	Index     int    // the call's position among the answer's tool calls, from 0
	ID        string // first piece only
	Name      string // function name, first piece only
	Arguments string // a fragment of the arguments JSON, possibly empty
}

// Stream yields chunks until io.EOF. A stream that ends without the
// vendor's end marker returns an *Error (bad_response), never a silent EOF.
type Stream interface {
	Next() (Chunk, error)
	Close() error
}

// Streamer is a Provider that can stream.
type Streamer interface {
	Stream(ctx context.Context, req Request, cred Credentials) (Stream, error)
}

// Retry calls f a second time, after delay, when its first failure is
// transient: no connection, or any 5xx status (Anthropic's 529 overloaded
// included), the "idempotent failures" of spec section 7. A 4xx (429
// included) is the caller's to handle and is not repeated, nor is a
// successful answer that broke off (Error.Answered). Nothing has reached
// the caller yet, so repeating the call is safe.
func Retry[T any](ctx context.Context, delay time.Duration, f func() (T, error)) (T, error) {
	v, err := f()
	if !Transient(err) {
		return v, err
	}
	select {
	case <-time.After(delay):
		return f()
	case <-ctx.Done():
		return v, err
	}
}

// Transient reports whether err is a failure Retry repeats.
func Transient(err error) bool {
	var le *Error
	if !errors.As(err, &le) {
		return false
	}
	return !le.Answered && (le.Type == ErrNetwork || le.Type == ErrStatus && le.Status >= 500 && le.Status <= 599)
}

// TransportError is the *Error of a failed HTTP exchange: a timeout (the
// call's deadline or the connection's) is 504, anything else 502.
func TransportError(ctx context.Context, err error) *Error {
	var ne net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return &Error{Status: http.StatusGatewayTimeout, Type: ErrTimeout, Message: "the upstream LLM did not answer in time"}
	}
	return &Error{Status: http.StatusBadGateway, Type: ErrNetwork, Message: "cannot reach the upstream LLM"}
}

// maxErrorMessage bounds the vendor message StatusError echoes.
const maxErrorMessage = 300

// StatusError is the *Error of a vendor's error answer (status >= 400). It
// reads at most 1 MiB of res's body (the caller closes it) and echoes only
// the vendor's own message ({"error":{"message"}} of OpenAI, Azure,
// Anthropic and Google; {"message"} of Bedrock), cut to 300 bytes: the rest
// of an error body may quote the request.
func StatusError(res *http.Response) *Error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	var e struct {
		Message string `json:"message"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := fmt.Sprintf("the upstream LLM answered HTTP %d", res.StatusCode)
	if json.Unmarshal(raw, &e) == nil {
		if m := cmp.Or(e.Error.Message, e.Message); m != "" {
			msg = cutUTF8(m, maxErrorMessage)
		}
	}
	return &Error{Status: res.StatusCode, Type: ErrStatus, Message: msg}
}

// cutUTF8 is s cut to at most n bytes, at a rune start.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ToolCall is one item of an assistant message's OpenAI tool_calls.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is the call's arguments as JSON; {} when the caller's
	// text was not valid JSON, since the other vendors take an object.
	Arguments json.RawMessage
}

// Tool is one function of a request's OpenAI tools array.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema; empty when the caller gave none
}

// ParseTools decodes a request's OpenAI tools array.
func ParseTools(raw json.RawMessage) ([]Tool, error) {
	var tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i] = Tool(t.Function)
	}
	return out, nil
}

// ParseToolCalls decodes an assistant message's tool_calls.
func ParseToolCalls(raw json.RawMessage) ([]ToolCall, error) {
	var calls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &calls); err != nil {
		return nil, fmt.Errorf("tool_calls: %w", err)
	}
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		args := json.RawMessage(c.Function.Arguments)
		if !json.Valid(args) {
			args = json.RawMessage(`{}`)
		}
		out[i] = ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args}
	}
	return out, nil
}

// maxAnswer bounds a non-streamed answer's body.
const maxAnswer = 16 << 20

// ReadAnswer reads the body of a successful non-streamed answer (at most
// 16 MiB). A body that breaks off is an Answered error, so Retry does not
// ask (and pay) for the same answer twice.
func ReadAnswer(ctx context.Context, body io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(body, maxAnswer))
	if err != nil {
		e := TransportError(ctx, err)
		if e.Type == ErrNetwork {
			e.Message = "the upstream answer broke off"
		}
		e.Answered = true
		return nil, e
	}
	return raw, nil
}
