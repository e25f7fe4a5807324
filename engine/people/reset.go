package people

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/ids"
	"studio/engine/model/release"
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
	// now, and who made the link; engine.ErrNotFound otherwise.
	OpenPasswordReset(ctx context.Context, hash string, now time.Time) (engine.User, release.Actor, error)
	// Memberships lists the sites an account is a member of, with its
	// role on each.
	Memberships(ctx context.Context, userID string) ([]engine.Membership, error)
	// UsePasswordReset writes a ResetUse in one transaction; engine.ErrNotFound
	// when its link is not open. It returns the account as it is now and
	// what ended.
	UsePasswordReset(ctx context.Context, r ResetUse) (engine.User, identity.Ended, error)
}

// ResetUse is a reset link used, written in one transaction: the link with
// Hash (open at At) is spent; the account's password hash becomes
// PasswordHash and its session epoch moves on, so every session ends (its
// live ones, seen since Since, are marked ended and counted); every
// personal access token of the account and every agent key it owns that
// is no automation's own is revoked at At, on every site; and the one
// audit row Audit makes of what ended is appended.
type ResetUse struct {
	Hash, PasswordHash string
	At, Since          time.Time
	Audit              func(identity.Ended) engine.AuditEntry
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
	u, by, err := p.store.OpenPasswordReset(ctx, hash(secret), p.e.Now())
	if err != nil {
		return engine.User{}, err
	}
	// The rule is checked again as the link is used, on the account as it
	// is now: someone who joined another site since the link was made (or
	// was made its Owner) is no longer wholly its maker's to reset.
	if err := p.stillManages(ctx, by, u); err != nil {
		return engine.User{}, err
	}
	return u, nil
}

// stillManages refuses, as a link no longer open (engine.ErrNotFound), a
// reset link whose maker by does not manage the account u on every site
// it is a member of now (onAccount).
func (p *People) stillManages(ctx context.Context, by release.Actor, u engine.User) error {
	if by.Kind != "person" {
		return engine.ErrNotFound
	}
	sites := Sites{}
	for _, id := range []string{by.ID, u.ID} {
		ms, err := p.store.Memberships(ctx, id)
		if err != nil {
			return err
		}
		sites[id] = ms
	}
	maker := engine.User{ID: by.ID}
	target := u
	target.Role = "" // whatever it is on the maker's site: onAccount reads every site's
	if onAccount(maker, target, sites) != nil {
		return engine.ErrNotFound
	}
	return nil
}

// Reset sets the account's new password with the link secret, once. As
// someone else may have held the account, everything that signs in as it
// ends in the same transaction: every session, every personal access
// token and every agent key of the person's (not an automation's own), on
// every site, with one audit row (account.password_reset, no site: the
// act is the account's). It returns the account, to be signed in anew, and
// what ended. A password the rules refuse changes nothing.
func (p *People) Reset(ctx context.Context, secret, password string) (engine.User, identity.Ended, error) {
	u, err := p.OpenReset(ctx, secret)
	if err != nil {
		return engine.User{}, identity.Ended{}, err
	}
	if err := identity.CheckPassword(password); err != nil {
		return engine.User{}, identity.Ended{}, err
	}
	h, err := identity.HashPassword(password)
	if err != nil {
		return engine.User{}, identity.Ended{}, err
	}
	now := p.e.Now()
	return p.store.UsePasswordReset(ctx, ResetUse{Hash: hash(secret), PasswordHash: string(h), At: now,
		Since: now.Add(-identity.SessionIdle), Audit: func(e identity.Ended) engine.AuditEntry {
			return engine.AuditEntry{Action: "account.password_reset", Actor: u.Actor(), At: now, Details: e.Details()}
		}})
}
