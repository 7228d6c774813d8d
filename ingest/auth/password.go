package auth

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

const (
	// MinPasswordChars is the shortest accepted console password.
	MinPasswordChars = 8
	// MaxPasswordBytes is bcrypt's input limit; longer passwords are refused
	// rather than silently truncated.
	MaxPasswordBytes = 72
	// BcryptCost is the work factor of stored password hashes.
	BcryptCost = 12
)

// ValidatePassword checks the password rules (8+ characters, at most 72 bytes).
func ValidatePassword(pw string) error {
	if !utf8.ValidString(pw) {
		return errors.New("password must be valid UTF-8")
	}
	if utf8.RuneCountInString(pw) < MinPasswordChars {
		return fmt.Errorf("password must be at least %d characters", MinPasswordChars)
	}
	if len(pw) > MaxPasswordBytes {
		return fmt.Errorf("password must be at most %d bytes", MaxPasswordBytes)
	}
	return nil
}

// Passwords hashes and checks console passwords with bcrypt.
type Passwords struct {
	cost  int
	dummy []byte // hash compared against for unknown users, to equalise timing
}

// NewPasswords returns a hasher with the given bcrypt cost (0: BcryptCost).
// Tests use bcrypt.MinCost.
func NewPasswords(cost int) (*Passwords, error) {
	if cost == 0 {
		cost = BcryptCost
	}
	if cost < bcrypt.MinCost || cost > bcrypt.MaxCost {
		return nil, fmt.Errorf("bcrypt cost %d out of range %d..%d", cost, bcrypt.MinCost, bcrypt.MaxCost)
	}
	dummy, err := bcrypt.GenerateFromPassword([]byte("not a real password"), cost)
	if err != nil {
		return nil, fmt.Errorf("hash dummy password: %w", err)
	}
	return &Passwords{cost: cost, dummy: dummy}, nil
}

// Hash returns the bcrypt hash of a validated password.
func (p *Passwords) Hash(pw string) ([]byte, error) {
	if err := ValidatePassword(pw); err != nil {
		return nil, err
	}
	h, err := bcrypt.GenerateFromPassword([]byte(pw), p.cost)
	if err != nil {
		return nil, fmt.Errorf("hash password: %w", err)
	}
	return h, nil
}

// Check reports whether pw matches hash. A nil hash (unknown user) still
// costs one bcrypt comparison, so response time does not reveal whether an
// e-mail address is registered.
func (p *Passwords) Check(hash []byte, pw string) bool {
	if hash == nil || len(pw) > MaxPasswordBytes {
		// No stored password can match; spend the same time anyway (on a
		// prefix, which bcrypt accepts).
		_ = bcrypt.CompareHashAndPassword(p.dummy, []byte(pw[:min(len(pw), MaxPasswordBytes)]))
		return false
	}
	return bcrypt.CompareHashAndPassword(hash, []byte(pw)) == nil
}
