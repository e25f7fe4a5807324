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
	"studio/engine/ids"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/engine/recurrence"
)

// Agent tasks (RFC §4.3 job.kind agent-task, §11.2–§11.6): an automation
// whose occurrences open a run window for an external agent instead of
// running a job body. Saving one mints the automation's own key (one key,
// one automation) through a KeyMinter; the key's secret is in Create's
// answer only (Automation.NewKey) and never stored here.

// Task is an agent task's job fields as stored (§4.3).
type Task struct {
	Instructions       string            `json:"instructions"`
	ModeCap            policy.Mode       `json:"modeCap"`
	ReadsUntrustedText bool              `json:"readsUntrustedText"`
	WindowMinutes      int               `json:"windowMinutes"`
	Budget             automation.Budget `json:"budget"`
	KeyID              string            `json:"keyId"`
	Scopes             []policy.Scope    `json:"scopes"`
	// ManualWindow is the window a person's Run now opened (stored apart).
	ManualWindow *automation.RunWindow `json:"-"`
}

// TaskInput is a new agent task's job fields (POST …/automations with
// job.kind agent-task). Zero values take the defaults: modeCap edits,
// windowMinutes DefaultWindowMinutes, the §11.5 budget, scopes
// DefaultTaskScopes. ReadsUntrustedText is required (the contract's flag).
type TaskInput struct {
	Instructions       string
	ModeCap            policy.Mode
	ReadsUntrustedText *bool
	WindowMinutes      int
	Budget             *automation.Budget
	// Scopes are the key's, each within the person's own (§10.1).
	Scopes []policy.Scope
}

// AgentKey is the key minted for an agent task: its secret is shown once.
type AgentKey struct {
	ID     string
	Secret string
}

// KeyMinter mints an automation's own agent key (engine/agents). mode is
// the key's mode cap (the automation's modeCap), scopes within u's role.
type KeyMinter interface {
	MintForAutomation(ctx context.Context, u engine.User, siteID, automationID, name string, mode policy.Mode, scopes []policy.Scope) (keyID, secret string, err error)
}

// SetKeyMinter gives the use cases the agent keys' minter; without one an
// agent task cannot be created (keys_unavailable).
func (e *Automations) SetKeyMinter(m KeyMinter) { e.minter = m }

// SetAutomationsOff says this deployment runs no automations (serve
// --automations=off): begin_run opens no window.
func (e *Automations) SetAutomationsOff(off bool) { e.off.Store(off) }

// Defaults and limits of agent tasks.
const (
	// DefaultWindowMinutes is an agent task's window when none is given.
	DefaultWindowMinutes = 30
	// MaxSummaryLength is end_run's summary limit (§11.2).
	MaxSummaryLength = 2000
)

// DefaultTaskScopes are an agent task's key scopes when none are given:
// the defaults of its modeCap for any agent key (policy.DefaultAgentScopes,
// within the owner's role), so that an edits task drafts and proposes on
// its first run; without the scopes a task that reads visitor text may
// never hold (§11.4 rule 3).
func DefaultTaskScopes(modeCap policy.Mode, role policy.Role, readsUntrustedText bool) []policy.Scope {
	scopes := policy.DefaultAgentScopes(modeCap, role)
	if readsUntrustedText {
		return policy.StripUntrusted(scopes)
	}
	return scopes
}

// Refusal codes of agent tasks and their runs.
const (
	// CodeNotAutomationKey: only the automation's own key begins, ends or
	// reports its runs.
	CodeNotAutomationKey = "not_automation_key"
	// CodeRunExists: the occurrence already has its run (§11.2: begin_run
	// succeeds only once per occurrence).
	CodeRunExists = "run_exists"
	// CodeOutsideRun: now is inside no window, or the run has ended.
	CodeOutsideRun = automation.CodeOutsideRun
	// CodeBeginRunFirst: a window is open now but no run has begun in it:
	// the key's other tools wait for begin_run.
	CodeBeginRunFirst = "begin_run_first"
	// CodeBadSummary: end_run's summary is not plain text of at most
	// MaxSummaryLength characters.
	CodeBadSummary = "bad_summary"
	// CodeKeysUnavailable: agent keys are not wired in this deployment.
	CodeKeysUnavailable = "keys_unavailable"
	// CodeAutomationsOff: this deployment runs no automations.
	CodeAutomationsOff = "automations_off"
	// CodeScopeNotHeld: a key scope the person does not hold.
	CodeScopeNotHeld = "scope_not_held"
	// CodeUnknownScope: a key scope policy does not know, or one no key
	// may hold (automations:manage is people's only).
	CodeUnknownScope = "unknown_scope"
	// CodeNotAgentTask: the automation is a built-in job.
	CodeNotAgentTask = "not_agent_task"
)

// IsTask reports whether the automation is an agent task.
func (a Automation) IsTask() bool { return a.Job == JobAgentTask }

// checkTask validates and completes a task's fields, one code per rule.
func checkTask(u engine.User, in TaskInput) (Task, error) {
	t := Task{Instructions: strings.TrimSpace(in.Instructions), ModeCap: in.ModeCap, WindowMinutes: in.WindowMinutes,
		Budget: automation.DefaultBudget, Scopes: slices.Clone(in.Scopes)}
	if t.ModeCap == "" {
		t.ModeCap = policy.ModeEdits
	}
	if t.WindowMinutes == 0 {
		t.WindowMinutes = DefaultWindowMinutes
	}
	if in.Budget != nil {
		t.Budget = *in.Budget
	}
	if in.ReadsUntrustedText != nil {
		t.ReadsUntrustedText = *in.ReadsUntrustedText
	}
	if len(t.Scopes) == 0 {
		t.Scopes = DefaultTaskScopes(t.ModeCap, u.Role, t.ReadsUntrustedText)
	}
	// The pure model's rules, with a key id standing in for the one minted
	// after them.
	j := automation.Job{Kind: automation.JobAgentTask, KeyID: "pending", Instructions: t.Instructions, ModeCap: t.ModeCap,
		ReadsUntrustedText: in.ReadsUntrustedText, WindowMinutes: t.WindowMinutes, Budget: &t.Budget}
	if err := automation.ValidateJob(j); err != nil {
		return Task{}, fromModel(err)
	}
	for _, s := range t.Scopes {
		if _, known := policy.ParseScope(string(s)); !known || s == policy.AutomationsManage {
			return Task{}, refuse(CodeUnknownScope, "scopes")
		}
		if !u.Passes(s) {
			return Task{}, refuse(CodeScopeNotHeld, "scopes")
		}
	}
	names := make([]string, len(t.Scopes))
	for i, s := range t.Scopes {
		names[i] = string(s)
	}
	if err := automation.CheckUntrustedScopes(t.ReadsUntrustedText, names); err != nil {
		return Task{}, fromModel(err)
	}
	return t, nil
}

// createTask creates an agent-task automation and mints its key (Create
// with in.Task set).
func (e *Automations) createTask(ctx context.Context, u engine.User, siteID string, in Input) (Automation, error) {
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return Automation{}, err
	}
	name := strings.TrimSpace(in.Name)
	if !oneLineName(name, automation.MaxNameLength) {
		return Automation{}, refuse(automation.CodeBadName, "name")
	}
	if in.Builtin != "" {
		return Automation{}, refuse(automation.CodeFieldNotAllowed, "job.builtin")
	}
	if in.StaleAfterDays != 0 || len(in.Exclude) > 0 {
		return Automation{}, refuse(automation.CodeFieldNotAllowed, "job.staleAfterDays")
	}
	task, err := checkTask(u, *in.Task)
	if err != nil {
		return Automation{}, err
	}
	zone := strings.TrimSpace(in.TimeZone)
	if zone == "" {
		zone = site.TimeZone
	}
	s, err := checkSchedule(in.Preset, in.Rule, strings.TrimSpace(in.Start), zone)
	if err != nil {
		return Automation{}, err
	}
	if e.minter == nil {
		return Automation{}, refuse(CodeKeysUnavailable, "")
	}
	now := e.now()
	a := Automation{ID: ids.New("aut"), SiteID: siteID, Name: name, Job: JobAgentTask, Rule: s.rule, Preset: s.preset,
		StartLocal: s.start, TimeZone: s.zone, State: AutomationActive, Owner: automation.Owner{ID: u.ID, Name: u.Name},
		CreatedBy: u.Actor(), Origin: "agent", Rev: 1, CreatedAt: now, UpdatedAt: now}
	planTask(&a, s.rc, task.WindowMinutes, now)
	// The key is minted before the automation is stored: a failed insert
	// leaves a key for no automation, which engine/agents' owner sees and
	// revokes; a stored automation without its key could never run.
	keyID, secret, err := e.minter.MintForAutomation(ctx, u, siteID, a.ID, a.Name, task.ModeCap, task.Scopes)
	if err != nil {
		return Automation{}, err
	}
	task.KeyID = keyID
	a.Task = &task
	audit := engine.AuditEntry{Action: "automation.create", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"automation": a.ID, "name": name, "job": a.Job, "rule": a.Rule, "preset": a.Preset,
			"start": a.StartLocal, "timeZone": a.TimeZone, "modeCap": string(task.ModeCap), "windowMinutes": task.WindowMinutes,
			"readsUntrustedText": task.ReadsUntrustedText, "budget": task.Budget, "keyId": keyID}}
	if err := e.store.CreateAutomation(ctx, a, audit); err != nil {
		return Automation{}, err
	}
	e.poke()
	a.NewKey = &AgentKey{ID: keyID, Secret: secret}
	return a, nil
}

// planTask sets the runner's fields of an agent task at now: its next
// occurrence, and the tick looks again when that occurrence's window has
// closed (to record it missed, or to close its run).
func planTask(a *Automation, rc recurrence.Recurrence, windowMinutes int, now time.Time) {
	a.HandledAt = now
	a.NextRunAt, a.DueAt = nil, nil
	if next, ok := rc.Next(now); ok {
		at := next.At
		a.NextRunAt = &at
		if a.State == AutomationActive {
			closes := automation.Window(at, windowMinutes).ClosesAt
			a.DueAt = &closes
		}
	}
}

// Envelope is begin_run's answer (§11.2, §12).
type Envelope struct {
	RunID        string
	AutomationID string
	// Site is the site the run works on: the key's own.
	Site         engine.Site
	Instructions string
	// Mode is the run's effective mode: policy.RunMode(key's mode, modeCap).
	Mode policy.Mode
	// Tools are the tools the run may call in Mode, in the table's order.
	Tools   []string
	Budget  automation.Budget
	Window  automation.RunWindow
	EndsAt  time.Time
	Tainted bool
	// Rules are the codes of the rules the server enforces on the run.
	Rules []string
}

// RunRules are the rules every run's envelope names (§11.2–§11.5).
var RunRules = []string{"one-run-per-occurrence", "calls-outside-run-refused", "budget-ends-run", "taint-blocks-writes",
	"anomaly-kills-run", "no-egress", "waits-file-approvals"}

// keyOf refuses a caller that is not automationID's own key.
func keyOf(u engine.User, automationID string) error {
	if u.Agent == nil || u.Agent.AutomationID == "" || u.Agent.AutomationID != automationID {
		return refuse(CodeNotAutomationKey, "")
	}
	return nil
}

// runTools lists the tools a run in mode may call at all, in the table's
// order: the tools Studio serves whose verdict in mode is not refused or
// unavailable in runs, and which held (the key's scopes as a call holds
// them) allow, its own automation's tools included. What a call then does (waits, the
// taint) is the gate's, call by call.
func runTools(held []policy.Scope, mode policy.Mode) []string {
	var out []string
	for _, t := range policy.Tools() {
		if t.NotServed || t.Authorize(held, true) == policy.LevelNone {
			continue
		}
		for _, c := range t.Classes() {
			v := t.Verdict(mode, c, true, false)
			if v != policy.Refused && v != policy.UnavailableInRun && v != policy.NotApplicable {
				out = append(out, t.Name)
				break
			}
		}
	}
	return out
}

// BeginRun begins the run of the occurrence whose window is open now
// (§11.2 begin_run): only the automation's own key, only while the
// automation is active and the site's kill switch off, only inside an
// occurrence's window (or the window a person's Run now opened), and only
// once per occurrence — the run's id is deterministic, and the second
// begin_run of an occurrence is refused run_exists whoever wins the race.
// Audited as automation.run_begin.
func (e *Automations) BeginRun(ctx context.Context, u engine.User, automationID string) (Envelope, error) {
	if err := keyOf(u, automationID); err != nil {
		return Envelope{}, err
	}
	a, err := e.store.TaskAutomation(ctx, automationID)
	if err != nil {
		return Envelope{}, err
	}
	if !a.IsTask() || a.Task == nil {
		return Envelope{}, refuse(CodeNotAgentTask, "")
	}
	if a.Task.KeyID != u.Agent.KeyID {
		return Envelope{}, refuse(CodeNotAutomationKey, "")
	}
	if e.off.Load() {
		return Envelope{}, refuse(CodeAutomationsOff, "")
	}
	// The kill switch first: it pauses the automation too, and its
	// refusal says what to do.
	if set, err := e.store.ScheduleSettings(ctx, a.SiteID); err != nil {
		return Envelope{}, err
	} else if set.Paused {
		return Envelope{}, refuse(engine.CodeSitePaused, "")
	}
	if a.State != AutomationActive {
		return Envelope{}, refuse(engine.CodeBadState, "")
	}
	site, err := e.store.Site(ctx, a.SiteID)
	if err != nil {
		return Envelope{}, err
	}
	// An open run first: beginning it used up a person's window, so a
	// racing begin_run that reads after it finds no window but the run.
	if a.OpenRunID != "" {
		return Envelope{}, refuse(CodeRunExists, "")
	}
	now := e.now()
	win, trigger, ok := openWindow(a, now)
	if !ok {
		return Envelope{}, outsideRun(a, now)
	}
	mode := policy.RunMode(u.Agent.Mode, a.Task.ModeCap)
	held := engine.HeldScopes(u)
	if a.Task.ReadsUntrustedText {
		held = policy.StripUntrusted(held) // as StartCall strips them on every call
	}
	endsAt := automation.RunEndsAt(now, win.ClosesAt, a.Task.Budget.MaxMinutes)
	lateness := int64(now.Sub(win.OpensAt) / time.Second)
	r := Run{ID: ids.RunID(a.ID, win.OpensAt), SiteID: a.SiteID, SubjectKind: SubjectAutomation, SubjectID: a.ID,
		Job: JobAgentTask, OccurrenceAt: win.OpensAt, State: string(automation.RunRunning), Trigger: trigger, Attempt: 1,
		StartedAt: &now, LatenessSeconds: &lateness, EndsAt: &endsAt, Mode: string(mode), KeyID: u.Agent.KeyID,
		Rev: 1, CreatedAt: now, UpdatedAt: now}
	audit := engine.AuditEntry{Action: "automation.run_begin", Actor: u.Actor(), SiteID: a.SiteID, RunID: r.ID, At: now,
		Details: map[string]any{"automation": a.ID, "mode": string(mode), "endsAt": endsAt}}
	if err := e.store.BeginRun(ctx, r, audit); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return Envelope{}, refuse(CodeRunExists, "")
		}
		return Envelope{}, err
	}
	e.poke()
	return Envelope{RunID: r.ID, AutomationID: a.ID, Site: site, Instructions: a.Task.Instructions, Mode: mode, Tools: runTools(held, mode),
		Budget: a.Task.Budget, Window: win, EndsAt: endsAt, Rules: slices.Clone(RunRules)}, nil
}

// mayTakeOver is TakeOver's rule: an Owner or Administrator (people who
// manage every automation of the site) takes over an agent task that has
// not ended.
func mayTakeOver(u engine.User, a Automation) error {
	switch {
	case u.Agent != nil || (u.Role != policy.Owner && u.Role != policy.Admin) || !AbilitiesOf(u).Manage:
		return refuse(engine.CodeForbidden, "")
	case a.Task == nil:
		return refuse(CodeNotAgentTask, "")
	case a.State == AutomationEnded:
		return refuse(engine.CodeBadState, "")
	}
	return nil
}

// TakeOver makes an agent task u's (§11.8: "an Administrator may take it
// over, which mints a new key"), as u last saw it at rev: u becomes its
// owner, a new key is minted within u's role (the old one is revoked in
// the same act, one key, one automation) with the task's modeCap and
// scopes narrowed to u's role, its open run is killed, and a broken task
// (its owner removed or demoted, its key revoked) is active again. The
// new secret is in the answer only (Automation.NewKey). Audited as
// automation.take_over.
func (e *Automations) TakeOver(ctx context.Context, u engine.User, siteID, id string, rev int64) (Automation, error) {
	a, err := e.store.Automation(ctx, siteID, id)
	if err != nil {
		return Automation{}, err
	}
	if err := mayTakeOver(u, a); err != nil {
		return Automation{}, err
	}
	if a.Rev != rev {
		return Automation{}, refuse(engine.CodeStale, "rev")
	}
	if e.minter == nil {
		return Automation{}, refuse(CodeKeysUnavailable, "")
	}
	task := *a.Task
	task.ModeCap = policy.RunMode(task.ModeCap, policy.AgentModeCap(u.Role))
	task.Scopes = policy.Narrow(task.Scopes, u.Role)
	from := a.AutomationState()
	if a.State == AutomationBroken {
		next, err := automation.Change(from, automation.StateActive, "", automation.ActorPerson)
		if err != nil {
			return Automation{}, fromModel(err)
		}
		a.setState(next)
		rc, err := a.Recurrence()
		if err != nil {
			return Automation{}, err
		}
		plan(&a, rc, e.now())
	}
	keyID, secret, err := e.minter.MintForAutomation(ctx, u, siteID, a.ID, a.Name, task.ModeCap, task.Scopes)
	if err != nil {
		return Automation{}, err
	}
	previous := a.Owner
	task.KeyID = keyID
	a.Task, a.Owner = &task, automation.Owner{ID: u.ID, Name: u.Name}
	killRun := a.OpenRunID != ""
	a.OpenRunID = ""
	out, err := e.write(ctx, u, a, killRun, "automation.take_over", map[string]any{"from": string(from.State),
		"to": a.State, "previousOwner": previous.ID, "keyId": keyID, "modeCap": string(task.ModeCap)}, e.now())
	if err != nil {
		return Automation{}, err
	}
	out.NewKey = &AgentKey{ID: keyID, Secret: secret}
	e.poke()
	return out, nil
}

// openWindow is the window begin_run may open at now: the one a person's
// Run now opened, or the schedule's.
func openWindow(a Automation, now time.Time) (automation.RunWindow, string, bool) {
	if w := a.Task.ManualWindow; w != nil && w.Contains(now) {
		return *w, TriggerManual, true
	}
	rc, err := a.Recurrence()
	if err != nil {
		return automation.RunWindow{}, "", false
	}
	occ, ok := automation.OpenWindow(rc, a.Task.WindowMinutes, now)
	if !ok || !occ.At.After(a.CreatedAt.Add(-time.Millisecond)) {
		return automation.RunWindow{}, "", false
	}
	return automation.Window(occ.At, a.Task.WindowMinutes), "cron", true
}

// outsideRun is the refusal of a call of a's key when no run is open at
// now: with the instant the next window opens (When), when it has one, so
// that an agent early for its window learns when to come back instead of
// reading that its time is over.
func outsideRun(a Automation, now time.Time) error {
	if a.Task == nil || a.State != AutomationActive {
		return refuse(CodeOutsideRun, "")
	}
	if _, _, open := openWindow(a, now); open && a.OpenRunID == "" {
		return refuse(CodeBeginRunFirst, "") // a window is open now: the run is one call away
	}
	rc, err := a.Recurrence()
	if err != nil {
		return refuse(CodeOutsideRun, "")
	}
	next, ok := rc.Next(now)
	if !ok {
		return refuse(CodeOutsideRun, "")
	}
	return &engine.Error{Code: CodeOutsideRun, Args: map[string]any{"When": next.At}}
}

// OpenRun is the open run of u's automation key at now, if any: the
// per-call check of the MCP surface (outside_run when there is none).
func (e *Automations) OpenRun(ctx context.Context, u engine.User) (Run, bool, error) {
	if u.Agent == nil || u.Agent.AutomationID == "" {
		return Run{}, false, nil
	}
	_, r, ok, err := e.openRun(ctx, u)
	return r, ok, err
}

// EndRun closes the caller's open run as succeeded with its outcome and
// summary (§11.2 end_run): only the automation's own key, only while the
// run is open. The summary is plain text of at most 2,000 characters.
// Audited as automation.run_end.
func (e *Automations) EndRun(ctx context.Context, u engine.User, runID, summary string, outcome automation.Outcome) (Run, error) {
	if u.Agent == nil || u.Agent.AutomationID == "" {
		return Run{}, refuse(CodeNotAutomationKey, "")
	}
	summary = strings.TrimSpace(summary)
	if !plainSummary(summary) {
		return Run{}, refuse(CodeBadSummary, "summary")
	}
	if _, err := automation.ParseOutcome(string(outcome)); err != nil {
		return Run{}, refuse(automation.CodeUnknownOutcome, "outcome")
	}
	r, ok, err := e.OpenRun(ctx, u)
	if err != nil {
		return Run{}, err
	}
	if !ok {
		if a, aerr := e.store.TaskAutomation(ctx, u.Agent.AutomationID); aerr == nil {
			if ee, _ := engine.AsError(outsideRun(a, e.now())); ee != nil {
				ee.Field = "runId"
				return Run{}, ee
			}
		}
		return Run{}, refuse(CodeOutsideRun, "runId")
	}
	if r.ID != runID {
		return Run{}, refuse(CodeOutsideRun, "runId")
	}
	a, err := e.store.TaskAutomation(ctx, r.SubjectID)
	if err != nil {
		return Run{}, err
	}
	now := e.now()
	next, _ := automation.AccountRunResult(a.AutomationState(), automation.RunResult{State: automation.RunSucceeded})
	end := TaskRunEnd{Run: r, State: automation.RunSucceeded, Outcome: outcome, Summary: summary, Ledger: r.Ledger,
		Automation: next, DueAt: taskDue(a, next, now), Now: now,
		Audit: engine.AuditEntry{Action: "automation.run_end", Actor: u.Actor(), SiteID: r.SiteID, RunID: r.ID, At: now,
			Details: map[string]any{"automation": a.ID, "outcome": string(outcome)}}}
	if err := e.store.EndTaskRun(ctx, end); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return Run{}, refuse(CodeOutsideRun, "runId")
		}
		return Run{}, err
	}
	r.State, r.Outcome, r.Summary, r.EndedAt = string(automation.RunSucceeded), string(outcome), summary, &now
	return r, nil
}

// plainSummary is a summary of plain text: at most MaxSummaryLength
// characters, line breaks and tabs the only controls, no bidi controls.
// It may be empty.
func plainSummary(s string) bool {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxSummaryLength {
		return false
	}
	for _, r := range s {
		if unicode.Is(unicode.Bidi_Control, r) && r != 0x200E && r != 0x200F {
			return false
		}
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
	}
	return true
}

// TaskRunEnd ends an agent run guarded on its rev (a concurrent call or
// the tick that moved it wins) and writes the automation's state after it.
type TaskRunEnd struct {
	Run        Run
	State      automation.RunState
	Outcome    automation.Outcome
	Summary    string
	ErrorCode  string
	Ledger     automation.RunLedger
	Automation automation.AutomationState
	DueAt      *time.Time
	Now        time.Time
	Audit      engine.AuditEntry
}

// taskDue is when the tick looks at an agent task next after its run:
// when its next occurrence's window closes, while it is active.
func taskDue(a Automation, st automation.AutomationState, now time.Time) *time.Time {
	if st.State != automation.StateActive || a.Task == nil {
		return nil
	}
	rc, err := a.Recurrence()
	if err != nil {
		return nil
	}
	// The occurrence whose window is open now had its run: the next window
	// to look at closes after now.
	for after := now.Add(-time.Duration(a.Task.WindowMinutes) * time.Minute); ; {
		o, ok := rc.Next(after)
		if !ok {
			return nil
		}
		closes := automation.Window(o.At, a.Task.WindowMinutes).ClosesAt
		if closes.After(now) {
			return &closes
		}
		after = o.At
	}
}

// RecordCall records one tool call of an open run in its ledger (§11.4,
// §11.5): a call over the run's budget ends the run budget-exceeded and
// auto-pauses the automation, and is refused with the budget's code; a
// call that trips the anomaly rule kills the run and pauses the
// automation, and the error says so. The MCP surface calls it for every
// call made inside a run, refused or not.
func (e *Automations) RecordCall(ctx context.Context, runID string, call automation.Call) error {
	// Calls of one run may come at once: a ledger saved by another call
	// meanwhile is read again (a few times) rather than refused.
	for range 8 {
		err := e.recordCall(ctx, runID, call)
		if ee, ok := engine.AsError(err); !ok || ee.Code != engine.CodeStale {
			return err
		}
	}
	return refuse(engine.CodeStale, "")
}

func (e *Automations) recordCall(ctx context.Context, runID string, call automation.Call) error {
	r, err := e.store.RunByID(ctx, runID)
	if err != nil {
		return err
	}
	now := e.now()
	if !r.Open() || r.EndsAt == nil || automation.CheckRunOpen(now, *r.EndsAt) != nil {
		return refuse(CodeOutsideRun, "")
	}
	a, err := e.store.TaskAutomation(ctx, r.SubjectID)
	if err != nil {
		return err
	}
	if a.Task == nil {
		return refuse(CodeNotAgentTask, "")
	}
	if berr := automation.CheckBudget(r.Ledger.Usage, a.Task.Budget, call); berr != nil {
		return e.endBySystem(ctx, a, r, automation.RunBudgetExceeded, false, r.Ledger, fromModel(berr), now)
	}
	ledger := automation.AfterCall(r.Ledger, call, now)
	if aerr := automation.Anomaly(ledger); aerr != nil {
		return e.endBySystem(ctx, a, r, automation.RunKilled, true, ledger, fromModel(aerr), now)
	}
	if err := e.store.SaveLedger(ctx, r.ID, r.Rev, ledger, now); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return refuse(engine.CodeStale, "")
		}
		return err
	}
	return nil
}

// endBySystem ends a run for a breach of its limits and accounts for it;
// it returns the refusal that says why.
func (e *Automations) endBySystem(ctx context.Context, a Automation, r Run, state automation.RunState, anomaly bool,
	ledger automation.RunLedger, why error, now time.Time) error {
	code := ""
	if ee, ok := errors.AsType[*engine.Error](why); ok {
		code = ee.Code
	}
	next, paused := automation.AccountRunResult(a.AutomationState(), automation.RunResult{State: state, Anomaly: anomaly})
	details := map[string]any{"automation": a.ID, "state": string(state), "error": code}
	if paused {
		details["paused"] = string(next.PausedReason)
	}
	end := TaskRunEnd{Run: r, State: state, ErrorCode: code, Ledger: ledger, Automation: next, DueAt: taskDue(a, next, now), Now: now,
		Audit: engine.AuditEntry{Action: "automation.run_" + string(state), Actor: engine.Scheduler, SiteID: r.SiteID, RunID: r.ID,
			At: now, Details: details}}
	if err := e.store.EndTaskRun(ctx, end); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return refuse(CodeOutsideRun, "")
		}
		return err
	}
	return why
}

// openWindowNow is Run now on an agent task (§13 run-now): it opens the
// window [now, now + windowMinutes) with trigger manual, for the agent's
// begin_run; no run exists until then. The answer is the run begin_run
// will make, not stored (state due, its occurrence now).
func (e *Automations) openWindowNow(ctx context.Context, u engine.User, a Automation, now time.Time) (Run, error) {
	w := automation.Window(now, a.Task.WindowMinutes)
	audit := engine.AuditEntry{Action: "automation.run_now", Actor: u.Actor(), SiteID: a.SiteID, At: now,
		Details: map[string]any{"automation": a.ID, "opensAt": w.OpensAt, "closesAt": w.ClosesAt}}
	if err := e.store.OpenWindow(ctx, a.ID, a.Rev, w, audit); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return Run{}, refuse(CodeRunOpen, "")
		}
		return Run{}, err
	}
	e.poke()
	return manualWindowRun(a, w), nil
}

// manualWindowRun is the run a person's window w of agent task a stands
// for until its agent begins it: due, ending when the window closes.
func manualWindowRun(a Automation, w automation.RunWindow) Run {
	closes := w.ClosesAt
	return Run{ID: ids.RunID(a.ID, w.OpensAt), SiteID: a.SiteID, SubjectKind: SubjectAutomation, SubjectID: a.ID, Job: JobAgentTask,
		OccurrenceAt: w.OpensAt, State: string(automation.RunDue), Trigger: TriggerManual, Attempt: 1, EndsAt: &closes,
		CreatedAt: w.OpensAt, UpdatedAt: w.OpensAt}
}

// TaskPatch changes an agent task's fields: nil fields stay. The key is
// not minted again: a higher modeCap than the key's mode changes nothing
// (the run's mode is the lower of the two), a lower one applies at the next
// begin_run.
type TaskPatch struct {
	Instructions       *string
	ModeCap            *policy.Mode
	ReadsUntrustedText *bool
	WindowMinutes      *int
	Budget             *automation.Budget
}

// patchTask applies p to t and checks the result as Create does; the key's
// scopes are checked against readsUntrustedText again.
func patchTask(u engine.User, t Task, p TaskPatch) (Task, error) {
	in := TaskInput{Instructions: t.Instructions, ModeCap: t.ModeCap, WindowMinutes: t.WindowMinutes, Budget: &t.Budget,
		Scopes: t.Scopes}
	untrusted := t.ReadsUntrustedText
	in.ReadsUntrustedText = &untrusted
	if p.Instructions != nil {
		in.Instructions = *p.Instructions
	}
	if p.ModeCap != nil {
		in.ModeCap = *p.ModeCap
		if in.ModeCap == "" {
			in.ModeCap = "unset" // "" would take the default: refused as unknown
		}
	}
	if p.ReadsUntrustedText != nil {
		in.ReadsUntrustedText = p.ReadsUntrustedText
	}
	if p.WindowMinutes != nil {
		in.WindowMinutes = *p.WindowMinutes
		if in.WindowMinutes == 0 {
			in.WindowMinutes = -1
		}
	}
	if p.Budget != nil {
		in.Budget = p.Budget
	}
	out, err := checkTask(u, in)
	if err != nil {
		return Task{}, err
	}
	out.KeyID, out.ManualWindow = t.KeyID, t.ManualWindow
	return out, nil
}

// taskDetails are a task's fields as an audit row names them.
func taskDetails(t Task) map[string]any {
	return map[string]any{"modeCap": string(t.ModeCap), "windowMinutes": t.WindowMinutes, "readsUntrustedText": t.ReadsUntrustedText,
		"budget": t.Budget, "instructions": t.Instructions}
}
