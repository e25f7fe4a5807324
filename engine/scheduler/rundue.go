package scheduler

import (
	"cmp"
	"context"
	"time"

	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// Tick limits: at most 50 releases a tick, a look at least every minute;
// an idle scheduler writes its heartbeat every fifth minute (§8.7).
const (
	maxReleasesPerTick = 50
	maxSleep           = time.Minute
	heartbeatEvery     = 5 * time.Minute
)

// TickReport says what one tick did (§8.1).
type TickReport struct {
	RunTally
	// Automations is what the automations part of the tick did.
	Automations AutomationTally
	// Retention is what the retention system job deleted.
	Retention  RetentionTally
	More       bool      // the tick stopped at its limit with work left
	At         time.Time // the tick's now
	NextWakeAt time.Time
	// LagSeconds is how late the oldest item due at the tick's start was
	// (§8.7): 0 when nothing was due.
	LagSeconds int64
}

// ManualTick is an operator's tick (`studio schedules run-due`, POST
// /api/admin/schedules/run-due): the system jobs are registered first, as
// a system cron may be the only ticker, then RunDue.
func (e *Scheduler) ManualTick(ctx context.Context) (TickReport, error) {
	if err := e.ScheduleSystemJobs(ctx); err != nil {
		return TickReport{}, err
	}
	return e.RunDue(ctx, TriggerManual)
}

// RunDue runs every release that is due at the clock's now, one at a time in
// time order, and writes the heartbeat. Concurrent calls, in this process or
// another on the same database, never double an effect: each release is
// claimed with a lease and published in one transaction guarded on it.
//
// One query reads everything due within the next minute, so an idle tick
// costs one statement (two when the heartbeat is due).
func (e *Scheduler) RunDue(ctx context.Context, trigger string) (TickReport, error) {
	start := e.e.Now()
	rep, err := e.runDue(ctx, trigger)
	if o := e.observer(); o != nil {
		o.Ticked(trigger, rep, e.e.Now().Sub(start), err)
	}
	return rep, err
}

func (e *Scheduler) runDue(ctx context.Context, trigger string) (TickReport, error) {
	now := e.e.Now()
	rep := TickReport{At: now, NextWakeAt: now.Add(maxSleep)}
	if err := e.checkDatabase(ctx, now); err != nil {
		return rep, err // nothing the tick did would be kept; look again in a minute
	}
	// Each tick starts on a site of its own (a random point among the site
	// ids), so schedulers ticking at once, in this process or others, read
	// different due rows instead of racing for the same claims (each loser
	// having planned a run for nothing).
	work, err := e.store.DueWork(ctx, rep.NextWakeAt, maxReleasesPerTick+1, ids.New("site"))
	if err != nil {
		return TickReport{}, err
	}
	rows, autoDue := work.Releases, work.AutomationsAt
	var nextDue time.Time
	var firstErr error
	later := func(at time.Time) {
		if !at.IsZero() && at.Before(rep.NextWakeAt) {
			rep.NextWakeAt = at
		}
		if !at.IsZero() && (nextDue.IsZero() || at.Before(nextDue)) {
			nextDue = at
		}
	}
	// Rows come in each site's time order (D15). A release that is not due
	// yet (a live run's lease), or could not be claimed, holds its site's
	// later releases until the next look; other sites go on.
	for _, r := range rows {
		if at := dueAt(r); !at.IsZero() && !at.After(now) {
			rep.LagSeconds = max(rep.LagSeconds, int64(now.Sub(at)/time.Second))
		}
	}
	held := map[string]bool{}
	for i, r := range rows {
		at := dueAt(r)
		if at.After(now) || (held[r.SiteID] && r.State != release.StateAwaitingApproval) {
			if at.After(now) { // a held one is looked at again when what holds it is
				later(at)
			}
			held[r.SiteID] = true
			continue
		}
		if i >= maxReleasesPerTick || e.stopping.Load() { // the rest waits for the next tick, maybe elsewhere
			rep.More = true
			break
		}
		// Each release runs at its own now, so that its lateness, its
		// snapshot and its outcome say when it went live, not when the
		// tick began (the 50th of a busy tick is later than the first).
		runAt := e.e.Now()
		if runAt.Before(now) {
			runAt = now
		}
		again, err := e.runRelease(ctx, r, runAt, trigger, &rep.RunTally)
		if err != nil {
			e.log.Error("schedules: release run failed", "release", r.ID, "err", err)
			firstErr = cmp.Or(firstErr, err)
		}
		later(again)
		if !again.IsZero() && !again.After(now) {
			held[r.SiteID] = true
		}
	}
	// Then the automations (§11.1), unless they are off for the deployment
	// or this process has no job bodies.
	if stepper := e.automationsRunner(); stepper != nil && autoDue != nil && !e.stopping.Load() {
		if autoDue.After(now) {
			later(*autoDue)
		} else {
			again, more, err := e.runAutomations(ctx, stepper, now, trigger, &rep.Automations)
			if err != nil {
				firstErr = cmp.Or(firstErr, err)
			}
			later(again)
			rep.More = rep.More || more
		}
	}
	// Then the system jobs (§8.6), whatever the kill switch and the
	// automations flag say: they keep the database's size in bounds.
	if at := work.SystemAt; at != nil {
		if at.After(now) {
			later(*at)
		} else {
			again, err := e.runRetention(ctx, now, &rep.Retention)
			if err != nil {
				e.log.Error("schedules: retention failed", "err", err)
				firstErr = cmp.Or(firstErr, err)
			}
			later(again)
		}
	}
	if err := e.beat(ctx, now, trigger, nextDue, rep); err != nil {
		e.log.Error("schedules: the heartbeat could not be written", "err", err)
		firstErr = cmp.Or(firstErr, err)
	}
	// One structured line per tick (§8.7); the duration is the engine
	// clock's, so a fake clock reads 0.
	e.log.Info("schedules tick", "trigger", trigger, "ran", rep.Ran, "published", rep.Published, "late", rep.Late,
		"failed", rep.Failed, "automation_steps", rep.Automations.Steps, "more", rep.More, "lag_s", rep.LagSeconds,
		"next_wake", rep.NextWakeAt.UTC().Format(time.RFC3339), "duration", e.e.Now().Sub(now))
	return rep, firstErr
}

// dueAt is when a release needs the ticker: its time, or the end of the
// lease of a run that may have died. A paused site's release is not run
// (§8.6): it needs the ticker only when its late limit ends, to become
// missed, or at the end of a lease that outlives that; an unapproved one
// still expires at its time. DueReleases orders rows by their place in the
// site's time order instead, so RunDue skips a row that is not due yet.
func dueAt(r releases.ReleaseRow) time.Time {
	if r.SitePaused && r.State != release.StateAwaitingApproval && r.ExecuteAt != nil {
		at := r.ExecuteAt.Add(release.LateLimit)
		if r.State == release.StateRunning && r.LeaseUntil != nil && r.LeaseUntil.After(at) {
			at = *r.LeaseUntil
		}
		return at
	}
	if r.State == release.StateRunning && r.LeaseUntil != nil {
		return *r.LeaseUntil
	}
	if r.ExecuteAt == nil {
		return time.Time{}
	}
	return *r.ExecuteAt
}

// beat writes the heartbeat after a tick that did work, and otherwise every
// fifth minute. Its next_wake_at promises the next beat or the next due
// work, whichever comes first, so "stalled" can be read from the row alone.
func (e *Scheduler) beat(ctx context.Context, now time.Time, trigger string, nextDue time.Time, rep TickReport) error {
	e.mu.Lock()
	due := rep.Ran > 0 || rep.Automations.Steps > 0 || rep.Automations.Claimed > 0 || e.lastBeat.IsZero() || now.Sub(e.lastBeat) >= heartbeatEvery
	if due {
		e.lastBeat = now
	}
	e.mu.Unlock()
	if !due {
		return nil
	}
	promise := now.Add(heartbeatEvery)
	if !nextDue.IsZero() && nextDue.Before(promise) {
		promise = nextDue
	}
	return e.store.WriteHeartbeat(ctx, Heartbeat{At: now, Trigger: trigger, NextWakeAt: promise, Ran: rep.Ran, More: rep.More,
		LagSeconds: rep.LagSeconds})
}
