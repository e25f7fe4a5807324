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
	// Scopes are the scopes the person may give a new token, each ticked
	// or not (all are, until the person chose).
	Scopes []ScopeChoice
}

// ScopeChoice is one scope on the new-token form: its name (content:read)
// and the message key of what it allows.
type ScopeChoice struct {
	Name    string
	Key     string
	Checked bool
}

// TokenRow is one token in the list, its times in the site's zone.
type TokenRow struct {
	ID       string
	Name     string
	Created  time.Time
	LastUsed *time.Time // nil: never used
	// Scopes are the message keys of what it may do; empty for a token
	// made before tokens had scopes (everything the role allows).
	Scopes []string
}
