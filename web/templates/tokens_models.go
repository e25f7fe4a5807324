package templates

import "time"

// TokensPage is the person's access tokens: their list, the form for a new
// one and, once, the secret of the token just made.
type TokensPage struct {
	Rows []TokenRow
	// Name is the new-token form's field: what was typed, after a refusal.
	Name   string
	Errors FieldErrors
	Error  string
	// Secret is the token just made, with its name. It is in this answer
	// only: Studio keeps nothing but its hash.
	Secret     string
	SecretName string
	// Confirm is the token whose revoke dialog comes open in the page
	// (the confirm step of a browser without JavaScript).
	Confirm string
}

// TokenRow is one token in the list, its times in the site's zone.
type TokenRow struct {
	ID       string
	Name     string
	Created  time.Time
	LastUsed *time.Time // nil: never used
}
