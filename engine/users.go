package engine

import (
	"context"
	"errors"
	"net/mail"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"studio/engine/ids"
	"studio/engine/policy"
)

// Languages Studio speaks; the first is the default.
var Languages = []string{"en", "tr"}

// ValidLanguage reports whether Studio speaks lang.
func ValidLanguage(lang string) bool { return lang == "en" || lang == "tr" }

// AddUser creates an account. The password is stored as a bcrypt hash.
func (e *Engine) AddUser(ctx context.Context, email, name string, role policy.Role, password, lang string) (User, error) {
	addr, err := mail.ParseAddress(strings.TrimSpace(email))
	if err != nil || addr.Address != strings.TrimSpace(email) {
		return User{}, refuse("bad_email", "email")
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 120 {
		return User{}, refuse("bad_name", "name")
	}
	if _, ok := policy.ParseRole(string(role)); !ok {
		return User{}, refuse("bad_role", "role")
	}
	if len(password) < 8 || len(password) > 72 { // bcrypt reads at most 72 bytes
		return User{}, refuse("bad_password", "password")
	}
	if !ValidLanguage(lang) {
		lang = Languages[0]
	}
	if _, _, err := e.store.UserByEmail(ctx, addr.Address); err == nil {
		return User{}, refuse("email_taken", "email")
	} else if !errors.Is(err, ErrNotFound) {
		return User{}, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return User{}, err
	}
	u := User{ID: ids.New("user"), Email: addr.Address, Name: name, Role: role, Lang: lang}
	return u, e.store.CreateUser(ctx, u, string(hash), e.Now())
}

// dummyHash makes a sign-in with an unknown email cost as much as one with a
// wrong password, so timing does not reveal which accounts exist.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("studio-timing-equaliser"), bcrypt.DefaultCost)

// SignIn checks an email and password.
func (e *Engine) SignIn(ctx context.Context, email, password string) (User, error) {
	u, hash, err := e.store.UserByEmail(ctx, strings.TrimSpace(email))
	if errors.Is(err, ErrNotFound) {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return User{}, refuse(CodeBadCredentials, "")
	}
	if err != nil {
		return User{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return User{}, refuse(CodeBadCredentials, "")
	}
	return u, nil
}

// User returns the account with id.
func (e *Engine) User(ctx context.Context, id string) (User, error) { return e.store.UserByID(ctx, id) }

// SetLanguage remembers the person's language.
func (e *Engine) SetLanguage(ctx context.Context, u User, lang string) error {
	if !ValidLanguage(lang) {
		return refuse("bad_language", "lang")
	}
	return e.store.SetUserLang(ctx, u.ID, lang)
}

func require(u User, scope policy.Scope) error {
	if !policy.Has(u.Role, scope) {
		return refuse(CodeForbidden, "")
	}
	return nil
}
