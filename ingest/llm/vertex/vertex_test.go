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
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
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
