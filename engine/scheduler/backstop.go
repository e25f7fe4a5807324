package engine

import (
	"context"
	"errors"
	"time"
)

// How often one process reads the heartbeat for the backstop, and how late
// the promised beat may be before the scheduler counts as stalled (§8.7).
const (
	backstopEvery = time.Minute
	stalledAfter  = 2 * time.Minute
)

// Stalled reports whether a heartbeat says the scheduler has stopped: its
// promised next beat is more than two minutes overdue, or it never beat.
func Stalled(hb Heartbeat, found bool, now time.Time) bool {
	return !found || now.After(hb.NextWakeAt.Add(stalledAfter))
}

// Backstop is the request backstop (§8.6): a safety net, never the
// scheduler. At most once a minute per process it reads the heartbeat and,
// when the scheduler has stalled (its ticker died, or nobody runs
// `schedules run-due`) or a release is more than two minutes overdue, runs
// one tick itself. Studio requests call it.
func (e *Engine) Backstop(ctx context.Context) (ran bool, err error) {
	now := e.Now()
	e.mu.Lock()
	if !e.lastBackstop.IsZero() && now.Sub(e.lastBackstop) < backstopEvery {
		e.mu.Unlock()
		return false, nil
	}
	e.lastBackstop = now
	e.mu.Unlock()

	hb, err := e.store.Heartbeat(ctx)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return false, err
	}
	if !Stalled(hb, err == nil, now) {
		// The beat may be on time while the work is not: a ticker that
		// beats but no longer runs releases. Something due more than two
		// minutes ago says so.
		overdue, err := e.store.DueReleases(ctx, now.Add(-stalledAfter), 1)
		if err != nil || len(overdue) == 0 {
			return false, err
		}
	}
	_, err = e.RunDue(ctx, "request")
	return true, err
}
