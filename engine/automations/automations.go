// Package automations holds the automation use cases (RFC §11): creating
// a site's recurring jobs and listing them. engine/automation is their pure
// model (states, jobs, limits); this package reaches storage through its
// own narrow Store. The runner (the automations tick) comes next.
package automations

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/automation"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/policy"
	"studio/engine/recurrence"
	"studio/engine/release"
)

// Automation is a site's recurring job as Studio keeps it for now (RFC
// §4.3, §11): enough to put its occurrences on the calendar. Keys, budgets,
// run windows and runs come with the runner.
type Automation struct {
	ID     string
	SiteID string
	Name   string
	// Job is "builtin:<name>" (a §11.1 built-in job, automation.Builtins)
	// or "agent-task".
	Job string
	// Rule is the RRULE value of the D3 subset, without "RRULE:"
	// (engine/recurrence); empty for a one-off at StartLocal.
	Rule string
	// StartLocal is the wall-clock start, YYYY-MM-DDTHH:MM, in TimeZone.
	StartLocal string
	TimeZone   string
	State      string // AutomationActive | AutomationPaused | AutomationBroken
	CreatedBy  release.Actor
	Origin     string // person | agent: who does the work of a run
	Rev        int64
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Automation states kept so far (§5.3's auto-paused and ended come with the
// runner).
const (
	AutomationActive = string(automation.StateActive)
	AutomationPaused = string(automation.StatePaused)
	AutomationBroken = string(automation.StateBroken)
)

// JobAgentTask is the job of a scheduled agent task (§11.2); built-in jobs
// are JobBuiltinPrefix + the builtin's name.
const (
	JobAgentTask     = string(automation.JobAgentTask)
	JobBuiltinPrefix = string(automation.JobBuiltin) + ":"
)

// CodeBadRule refuses a rule engine/recurrence does not accept, or one with
// no occurrence from its start; Args["Reason"] is recurrence's own code.
const CodeBadRule = "bad_rule"

// Store is what automations need from storage.
type Store interface {
	Site(ctx context.Context, id string) (engine.Site, error)
	// CreateAutomation inserts a and its audit row in one transaction.
	CreateAutomation(ctx context.Context, a Automation, audit engine.AuditEntry) error
	// Automations lists a site's automations, oldest first.
	Automations(ctx context.Context, siteID string) ([]Automation, error)
}

// Clock is the engine's clock as automations read it (engine.Engine's Now).
type Clock interface{ Now() time.Time }

// Automations is the automation use cases.
type Automations struct {
	store Store
	clock Clock
}

// New wires the automation use cases.
func New(store Store, clock Clock) *Automations { return &Automations{store: store, clock: clock} }

func refuse(code, field string) *engine.Error { return &engine.Error{Code: code, Field: field} }

// codeOf is the code of localtime's refusal of a wall-clock time.
func codeOf(err error) string {
	if le, ok := errors.AsType[*localtime.ParseError](err); ok {
		return le.Code
	}
	return "invalid"
}

// Recurrence is the automation's schedule as engine/recurrence expands it.
func (a Automation) Recurrence() (recurrence.Recurrence, error) {
	return automationRecurrence(a.StartLocal, a.TimeZone, a.Rule)
}

// automationRecurrence parses a requested schedule. Refusals are *Error
// with the field at fault: start, timeZone or rule (CodeBadRule, with
// recurrence's reason in Args).
func automationRecurrence(startLocal, zone, rule string) (recurrence.Recurrence, error) {
	if _, err := localtime.ParseWall(startLocal); err != nil {
		return recurrence.Recurrence{}, refuse(codeOf(err), "start")
	}
	loc, err := localtime.Zone(zone)
	if err != nil {
		return recurrence.Recurrence{}, refuse("bad_zone", "timeZone")
	}
	rc, err := AutomationRecurrenceIn(startLocal, loc, rule)
	if err != nil {
		return recurrence.Recurrence{}, badRule(err)
	}
	return rc, nil
}

func badRule(err error) *engine.Error {
	e := &engine.Error{Code: CodeBadRule, Field: "rule"}
	var re *recurrence.Error
	if errors.As(err, &re) {
		e.Args = map[string]any{"Reason": re.Code}
	}
	return e
}

// CreateAutomation creates an active automation of siteID (§11; people
// only, D7: policy.AutomationsManage). name is one line of 1..120
// characters; job is "builtin:<name>" of a §11.1 job or "agent-task"; rule
// is an RRULE value of the D3 subset ("" for once) and startLocal its
// wall-clock start in the site's zone, which the automation keeps. The rule
// is stored in its canonical form. Audited as automation.create.
func (e *Automations) CreateAutomation(ctx context.Context, u engine.User, siteID, name, job, rule, startLocal string) (Automation, error) {
	if err := engine.Require(u, policy.AutomationsManage); err != nil {
		return Automation{}, err
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return Automation{}, err
	}
	name = strings.TrimSpace(name)
	if !oneLineName(name, automation.MaxNameLength) {
		return Automation{}, refuse("bad_name", "name")
	}
	origin := "person"
	switch b, builtin := strings.CutPrefix(job, JobBuiltinPrefix); {
	case builtin && slices.Contains(automation.Builtins, automation.Builtin(b)):
	case builtin:
		return Automation{}, refuse("unknown_builtin", "job")
	case job == JobAgentTask:
		origin = "agent" // a run's work is the agent's (§11.2)
	default:
		return Automation{}, refuse("unknown_job_kind", "job")
	}
	rule = strings.TrimSpace(rule)
	rc, err := automationRecurrence(strings.TrimSpace(startLocal), site.TimeZone, rule)
	if err != nil {
		return Automation{}, err
	}
	if rc.Rule != nil {
		rule = rc.Rule.String()
	}
	now := e.clock.Now().UTC().Truncate(time.Millisecond)
	a := Automation{ID: ids.New("aut"), SiteID: siteID, Name: name, Job: job, Rule: rule,
		StartLocal: rc.Start.String(), TimeZone: site.TimeZone, State: AutomationActive, CreatedBy: u.Actor(),
		Origin: origin, Rev: 1, CreatedAt: now, UpdatedAt: now}
	// The audit row names the automation in its details only: audit rows
	// carrying automation_id are the automation's own writes, which the
	// daily write cap counts (§11.5).
	audit := engine.AuditEntry{Action: "automation.create", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"automation": a.ID, "name": name, "job": job, "rule": rule, "start": a.StartLocal,
			"timeZone": a.TimeZone}}
	if err := e.store.CreateAutomation(ctx, a, audit); err != nil {
		return Automation{}, err
	}
	return a, nil
}

// Automations lists a site's automations, oldest first.
func (e *Automations) Automations(ctx context.Context, siteID string) ([]Automation, error) {
	return e.store.Automations(ctx, siteID)
}

// oneLineName is a name of one line: not blank, at most limit characters,
// no control characters and no bidi overrides (§4.3).
func oneLineName(s string, limit int) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > limit {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return false
		}
	}
	return true
}

// AutomationRecurrenceIn is an automation's recurrence with its zone loaded
// (the calendar expands occurrences with it).
func AutomationRecurrenceIn(startLocal string, loc *time.Location, rule string) (recurrence.Recurrence, error) {
	start, err := localtime.ParseWall(startLocal)
	if err != nil {
		return recurrence.Recurrence{}, err
	}
	var r *recurrence.Rule
	if rule != "" {
		parsed, err := recurrence.Parse(rule)
		if err != nil {
			return recurrence.Recurrence{}, err
		}
		r = &parsed
	}
	return recurrence.New(start, loc, r)
}
