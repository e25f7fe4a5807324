package identity

import (
	_ "embed"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"studio/engine"
)

// hashCost is the bcrypt cost of every password hash Studio makes.
var hashCost atomic.Int32

func init() { hashCost.Store(int32(bcrypt.DefaultCost)) }

// HashPassword is the hash Studio keeps of a person's password.
func HashPassword(password string) ([]byte, error) {
	return bcrypt.GenerateFromPassword([]byte(password), int(hashCost.Load()))
}

// CheapHashesForTests makes every hash made from now on (the unknown-email
// sign-in's among them) at bcrypt's least cost. Only tests call it: under
// -race a hash at the default cost takes 0.8 s of CPU, and the handlers'
// tests, which set up, reset and change passwords, starved a loaded CI
// machine into 30-second timeouts. A hash records its cost, so checking a
// password works whatever the cost was when it was set.
func CheapHashesForTests() { hashCost.Store(int32(bcrypt.MinCost)) }

// Refusal codes of a password being set (on the "password" field).
const (
	// CodePasswordTooShort: fewer than MinPasswordChars characters.
	CodePasswordTooShort = "password_too_short"
	// CodePasswordTooLong: more than MaxPasswordBytes bytes, all bcrypt reads.
	CodePasswordTooLong = "password_too_long"
	// CodePasswordRepeated: one character repeated.
	CodePasswordRepeated = "password_repeated"
	// CodePasswordCommon: on the list of common passwords shipped with Studio.
	CodePasswordCommon = "password_common"
)

const (
	// MinPasswordChars is the shortest password, counted in characters
	// (runes), so "şifre" is five, not seven.
	MinPasswordChars = 10
	// MaxPasswordBytes is the longest: bcrypt reads at most 72 bytes.
	MaxPasswordBytes = 72
)

//go:embed common_passwords.txt
var commonPasswordsText string

// commonPasswords is the embedded list, in lower case.
var commonPasswords = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(commonPasswordsText, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out[strings.ToLower(line)] = true
		}
	}
	return out
})

// CheckPassword refuses a password nobody should set: shorter than
// MinPasswordChars characters, longer than MaxPasswordBytes bytes, one
// character repeated, or on the list of common passwords (compared in
// lower case). Every use case that sets a password calls it.
func CheckPassword(password string) error {
	switch {
	case utf8.RuneCountInString(password) < MinPasswordChars:
		return &engine.Error{Code: CodePasswordTooShort, Field: "password", Args: map[string]any{"Chars": MinPasswordChars}}
	case len(password) > MaxPasswordBytes:
		return &engine.Error{Code: CodePasswordTooLong, Field: "password", Args: map[string]any{"Bytes": MaxPasswordBytes}}
	case oneCharacter(password):
		return engine.Refuse(CodePasswordRepeated, "password")
	case commonPasswords()[strings.ToLower(password)]:
		return engine.Refuse(CodePasswordCommon, "password")
	}
	return nil
}

func oneCharacter(s string) bool {
	first, _ := utf8.DecodeRuneInString(s)
	for _, r := range s {
		if r != first {
			return false
		}
	}
	return true
}
