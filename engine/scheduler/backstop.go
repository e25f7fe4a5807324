package scheduler

import (
	"context"
	"errors"
	"time"

	"studio/engine"
)

// How often one process reads the heartbeat for the backstop, how late a
// release may be before it runs one anyway, and how far ahead §8.7's
// stalled rule looks for due work.
const (
	backstopEvery = time.Minute
	overdueAfter  = 2 * time.Minute
	dueSoonWithin = 24 * time.Hour
)

// Backstop is the request backstop (§8.6): a safety net, never the
// scheduler. At most once a minute per process it reads the heartbeat and,
// when the scheduler has stalled by §8.7's rule (its ticker died, or nobody
// runs `schedules run-due`) or a release is more than two minutes overdue,
// runs one tick itself, in the caller's goroutine. Requests call Nudge.
func (t *Scheduler) Backstop(ctx context.Context) (ran bool, err error) {
	ran, _, err = t.backstop(ctx)
	return ran, err
}

// backstop is Backstop, and whether no tick had ever run on the database
// (first): a new install's first request, which finds no stall, only a
// ticker that has not beaten yet.
func (t *Scheduler) backstop(ctx context.Context) (ran, first bool, err error) {
	now := t.e.Now()
	t.mu.Lock()
	if !t.lastBackstop.IsZero() && now.Sub(t.lastBackstop) < backstopEvery {
		t.mu.Unlock()
		return false, false, nil
	}
	t.lastBackstop = now
	t.mu.Unlock()

	hb, err := t.store.Heartbeat(ctx)
	if err != nil && !errors.Is(err, engine.ErrNotFound) {
		return false, false, err
	}
	found := err == nil
	stalled := Stalled(hb, found, now, false)
	if !stalled {
		// The beat may be on time while the work is not: a ticker that
		// beats but no longer runs releases. Something due more than two
		// minutes ago says so, and makes the 24-hour tier hold as well.
		overdue, err := t.store.DueReleases(ctx, now.Add(-overdueAfter), 1)
		if err != nil {
			return false, false, err
		}
		if len(overdue) == 0 && found && now.After(hb.NextWakeAt.Add(overdueAfter)) {
			soon, err := t.store.DueReleases(ctx, now.Add(dueSoonWithin), 1)
			if err != nil {
				return false, false, err
			}
			stalled = Stalled(hb, found, now, len(soon) > 0)
		}
		if len(overdue) == 0 && !stalled {
			return false, false, nil
		}
	}
	_, err = t.RunDue(ctx, "request")
	return true, !found, err
}

// Nudge is the backstop for a request (a Studio page or an API call): it
// never delays the request. It starts Backstop in the background and
// returns at once; while one runs, further nudges start nothing, so a flood
// of requests runs at most one backstop at a time. Stop waits for it.
func (t *Scheduler) Nudge() {
	if !t.nudging.CompareAndSwap(false, true) {
		return
	}
	t.background.Add(1)
	go func() {
		defer t.background.Done()
		defer t.nudging.Store(false)
		ran, first, err := t.backstop(context.Background())
		switch {
		case err != nil:
			t.log.Error("schedules: backstop tick failed", "err", err)
		case ran && first:
			t.log.Info("schedules: no tick had run on this database yet; a request ran the first")
		case ran:
			t.log.Warn("schedules: the scheduler had stalled; a request ran a tick")
		}
	}()
}
