package templates

// ConfirmAction is a destructive action and its confirmation, in the
// person's words: the link that opens it, the question, what follows, the
// button that does it and the one that keeps things as they are.
type ConfirmAction struct {
	// ID names the dialog and the page's confirm step (?confirm=ID).
	ID string
	// Page is the page the action sits on; Action where the form posts,
	// with Rev, the version the person saw.
	Page   string
	Action string
	Rev    int64
	// Open: the page is the confirm step, the dialog comes open.
	Open bool
	// Hint, when set, is said under the link.
	OpenLabel, Hint, Title, Effects, SubmitLabel, KeepLabel string
}
