package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"studio/engine"
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
	// ErrDiskFull: a write failed for lack of disk space (SQLite's
	// SQLITE_FULL, the system's ENOSPC, PostgreSQL's disk_full). It holds
	// until a write that needs new space goes through again.
	ErrDiskFull = errors.New("disk full")
)

// DiskFullError is ErrDiskFull with when the first write failed for lack
// of space, for /health's since.
type DiskFullError struct {
	Since time.Time
	Err   error // the write's own error
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("%s since %s: %v", ErrDiskFull, e.Since.UTC().Format(time.RFC3339), e.Err)
}

// Is makes errors.Is(e, ErrDiskFull) hold.
func (e *DiskFullError) Is(target error) bool { return target == ErrDiskFull }

// Lease is a claimed run's lease, renewed to Until while its work runs
// (§8.5): RenewLease succeeds only while the token is the release's and its
// lease has not ended at Now.
type Lease struct {
	ReleaseID string
	// AutomationID, when set, makes this the lease of an automation run's
	// step (the run row holds it) rather than of a release's run.
	AutomationID string
	RunID        string
	Token        string
	Now          time.Time
	Until        time.Time
}

// checkDatabase asks the store whether the database still keeps what it is
// told and says so loudly in the log: when a problem starts or changes, and
// again every minute while it holds (each tick, however often /health asks).
func (e *Scheduler) checkDatabase(ctx context.Context, now time.Time) error {
	err := e.store.Liveness(ctx)
	e.mu.Lock()
	loud := err != nil && (e.dbProblem != err.Error() || now.Sub(e.dbLogged) >= time.Minute)
	if err == nil {
		e.dbProblem = ""
	} else if loud {
		e.dbProblem, e.dbLogged = err.Error(), now
	}
	e.mu.Unlock()
	switch {
	case loud && errors.Is(err, ErrDiskFull):
		e.log.Error("DATABASE PROBLEM: the disk is full; writes fail. Free disk space: Studio notices within seconds "+
			"and takes writes again without a restart.", "err", err)
	case loud:
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
func (e *Scheduler) keepLease(ctx context.Context, l Lease) (stop func()) {
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
var errLeaseLost = errors.New("scheduler: the run's lease was lost")

// holdLease is the step right before a run's effect: when a third of the
// lease has passed since the claim (the run was slow, or its process was
// frozen), the lease is renewed first, and a lease that lapsed or was taken
// over stops the run with errLeaseLost. A run that took less writes
// nothing more: its effect is guarded on the token anyway.
func (e *Scheduler) holdLease(ctx context.Context, l Lease) error {
	if l.Token == "" || e.e.Now().Before(l.Now.Add(leaseFor/3)) {
		return nil
	}
	return e.renewLease(ctx, l)
}

// renewLease renews l from now; errLeaseLost when the lease is no longer
// ours or has ended.
func (e *Scheduler) renewLease(ctx context.Context, l Lease) error {
	l.Now = e.e.Now()
	l.Until = l.Now.Add(leaseFor)
	err := e.store.RenewLease(ctx, l)
	if errors.Is(err, engine.ErrConflict) {
		e.log.Warn("schedules: a run lost its lease (it lapsed or another ticker took the release over); it stops before publishing",
			"release", l.ReleaseID, "automation", l.AutomationID, "run", l.RunID)
		return errLeaseLost
	}
	return err
}

// handBack ends a claimed run's lease now: the process is stopping with the
// run unfinished (its context ended), and the next tick, here or on another
// instance, takes the run over at once instead of when the lease would have
// lapsed. Nothing of the run was written, so it runs whole again. It has
// its own short deadline: the run's context has ended.
func (e *Scheduler) handBack(l Lease) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	l.Now = e.e.Now()
	l.Until = l.Now
	if err := e.store.RenewLease(ctx, l); err != nil {
		if !errors.Is(err, engine.ErrConflict) { // a lease already gone is handed back already
			e.log.Warn("schedules: could not hand back a run as the process stops; its lease lapses instead",
				"release", l.ReleaseID, "automation", l.AutomationID, "run", l.RunID, "err", err)
		}
		return
	}
	e.log.Info("schedules: handed back a run as the process stops", "release", l.ReleaseID, "automation", l.AutomationID, "run", l.RunID)
}
