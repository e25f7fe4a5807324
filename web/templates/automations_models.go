package templates

import (
	"strings"
	"time"
)

// AutomationsPage is the Automations tab (§15.1, §11): the site's
// automations, or, with none, what automations are and the five built-in
// jobs to set up.
type AutomationsPage struct {
	// CanCreate shows "New automation…" (automations.AbilitiesOf).
	CanCreate bool
	Rows      []AutomationRow
	// Jobs are the built-in jobs (automation.Builtins), for the empty state.
	Jobs []string
}

// AutomationRow is one automation in the list, its times in the site's
// zone and every word already chosen.
type AutomationRow struct {
	ID   string
	Name string
	// Job is the built-in job's name (broken-links …); "" for another kind.
	Job string
	// When is the recurrence's sentence in the page's language.
	When string
	// State is an automation state (active, paused, auto-paused, broken,
	// ended); PausedReason its reason when it is not a person's own pause:
	// paused automatically, broken, or paused by the site's kill switch or
	// an agent.
	State        string
	PausedReason string
	Next         *time.Time
	LastRun      *RunCell
	Rev          int64
	May          AutomationActions
	// Error is a refusal of the On switch, shown beside it (htmx).
	Error string
	// CSRF is the session's token, for the row's forms (the row is also an
	// htmx fragment of its own).
	CSRF string
}

// RunCell is a run as a list shows it: its time, its state and its
// outcome, apart ("ran" is not "did something").
type RunCell struct {
	ID      string
	At      time.Time
	State   string
	Outcome string
}

// AutomationActions are the actions shown for one automation
// (automations.AbilitiesFor).
type AutomationActions struct {
	Edit, Delete, Duplicate, Pause, Resume, RunNow, TakeOver bool
}

// AutomationDelete is the confirm step of deleting an automation, as a
// page without JavaScript.
type AutomationDelete struct {
	Row   AutomationRow
	Error string
}

// AutomationForm is the automation editor (§15.4): create (ID "") or edit.
type AutomationForm struct {
	ID  string
	Rev int64
	// Name and Job (a built-in's name); Jobs are the choices of a new
	// automation (an existing one keeps its job).
	Name string
	Job  string
	Jobs []string
	// The job's own fields, as typed: stale-content's days and
	// broken-links' excluded paths, one a line.
	StaleAfterDays string
	Exclude        string
	// An agent task's own fields (Job "agent-task"): the instructions,
	// the mode cap and the key's scopes to choose from (within the
	// person's role), whether it reads untrusted text, its window.
	Instructions   string
	ModeCap        string
	Scopes         []string // the ticked scopes as sent (nil: not sent yet)
	ReadsUntrusted bool
	WindowMinutes  string
	TaskModes      []ModeChoice
	TaskScopes     []ScopeChoice
	Rec            RecurrenceForm
	// Zone is an existing automation's own time zone ("" for the site's),
	// sent back so its preview uses it.
	Zone    string
	Preview AutomationPreview
	// ZoneLabel is the site's zone: "Istanbul (UTC+3)".
	ZoneLabel string
	// ReadOnly: the person may look but not change (no automations:manage).
	ReadOnly bool
	// State and PausedReason are a saved automation's, as the list shows
	// them; "" for a new one.
	State        string
	PausedReason string
	Errors       FieldErrors
	Error        string
	// Latest is "Load the latest"'s address after a stale save.
	Latest string
}

// Action is the address the editor's form posts to.
func (f AutomationForm) Action() string {
	if f.ID == "" {
		return "/studio/schedules/automations"
	}
	return "/studio/schedules/automations/" + f.ID
}

// RecurrenceForm is the recurrence editor's fields as the form posts them
// (§15.4): a preset, or Custom with its parts. handlers/studio's RuleOf
// writes the D3 rule they say; the engine validates it.
type RecurrenceForm struct {
	// Date and Time are the start on the site's clock: 2026-11-09, 07:10.
	Date, Time string
	// Preset is once, hourly, daily, weekdays, weekly, monthly or custom.
	Preset string
	// Freq is the custom rule's unit: daily, weekly or monthly.
	Freq string
	// Interval is "every N" days, weeks or months ("" is 1).
	Interval string
	// Days are the weekday chips ticked (MO … SU), for weekly.
	Days []string
	// Monthly is how a monthly rule picks its day: "day" (MonthDay, the
	// 12th), "nth" (the Nth NthDay of the month: Nth 1..5 or -1 for the
	// last) or "last" (the last day).
	Monthly, MonthDay, Nth, NthDay string
	// Ends is never, until (on UntilDate, the site's date) or count
	// (after Count occurrences).
	Ends, UntilDate, Count string
}

// Start is the form's start as the engine takes it: YYYY-MM-DDTHH:MM.
func (f RecurrenceForm) Start() string { return f.Date + "T" + f.Time }

// HasDay says whether the weekday chip code (MO …) is ticked.
func (f RecurrenceForm) HasDay(code string) bool {
	for _, d := range f.Days {
		if d == code {
			return true
		}
	}
	return false
}

// AutomationPreview is the next five runs of the schedule the form says
// (PreviewRule), with its sentence; or the refusal of it.
type AutomationPreview struct {
	Sentence string
	Runs     []PreviewRun
	Error    string
}

// PreviewRun is one next run on the site's clock; Adjusted when a clock
// change moved it from Meant (YYYY-MM-DDTHH:MM).
type PreviewRun struct {
	At       time.Time
	Adjusted bool
	Meant    string
}

// lower is a weekday code's message key part: MO → mo.
func lower(code string) string { return strings.ToLower(code) }
