package identity

import (
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"

	"studio/engine"
)

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
