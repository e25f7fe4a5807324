package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine/ids"
)

// Token is a person's personal access token for the JSON API. It acts as
// that person, with their role, in every call.
type Token struct {
	ID        string
	UserID    string
	Name      string
	CreatedAt time.Time
	LastUsed  *time.Time
	Revoked   *time.Time
}

// TokenStore is what tokens need from storage.
type TokenStore interface {
	CreateToken(ctx context.Context, t Token, hash string) error
	// TokenUser returns the live token with this hash and its person.
	TokenUser(ctx context.Context, hash string) (Token, User, error)
	TouchToken(ctx context.Context, id string, at time.Time) error
}

// tokenPrefix marks Studio secrets, so a leaked one is recognisable.
const tokenPrefix = "studio_pat_"

func tokenHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateToken mints a token for u; the secret is returned once and only its
// hash is stored.
func (e *Engine) CreateToken(ctx context.Context, u User, name string) (string, Token, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 120 || strings.ContainsAny(name, "\r\n") {
		return "", Token{}, refuse("bad_token_name", "name")
	}
	secret := tokenPrefix + ids.New("t")[2:] + ids.New("t")[2:] // 32 random characters
	t := Token{ID: ids.New("tok"), UserID: u.ID, Name: name, CreatedAt: e.Now()}
	if err := e.store.CreateToken(ctx, t, tokenHash(secret)); err != nil {
		return "", Token{}, err
	}
	return secret, t, nil
}

// TokenUser is the person a secret acts for; ErrNotFound for an unknown or
// revoked token. Use is recorded at most once a minute.
func (e *Engine) TokenUser(ctx context.Context, secret string) (User, error) {
	if !strings.HasPrefix(secret, tokenPrefix) {
		return User{}, ErrNotFound
	}
	t, u, err := e.store.TokenUser(ctx, tokenHash(secret))
	if err != nil {
		return User{}, err
	}
	now := e.Now()
	if t.LastUsed == nil || now.Sub(*t.LastUsed) > time.Minute {
		if err := e.store.TouchToken(ctx, t.ID, now); err != nil && !errors.Is(err, ErrNotFound) {
			return User{}, err
		}
	}
	return u, nil
}
