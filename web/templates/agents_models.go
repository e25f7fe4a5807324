package templates

import (
	"context"
	"encoding/json"
	"time"

	"studio/locales"
)

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

// AgentKeyPage is one key's page: the key, and how to connect an agent
// with it.
type AgentKeyPage struct {
	Key AgentKeyRow
	// SeesAll: the person may see every key of the site (the page names
	// the key's owner).
	SeesAll bool
	// Secret is the key just made: in this answer only, with Address, the
	// key page's own address, which the page takes (agents.js).
	Secret  string
	Address string
	// Endpoint is the MCP endpoint's URL; SiteID and SiteName the site the
	// key works on; Protocol the MCP revision Test connection asks for.
	Endpoint string
	SiteID   string
	SiteName string
	Protocol string
	// Modes are the names of every mode, which Test connection may read
	// back from get_mode.
	Modes []string
	// Config is a client configuration (.mcp.json), Curl shell lines that
	// check the key.
	Config string
	Curl   string
}

// modeNames is every mode's name in the person's language, as JSON, for
// Test connection to name the mode get_mode answers.
func modeNames(ctx context.Context, modes []string) string {
	names := map[string]string{}
	for _, m := range modes {
		names[m] = locales.T(ctx, "agents.mode_"+m)
	}
	b, _ := json.Marshal(names) // a map of strings always marshals
	return string(b)
}
