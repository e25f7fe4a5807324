package engine

import (
	"context"
	"errors"
	"time"

	"studio/engine/policy"
	"studio/engine/release"
)

// Problems of the database that make every write a loss. The store returns
// errors wrapping them; /health answers 503 while one holds.
var (
	// ErrDatabaseGone: the database file at the data path is no longer the
	// one this process opened (it was removed or replaced), so whatever is
	// written now goes to a file nobody will open again.
	ErrDatabaseGone = errors.New("database file replaced or removed")
	// ErrDatabaseReadOnly: the database takes no writes (a read-only file,
	// folder or mount).
	ErrDatabaseReadOnly = errors.New("database is read-only")
)

// Lease is a claimed run's lease, renewed to Until while its work runs
// (§8.5): RenewLease succeeds only while the token is the release's and its
// lease has not ended at Now.
type Lease struct {
	ReleaseID string
	RunID     string
	Token     string
	Now       time.Time
	Until     time.Time
}

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

// HealthStore is what leases and the health report need from storage.
type HealthStore interface {
	// RenewLease moves a claimed run's lease on; ErrConflict when the lease
	// is no longer ours or has ended.
	RenewLease(ctx context.Context, l Lease) error
	// StuckReleases lists, for a site or for all (siteID ""), scheduled
	// releases due at or before dueBefore on sites that are not paused and
	// running ones whose lease ended at or before leaseBefore.
	StuckReleases(ctx context.Context, siteID string, dueBefore, leaseBefore time.Time, limit int) ([]StuckRelease, error)
	// Liveness is nil while the database file is the one opened and takes
	// writes; otherwise an error wrapping ErrDatabaseGone or
	// ErrDatabaseReadOnly. It looks again at most every few seconds.
	Liveness(ctx context.Context) error
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
	// it wraps ErrDatabaseGone or ErrDatabaseReadOnly.
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
// ("database file replaced or removed", "database is read-only"), or "".
func (s Status) DatabaseProblem() string {
	switch {
	case s.Database == nil:
		return ""
	case errors.Is(s.Database, ErrDatabaseGone):
		return ErrDatabaseGone.Error()
	case errors.Is(s.Database, ErrDatabaseReadOnly):
		return ErrDatabaseReadOnly.Error()
	}
	return "database unavailable"
}

// Status reports Studio's health for one site, or for all sites when siteID
// is "". A database that is gone or read-only is part of the answer, not an
// error; an error means the health itself could not be read.
func (e *Engine) Status(ctx context.Context, siteID string) (Status, error) {
	now := e.Now()
	st := Status{Now: now, Database: e.checkDatabase(ctx, now)}
	var err error
	if st.Scheduler, err = e.schedulerHealth(ctx, now); err != nil {
		if st.Database != nil {
			return st, nil // a lost database may not even read: say what is known
		}
		return Status{}, err
	}
	if st.DueNotClaimed, st.PastLease, err = e.stuck(ctx, siteID, now); err != nil {
		if st.Database != nil {
			return st, nil
		}
		return Status{}, err
	}
	return st, nil
}

// stuck reads the releases the scheduler should have taken by now: due and
// not claimed, and running past their lease (one statement).
func (e *Engine) stuck(ctx context.Context, siteID string, now time.Time) (due, pastLease []StuckRelease, err error) {
	rows, err := e.store.StuckReleases(ctx, siteID, now.Add(-dueNotClaimedAfter), now.Add(-pastLeaseAfter), 2*stuckListed)
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

// CheckDatabase asks the store whether the database still keeps what it is
// told and says so loudly in the log: when a problem starts or changes, and
// again every minute while it holds (each tick, however often /health asks).
func (e *Engine) CheckDatabase(ctx context.Context, now time.Time) error {
	return e.checkDatabase(ctx, now)
}

// checkDatabase is CheckDatabase.
func (e *Engine) checkDatabase(ctx context.Context, now time.Time) error {
	err := e.store.Liveness(ctx)
	e.mu.Lock()
	loud := err != nil && (e.dbProblem != err.Error() || now.Sub(e.dbLogged) >= time.Minute)
	if err == nil {
		e.dbProblem = ""
	} else if loud {
		e.dbProblem, e.dbLogged = err.Error(), now
	}
	e.mu.Unlock()
	if loud {
		e.log.Error("DATABASE PROBLEM: Studio cannot keep what it is told; writes are refused. "+
			"Restore the database file (or make it writable) and restart Studio.", "err", err)
	}
	return err
}

// keepLease renews a claimed run's lease every third of its length while
// its work runs, so a slow run keeps its claim and a dead or frozen one loses
// it within one lease. It returns the function that stops the renewals. The
// renewals are paced on the process's own timer (only a live process
// renews); each counts the lease from the engine's clock.
func (e *Engine) keepLease(ctx context.Context, l Lease) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(leaseFor / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := e.renewLease(ctx, l); err != nil {
				return // the run stops at holdLease, or at its effect's guard
			}
			t.Reset(leaseFor / 3)
		}
	}()
	return func() { close(done) }
}

// errLeaseLost says a run's lease lapsed or was taken over: the run stopped
// before its effect.
var errLeaseLost = errors.New("engine: the run's lease was lost")

// holdLease is the step right before a run's effect: when a third of the
// lease has passed since the claim (the run was slow, or its process was
// frozen), the lease is renewed first, and a lease that lapsed or was taken
// over stops the run with errLeaseLost. A run that took less writes
// nothing more: its effect is guarded on the token anyway.
func (e *Engine) holdLease(ctx context.Context, l Lease) error {
	if l.Token == "" || e.Now().Before(l.Now.Add(leaseFor/3)) {
		return nil
	}
	return e.renewLease(ctx, l)
}

// renewLease renews l from now; errLeaseLost when the lease is no longer
// ours or has ended.
func (e *Engine) renewLease(ctx context.Context, l Lease) error {
	l.Now = e.Now()
	l.Until = l.Now.Add(leaseFor)
	err := e.store.RenewLease(ctx, l)
	if errors.Is(err, ErrConflict) {
		e.log.Warn("schedules: a run lost its lease (it lapsed or another ticker took the release over); it stops before publishing",
			"release", l.ReleaseID, "run", l.RunID)
		return errLeaseLost
	}
	return err
}

// MaySeeStatusDetails says whether u may read the health report's details
// (the heartbeat, the next wake-up, the releases not taken): they tell when
// the next release is due, so only people who read schedules get them.
func MaySeeStatusDetails(u User) bool { return policy.Has(u.Role, policy.SchedulesRead) }

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
func (e *Engine) stalled(ctx context.Context, hb Heartbeat, found bool, now time.Time) (bool, error) {
	if !found || !now.After(hb.NextWakeAt.Add(stalledAfter)) || now.After(hb.NextWakeAt.Add(stalledAfterIdle)) {
		return Stalled(hb, found, now, false), nil
	}
	soon, err := e.store.DueReleases(ctx, now.Add(stalledDueWithin), 1)
	if err != nil {
		return false, err
	}
	return Stalled(hb, found, now, len(soon) > 0), nil
}

// Stalled reads the heartbeat and applies §8.7's rule at the clock's now.
func (e *Engine) Stalled(ctx context.Context) (bool, error) {
	hb, err := e.store.Heartbeat(ctx)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return false, err
	}
	return e.stalled(ctx, hb, err == nil, e.Now())
}
