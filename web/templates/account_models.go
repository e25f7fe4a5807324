package templates

// AccountPage is the person's own page: the profile form's fields (what
// was typed, after a refusal), the languages and the password rule.
type AccountPage struct {
	Name, Email, Lang string
	Langs             []string
	PasswordChars     int
	Errors            FieldErrors
	// Sessions are the person's live sessions, the last seen first.
	Sessions []SessionRow
}

// SessionRow is one browser signed in to the account.
type SessionRow struct {
	ID          string
	Browser, OS string // "" when not recognised
	This        bool   // the session looking at the page
	Created     TimePair
	Seen        TimePair
}
