package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// sealVersion is the first byte of every sealed value, so that a future
// master-key rotation or algorithm change can tell formats apart.
const sealVersion = 1

// ErrNoMasterKey: a secret must be sealed but GATEWAY_MASTER_KEY is not set.
var ErrNoMasterKey = errors.New("GATEWAY_MASTER_KEY is not configured")

// Sealer encrypts BYOK LLM keys at rest with AES-256-GCM under the master key.
// Sealed layout: version(1) | nonce(12) | ciphertext+tag. The additional data
// binds a ciphertext to its owner (org and app id), so a sealed key copied to
// another row does not open. A nil *Sealer means "no master key": every
// method returns ErrNoMasterKey.
type Sealer struct{ aead cipher.AEAD }

// NewSealer returns a Sealer for a 32-byte master key, or nil (no error) when
// masterKey is empty.
func NewSealer(masterKey []byte) (*Sealer, error) {
	if len(masterKey) == 0 {
		return nil, nil
	}
	if len(masterKey) != 32 {
		return nil, fmt.Errorf("master key is %d bytes, want 32", len(masterKey))
	}
	block, err := aes.NewCipher(masterKey)
	if err != nil {
		return nil, fmt.Errorf("master key cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("master key GCM: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// SealAAD is the additional data binding a sealed LLM key to its application.
func SealAAD(orgID, appID string) []byte { return []byte("llm_api_key/" + orgID + "/" + appID) }

// Seal encrypts plaintext with a fresh random nonce.
func (s *Sealer) Seal(plaintext, aad []byte) ([]byte, error) {
	if s == nil {
		return nil, ErrNoMasterKey
	}
	out := make([]byte, 1+s.aead.NonceSize(), 1+s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("seal nonce: %w", err)
	}
	return s.aead.Seal(out, out[1:], plaintext, aad), nil
}

// Open decrypts a value made by Seal with the same aad.
func (s *Sealer) Open(sealed, aad []byte) ([]byte, error) {
	if s == nil {
		return nil, ErrNoMasterKey
	}
	n := s.aead.NonceSize()
	if len(sealed) < 1+n+s.aead.Overhead() || sealed[0] != sealVersion {
		return nil, errors.New("open sealed key: unknown format")
	}
	pt, err := s.aead.Open(nil, sealed[1:1+n], sealed[1+n:], aad)
	if err != nil {
		return nil, fmt.Errorf("open sealed key: %w", err)
	}
	return pt, nil
}
