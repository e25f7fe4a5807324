package scheduler

import (
	"context"
	"errors"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/ids"
	"studio/engine/jobs"
	"studio/engine/model/automation"
)

// The automations tick (RFC §8.1, §8.6, §11.1): after the releases, each
// tick runs the due occurrences of built-in automations. An occurrence is
// claimed with its deterministic run id and a compare-and-swap on the
// automation's last handled occurrence, so it runs once across processes;
// after downtime only the latest missed occurrence runs, and the older ones
// are recorded in the same claim as one skipped run with counts.coalesced
// (automation.DueOccurrences: three schedule calls, never a loop per
// occurrence). A claimed run does one jobs.Stepper step a tick, under a
// lease, from the cursor stored with it, until the job says it is done: a
// sweep spans several ticks and a step killed with its process is taken
// over from the same cursor when its lease ends.

// maxAutomationStepsPerTick bounds the automation steps of one tick; a tick
// that reaches it says More and the loop looks again at once.
const maxAutomationStepsPerTick = 50

// AutomationTally counts what the automations part of a tick did.
type AutomationTally struct {
	Claimed int // occurrences claimed (each is one run)
	Skipped int // skipped runs recorded for coalesced occurrences
	Steps   int // steps taken
	Ended   int // runs that ended (succeeded, failed or killed)
	Failed  int // of which failed
	Paused  int // automations auto-paused by this tick
}

// DueAutomation is an automation the runner must look at: its next
// occurrence has come, or its open run wants its next step.
type DueAutomation struct {
	automations.Automation
	// SitePaused: the site's kill switch is on (§11.6): no occurrence
	// starts and an open run is killed at its step boundary.
	SitePaused bool
}

// OccurrenceClaim is the runner's claim of one occurrence (§8.5): the
// automation moves from HandledAt to the run's occurrence and takes Run as
// its open run, only if it is still active, handled at HandledAt, with no
// run open and its site not paused. Skipped, when set, is recorded in the
// same transaction.
type OccurrenceClaim struct {
	AutomationID string
	SiteID       string
	HandledAt    time.Time
	Run          automations.Run
	Skipped      *automations.Run
	NextRunAt    *time.Time
	Now          time.Time
}

// AutomationPlan is a look at an automation that runs nothing: its next
// run and when to look again, or its end (COUNT or UNTIL ran out), guarded
// on the automation being as read (Rev).
type AutomationPlan struct {
	AutomationID string
	Rev          int64
	NextRunAt    *time.Time
	DueAt        *time.Time
	Ended        bool
	Now          time.Time
}

// StepClaim takes the next step of an open run: the run's lease passes to
// Token only if the run is still open and no live lease holds it. A lease
// that ended with a token still set was a step that died: the attempt
// counts up.
type StepClaim struct {
	RunID string
	// Rev is the run's rev as read: a step another ticker took and saved
	// since moved it, so the cursor read is stale and the claim fails.
	Rev          int64
	AutomationID string
	OldToken     string
	Token        string
	Until        time.Time
	Now          time.Time
}

// StepSave records a step that did not finish the run: its cursor and
// counts, its lease let go, and the automation due for the next step at
// Now. Guarded on the token.
type StepSave struct {
	RunID        string
	AutomationID string
	Token        string
	Cursor       string
	Counts       map[string]int
	Now          time.Time
}

// RunEnd ends an automation's running run, guarded on the token, and writes the automation's state after it (§5.3 accounting) with its
// audit row.
type RunEnd struct {
	RunID        string
	AutomationID string
	Token        string
	State        automation.RunState
	Outcome      automation.Outcome
	Counts       map[string]int
	ErrorCode    string
	ErrorMessage string
	// The automation after the run.
	Automation automation.AutomationState
	DueAt      *time.Time
	Ended      bool
	Audit      engine.AuditEntry
	Now        time.Time
}

// AutomationStore is what the automations tick reads and writes. Package
// store implements it.
type AutomationStore interface {
	// DueAutomations lists automations whose due_at is at or before now,
	// in due order, at most limit; a paused site's only when they have an
	// open run (to be killed).
	DueAutomations(ctx context.Context, now time.Time, limit int) ([]DueAutomation, error)
	// Run, Runs and Automations are automations.Store's reads.
	Run(ctx context.Context, siteID, id string) (automations.Run, error)
	Runs(ctx context.Context, f automations.RunFilter) ([]automations.Run, error)
	Automations(ctx context.Context, siteID string) ([]automations.Automation, error)
	ClaimOccurrence(ctx context.Context, c OccurrenceClaim) (bool, error)
	PlanAutomation(ctx context.Context, p AutomationPlan) error
	TakeStep(ctx context.Context, c StepClaim) (bool, error)
	// SaveStep: ErrConflict when the lease is no longer ours.
	SaveStep(ctx context.Context, s StepSave) error
	// EndRun: ErrConflict when the lease is no longer ours.
	EndRun(ctx context.Context, e RunEnd) error
	// EndTaskRun is automations.Store's: ErrConflict when the run moved.
	EndTaskRun(ctx context.Context, e automations.TaskRunEnd) error
	// RecordWindows records an agent task's closed windows and plans its
	// next look; it returns how many rows it inserted (0 when another
	// ticker did, or the automation moved).
	RecordWindows(ctx context.Context, w TaskWindows) (int, error)
}

// SetJobs gives the scheduler the bodies of the built-in jobs; without
// them (nil) the ticker runs releases only.
func (t *Scheduler) SetJobs(s jobs.Stepper) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.jobs = s
}

// SetAutomationsOff stops the automations for this deployment (serve
// --automations=off, STUDIO_AUTOMATIONS=off) while releases and gates go
// on: no occurrence starts and no step is taken; their state stays as it
// is, so turning them on again goes on where they were (missed occurrences
// coalesce as after any downtime).
func (t *Scheduler) SetAutomationsOff(off bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.automationsOff = off
}

// automationsRunner is the stepper when automations run in this process.
func (t *Scheduler) automationsRunner() jobs.Stepper {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.automationsOff {
		return nil
	}
	return t.jobs
}

// runAutomations takes every due automation a step further at now. It
// returns when it should look again (zero: no sooner than the releases'
// minute) and whether it stopped at its limit.
func (t *Scheduler) runAutomations(ctx context.Context, stepper jobs.Stepper, now time.Time, trigger string, tally *AutomationTally) (again time.Time, more bool, err error) {
	due, err := t.store.DueAutomations(ctx, now, maxAutomationStepsPerTick+1)
	if err != nil {
		return time.Time{}, false, err
	}
	if len(due) > maxAutomationStepsPerTick {
		due, more = due[:maxAutomationStepsPerTick], true
	}
	var firstErr error
	for _, d := range due {
		if ctx.Err() != nil {
			return again, more, ctx.Err()
		}
		at, err := t.runAutomation(ctx, stepper, d, now, trigger, tally)
		if err != nil {
			t.log.Error("schedules: automation run failed", "automation", d.ID, "err", err)
			if firstErr == nil {
				firstErr = err
			}
		}
		if !at.IsZero() && (again.IsZero() || at.Before(again)) {
			again = at
		}
	}
	return again, more, firstErr
}

// runAutomation looks at one due automation: a step of its open run, or
// the claim of its due occurrence and the run's first step, or its next
// run when nothing is due.
func (t *Scheduler) runAutomation(ctx context.Context, stepper jobs.Stepper, d DueAutomation, now time.Time, trigger string, tally *AutomationTally) (time.Time, error) {
	a := d.Automation
	if a.IsTask() && a.Task != nil {
		return t.runTask(ctx, d, now, tally)
	}
	if a.OpenRunID != "" {
		r, err := t.store.Run(ctx, a.SiteID, a.OpenRunID)
		if err != nil {
			return time.Time{}, err
		}
		return t.stepRun(ctx, stepper, d, r, "", now, tally)
	}
	_, builtin := a.Builtin()
	if a.State != automations.AutomationActive || !builtin || d.SitePaused {
		// Not the runner's to run (an agent task opens windows, §11.2): it
		// keeps its next run for the calendar and is not looked at again.
		next := a.NextRunAt
		if rc, err := a.Recurrence(); err == nil {
			if o, ok := rc.Next(now); ok {
				next = &o.At
			}
		}
		return time.Time{}, t.store.PlanAutomation(ctx, AutomationPlan{AutomationID: a.ID, Rev: a.Rev, NextRunAt: next, Now: now})
	}
	rc, err := a.Recurrence()
	if err != nil { // a stored rule today's parser refuses: look no more until a person fixes it
		t.log.Error("schedules: an automation's schedule no longer parses", "automation", a.ID, "err", err)
		return time.Time{}, t.store.PlanAutomation(ctx, AutomationPlan{AutomationID: a.ID, Rev: a.Rev, Now: now})
	}
	due := automations.Schedule(rc, a.HandledAt, now)
	var next *time.Time
	if due.HasNext {
		at := due.Next.At
		next = &at
	}
	if !due.HasRun {
		err := t.store.PlanAutomation(ctx, AutomationPlan{AutomationID: a.ID, Rev: a.Rev, NextRunAt: next, DueAt: next,
			Ended: !due.HasNext, Now: now})
		if next != nil {
			return *next, err
		}
		return time.Time{}, err
	}
	occ := due.Run.At
	lateness := int64(now.Sub(occ) / time.Second)
	started := now
	token := ids.New("lease")
	until := now.Add(leaseFor)
	run := automations.Run{ID: ids.RunID(a.ID, occ), SiteID: a.SiteID, SubjectKind: automations.SubjectAutomation, SubjectID: a.ID,
		Job: string(automation.JobBuiltin), OccurrenceAt: occ, State: string(automation.RunRunning), Trigger: trigger, Attempt: 1,
		StartedAt: &started, LatenessSeconds: &lateness, Adjusted: string(due.Run.Adjusted), LeaseToken: token, LeaseUntil: &until,
		Rev: 1, CreatedAt: now, UpdatedAt: now}
	claim := OccurrenceClaim{AutomationID: a.ID, SiteID: a.SiteID, HandledAt: a.HandledAt, Run: run, NextRunAt: next, Now: now}
	if due.Coalesced > 0 {
		// The skipped run stands at the first missed occurrence, so its id
		// is as deterministic as the run's.
		first, _ := rc.Next(a.HandledAt)
		claim.Skipped = &automations.Run{ID: ids.RunID(a.ID, first.At), SiteID: a.SiteID, SubjectKind: automations.SubjectAutomation,
			SubjectID: a.ID, Job: string(automation.JobBuiltin), OccurrenceAt: first.At, State: string(automation.RunSkipped),
			Trigger: trigger, Attempt: 1, EndedAt: &started, Counts: map[string]int{automation.CountCoalesced: due.Coalesced},
			Adjusted: string(first.Adjusted), Rev: 1, CreatedAt: now, UpdatedAt: now}
	}
	ok, err := t.store.ClaimOccurrence(ctx, claim)
	if err != nil || !ok { // another ticker has it
		return time.Time{}, err
	}
	tally.Claimed++
	if claim.Skipped != nil {
		tally.Skipped++
	}
	a.OpenRunID, a.NextRunAt = run.ID, next
	d.Automation = a
	return t.stepRun(ctx, stepper, d, run, token, now, tally)
}

// stepRun takes one step of an open run: it takes the run's lease (unless
// the claim just gave it), calls the job once with the stored cursor, and
// saves the step or ends the run. At the step boundary, a paused site
// (§11.6) or an automation no longer active kills the run instead (a
// person's run now of a paused automation goes on).
func (t *Scheduler) stepRun(ctx context.Context, stepper jobs.Stepper, d DueAutomation, r automations.Run, claimed string, now time.Time, tally *AutomationTally) (time.Time, error) {
	a := d.Automation
	if !r.Open() { // another ticker ended it after this one read the automation
		return time.Time{}, nil
	}
	token := claimed
	if token == "" {
		if r.LeaseUntil != nil && r.LeaseUntil.After(now) && r.LeaseToken != "" {
			return *r.LeaseUntil, nil // a live step elsewhere
		}
		token = ids.New("lease")
		ok, err := t.store.TakeStep(ctx, StepClaim{RunID: r.ID, Rev: r.Rev, AutomationID: a.ID, OldToken: r.LeaseToken, Token: token,
			Until: now.Add(leaseFor), Now: now})
		if err != nil || !ok {
			return time.Time{}, err
		}
	}
	kill := d.SitePaused || (a.State != automations.AutomationActive && r.Trigger != automations.TriggerManual)
	if kill {
		code := ""
		if d.SitePaused { // SetKillSwitch kills it first; a backstop
			code = automations.RunKilledByKillSwitch
		}
		tally.Ended++
		return time.Time{}, t.endRun(ctx, a, r, token, automation.RunKilled, "", r.Counts, code, "", now)
	}
	lease := Lease{AutomationID: a.ID, RunID: r.ID, Token: token, Now: now, Until: now.Add(leaseFor)}
	stop := t.keepLease(ctx, lease)
	b, _ := a.Builtin()
	st, err := stepper.Step(ctx, jobs.Run{ID: r.ID, AutomationID: a.ID, SiteID: a.SiteID, Job: b, Config: a.Config,
		OccurrenceAt: r.OccurrenceAt, Now: now}, r.Cursor)
	stop()
	tally.Steps++
	if herr := t.holdLease(ctx, lease); herr != nil {
		if errors.Is(herr, errLeaseLost) {
			return time.Time{}, nil // another ticker has the run now
		}
		return time.Time{}, herr
	}
	if err != nil {
		if ctx.Err() != nil { // the process is stopping: the step is handed back and runs again
			t.handBack(lease)
			return time.Time{}, ctx.Err()
		}
		tally.Ended++
		tally.Failed++
		return time.Time{}, t.endRun(ctx, a, r, token, automation.RunFailed, "", r.Counts, "job_failed", err.Error(), now)
	}
	if !st.Done {
		err := t.store.SaveStep(ctx, StepSave{RunID: r.ID, AutomationID: a.ID, Token: token, Cursor: st.Cursor, Counts: st.Counts, Now: now})
		if errors.Is(err, engine.ErrConflict) {
			return time.Time{}, nil
		}
		return now, err
	}
	outcome := automation.OutcomeNothingToDo
	if st.Findings > 0 {
		outcome = automation.OutcomeDidWork
	}
	tally.Ended++
	if err := t.endRun(ctx, a, r, token, automation.RunSucceeded, outcome, st.Counts, "", "", now); err != nil {
		return time.Time{}, err
	}
	if a.NextRunAt != nil {
		return *a.NextRunAt, nil
	}
	return time.Time{}, nil
}

// activeDue is when an active automation without an open run is due: its
// next run.
func activeDue(a automations.Automation) *time.Time {
	if a.State != automations.AutomationActive {
		return nil
	}
	return a.NextRunAt
}

// endRun ends a run and accounts for it (§5.3): a success resets the
// failure count, the third failure in a row auto-pauses the automation.
func (t *Scheduler) endRun(ctx context.Context, a automations.Automation, r automations.Run, token string, state automation.RunState,
	outcome automation.Outcome, counts map[string]int, code, message string, now time.Time) error {
	next, paused := automation.AccountRunResult(a.AutomationState(), automation.RunResult{State: state})
	after := a
	after.State, after.PausedReason, after.ConsecutiveFailures = string(next.State), string(next.PausedReason), next.ConsecutiveFailures
	ended := after.State == automations.AutomationActive && a.NextRunAt == nil
	if ended {
		next.State = automation.StateEnded
	}
	details := map[string]any{"automation": a.ID, "state": string(state), "outcome": string(outcome), "counts": counts}
	if code != "" {
		details["error"] = code
	}
	if paused {
		details["paused"] = string(next.PausedReason)
	}
	err := t.store.EndRun(ctx, RunEnd{RunID: r.ID, AutomationID: a.ID, Token: token, State: state, Outcome: outcome, Counts: counts,
		ErrorCode: code, ErrorMessage: message, Automation: next, DueAt: activeDue(after), Ended: ended, Now: now,
		Audit: engine.AuditEntry{Action: "automation.run_" + string(state), Actor: engine.Scheduler, SiteID: a.SiteID, RunID: r.ID,
			At: now, Details: details}})
	if errors.Is(err, engine.ErrConflict) {
		return nil // a person paused or deleted it meanwhile: their kill stands
	}
	return err
}
