package scheduler

import (
	"context"
	"errors"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/ids"
	"studio/engine/model/automation"
)

// Agent tasks on the tick (RFC §8.6, §11.2, §11.6): an agent task runs no
// job body. Its windows are computed from the recurrence, and begin_run
// (engine/automations.BeginRun) opens its run; the tick only closes what
// the agent left: a run still open at its endsAt is failed not_ended (it
// counts toward the three failures that auto-pause), the site's kill
// switch kills an open run at once, and a window that closed with no
// begin_run is recorded as a missed run (after downtime the older closed
// windows as one skipped run with counts.coalesced), which neither counts
// nor resets the failures (automation.AccountRunResult). Missed rows are
// recorded because History must say that an occurrence came and nobody
// ran it: without the row the calendar's past shows nothing at all.

// CodeNotEnded is the error of an agent run still open at its endsAt
// (§11.2): the agent never called end_run.
const CodeNotEnded = "not_ended"

// TaskWindows records an agent task's closed windows with no run: Missed
// (the latest) and Skipped (the older ones coalesced), guarded on the
// automation's HandledAt and rev; a run begin_run made for the occurrence
// stays and no missed row is written for it. ClearManual drops the window a
// person's Run now opened, once closed.
type TaskWindows struct {
	AutomationID string
	Rev          int64
	HandledAt    time.Time
	Missed       []automations.Run
	Handled      time.Time
	NextRunAt    *time.Time
	DueAt        *time.Time
	Ended        bool
	ClearManual  bool
	Now          time.Time
}

// runTask looks at one due agent task at now.
func (t *Scheduler) runTask(ctx context.Context, d DueAutomation, now time.Time, tally *AutomationTally) (time.Time, error) {
	a := d.Automation
	if a.OpenRunID != "" {
		r, err := t.store.Run(ctx, a.SiteID, a.OpenRunID)
		if err != nil {
			return time.Time{}, err
		}
		if !r.Open() {
			return time.Time{}, nil
		}
		state, code := automation.RunState(""), ""
		switch {
		case d.SitePaused:
			state, code = automation.RunKilled, automations.RunKilledByKillSwitch // SetKillSwitch kills it first; a backstop
		case a.State != automations.AutomationActive:
			state = automation.RunKilled
		case r.EndsAt == nil || !now.Before(*r.EndsAt):
			state, code = automation.RunFailed, CodeNotEnded
		default:
			return *r.EndsAt, nil
		}
		ended, err := t.endTaskRun(ctx, a, r, state, code, now)
		if ended {
			tally.Ended++
			if state == automation.RunFailed {
				tally.Failed++
			}
		}
		return time.Time{}, err
	}
	rc, err := a.Recurrence()
	if err != nil || a.Task == nil {
		t.log.Error("schedules: an agent task's schedule no longer parses", "automation", a.ID, "err", err)
		return time.Time{}, t.store.PlanAutomation(ctx, AutomationPlan{AutomationID: a.ID, Rev: a.Rev, Now: now})
	}
	minutes := time.Duration(a.Task.WindowMinutes) * time.Minute
	due := automation.DueWindows(rc, a.Task.WindowMinutes, a.HandledAt, now)
	w := TaskWindows{AutomationID: a.ID, Rev: a.Rev, HandledAt: a.HandledAt, Handled: a.HandledAt, Now: now}
	if next, ok := rc.Next(now); ok {
		w.NextRunAt = &next.At
	}
	if due.HasNext {
		closes := due.Next.At.Add(minutes)
		w.DueAt = &closes
	}
	if m := a.Task.ManualWindow; m != nil {
		if !now.Before(m.ClosesAt) {
			w.ClearManual = true
			w.Missed = append(w.Missed, missedRun(a, m.OpensAt, "", automations.TriggerManual, 0, now))
		} else if w.DueAt == nil || m.ClosesAt.Before(*w.DueAt) {
			closes := m.ClosesAt
			w.DueAt = &closes
		}
	}
	if due.HasRun {
		if due.Coalesced > 0 {
			first, _ := rc.Next(a.HandledAt)
			w.Missed = append(w.Missed, missedRun(a, first.At, string(first.Adjusted), "cron", due.Coalesced, now))
		}
		w.Missed = append(w.Missed, missedRun(a, due.Run.At, string(due.Run.Adjusted), "cron", 0, now))
		w.Handled = due.Run.At
	}
	w.Ended = !due.HasNext && w.DueAt == nil && a.State == automations.AutomationActive
	if a.State != automations.AutomationActive || d.SitePaused {
		// Not active, or the site's switch is on: no window is looked at
		// until a person resumes it (Resume plans it again).
		w.DueAt, w.Ended = nil, false
	}
	n, err := t.store.RecordWindows(ctx, w)
	if err != nil {
		return time.Time{}, err
	}
	tally.Skipped += n
	if w.DueAt != nil {
		return *w.DueAt, nil
	}
	return time.Time{}, nil
}

// missedRun is the row of a window that closed with no run: missed, or
// skipped standing for coalesced older windows.
func missedRun(a automations.Automation, occ time.Time, adjusted, trigger string, coalesced int, now time.Time) automations.Run {
	r := automations.Run{ID: ids.RunID(a.ID, occ), SiteID: a.SiteID, SubjectKind: automations.SubjectAutomation, SubjectID: a.ID,
		Job: automations.JobAgentTask, OccurrenceAt: occ, State: string(automation.RunMissed), Trigger: trigger, Attempt: 1,
		EndedAt: &now, Adjusted: adjusted, Rev: 1, CreatedAt: now, UpdatedAt: now}
	if coalesced > 0 {
		r.State, r.Counts = string(automation.RunSkipped), map[string]int{automation.CountCoalesced: coalesced}
	}
	return r
}

// endTaskRun ends an agent run the agent left open (not_ended), or kills
// it, and accounts for it: the third failure in a row auto-pauses.
// It reports whether this ticker ended it.
func (t *Scheduler) endTaskRun(ctx context.Context, a automations.Automation, r automations.Run, state automation.RunState, code string, now time.Time) (bool, error) {
	next, paused := automation.AccountRunResult(a.AutomationState(), automation.RunResult{State: state})
	details := map[string]any{"automation": a.ID, "state": string(state)}
	if code != "" {
		details["error"] = code
	}
	if paused {
		details["paused"] = string(next.PausedReason)
	}
	var due *time.Time
	if next.State == automation.StateActive && a.Task != nil {
		if rc, err := a.Recurrence(); err == nil {
			d := automation.DueWindows(rc, a.Task.WindowMinutes, r.OccurrenceAt, now)
			if d.HasNext {
				closes := d.Next.At.Add(time.Duration(a.Task.WindowMinutes) * time.Minute)
				due = &closes
			}
			if d.HasRun { // windows closed meanwhile: the next look records them
				due = &now
			}
		}
	}
	err := t.store.EndTaskRun(ctx, automations.TaskRunEnd{Run: r, State: state, ErrorCode: code, Ledger: r.Ledger, Automation: next,
		DueAt: due, Now: now, Audit: engine.AuditEntry{Action: "automation.run_" + string(state), Actor: engine.Scheduler,
			SiteID: a.SiteID, RunID: r.ID, At: now, Details: details}})
	if errors.Is(err, engine.ErrConflict) {
		return false, nil // the agent ended it, another ticker did, or a person paused it, meanwhile
	}
	return err == nil, err
}
