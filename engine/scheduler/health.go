package scheduler

import (
	"context"
	"errors"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// StuckRelease is a release the scheduler should have taken and has not: a
// scheduled one past its time, or a running one past the end of its lease.
type StuckRelease struct {
	ID         string
	SiteID     string
	Title      string
	State      release.State // scheduled or running
	ExecuteAt  *time.Time
	LeaseUntil *time.Time // running ones only
}

// How late a release may be before the health report names it: due and not
// claimed a minute after its time (a live ticker claims it within a second
// or two), or running 15 seconds past the end of its lease (the tick takes
// it over at that end).
const (
	dueNotClaimedAfter = time.Minute
	pastLeaseAfter     = 15 * time.Second
	stuckListed        = 20
)

// Status is Studio's health as /health, the Scheduler card and the
// notifications tell it: the database, the scheduler's heartbeat, and the
// releases it should have taken and has not.
type Status struct {
	Now time.Time
	// Database is nil while the database keeps what it is told; otherwise
	// it wraps ErrDatabaseGone, ErrDatabaseReadOnly or ErrDiskFull.
	Database  error
	Scheduler Health
	// DueNotClaimed are scheduled releases more than a minute past their
	// time that no ticker has claimed; PastLease are running releases whose
	// lease ended and nobody took over. At most 20 of each, in time order.
	DueNotClaimed []StuckRelease
	PastLease     []StuckRelease
}

// State is the scheduler's health for a person (HealthRunning, HealthLate
// or HealthStopped): the heartbeat's, but late while releases wait that a
// running scheduler should have taken.
func (s Status) State() string {
	if s.Scheduler.State == HealthRunning && len(s.DueNotClaimed)+len(s.PastLease) > 0 {
		return HealthLate
	}
	return s.Scheduler.State
}

// DatabaseOK says the database keeps what it is told.
func (s Status) DatabaseOK() bool { return s.Database == nil }

// Healthy says everything is as it should be: the database takes writes,
// the scheduler beats on time and nothing due waits for it.
func (s Status) Healthy() bool {
	return s.Database == nil && s.Scheduler.State == HealthRunning && len(s.DueNotClaimed) == 0 && len(s.PastLease) == 0
}

// DatabaseProblem is the reason the database fails, as /health says it
// ("database file replaced or removed", "database is read-only", "disk
// full"), or "".
func (s Status) DatabaseProblem() string {
	switch {
	case s.Database == nil:
		return ""
	case errors.Is(s.Database, ErrDatabaseGone):
		return ErrDatabaseGone.Error()
	case errors.Is(s.Database, ErrDatabaseReadOnly):
		return ErrDatabaseReadOnly.Error()
	case errors.Is(s.Database, ErrDiskFull):
		return ErrDiskFull.Error()
	}
	return "database unavailable"
}

// DatabaseProblemSince is when the database's problem began, when the
// store knows it (a full disk: its first failed write); zero otherwise.
func (s Status) DatabaseProblemSince() time.Time {
	if full, ok := errors.AsType[*DiskFullError](s.Database); ok {
		return full.Since
	}
	return time.Time{}
}

// Status reports Studio's health for one site, or for all sites when siteID
// is "". A database that is gone or read-only is part of the answer, not an
// error; an error means the health itself could not be read.
func (t *Scheduler) Status(ctx context.Context, siteID string) (Status, error) {
	return t.status(ctx, siteID, "")
}

// StatusOf is Status for u on a route no site is in (/health,
// GET /api/scheduler): the releases it names are of u's sites only.
func (t *Scheduler) StatusOf(ctx context.Context, u engine.User) (Status, error) {
	return t.status(ctx, "", u.ID)
}

func (t *Scheduler) status(ctx context.Context, siteID, memberID string) (Status, error) {
	now := t.e.Now()
	st := Status{Now: now, Database: t.checkDatabase(ctx, now)}
	var err error
	if st.Scheduler, err = t.schedulerHealth(ctx, now); err != nil {
		if st.Database != nil {
			return st, nil // a lost database may not even read: say what is known
		}
		return Status{}, err
	}
	if st.DueNotClaimed, st.PastLease, err = t.stuck(ctx, siteID, memberID, now); err != nil {
		if st.Database != nil {
			return st, nil
		}
		return Status{}, err
	}
	return st, nil
}

// stuck reads the releases the scheduler should have taken by now: due and
// not claimed, and running past their lease (one statement).
func (t *Scheduler) stuck(ctx context.Context, siteID, memberID string, now time.Time) (due, pastLease []StuckRelease, err error) {
	rows, err := t.store.StuckReleases(ctx, siteID, memberID, now.Add(-dueNotClaimedAfter), now.Add(-pastLeaseAfter), 2*stuckListed)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rows {
		if r.State == release.StateRunning && len(pastLease) < stuckListed {
			pastLease = append(pastLease, r)
		} else if r.State != release.StateRunning && len(due) < stuckListed {
			due = append(due, r)
		}
	}
	return due, pastLease, nil
}

// MaySeeStatusDetails says whether u may read the health report's details
// (the heartbeat, the next wake-up, the releases not taken): they tell when
// the next release is due, so only people who read schedules get them.
func MaySeeStatusDetails(u engine.User) bool { return policy.Has(u.Role, policy.SchedulesRead) }

// The tiers of the stalled rule (§8.7): the promised beat may be two
// minutes overdue while something is due within a day, ten at all.
const (
	stalledAfter     = 2 * time.Minute
	stalledAfterIdle = stoppedAfter
)

// Stalled is §8.7's rule: the scheduler has stopped when now is more than
// two minutes past the heartbeat's promised next wake while something is
// due within 24 hours (dueSoon), or more than ten minutes past it at all. A
// scheduler that never beat is stalled.
func Stalled(hb Heartbeat, found bool, now time.Time, dueSoon bool) bool {
	switch {
	case !found:
		return true
	case now.After(hb.NextWakeAt.Add(stalledAfterIdle)):
		return true
	}
	return dueSoon && now.After(hb.NextWakeAt.Add(stalledAfter))
}

// stalled applies Stalled to the heartbeat at now, asking the store whether
// something is due within a day only when the answer depends on it (the
// beat is two to ten minutes overdue).
func (t *Scheduler) stalled(ctx context.Context, hb Heartbeat, found bool, now time.Time) (bool, error) {
	if !found || !now.After(hb.NextWakeAt.Add(stalledAfter)) || now.After(hb.NextWakeAt.Add(stalledAfterIdle)) {
		return Stalled(hb, found, now, false), nil
	}
	soon, err := t.store.DueReleases(ctx, now.Add(stalledDueWithin), 1)
	if err != nil {
		return false, err
	}
	return Stalled(hb, found, now, len(soon) > 0), nil
}

// Stalled reads the heartbeat and applies §8.7's rule at the clock's now.
func (t *Scheduler) Stalled(ctx context.Context) (bool, error) {
	hb, err := t.store.Heartbeat(ctx)
	if err != nil && !errors.Is(err, engine.ErrNotFound) {
		return false, err
	}
	return t.stalled(ctx, hb, err == nil, t.e.Now())
}

// Scheduler health (§8.7), as Site settings › Schedules shows it.
const (
	HealthRunning = "running" // not stalled (§8.7): the promised beat is on time, or nothing is due soon
	HealthLate    = "late"    // two to ten minutes overdue while something is due within 24 h
	HealthStopped = "stopped" // more than ten minutes overdue, or it never beat
)

// stoppedAfter is how overdue the promised beat is when the scheduler counts
// as stopped rather than late (§8.7: "now > next_wake_at + 10 min at all").
const stoppedAfter = 10 * time.Minute

// Health is the scheduler's state from its heartbeat.
type Health struct {
	State string     // HealthRunning, HealthLate or HealthStopped
	Beat  *Heartbeat // nil before the first beat
}

// HealthOf reads the scheduler's state from its heartbeat at now; dueSoon
// says something is due within 24 hours. Running and Stalled agree: a
// scheduler is running exactly when it is not stalled (§8.7).
func HealthOf(hb Heartbeat, found bool, now time.Time, dueSoon bool) string {
	switch {
	case !Stalled(hb, found, now, dueSoon):
		return HealthRunning
	case !found || now.After(hb.NextWakeAt.Add(stoppedAfter)):
		return HealthStopped
	}
	return HealthLate
}

// SchedulerHealth reads the heartbeat and says whether the scheduler runs.
func (t *Scheduler) SchedulerHealth(ctx context.Context) (Health, error) {
	return t.schedulerHealth(ctx, t.e.Now())
}

// schedulerHealth is SchedulerHealth at now, for a report that reads the
// clock once.
func (t *Scheduler) schedulerHealth(ctx context.Context, now time.Time) (Health, error) {
	hb, err := t.store.Heartbeat(ctx)
	if errors.Is(err, engine.ErrNotFound) {
		return Health{State: HealthStopped}, nil
	}
	if err != nil {
		return Health{}, err
	}
	stalled, err := t.stalled(ctx, hb, true, now)
	if err != nil {
		return Health{}, err
	}
	state := HealthRunning
	if stalled {
		state = HealthOf(hb, true, now, true)
	}
	return Health{State: state, Beat: &hb}, nil
}
