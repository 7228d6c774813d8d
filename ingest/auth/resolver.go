package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/governance-gateway/gateway/query"
)

// ErrInvalidKey: the API key is missing, unknown or revoked. Callers answer
// 401 and must not say which of the three it was.
var ErrInvalidKey = errors.New("invalid or missing API key")

// AppLookup is the part of query.Store the resolver needs.
type AppLookup interface {
	AppByKeyHash(ctx context.Context, hash []byte) (query.App, error)
}

// ResolverConfig configures the API key cache.
type ResolverConfig struct {
	// TTL bounds how long a resolved key stays cached. It is the revocation
	// window across replicas: a key deleted through another API replica keeps
	// working here for at most TTL. Deletions through this process are
	// immediate (Invalidate). Default 2 s.
	TTL time.Duration
	// MaxKeys bounds the number of cached keys. Default 100,000.
	MaxKeys int64
}

// Defaults fills zero fields.
func (c *ResolverConfig) Defaults() {
	if c.TTL == 0 {
		c.TTL = 2 * time.Second
	}
	if c.MaxKeys == 0 {
		c.MaxKeys = 100_000
	}
}

// Validate reports an unusable configuration.
func (c ResolverConfig) Validate() error {
	if c.TTL < 0 || c.TTL > time.Minute {
		return fmt.Errorf("key cache TTL %s must be between 0 and 1m (it is the revocation window)", c.TTL)
	}
	if c.MaxKeys < 1 {
		return fmt.Errorf("key cache MaxKeys %d must be positive", c.MaxKeys)
	}
	return nil
}

// Resolver resolves service API keys to their live application, with a short
// ristretto cache in front of the store. Safe for concurrent use. Close it to
// stop the cache's goroutines.
type Resolver struct {
	store AppLookup
	ttl   time.Duration
	cache *ristretto.Cache[string, query.App]
	// gen is bumped by every Invalidate; a lookup that raced with an
	// invalidation does not put its (possibly stale) answer in the cache.
	gen atomic.Uint64
	// mu makes "generation unchanged, so cache the answer" atomic with
	// respect to Invalidate (read-locked on the miss path only).
	mu sync.RWMutex
}

// NewResolver builds a Resolver over store.
func NewResolver(store AppLookup, cfg ResolverConfig) (*Resolver, error) {
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c, err := ristretto.NewCache(&ristretto.Config[string, query.App]{
		NumCounters: cfg.MaxKeys * 10,
		MaxCost:     cfg.MaxKeys,
		BufferItems: 64,
	})
	if err != nil {
		return nil, fmt.Errorf("create API key cache: %w", err)
	}
	return &Resolver{store: store, ttl: cfg.TTL, cache: c}, nil
}

// Resolve returns the live application owning key. ErrInvalidKey when the key
// is empty, unknown or revoked; other errors mean the store failed (callers
// answer 503, not 401, so a store outage never looks like a bad key).
func (r *Resolver) Resolve(ctx context.Context, key string) (query.App, error) {
	if key == "" || len(key) > 256 {
		return query.App{}, ErrInvalidKey
	}
	hash := Hash(key)
	ck := string(hash)
	if app, ok := r.cache.Get(ck); ok && subtle.ConstantTimeCompare(app.KeyHash, hash) == 1 {
		return app, nil
	}
	gen := r.gen.Load()
	app, err := r.store.AppByKeyHash(ctx, hash)
	switch {
	case errors.Is(err, query.ErrNotFound):
		return query.App{}, ErrInvalidKey
	case err != nil:
		return query.App{}, fmt.Errorf("look up API key: %w", err)
	}
	// The store looked the row up by hash; compare again in constant time so
	// that correctness never rests on the store's index comparison.
	if subtle.ConstantTimeCompare(app.KeyHash, hash) != 1 || app.DeletedAt != nil {
		return query.App{}, ErrInvalidKey
	}
	if r.ttl > 0 {
		r.mu.RLock()
		if r.gen.Load() == gen {
			// ristretto applies this set before any later Del of the key.
			r.cache.SetWithTTL(ck, app, 1, r.ttl)
		}
		r.mu.RUnlock()
	}
	return app, nil
}

// Invalidate drops a key from the cache at once (call it after the store has
// deleted the application). It affects only this process.
func (r *Resolver) Invalidate(keyHash []byte) {
	r.mu.Lock()
	r.gen.Add(1)
	r.cache.Del(string(keyHash))
	r.mu.Unlock()
}

// Close stops the cache. Resolve must not be called afterwards.
func (r *Resolver) Close() { r.cache.Close() }
