package templates

import "time"

// AgentsPage is the person's agent keys (RFC §10.1, §11.2): their list,
// the form for a new one and, once, the secret of the key just made.
type AgentsPage struct {
	Rows []AgentKeyRow
	// SeesAll: the list is every key of the site (Owner, Administrator),
	// so each row names its owner.
	SeesAll bool
	// Name is the form's field after a refusal.
	Name   string
	Errors FieldErrors
	Error  string
	// Secret is the key just made, with its name: in this answer only.
	Secret     string
	SecretName string
	// Confirm is the key whose revoke dialog comes open in the page (the
	// confirm step of a browser without JavaScript).
	Confirm string
	Modes   []ModeChoice
	Scopes  []ScopeChoice
}

// ModeChoice is one mode on the new-key form: its name (plan), whether it
// is chosen, and the scopes it prefills (space-separated, for agents.js).
type ModeChoice struct {
	Name     string
	Checked  bool
	Defaults string
}

// AgentKeyRow is one key in the list, its times in the site's zone.
type AgentKeyRow struct {
	ID    string
	Name  string
	Mode  string
	Owner string
	// Scopes are the message keys of what it may do.
	Scopes   []string
	Created  time.Time
	LastUsed *time.Time
	Revoked  *time.Time
	// AutomationID and AutomationName: the automation whose own key it is.
	AutomationID   string
	AutomationName string
}
