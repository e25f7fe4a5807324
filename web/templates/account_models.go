package templates

// AccountPage is the person's own page: the profile form's fields (what
// was typed, after a refusal), the languages and the password rule.
type AccountPage struct {
	Name, Email, Lang string
	Langs             []string
	PasswordChars     int
	Errors            FieldErrors
}
