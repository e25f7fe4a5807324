// Package identity holds the people use cases: creating accounts, signing
// in under the sign-in throttle (engine/throttle), sessions, the password
// rules and password changes, a person's name and language, personal
// access tokens (mint, list, revoke, and the person a token acts for) and
// operators' deploy tokens. The engine kernel keeps engine.User and
// engine.Token themselves, with the scope rules every use case checks
// (User.Level, User.Passes, engine.Require); this package reaches storage
// through its own narrow Store.
package identity

import (
	"context"
	"log/slog"
	"time"

	"golang.org/x/crypto/bcrypt"

	"studio/engine"
	"studio/engine/policy"
	"studio/engine/throttle"
)

// Store is what the identity use cases read and write.
type Store interface {
	CreateUser(ctx context.Context, u engine.User, passwordHash string, now time.Time) error
	UserByEmail(ctx context.Context, email string) (engine.User, string, error)
	UserByID(ctx context.Context, id string) (engine.User, error)
	// MemberByID reads the account id as a member of siteID, with their
	// role there; engine.ErrNotFound when it is not a member.
	MemberByID(ctx context.Context, siteID, id string) (engine.User, error)
	// AddMember gives the account userID role on the site siteID.
	AddMember(ctx context.Context, siteID, userID string, role policy.Role, now time.Time) error
	// Memberships lists the sites a person is a member of, oldest site first.
	Memberships(ctx context.Context, userID string) ([]engine.Membership, error)
	SetUserLang(ctx context.Context, id, lang string) error
	// SetUserProfile changes an account's name and language, with its
	// audit row.
	SetUserProfile(ctx context.Context, id, name, lang string, audit engine.AuditEntry) error
	// EndSessions writes a SessionsEnd; engine.ErrNotFound when the
	// account is gone. It returns what ended, with the new epoch.
	EndSessions(ctx context.Context, e SessionsEnd) (Ended, error)
	// AppendAudit writes one audit row that goes with no other change (a
	// failed sign-in).
	AppendAudit(ctx context.Context, a engine.AuditEntry) error

	// CreateSession writes a new session row, and drops the account's
	// rows not seen since before.
	CreateSession(ctx context.Context, s Session, before time.Time) error
	// SessionOf reads the account userID (with its epoch) and its session
	// sid in one statement; ErrNotFound when either is missing.
	SessionOf(ctx context.Context, userID, sid string) (engine.User, Session, error)
	// TouchSession sets the session's seen_at.
	TouchSession(ctx context.Context, sid string, at time.Time) error
	// Sessions lists the account's sessions not ended, at epoch and seen
	// since since, the last seen first.
	Sessions(ctx context.Context, userID string, epoch int64, since time.Time) ([]Session, error)
	// EndSession ends the account's session sid at at, with its audit
	// row; ErrNotFound when it has no such session not ended.
	EndSession(ctx context.Context, userID, sid string, at time.Time, audit engine.AuditEntry) error
	// SetSessionEpoch moves the account's session sid to epoch.
	SetSessionEpoch(ctx context.Context, userID, sid string, epoch int64) error

	CreateToken(ctx context.Context, t engine.Token, hash string) error
	// TokenUser returns the live token with this hash and its person.
	TokenUser(ctx context.Context, hash string) (engine.Token, engine.User, error)
	TouchToken(ctx context.Context, id string, at time.Time) error
	// Tokens lists a person's unrevoked tokens, newest first.
	Tokens(ctx context.Context, userID string) ([]engine.Token, error)
	// RevokeToken revokes the person's token id at at, with its audit row,
	// in one transaction. A token already revoked stays as it was (nil);
	// one that does not exist or is someone else's is ErrNotFound.
	RevokeToken(ctx context.Context, userID, id string, at time.Time, audit engine.AuditEntry) error

	CreateDeployToken(ctx context.Context, t engine.DeployToken, hash string, a engine.AuditEntry) error
	// DeployToken returns the unrevoked deploy token with this hash.
	DeployToken(ctx context.Context, hash string) (engine.DeployToken, error)
	TouchDeployToken(ctx context.Context, id string, at time.Time) error
	// RevokeDeployToken revokes it at a.At, with a; ErrNotFound when no
	// such token works.
	RevokeDeployToken(ctx context.Context, id string, a engine.AuditEntry) error
}

// Engine is what the identity use cases need from the engine: its clock.
type Engine interface {
	Now() time.Time
}

// Identity is the people use cases of one process: it holds the sign-in
// throttle, so a process has one.
type Identity struct {
	e     Engine
	store Store
	log   *slog.Logger

	// throttle slows password guessing (engine/throttle); checkPassword
	// is bcrypt's comparison, a field so a test can count the hashes spent.
	throttle      *throttle.Throttle
	checkPassword func(hash, password []byte) error
}

// New wires the identity use cases. log may be nil.
func New(e Engine, store Store, log *slog.Logger) *Identity {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Identity{e: e, store: store, log: log, throttle: throttle.New(), checkPassword: bcrypt.CompareHashAndPassword}
}
