package templates

import "time"

// Option is one choice of a select: its value and its words.
type Option struct {
	Value, Label string
}

// HistoryView is the History tab (§15.1): the runs of every automation and
// release, newest first, with the filters the URL holds.
type HistoryView struct {
	// The filters' choices and what is chosen.
	Automations      []Option
	States, Outcomes []Option
	Automation       string
	State, Outcome   string
	Filtered         bool
	Rows             []RunRow
	MoreURL          string // the next page's address ("" at the end)
	Error            string // a filter or cursor the engine refused
	ClearURL         string
}

// RunRow is one run in History.
type RunRow struct {
	ID string
	// When is the occurrence in the site's zone, worded ("Today · 09:07",
	// "2 November 2026, 09:07"); At is the instant for <time datetime>.
	When string
	At   time.Time
	// SubjectName and SubjectURL name what ran: an automation (its page)
	// or a release.
	SubjectName, SubjectURL string
	SubjectKind             string // automation | release
	Trigger                 string // worded
	State                   string // an automation.RunState
	Outcome                 string // an automation.Outcome, or ""
	Late                    string // "2 min 14 s late", "On time", or ""
	Attempt                 int
	Counts                  []string // worded counts ("2 broken links")
	URL                     string   // the run's page
}

// RunPage is one run's page: what ran, how it went, and its findings.
type RunPage struct {
	Run RunRow
	// Started and Ended are worded in the site's zone ("" when not yet).
	Started, Ended string
	Adjusted       bool // a clock change moved the occurrence (dst-gap)
	Error          string
	Counts         []string
	Open           bool // still going: the page polls itself with htmx
	// Findings, grouped (built-in jobs other than the digest).
	HasFindings        bool
	New, Still, Fixed  []FindingRow
	Hidden             []FindingRow
	HiddenCount        int
	ShowHidden         bool
	HiddenURL, BaseURL string
	// Digest are a weekly digest's lines.
	Digest []string
	// Actions.
	CanDismiss        bool
	CheckAgain        string // the run-now address, when the person may run it now
	DismissURL        string
	AutomationHistory string // the automation's History
	// Agent is an agent task's run: what the agent said and did.
	Agent *AgentRunView
}

// AgentRunView is what an agent task's run did (§11.7): its mode, the
// agent's summary (plain text, shown as text), the releases it proposed
// or changed and the approval requests it filed, each linked.
type AgentRunView struct {
	Mode      string
	Summary   string
	Releases  []RunReleaseLink
	Approvals []string // request ids, linked to their approval pages
}

// RunReleaseLink is one release a run touched, as it is now.
type RunReleaseLink struct {
	ID, Title, State string
}

// FindingRow is one finding, its sentence already in the reader's language.
type FindingRow struct {
	Key      string
	Sentence string
	// NodeTitle and NodeURL open the node in the editor ("" for a
	// site-wide finding).
	NodeTitle, NodeURL string
	Hidden             bool
}
