package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/crypto/bcrypt"

	"github.com/governance-gateway/gateway/query"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNewAPIKeyFormat(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		s, err := NewAPIKey()
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(s.Plain, APIKeyPrefix))
		require.Len(t, s.Plain, len(APIKeyPrefix)+secretChars)
		for _, c := range s.Plain[len(APIKeyPrefix):] {
			require.True(t, strings.ContainsRune(base62, c), "char %q", c)
		}
		require.Equal(t, Hash(s.Plain), s.Hash)
		require.Len(t, s.Hash, 32)
		require.Equal(t, s.Plain[:len(APIKeyPrefix)+displayChars], s.Prefix)
		require.False(t, seen[s.Plain], "duplicate key")
		seen[s.Plain] = true
	}
	tok, err := NewConsoleToken()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tok.Plain, ConsoleTokenPrefix))
}

func TestRandomBase62Uniformish(t *testing.T) {
	// 62 symbols * ~1000 draws each: every symbol must show up; a biased or
	// broken generator (e.g. only digits) fails.
	s, err := randomBase62(62 * 1000)
	require.NoError(t, err)
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	require.Len(t, counts, 62)
	for c, n := range counts {
		require.Greater(t, n, 700, "symbol %q under-represented", c)
		require.Less(t, n, 1300, "symbol %q over-represented", c)
	}
}

func TestKeyPrefix(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"gwk_ABCDEFGHIJ", "gwk_ABCDEF"},
		{"gwk_AB", "gwk_AB"},
		{"nounderscore", "nounde"},
		{"", ""},
	} {
		require.Equal(t, tc.want, KeyPrefix(tc.in), tc.in)
	}
}

func TestExtractAPIKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    map[string]string
		want string
	}{
		{"x-api-key", map[string]string{"X-API-Key": "gwk_a"}, "gwk_a"},
		{"bearer", map[string]string{"Authorization": "Bearer gwk_b"}, "gwk_b"},
		{"bearer lower", map[string]string{"Authorization": "bearer  gwk_b "}, "gwk_b"},
		{"x-api-key wins", map[string]string{"X-API-Key": "gwk_a", "Authorization": "Bearer gwk_b"}, "gwk_a"},
		{"basic ignored", map[string]string{"Authorization": "Basic Zm9vOmJhcg=="}, ""},
		{"bare ignored", map[string]string{"Authorization": "gwk_c"}, ""},
		{"none", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.h {
				h.Set(k, v)
			}
			require.Equal(t, tc.want, ExtractAPIKey(h))
		})
	}
}

type fakeApps struct {
	mu    sync.Mutex
	apps  map[string]query.App // by string(hash)
	calls int
	err   error
}

func (f *fakeApps) AppByKeyHash(_ context.Context, hash []byte) (query.App, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.err != nil {
		return query.App{}, f.err
	}
	a, ok := f.apps[string(hash)]
	if !ok {
		return query.App{}, query.ErrNotFound
	}
	return a, nil
}

func (f *fakeApps) delete(hash []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.apps, string(hash))
}

func (f *fakeApps) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func TestResolver(t *testing.T) {
	key, err := NewAPIKey()
	require.NoError(t, err)
	store := &fakeApps{apps: map[string]query.App{string(key.Hash): {ID: "app1", OrgID: "org1", KeyHash: key.Hash}}}
	r, err := NewResolver(store, ResolverConfig{TTL: time.Minute})
	require.NoError(t, err)
	defer r.Close()
	ctx := context.Background()

	app, err := r.Resolve(ctx, key.Plain)
	require.NoError(t, err)
	require.Equal(t, "app1", app.ID)

	// Cached: eventually resolves without touching the store.
	require.Eventually(t, func() bool {
		before := store.callCount()
		_, err := r.Resolve(ctx, key.Plain)
		return err == nil && store.callCount() == before
	}, 5*time.Second, 10*time.Millisecond)

	for _, bad := range []string{"", "gwk_unknown", strings.Repeat("x", 300)} {
		_, err = r.Resolve(ctx, bad)
		require.ErrorIs(t, err, ErrInvalidKey, bad)
	}

	// Revocation through this process is immediate.
	store.delete(key.Hash)
	r.Invalidate(key.Hash)
	_, err = r.Resolve(ctx, key.Plain)
	require.ErrorIs(t, err, ErrInvalidKey)

	// A store failure is not an invalid key.
	store.err = errors.New("db down")
	_, err = r.Resolve(ctx, "gwk_other")
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrInvalidKey)
}

func TestResolverRejectsDeletedOrMismatched(t *testing.T) {
	key, err := NewAPIKey()
	require.NoError(t, err)
	now := time.Now()
	store := &fakeApps{apps: map[string]query.App{
		string(key.Hash): {ID: "app1", KeyHash: key.Hash, DeletedAt: &now},
	}}
	r, err := NewResolver(store, ResolverConfig{})
	require.NoError(t, err)
	defer r.Close()
	_, err = r.Resolve(context.Background(), key.Plain)
	require.ErrorIs(t, err, ErrInvalidKey)

	store.apps[string(key.Hash)] = query.App{ID: "app1", KeyHash: []byte("some other hash")}
	_, err = r.Resolve(context.Background(), key.Plain)
	require.ErrorIs(t, err, ErrInvalidKey)
}

func TestResolverConfigValidate(t *testing.T) {
	_, err := NewResolver(&fakeApps{}, ResolverConfig{TTL: time.Hour})
	require.Error(t, err)
	_, err = NewResolver(&fakeApps{}, ResolverConfig{MaxKeys: -1})
	require.Error(t, err)
}

func TestPasswords(t *testing.T) {
	p, err := NewPasswords(bcrypt.MinCost)
	require.NoError(t, err)
	for _, tc := range []struct {
		pw string
		ok bool
	}{
		{"short", false},
		{"1234567", false},
		{"12345678", true},
		{"pässwörd", true}, // 8 characters, 10 bytes
		{strings.Repeat("a", 72), true},
		{strings.Repeat("a", 73), false},
		{"bad\xffutf8x", false},
	} {
		h, err := p.Hash(tc.pw)
		if !tc.ok {
			require.Error(t, err, tc.pw)
			continue
		}
		require.NoError(t, err, tc.pw)
		require.True(t, p.Check(h, tc.pw))
		require.False(t, p.Check(h, tc.pw+"x"))
		require.False(t, p.Check(nil, tc.pw))
	}
	_, err = NewPasswords(100)
	require.Error(t, err)
}

func TestSealer(t *testing.T) {
	none, err := NewSealer(nil)
	require.NoError(t, err)
	_, err = none.Seal([]byte("sk-x"), nil)
	require.ErrorIs(t, err, ErrNoMasterKey)

	_, err = NewSealer(make([]byte, 16))
	require.Error(t, err)

	s, err := NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	aad := SealAAD("org1", "app1")
	sealed, err := s.Seal([]byte("sk-secret"), aad)
	require.NoError(t, err)
	require.NotContains(t, string(sealed), "sk-secret")
	again, err := s.Seal([]byte("sk-secret"), aad)
	require.NoError(t, err)
	require.NotEqual(t, sealed, again, "fresh nonce per seal")

	pt, err := s.Open(sealed, aad)
	require.NoError(t, err)
	require.Equal(t, "sk-secret", string(pt))

	_, err = s.Open(sealed, SealAAD("org1", "app2"))
	require.Error(t, err, "bound to its app")
	tampered := append([]byte(nil), sealed...)
	tampered[len(tampered)-1] ^= 1
	_, err = s.Open(tampered, aad)
	require.Error(t, err)
	_, err = s.Open([]byte{9, 9}, aad)
	require.Error(t, err)
}
