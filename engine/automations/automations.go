// Package automations holds the automation use cases (RFC §11, §13): a
// site's recurring built-in jobs created from a preset or a custom D3 rule,
// read, changed with a rev compare-and-swap, paused, resumed, run now and
// deleted; the preview of a rule's next runs; and the runs of automations
// and releases as History lists them. engine/model/automation is their pure
// model (states, jobs, limits, coalescing) and engine/recurrence their
// schedules; this package reaches storage through its own narrow Store.
// The runner that carries the occurrences out is engine/scheduler's tick
// (RunDue), which steps each claimed run through a jobs.Stepper.
//
// Every change is a person's (automations:manage, people only) and writes
// an audit row in the same transaction; reading needs schedules:read
// (Abilities says which a person holds). Bad input is refused with one
// engine.Error code per rule and changes nothing.
package automations

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/jobs"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/recurrence"
	"studio/engine/releases"
)

// Automation is a site's recurring job (RFC §4.3) as Studio keeps it.
type Automation struct {
	ID     string
	SiteID string
	Name   string
	// Job is "builtin:<name>" (a §11.1 built-in job, automation.Builtins)
	// or "agent-task".
	Job string
	// Config is a built-in job's own fields (staleAfterDays, exclude).
	Config jobs.Config
	// Rule is the RRULE value of the D3 subset, without "RRULE:"
	// (engine/recurrence); empty for a one-off at StartLocal.
	Rule string
	// Preset is the picker's choice the rule came from (§4.3 preset):
	// once, hourly, daily, weekdays, weekly, monthly or custom.
	Preset string
	// StartLocal is the wall-clock start, YYYY-MM-DDTHH:MM, in TimeZone.
	StartLocal string
	TimeZone   string
	State      string // an automation.State
	// PausedReason is §4.3's pausedReason: set when paused, auto-paused
	// or broken.
	PausedReason        string
	ConsecutiveFailures int
	// Owner is the person who owns the automation (§4.3): its creator.
	Owner     automation.Owner
	CreatedBy release.Actor
	Origin    string // person | agent: who does the work of a run
	// NextRunAt is the next occurrence (§4.3 nextRunAt); nil when the rule
	// has no more.
	NextRunAt *time.Time
	// EndedAt is when COUNT or UNTIL ran out (state ended).
	EndedAt *time.Time
	// HandledAt is the runner's memory: the last occurrence run or recorded
	// as skipped, or the instant the automation was created or resumed.
	// Occurrences at or before it never run.
	HandledAt time.Time
	// DueAt is when the runner must look at the automation next: its next
	// occurrence, or the next step of its open run; nil when never.
	DueAt *time.Time
	// OpenRunID is the run in progress, if any.
	OpenRunID string
	// Task is an agent task's job fields (nil for a built-in job).
	Task *Task
	// NewKey is the automation's own key as Create minted it, its secret
	// shown once: set on Create's answer only, never stored or read back.
	NewKey *AgentKey
	// LastRun is the automation's newest run, when listed (List, Get).
	LastRun   *Run
	Rev       int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Automation states (§5.3).
const (
	AutomationActive     = string(automation.StateActive)
	AutomationPaused     = string(automation.StatePaused)
	AutomationAutoPaused = string(automation.StateAutoPaused)
	AutomationBroken     = string(automation.StateBroken)
	AutomationEnded      = string(automation.StateEnded)
)

// JobAgentTask is the job of a scheduled agent task (§11.2); built-in jobs
// are JobBuiltinPrefix + the builtin's name.
const (
	JobAgentTask     = string(automation.JobAgentTask)
	JobBuiltinPrefix = string(automation.JobBuiltin) + ":"
)

// Builtin is the automation's built-in job, and whether it has one.
func (a Automation) Builtin() (automation.Builtin, bool) {
	b, ok := strings.CutPrefix(a.Job, JobBuiltinPrefix)
	return automation.Builtin(b), ok
}

// AutomationState is the part runs and pauses change, as the pure model
// takes it.
func (a Automation) AutomationState() automation.AutomationState {
	return automation.AutomationState{State: automation.State(a.State), PausedReason: automation.PausedReason(a.PausedReason),
		ConsecutiveFailures: a.ConsecutiveFailures}
}

func (a *Automation) setState(s automation.AutomationState) {
	a.State, a.PausedReason, a.ConsecutiveFailures = string(s.State), string(s.PausedReason), s.ConsecutiveFailures
}

// Refusal codes of the automation use cases, besides engine's (not_found,
// forbidden, stale, bad_state) and engine/model/automation's (bad_name,
// unknown_builtin, stale_after_days_out_of_range, transition_refused ...).
const (
	// CodeBadRule refuses a rule engine/recurrence does not accept, or one
	// with no occurrence from its start; Args["Reason"] is recurrence's own
	// code (too_frequent, too_many_per_day, count_and_until ...).
	CodeBadRule = "bad_rule"
	// CodeBadZone: the time zone is not an IANA zone Studio knows.
	CodeBadZone = "bad_zone"
	// CodeUnknownPreset: the preset is not one of §9.3's.
	CodeUnknownPreset = "unknown_preset"
	// CodeBadExclude: an exclude pattern is not a path ("/…", one line, at
	// most MaxExcludeLength characters), or there are more than
	// MaxExcludes.
	CodeBadExclude = "bad_exclude"
	// CodeRunOpen: the automation has a run in progress (Run now waits
	// for it to end).
	CodeRunOpen = "run_open"
	// CodeBadCursor: a runs cursor that is not one this package gave.
	CodeBadCursor = "bad_cursor"
)

// Limits of a built-in job's exclude list.
const (
	MaxExcludes      = 50
	MaxExcludeLength = 200
)

// Deletion is an automation deleted at Rev, at Now: the requests its runs
// filed that still wait are withdrawn with it (Denials, §11.8).
type Deletion struct {
	SiteID, ID string
	Rev        int64
	Now        time.Time
	Denials    []releases.Decision
	Audit      engine.AuditEntry
}

// Store is what automations need from storage. Package store implements it.
type Store interface {
	Site(ctx context.Context, id string) (engine.Site, error)
	// RunTrail is what a run left, from its audit rows and its requests.
	RunTrail(ctx context.Context, siteID, runID string) (Trail, error)
	// ScheduleSettings are the site's (its kill switch).
	ScheduleSettings(ctx context.Context, siteID string) (releases.ScheduleSettings, error)
	// AutomationWrites counts the site's audit rows in [from, to) that
	// carry an automation: its automations' writes (§11.5).
	AutomationWrites(ctx context.Context, siteID string, from, to time.Time) (int, error)
	// CreateAutomation inserts a and its audit row in one transaction.
	CreateAutomation(ctx context.Context, a Automation, audit engine.AuditEntry) error
	// Automations lists a site's automations, oldest first (one statement:
	// the calendar reads it too).
	Automations(ctx context.Context, siteID string) ([]Automation, error)
	// LastRuns fills in each automation's newest run (LastRun).
	LastRuns(ctx context.Context, as []Automation) error
	// Automation reads one, with its newest run; engine.ErrNotFound.
	Automation(ctx context.Context, siteID, id string) (Automation, error)
	// UpdateAutomation writes a over the automation at rev (a.Rev is the
	// new rev), with its audit row; engine.ErrConflict when its rev moved.
	// When killRun is set and the automation has an open run, the run is
	// killed in the same transaction (a pause stops it; §11.6).
	UpdateAutomation(ctx context.Context, a Automation, rev int64, killRun bool, audit engine.AuditEntry) error
	// DeleteAutomation writes a Deletion in one transaction: the
	// automation at its rev goes, its open run is killed (§11.8) and its
	// runs stay for History, each of Denials is decided, and the audit row
	// is appended; engine.ErrConflict when its rev moved or a request of
	// Denials no longer waits.
	DeleteAutomation(ctx context.Context, d Deletion) error
	// WaitingApprovals lists the site's waiting approval requests, and
	// Release reads one release (the requests an automation's runs filed).
	WaitingApprovals(ctx context.Context, siteID string) ([]releases.ApprovalRequest, error)
	Release(ctx context.Context, siteID, id string) (releases.ReleaseRow, error)
	// StartRun inserts r (a person's run now) as the automation's open run
	// and makes the automation due at r's occurrence, guarded on the
	// automation's rev and on no run being open; engine.ErrConflict
	// otherwise.
	StartRun(ctx context.Context, r Run, rev int64, audit engine.AuditEntry) error
	// Runs lists runs by f, newest occurrence first.
	Runs(ctx context.Context, f RunFilter) ([]Run, error)
	// Run reads one run of a site; engine.ErrNotFound.
	Run(ctx context.Context, siteID, id string) (Run, error)

	// Agent tasks' runs.
	//
	// TaskAutomation reads an automation by id alone (an agent key's
	// automation); engine.ErrNotFound.
	TaskAutomation(ctx context.Context, id string) (Automation, error)
	// RunByID reads a run by id alone; engine.ErrNotFound.
	RunByID(ctx context.Context, id string) (Run, error)
	// BeginRun inserts r as the automation's open run, due at r.EndsAt,
	// guarded on the automation being active with no run open and on no
	// run of the occurrence existing; engine.ErrConflict otherwise.
	BeginRun(ctx context.Context, r Run, audit engine.AuditEntry) error
	// SaveLedger writes a run's ledger at rev; engine.ErrConflict when
	// the run moved or ended.
	SaveLedger(ctx context.Context, runID string, rev int64, l automation.RunLedger, now time.Time) error
	// EndTaskRun ends an open agent run at its rev and writes the
	// automation's state after it, with the audit row;
	// engine.ErrConflict when the run moved or ended.
	EndTaskRun(ctx context.Context, e TaskRunEnd) error
	// OpenWindow records the window a person's Run now opened on the
	// automation at rev; engine.ErrConflict when it moved or has a run
	// open.
	OpenWindow(ctx context.Context, automationID string, rev int64, w automation.RunWindow, audit engine.AuditEntry) error
}

// Clock is the engine's clock as automations read it (engine.Engine's Now).
type Clock interface{ Now() time.Time }

// Poker wakes the ticker early (engine.Engine's Poke): a run now, a resume.
type Poker interface{ Poke() }

// Automations is the automation use cases.
type Automations struct {
	store  Store
	clock  Clock
	minter KeyMinter
	off    atomic.Bool
}

// New wires the automation use cases. When clock also pokes the ticker
// (engine.Engine does), Run now and Resume wake it at once.
func New(store Store, clock Clock) *Automations { return &Automations{store: store, clock: clock} }

func (e *Automations) now() time.Time { return e.clock.Now().UTC().Truncate(time.Millisecond) }

func (e *Automations) poke() {
	if p, ok := e.clock.(Poker); ok {
		p.Poke()
	}
}

// Abilities are what a person may do with a site's automations: the
// buttons Studio shows and the refusals the use cases give come from here.
type Abilities struct {
	// Read: see automations, their runs and previews (schedules:read).
	Read bool
	// Manage: create, edit, pause, resume, run now and delete
	// (automations:manage, people only: no token carries it).
	Manage bool
}

// AbilitiesOf is what u may do with automations.
func AbilitiesOf(u engine.User) Abilities {
	return Abilities{Read: u.Passes(policy.SchedulesRead), Manage: u.Passes(policy.AutomationsManage)}
}

// AutomationAbilities are what a person may do with one automation now:
// each flag is true exactly when the use case of the same name would
// accept the act (rev aside).
type AutomationAbilities struct {
	Edit, Delete, Duplicate bool
	Pause, Resume, RunNow   bool
	// TakeOver: an Administrator makes an agent task theirs, with a new
	// key (§11.8).
	TakeOver bool
}

// AbilitiesFor is what u may do with a now, on a site whose kill switch is
// sitePaused or not (releases.ScheduleSettings.Paused).
func AbilitiesFor(u engine.User, a Automation, sitePaused bool) AutomationAbilities {
	if !AbilitiesOf(u).Manage {
		return AutomationAbilities{}
	}
	st := a.AutomationState()
	_, builtin := a.Builtin()
	return AutomationAbilities{
		Edit: builtin, Delete: true, Duplicate: builtin,
		Pause:  automation.CanChange(st, automation.StatePaused, automation.ReasonPerson, automation.ActorPerson),
		Resume: automation.CanChange(st, automation.StateActive, "", automation.ActorPerson),
		RunNow: a.State != AutomationEnded && a.State != AutomationBroken && a.OpenRunID == "" && !sitePaused &&
			(builtin || a.Task != nil),
		TakeOver: mayTakeOver(u, a) == nil,
	}
}

// InputOf is the Input that makes a copy of a (Studio's Duplicate, and the
// editor's form filled in from it).
func InputOf(a Automation) Input {
	b, _ := a.Builtin()
	in := Input{Name: a.Name, Builtin: b, Preset: a.Preset, Start: a.StartLocal, TimeZone: a.TimeZone,
		StaleAfterDays: a.Config.StaleAfterDays, Exclude: append([]string(nil), a.Config.Exclude...)}
	if a.Preset == "custom" {
		in.Rule = a.Rule
	}
	if t := a.Task; t != nil {
		untrusted := t.ReadsUntrustedText
		in.Task = &TaskInput{Instructions: t.Instructions, ModeCap: t.ModeCap, ReadsUntrustedText: &untrusted,
			WindowMinutes: t.WindowMinutes, Budget: &t.Budget, Scopes: slices.Clone(t.Scopes)}
	}
	return in
}

func mayRead(u engine.User, siteID string) error {
	if err := engine.ActsOn(u, siteID); err != nil {
		return err
	}
	if !AbilitiesOf(u).Read {
		return refuse(engine.CodeForbidden, "")
	}
	return nil
}

func mayManage(u engine.User, siteID string) error {
	if err := engine.ActsOn(u, siteID); err != nil {
		return err
	}
	if !AbilitiesOf(u).Manage {
		return refuse(engine.CodeForbidden, "")
	}
	return nil
}

func refuse(code, field string) *engine.Error { return &engine.Error{Code: code, Field: field} }

// fromModel turns engine/model/automation's refusal into the engine's.
func fromModel(err error) error {
	if me, ok := errors.AsType[*automation.Error](err); ok {
		return refuse(me.Code, me.Field)
	}
	return err
}

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
		return recurrence.Recurrence{}, refuse(CodeBadZone, "timeZone")
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

// Schedule is what the runner needs to know of an automation at now: the
// occurrence to run (with the older missed ones to record as one skipped
// run), and the next one. lastHandled is the automation's HandledAt.
func Schedule(rc recurrence.Recurrence, lastHandled, now time.Time) automation.Due {
	return automation.DueOccurrences(rc, lastHandled, now)
}
