package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// hint is what a client shows of a tool and may rely on before calling
// it (MCP's tool annotations). The titles are English, like the tools'
// descriptions: they are read by the model and by the engineer who
// connects it, before any person's language is known.
type hint struct {
	title string
	// readOnly: it changes nothing (reading visitor text taints a run,
	// which is the run's state, not the site's).
	readOnly bool
	// destructive: it may take something away (content off the site, an
	// approval, a schedule); false means it only adds.
	destructive bool
	// idempotent: calling it again with the same arguments changes nothing
	// more (the rev it names has moved, the run is begun or ended).
	idempotent bool
}

// hints are every tool's; tool() refuses to register a tool without one.
var hints = map[string]hint{
	"list_schedule":      {"Read the calendar", true, false, true},
	"get_schedule":       {"Read one calendar item", true, false, true},
	"list_releases":      {"List releases", true, false, true},
	"get_release":        {"Read a release", true, false, true},
	"list_automations":   {"List automations", true, false, true},
	"list_runs":          {"List runs", true, false, true},
	"get_run":            {"Read a run", true, false, true},
	"get_mode":           {"What this key may do", true, false, true},
	"list_content":       {"List pages and articles", true, false, true},
	"get_content":        {"Read a page or article", true, false, true},
	"describe_site":      {"Describe the site", true, false, true},
	"broken_links":       {"Read broken links and 404s", true, false, true},
	"begin_run":          {"Begin this automation's run", false, false, true},
	"end_run":            {"End this automation's run", false, false, true},
	"pause_automation":   {"Pause an automation", false, false, true},
	"save_draft":         {"Save a draft", false, false, false},
	"propose_release":    {"Propose a release", false, false, false},
	"schedule_release":   {"Schedule a release", false, false, false},
	"reschedule":         {"Move a release", false, true, true},
	"cancel_schedule":    {"Cancel a release", false, true, true},
	"set_embargo":        {"Embargo a page or article", false, true, false},
	"lift_embargo":       {"Ask a person to lift an embargo", false, false, false},
	"schedule_unpublish": {"Schedule an expiry", false, true, false},
}

// annotate sets t's title and annotations from its hint. No tool of
// Studio reaches outside the site (openWorld false).
func annotate(t *sdk.Tool) {
	h, ok := hints[t.Name]
	if !ok {
		panic("mcp: no hint for tool " + t.Name)
	}
	closed := false
	t.Title = h.title
	t.Annotations = &sdk.ToolAnnotations{Title: h.title, ReadOnlyHint: h.readOnly, DestructiveHint: &h.destructive,
		IdempotentHint: h.idempotent, OpenWorldHint: &closed}
}
