package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const demoEmail = "demo@gateway.local"

// printDemo sets up the demo organisation through the public console API (so
// it exercises exactly what a user would) and prints a fresh Events key.
// The demo console password is generated once and kept in
// <data dir>/demo-login (mode 0600) so later starts can log in again; --demo
// only runs on a loopback address.
func printDemo(ctx context.Context, dataDir, url string, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	pwFile := filepath.Join(dataDir, "demo-login")
	var token string
	if b, err := os.ReadFile(pwFile); err == nil {
		var resp struct{ Token string }
		if err := postJSON(ctx, url+"/api/console/login", "", map[string]string{"email": demoEmail, "password": strings.TrimSpace(string(b))}, &resp); err != nil {
			return fmt.Errorf("demo login (delete %s to start a new demo organisation): %w", pwFile, err)
		}
		token = resp.Token
	} else {
		pw := make([]byte, 12)
		if _, err := rand.Read(pw); err != nil {
			return err
		}
		password := hex.EncodeToString(pw)
		var resp struct{ Token string }
		if err := postJSON(ctx, url+"/api/console/signup", "", map[string]string{"email": demoEmail, "password": password, "organization": "Demo"}, &resp); err != nil {
			return fmt.Errorf("demo signup: %w", err)
		}
		if err := os.WriteFile(pwFile, []byte(password+"\n"), 0o600); err != nil {
			return fmt.Errorf("save demo login: %w", err)
		}
		token = resp.Token
	}
	var app struct {
		APIKey string `json:"api_key"`
	}
	name := "demo events " + time.Now().UTC().Format(time.RFC3339)
	if err := postJSON(ctx, url+"/api/console/apps", token, map[string]string{"name": name, "mode": "events"}, &app); err != nil {
		return fmt.Errorf("demo app: %w", err)
	}
	var vapp struct {
		APIKey string `json:"api_key"`
	}
	vname := "demo verify " + time.Now().UTC().Format(time.RFC3339)
	if err := postJSON(ctx, url+"/api/console/apps", token, map[string]string{"name": vname, "mode": "verify"}, &vapp); err != nil {
		return fmt.Errorf("demo verify app: %w", err)
	}
	var fapp struct {
		APIKey string `json:"api_key"`
	}
	fname := "demo full control " + time.Now().UTC().Format(time.RFC3339)
	if err := postJSON(ctx, url+"/api/console/apps", token, map[string]string{"name": fname, "mode": "full_control",
		"provider_option": "managed", "provider": "openai", "model": "gpt-4o-mini"}, &fapp); err != nil {
		return fmt.Errorf("demo full control app: %w", err)
	}
	fmt.Fprintf(out, `
Demo Full Control API key: %s   (POST /v1/chat; provider openai is the fake LLM unless GATEWAY_PROVIDER_OPENAI_* are set)
  curl -s %s/v1/chat -H "X-API-Key: %s" -H 'Content-Type: application/json' -d '{"prompt":"hello"}'
`, fapp.APIKey, url, fapp.APIKey)
	fmt.Fprintf(out, `
Demo Events API key: %s
Demo Verify API key: %s
Console login:       %s / password in %s
Console token:       %s
Try it:
  curl -s %s/v1/events -H "X-API-Key: %s" -H 'Content-Type: application/json' \
    -d '{"prompt":"hi","answer":"hello","model":"gpt-4o-mini","prompt_tokens":3,"completion_tokens":2}'
  curl -s %s/v1/verify -H "X-API-Key: %s" -H 'Content-Type: application/json' \
    -d '{"answer":"Revenue grew 15%%, mail cfo@example.com","tool_result":"Revenue grew 12%% in 2024."}'
  curl -s %s/v1/chat/completions -H "X-Service-Api-Key: %s" -H "Authorization: Bearer <upstream key>" \
    -H 'Content-Type: application/json' -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'
  curl -s '%s/api/console/requests?limit=5' -H "Authorization: Bearer %s"
`, app.APIKey, vapp.APIKey, demoEmail, pwFile, token, url, app.APIKey, url, vapp.APIKey, url, app.APIKey, url, token)
	return nil
}

func postJSON(ctx context.Context, url, bearer string, body, into any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 300 {
		return errors.New(resp.Status + ": " + strings.TrimSpace(string(rb)))
	}
	return json.Unmarshal(rb, into)
}
