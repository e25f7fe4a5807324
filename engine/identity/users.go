package identity

import (
	"context"
	"errors"
	"net/mail"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/throttle"
)

// AddUser creates an account with role on the site siteID. The password
// is stored as a bcrypt hash.
func (e *Identity) AddUser(ctx context.Context, siteID, email, name string, role policy.Role, password, lang string) (engine.User, error) {
	u, hash, err := NewAccount(email, name, role, password, lang)
	if err != nil {
		return engine.User{}, err
	}
	u.SiteID = siteID
	if _, _, err := e.store.UserByEmail(ctx, u.Email); err == nil {
		return engine.User{}, engine.Refuse("email_taken", "email")
	} else if !errors.Is(err, engine.ErrNotFound) {
		return engine.User{}, err
	}
	return u, e.store.CreateUser(ctx, u, hash, e.e.Now())
}

// AddExisting gives the account with email role on the site siteID, for
// an operator at the command line (`studio user add --site` of someone
// who has an account for another site): their password stays theirs.
// engine.ErrNotFound when no account has that email (a malformed one
// either: making the account refuses it with the other fields); an
// already_member refusal when it is a member of the site.
func (e *Identity) AddExisting(ctx context.Context, siteID, email string, role policy.Role) (engine.User, error) {
	if _, ok := policy.ParseRole(string(role)); !ok {
		return engine.User{}, engine.Refuse("bad_role", "role")
	}
	address, err := ParseEmail(email)
	if err != nil {
		return engine.User{}, engine.ErrNotFound
	}
	u, _, err := e.store.UserByEmail(ctx, address)
	if err != nil {
		return engine.User{}, err
	}
	if _, err := e.store.MemberByID(ctx, siteID, u.ID); err == nil {
		return engine.User{}, engine.Refuse("already_member", "email")
	} else if !errors.Is(err, engine.ErrNotFound) {
		return engine.User{}, err
	}
	if err := e.store.AddMember(ctx, siteID, u.ID, role, e.e.Now()); err != nil {
		return engine.User{}, err
	}
	u.Role, u.SiteID = role, siteID
	return u, nil
}

// NewAccount checks a new account by the rules every account keeps (an
// email address, a name, a role, a password CheckPassword takes; a
// language Studio does not speak is the default) and hashes its password
// with bcrypt. A refusal names every bad field: the *engine.Error of each,
// joined (errors.Join), the email's first.
func NewAccount(email, name string, role policy.Role, password, lang string) (engine.User, string, error) {
	var refused []error
	address, err := ParseEmail(email)
	if err != nil {
		refused = append(refused, err)
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 120 {
		refused = append(refused, engine.Refuse("bad_name", "name"))
	}
	if _, ok := policy.ParseRole(string(role)); !ok {
		refused = append(refused, engine.Refuse("bad_role", "role"))
	}
	if err := CheckPassword(password); err != nil {
		refused = append(refused, err)
	}
	if len(refused) > 0 {
		return engine.User{}, "", errors.Join(refused...)
	}
	if !engine.ValidLanguage(lang) {
		lang = engine.Languages[0]
	}
	hash, err := HashPassword(password)
	if err != nil {
		return engine.User{}, "", err
	}
	return engine.User{ID: ids.New("user"), Email: address, Name: name, Role: role, Lang: lang}, string(hash), nil
}

// ParseEmail is email as an account keeps it: one plain address, trimmed
// (bad_email on "email" for anything else).
func ParseEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email {
		return "", engine.Refuse("bad_email", "email")
	}
	return addr.Address, nil
}

// dummyHash makes a sign-in with an unknown email cost as much as one with a
// wrong password, so timing does not reveal which accounts exist. It is
// made on the first sign-in, not at start: a bcrypt hash costs tens of
// milliseconds, which every process would pay (`studio schedules run-due`
// from a system cron among them).
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := HashPassword("studio-timing-equaliser")
	return h
})

// Refusal codes of a sign-in.
const (
	// CodeBadCredentials: a wrong password or an unknown email.
	CodeBadCredentials = "bad_credentials"
	// CodeTooManyAttempts refuses a sign-in while its account or its client
	// address is locked by the throttle (engine/throttle); Args "RetryAfter"
	// (a time.Duration) says how long. Surfaces answer 429 with Retry-After.
	CodeTooManyAttempts = "too_many_attempts"
)

// SignInTry is one sign-in: the email and password as typed, and the client
// address the request came from ("" when there is none), which the surface
// takes from the connection or a trusted proxy.
type SignInTry struct {
	Email, Password, Client string
	// Lang is a language the person chose before signing in (the sign-in
	// page's language switch), "" for none. A successful sign-in saves it
	// to the account; without one the account's language applies.
	Lang string
}

// auditEmailChars is how much of a typed email a failed sign-in's audit row
// keeps.
const auditEmailChars = 100

// SignIn checks an email and password, under the sign-in throttle: a try
// while the account or the address is locked is refused with
// too_many_attempts (even with the right password) before any password is
// checked; a wrong password or an unknown email is bad_credentials and
// writes an audit row (auth.sign_in_failed: the email as typed, shortened,
// the address group, the account's id when it exists, and the lock the
// failure started, if any; never the password). The right password forgets
// the account's failures.
func (e *Identity) SignIn(ctx context.Context, try SignInTry) (engine.User, error) {
	typed := strings.TrimSpace(try.Email)
	addr := throttle.AddressGroup(try.Client)
	now := e.e.Now()
	tk, wait := e.throttle.Admit(throttle.AccountKey(typed), addr, now)
	if wait > 0 {
		return engine.User{}, &engine.Error{Code: CodeTooManyAttempts, Args: map[string]any{"RetryAfter": wait}}
	}
	u, hash, err := e.store.UserByEmail(ctx, typed)
	known := err == nil
	if err != nil && !errors.Is(err, engine.ErrNotFound) {
		e.throttle.Abandon(tk)
		return engine.User{}, err
	}
	if !known {
		hash = string(dummyHash())
	}
	if e.checkPassword([]byte(hash), []byte(try.Password)) == nil && known {
		e.throttle.Succeeded(tk)
		if engine.ValidLanguage(try.Lang) && try.Lang != u.Lang {
			if err := e.store.SetUserLang(ctx, u.ID, try.Lang); err != nil {
				return engine.User{}, err
			}
			u.Lang = try.Lang
		}
		return u, nil
	}
	details := map[string]any{"email": truncateRunes(typed, auditEmailChars), "client": addr}
	if known {
		details["userId"] = u.ID
	}
	if d := tk.LockedFor(); d > 0 {
		details["lockedSeconds"] = int64((d + time.Second - 1) / time.Second)
		e.log.Warn("studio: sign-in locked after failed tries", "client", addr, "seconds", details["lockedSeconds"])
	}
	// The refusal stands even if its audit row cannot be written.
	if err := e.store.AppendAudit(ctx, engine.AuditEntry{Action: "auth.sign_in_failed", Actor: anonymousActor(addr),
		At: now, Details: details}); err != nil {
		e.log.Error("studio: audit of a failed sign-in", "err", err)
	}
	return engine.User{}, engine.Refuse(CodeBadCredentials, "")
}

// anonymousActor is the actor of an act by someone not signed in, known
// only by their address group.
func anonymousActor(addr string) release.Actor {
	return release.Actor{Kind: "anonymous", ID: addr}
}

// truncateRunes shortens s to at most n characters.
func truncateRunes(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// User returns the account with id, with the highest role it holds on any
// site (SiteID ""): what a route no site is in may check. A route on a site
// acts as OnSite's user.
func (e *Identity) User(ctx context.Context, id string) (engine.User, error) {
	return e.store.UserByID(ctx, id)
}

// OnSite is u acting on the site siteID: with their role there (§10.2), a
// token's or agent key's scopes kept, to be narrowed to that role on use.
// engine.ErrNotFound when u is not a member of the site, which a surface
// answers as it answers a site that does not exist.
func (e *Identity) OnSite(ctx context.Context, u engine.User, siteID string) (engine.User, error) {
	m, err := e.store.MemberByID(ctx, siteID, u.ID)
	if err != nil {
		return engine.User{}, err
	}
	u.Role, u.SiteID = m.Role, siteID
	return u, nil
}

// Memberships lists the sites the person userID is a member of, with their
// role on each, oldest site first.
func (e *Identity) Memberships(ctx context.Context, userID string) ([]engine.Membership, error) {
	return e.store.Memberships(ctx, userID)
}

// SetLanguage remembers the person's language.
func (e *Identity) SetLanguage(ctx context.Context, u engine.User, lang string) error {
	if !engine.ValidLanguage(lang) {
		return engine.Refuse("bad_language", "lang")
	}
	return e.store.SetUserLang(ctx, u.ID, lang)
}
