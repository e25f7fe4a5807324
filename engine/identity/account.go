package identity

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
)

// CodeWrongPassword refuses an account change whose current password is
// wrong (field "current").
const CodeWrongPassword = "wrong_password"

// SetProfile changes the person's own name and language (Your account).
// Bad fields are refused together and change nothing.
func (e *Identity) SetProfile(ctx context.Context, u engine.User, name, lang string) (engine.User, error) {
	name = strings.TrimSpace(name)
	var refused []error
	if name == "" || utf8.RuneCountInString(name) > 120 {
		refused = append(refused, engine.Refuse("bad_name", "name"))
	}
	if !engine.ValidLanguage(lang) {
		refused = append(refused, engine.Refuse("bad_language", "lang"))
	}
	if len(refused) > 0 {
		return engine.User{}, errors.Join(refused...)
	}
	err := e.store.SetUserProfile(ctx, u.ID, name, lang, engine.AuditEntry{Action: "account.profile", Actor: u.Actor(), At: e.e.Now(),
		Details: map[string]any{"name": name, "lang": lang}})
	if err != nil {
		return engine.User{}, err
	}
	u.Name, u.Lang = name, lang
	return u, nil
}

// Ended is what an act on an account's credentials ended: its sessions
// (the live ones, marked ended; a session from before Your account's list
// ends too but is not counted), and, for a password reset, its personal
// access tokens and its agent keys.
type Ended struct {
	// Epoch is the account's new session epoch, for the session that
	// asked to stay signed in (KeepSession).
	Epoch     int64
	Sessions  int
	Tokens    []string // ids of the tokens revoked
	AgentKeys []RevokedKey
}

// RevokedKey is an agent key a reset revoked, on its site.
type RevokedKey struct{ ID, SiteID string }

// Details are the audit row's account of e.
func (e Ended) Details() map[string]any {
	d := map[string]any{"sessions": e.Sessions}
	if e.Tokens != nil || e.AgentKeys != nil {
		keys := make([]map[string]any, 0, len(e.AgentKeys))
		for _, k := range e.AgentKeys {
			keys = append(keys, map[string]any{"id": k.ID, "siteId": k.SiteID})
		}
		d["tokens"], d["agentKeys"] = append([]string{}, e.Tokens...), keys
	}
	return d
}

// SessionsEnd is an account's sessions ended, in one transaction: the
// live ones (not ended, at the account's epoch, seen since Since) but
// Keep ("" for none) are marked ended at At and counted, the account's
// session epoch moves on (so every session but one moved to the new epoch
// has ended), its password hash becomes Hash unless that is "", and the
// one audit row Audit makes of what ended is appended.
type SessionsEnd struct {
	UserID, Hash, Keep string
	At, Since          time.Time
	Audit              func(Ended) engine.AuditEntry
}

// ChangePassword sets the person's password once their current one is
// right (checked under the sign-in throttle, as a sign-in is), and ends
// every other session of theirs; the session sid ("" for one from before
// the list) stays, once moved to the new epoch (KeepSession). Their access
// tokens and agent keys stay: the person changing it is the one signed in.
// It returns what ended, with the account's new session epoch.
func (e *Identity) ChangePassword(ctx context.Context, u engine.User, sid, current, next, client string) (Ended, error) {
	if _, err := e.SignIn(ctx, SignInTry{Email: u.Email, Password: current, Client: client}); err != nil {
		if c, ok := engine.AsError(err); ok && c.Code == CodeBadCredentials {
			return Ended{}, engine.Refuse(CodeWrongPassword, "current")
		}
		return Ended{}, err
	}
	if err := CheckPassword(next); err != nil {
		return Ended{}, err
	}
	hash, err := HashPassword(next)
	if err != nil {
		return Ended{}, err
	}
	return e.endSessions(ctx, u, sid, string(hash), "account.password_changed")
}

// EndOtherSessions signs the person out everywhere but in the session sid:
// it returns what ended, with the account's new session epoch.
func (e *Identity) EndOtherSessions(ctx context.Context, u engine.User, sid string) (Ended, error) {
	return e.endSessions(ctx, u, sid, "", "account.sessions_ended")
}

func (e *Identity) endSessions(ctx context.Context, u engine.User, keep, hash, action string) (Ended, error) {
	now := e.e.Now()
	return e.store.EndSessions(ctx, SessionsEnd{UserID: u.ID, Hash: hash, Keep: keep, At: now, Since: now.Add(-SessionIdle),
		Audit: func(ended Ended) engine.AuditEntry {
			return engine.AuditEntry{Action: action, Actor: u.Actor(), At: now, Details: ended.Details()}
		}})
}
