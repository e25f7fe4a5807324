// Package scheduler decides when the engine runs due work: the in-process
// ticker loop and the request backstop (RFC §8.4–§8.7). What one tick does
// (RunDue: claim each due release, run it, write the heartbeat) is the
// scheduler's; each release in it is the engine's. The automations tick will
// live here next. Whether the scheduler runs is here too: the health report
// (Status, /health and the Scheduler card), §8.7's stalled rule, and the
// notices derived from schedule state (§14, Notifications).
//
// What one release run does (claim, run, publish, §6.3) stays the engine's:
// RunRelease, which Publish now shares.
package scheduler

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"studio/engine"
)

const (
	minSleep        = time.Second
	retryAfterError = 5 * time.Second
)

// Engine is what the scheduler needs from the engine: what one release run
// does, the database check, the clock, and the pokes that wake the loop
// early.
type Engine interface {
	RunRelease(ctx context.Context, r engine.ReleaseRow, now time.Time, trigger string, tally *engine.RunTally) (again time.Time, err error)
	CheckDatabase(ctx context.Context, now time.Time) error
	Now() time.Time
	WakeAt(t time.Time) <-chan time.Time
	Pokes() <-chan struct{}
}

// Store is what the scheduler reads and writes: what is due, and the
// heartbeat.
type Store interface {
	// DueReleases lists releases that need the scheduler before before, in
	// each site's time order, at most limit.
	DueReleases(ctx context.Context, before time.Time, limit int) ([]engine.ReleaseRow, error)
	Heartbeat(ctx context.Context) (engine.Heartbeat, error)
	WriteHeartbeat(ctx context.Context, h engine.Heartbeat) error
	// StuckReleases lists, for a site or for all (siteID ""), scheduled
	// releases due at or before dueBefore on sites that are not paused and
	// running ones whose lease ended at or before leaseBefore.
	StuckReleases(ctx context.Context, siteID string, dueBefore, leaseBefore time.Time, limit int) ([]StuckRelease, error)
	// Releases lists a site's releases with execute_at in [from, to), and
	// every non-terminal one without a time, ordered by time then id.
	Releases(ctx context.Context, siteID string, from, to time.Time) ([]engine.ReleaseRow, error)
}

// Scheduler is the in-process scheduler loop: it runs a tick, sleeps until
// the next due instant or a minute at most, and is woken early by pokes.
// The database holds every fact; the scheduler only decides when to look.
type Scheduler struct {
	e     Engine
	store Store
	log   *slog.Logger
	// AfterTick, when set, is called after every tick of the loop; tests
	// wait on it instead of sleeping.
	AfterTick func(TickReport, error)

	cancel context.CancelFunc
	done   sync.WaitGroup

	mu           sync.Mutex
	lastBeat     time.Time   // when this process last wrote the heartbeat
	lastBackstop time.Time   // when this process last checked the heartbeat for the backstop
	nudging      atomic.Bool // a request's backstop runs in the background
	background   sync.WaitGroup
}

// New returns a stopped scheduler over e and store. log may be nil.
func New(e Engine, store Store, log *slog.Logger) *Scheduler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{e: e, store: store, log: log}
}

// Start runs the loop in a goroutine. The first tick runs at once, which
// catches up on whatever came due while the process was down (§8.4).
func (t *Scheduler) Start(ctx context.Context) {
	ctx, t.cancel = context.WithCancel(ctx)
	t.done.Add(1)
	go func() {
		defer t.done.Done()
		for {
			rep, err := t.RunDue(ctx, "node")
			if ctx.Err() != nil {
				return
			}
			if t.AfterTick != nil {
				t.AfterTick(rep, err)
			}
			now, wake := t.e.Now(), rep.NextWakeAt
			switch {
			case rep.More:
				wake = now
			case wake.IsZero(): // the tick failed before it knew
				wake = now.Add(retryAfterError)
			case !wake.After(rep.At):
				// Something due could not be claimed (another process holds
				// the site); look again soon, without spinning.
				wake = now.Add(minSleep)
			}
			// A wake that passed while the tick ran (a long tick, or a clock
			// that moved on) comes at once: WakeAt fires for a past instant.
			select {
			case <-t.e.WakeAt(wake):
			case <-t.e.Pokes():
			case <-ctx.Done():
				return
			}
		}
	}()
}

// Stop ends the loop and waits for a tick in progress to finish, the
// loop's or a request backstop's.
func (t *Scheduler) Stop() {
	if t.cancel != nil {
		t.cancel()
	}
	t.done.Wait()
	t.background.Wait()
}
