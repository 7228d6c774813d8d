// Package auth holds the gateway's credentials: service API keys (one per
// application), console bearer tokens and console passwords, plus the sealing
// of BYOK LLM keys. Secrets are stored only as hashes (keys, tokens, passwords)
// or sealed (BYOK keys); nothing here ever logs a secret.
//
// Key format. A service API key is "gwk_" followed by 32 base62 characters
// drawn with crypto/rand (32·log2(62) ≈ 190 bits of entropy). A console token
// is "gwc_" followed by 32 base62 characters. The prefixes make a leaked
// secret easy to recognise (secret scanners, logs) and tell the two kinds
// apart; they carry no secret. Both are stored as SHA-256: the secrets are
// uniformly random and long, so a fast unsalted hash is enough (no password
// stretching is needed) and allows an indexed lookup by hash.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ConsoleTokenTTL is how long a console token is valid after login/signup.
const ConsoleTokenTTL = 7 * 24 * time.Hour

const (
	// APIKeyPrefix starts every service API key.
	APIKeyPrefix = "gwk_"
	// ConsoleTokenPrefix starts every console bearer token.
	ConsoleTokenPrefix = "gwc_"
	// secretChars is the length of the random part of keys and tokens.
	secretChars = 32
	// displayChars is how many random characters KeyPrefix keeps: enough to
	// tell keys apart in a list, far too few to help guessing (~36 bits of
	// the ~190).
	displayChars = 6
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomBase62 returns n characters drawn uniformly from base62 with
// crypto/rand, by rejection sampling (bytes >= 248 are discarded so that
// every character has probability exactly 1/62).
func randomBase62(n int) (string, error) {
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("read random bytes: %w", err)
		}
		for _, b := range buf {
			if b >= 248 { // 248 = 4*62
				continue
			}
			out = append(out, base62[b%62])
			if len(out) == n {
				break
			}
		}
	}
	return string(out), nil
}

// Secret is a freshly generated key or token: the plaintext, shown to the
// user once, and what is stored.
type Secret struct {
	Plain  string // return to the caller once; never store, never log
	Hash   []byte // SHA-256 of Plain; what the store holds
	Prefix string // non-secret start of Plain for display (KeyPrefix)
}

func newSecret(prefix string) (Secret, error) {
	r, err := randomBase62(secretChars)
	if err != nil {
		return Secret{}, err
	}
	plain := prefix + r
	return Secret{Plain: plain, Hash: Hash(plain), Prefix: KeyPrefix(plain)}, nil
}

// NewAPIKey generates a service API key.
func NewAPIKey() (Secret, error) { return newSecret(APIKeyPrefix) }

// NewConsoleToken generates a console bearer token.
func NewConsoleToken() (Secret, error) { return newSecret(ConsoleTokenPrefix) }

// Hash is the at-rest form of a key or token: SHA-256 of its text.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// KeyPrefix is the displayable start of a key ("gwk_AbC123"): the type
// prefix plus a few random characters.
func KeyPrefix(key string) string {
	n := displayChars
	if i := strings.IndexByte(key, '_'); i >= 0 {
		n += i + 1
	}
	if n > len(key) {
		n = len(key)
	}
	return key[:n]
}

// ExtractAPIKey returns the service key sent in X-API-Key, or else in
// Authorization: Bearer. It returns "" when neither is present.
func ExtractAPIKey(h http.Header) string {
	if k := strings.TrimSpace(h.Get("X-API-Key")); k != "" {
		return k
	}
	return BearerToken(h)
}

// BearerToken returns the token of an "Authorization: Bearer <token>" header
// (scheme matched case-insensitively), or "".
func BearerToken(h http.Header) string {
	v := strings.TrimSpace(h.Get("Authorization"))
	scheme, tok, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}
