package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/ids"
	"studio/engine/policy"
)

// tokenPrefix marks Studio secrets, so a leaked one is recognisable.
const tokenPrefix = "studio_pat_"

func tokenHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CodeBadScopes refuses a token's scopes: none chosen, or one the person's
// role does not hold (at the level asked) or no key may hold.
const CodeBadScopes = "bad_scopes"

// TokenScopes lists the scopes u may give a token, in the order of
// policy.Scopes: every key scope u holds, each at the level u holds it
// (an Author offers schedules:write:own, not schedules:write).
func TokenScopes(u engine.User) []policy.Scope {
	var out []policy.Scope
	for _, s := range policy.KeyScopes() {
		if slices.Contains(policy.Narrow([]policy.Scope{s}, u.Role), s) {
			out = append(out, s)
		}
	}
	return out
}

// CreateToken mints a token for u with scopes (nil: every scope u may give
// it, TokenScopes); the secret is returned once and only its hash is
// stored. A scope above u's role, or a person-only one, is refused
// (bad_scopes on "scopes"), never silently narrowed.
func (e *Identity) CreateToken(ctx context.Context, u engine.User, name string, scopes []policy.Scope) (string, engine.Token, error) {
	name, err := tokenName(name)
	if err != nil {
		return "", engine.Token{}, err
	}
	allowed := TokenScopes(u)
	if scopes == nil {
		scopes = allowed
	}
	var chosen []policy.Scope
	for _, s := range scopes {
		if !slices.Contains(allowed, s) {
			return "", engine.Token{}, engine.Refuse(CodeBadScopes, "scopes")
		}
		if !slices.Contains(chosen, s) {
			chosen = append(chosen, s)
		}
	}
	if len(chosen) == 0 {
		return "", engine.Token{}, engine.Refuse(CodeBadScopes, "scopes")
	}
	secret := newSecret(tokenPrefix)
	t := engine.Token{ID: ids.New("tok"), UserID: u.ID, Name: name, Scopes: chosen, CreatedAt: e.e.Now()}
	if err := e.store.CreateToken(ctx, t, tokenHash(secret)); err != nil {
		return "", engine.Token{}, err
	}
	return secret, t, nil
}

// TokenUser is the person a secret acts for, with the token's scopes
// (User.Scopes, narrowed to the person's role as it is now on every check);
// engine.ErrNotFound for an unknown or revoked token. Use is recorded at
// most once a minute.
func (e *Identity) TokenUser(ctx context.Context, secret string) (engine.User, error) {
	if !strings.HasPrefix(secret, tokenPrefix) {
		return engine.User{}, engine.ErrNotFound
	}
	t, u, err := e.store.TokenUser(ctx, tokenHash(secret))
	if err != nil {
		return engine.User{}, err
	}
	if now := e.e.Now(); touchDue(t.LastUsed, now) {
		if err := e.store.TouchToken(ctx, t.ID, now); err != nil && !errors.Is(err, engine.ErrNotFound) {
			return engine.User{}, err
		}
	}
	if t.Scopes != nil {
		// Kept as chosen: User.Level narrows them to the role of the
		// site the call acts on (OnSite), on every use.
		u.Scopes = slices.Clone(t.Scopes)
	}
	return u, nil
}

// Tokens lists u's own tokens that still work, newest first: what each is
// called, when it was made and last used. Secrets are never kept, so never
// listed.
func (e *Identity) Tokens(ctx context.Context, u engine.User) ([]engine.Token, error) {
	return e.store.Tokens(ctx, u.ID)
}

// RevokeToken ends one of u's tokens: from this moment it authenticates
// nothing (TokenUser reads it on every request; nothing caches it). Revoking
// a token twice is no error; someone else's token is engine.ErrNotFound, so
// its existence is not revealed.
func (e *Identity) RevokeToken(ctx context.Context, u engine.User, id string) error {
	now := e.e.Now()
	return e.store.RevokeToken(ctx, u.ID, id, now, engine.AuditEntry{Action: "token.revoke", Actor: u.Actor(), At: now,
		Details: map[string]any{"token": id}})
}

// tokenName is a token's name as kept (trimmed), or bad_token_name: one
// line of at most 120 characters. Person and deploy tokens alike.
func tokenName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 120 || strings.ContainsAny(name, "\r\n") {
		return "", engine.Refuse("bad_token_name", "name")
	}
	return name, nil
}

// newSecret is a token's secret: prefix and 32 random characters.
func newSecret(prefix string) string { return prefix + ids.New("t")[2:] + ids.New("t")[2:] }

// touchDue says whether a token's use at now is recorded: at most once a
// minute, so a busy script does not write on every call.
func touchDue(lastUsed *time.Time, now time.Time) bool {
	return lastUsed == nil || now.Sub(*lastUsed) > time.Minute
}
