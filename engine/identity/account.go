package identity

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

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

// ChangePassword sets the person's password once their current one is
// right (checked under the sign-in throttle, as a sign-in is), and ends
// every other session of theirs. It returns the account's new session
// epoch, for the session that asked to stay signed in.
func (e *Identity) ChangePassword(ctx context.Context, u engine.User, current, next, client string) (int64, error) {
	if _, err := e.SignIn(ctx, SignInTry{Email: u.Email, Password: current, Client: client}); err != nil {
		if c, ok := engine.AsError(err); ok && c.Code == CodeBadCredentials {
			return 0, engine.Refuse(CodeWrongPassword, "current")
		}
		return 0, err
	}
	if err := CheckPassword(next); err != nil {
		return 0, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(next), bcrypt.DefaultCost)
	if err != nil {
		return 0, err
	}
	return e.store.EndSessions(ctx, u.ID, string(hash), engine.AuditEntry{Action: "account.password_changed", Actor: u.Actor(), At: e.e.Now()})
}

// EndOtherSessions signs the person out everywhere but here: it returns the
// account's new session epoch, for the session that asked.
func (e *Identity) EndOtherSessions(ctx context.Context, u engine.User) (int64, error) {
	return e.store.EndSessions(ctx, u.ID, "", engine.AuditEntry{Action: "account.sessions_ended", Actor: u.Actor(), At: e.e.Now()})
}
