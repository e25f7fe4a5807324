package people

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"golang.org/x/crypto/bcrypt"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/ids"
	"studio/engine/release"
)

// ResetLife is how long a password reset link works.
const ResetLife = 24 * time.Hour

// resetPrefix marks a reset link's secret.
const resetPrefix = "studio_rst_"

// PasswordReset is an open reset link of one account.
type PasswordReset struct {
	ID, UserID string
	By         release.Actor
	CreatedAt  time.Time
	ExpiresAt  time.Time
}

// ResetStore is what password resets read and write.
type ResetStore interface {
	// CreatePasswordReset writes a reset link and its audit row, and ends
	// the account's open ones, in one transaction.
	CreatePasswordReset(ctx context.Context, r PasswordReset, hash string, audit engine.AuditEntry) error
	// OpenPasswordReset is the account of the reset link with hash open at
	// now; engine.ErrNotFound otherwise.
	OpenPasswordReset(ctx context.Context, hash string, now time.Time) (engine.User, error)
	// UsePasswordReset spends the link with hash (open at now), sets the
	// account's password hash and moves its session epoch on, with the
	// audit row, in one transaction; engine.ErrNotFound when it is not
	// open. It returns the account as it is now.
	UsePasswordReset(ctx context.Context, hash string, now time.Time, passwordHash string, audit engine.AuditEntry) (engine.User, error)
}

// ResetLink makes a one-time link with which the member userID chooses a
// new password, and returns its secret: shown once, only its hash is kept,
// good for ResetLife. The link opens the whole account, with its roles on
// every site, so u must manage the member on every site of theirs
// (onAccount: CodeMemberElsewhere otherwise), besides the rules of a role
// change here: not one's own, and an Owner's only by an Owner. Every
// refusal about a member is audited on the site
// (member.password_reset_refused).
func (p *People) ResetLink(ctx context.Context, u engine.User, siteID, userID string) (string, PasswordReset, error) {
	m, err := p.accountTarget(ctx, u, siteID, userID, "member.password_reset_refused")
	if err != nil {
		return "", PasswordReset{}, err
	}
	now := p.e.Now()
	r := PasswordReset{ID: ids.New("rst"), UserID: m.ID, By: u.Actor(), CreatedAt: now, ExpiresAt: now.Add(ResetLife)}
	b := make([]byte, 32)
	rand.Read(b)
	secret := resetPrefix + base64.RawURLEncoding.EncodeToString(b)
	err = p.store.CreatePasswordReset(ctx, r, hash(secret), engine.AuditEntry{Action: "member.password_reset_link", Actor: u.Actor(),
		SiteID: siteID, At: now, Details: map[string]any{"userId": m.ID, "name": m.Name}})
	if err != nil {
		return "", PasswordReset{}, err
	}
	return secret, r, nil
}

// OpenReset is the account a reset link is for; engine.ErrNotFound for an
// unknown, used, replaced or expired one, all alike.
func (p *People) OpenReset(ctx context.Context, secret string) (engine.User, error) {
	if len(secret) <= len(resetPrefix) || secret[:len(resetPrefix)] != resetPrefix {
		return engine.User{}, engine.ErrNotFound
	}
	return p.store.OpenPasswordReset(ctx, hash(secret), p.e.Now())
}

// Reset sets the account's new password with the link secret, once: every
// session of theirs ends. It returns the account, to be signed in. A
// password the rules refuse changes nothing.
func (p *People) Reset(ctx context.Context, secret, password string) (engine.User, error) {
	u, err := p.OpenReset(ctx, secret)
	if err != nil {
		return engine.User{}, err
	}
	if err := identity.CheckPassword(password); err != nil {
		return engine.User{}, err
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return engine.User{}, err
	}
	return p.store.UsePasswordReset(ctx, hash(secret), p.e.Now(), string(h),
		engine.AuditEntry{Action: "account.password_reset", Actor: u.Actor(), At: p.e.Now()})
}
