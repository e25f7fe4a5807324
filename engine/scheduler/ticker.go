// Package scheduler decides when due work runs and does the run: the
// in-process ticker loop and the request backstop (RFC §8.4–§8.7), what one
// tick does (RunDue: claim each due release, run it, write the heartbeat),
// and what one release run does (claim, run, publish or fail, §6.3, with its
// lease), which a person's manual run, Publish now (PublishNow), shares. The
// automations tick will live here next. Whether the scheduler runs is here
// too: the database check, the health report (Status, /health and the
// Scheduler card), §8.7's stalled rule, and the notices derived from
// schedule state (§14, Notifications).
//
// The rules a run checks that are the engine's (who may approve a release,
// the live addresses, a pinned node as its release left it) are asked of the
// engine; the engine's approvals run an "on-approval" release through
// PublishNow, which New registers with it (Releases.SetManualRunner).
package scheduler

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/jobs"
	"studio/engine/model/release"
	"studio/engine/releases"
)

const (
	minSleep        = time.Second
	retryAfterError = 5 * time.Second
)

// Engine is what the scheduler needs from the engine: the clock, the pokes
// that wake the loop early, and the rules of a run that stay the engine's.
// *engine.Engine is one.
type Engine interface {
	Now() time.Time
	WakeAt(t time.Time) <-chan time.Time
	Pokes() <-chan struct{}
	Poke()
	// AbilitiesOfRelease says, with Approves, whether a person may approve
	// a release: the right a manual run needs, and the run's approval gate.
	AbilitiesOfRelease(ctx context.Context, u engine.User, r releases.ReleaseRow) (releases.ReleaseAbilities, error)
	// ReleaseAddresses refuses a release whose node would take over
	// another's live address.
	ReleaseAddresses(ctx context.Context, siteID string, items []release.Item) error
	// AsLeft reports whether a node is as its release item left it.
	AsLeft(ctx context.Context, it release.Item, n content.Node) (bool, error)
	// AutoApprovalHolds re-checks an agent key's auto approval at run
	// time: "" when it holds, else why not.
	AutoApprovalHolds(ctx context.Context, u *engine.User, r releases.ReleaseRow, now time.Time) (string, error)
}

// AgentKeys finds the caller an agent key acts as now (agents.KeyUser):
// the run-time re-check of an auto approval asks it. engine.ErrNotFound
// when the key is revoked or its owner gone.
type AgentKeys interface {
	KeyUser(ctx context.Context, siteID, keyID string) (engine.User, error)
}

// Scheduler is the in-process scheduler loop: it runs a tick, sleeps until
// the next due instant or a minute at most, and is woken early by pokes.
// The database holds every fact; the scheduler decides when to look, and
// runs what it finds due (and a person's Publish now) under a lease.
type Scheduler struct {
	e     Engine
	store Store
	log   *slog.Logger
	// AfterTick, when set, is called after every tick of the loop; tests
	// wait on it instead of sleeping.
	AfterTick func(TickReport, error)

	cancel context.CancelFunc
	done   sync.WaitGroup
	// quit ends the loop between ticks, and stopping makes a tick take no
	// more work (Shutdown).
	quit     chan struct{}
	quitOnce sync.Once
	stopping atomic.Bool

	mu           sync.Mutex
	lastBeat     time.Time   // when this process last wrote the heartbeat
	lastBackstop time.Time   // when this process last checked the heartbeat for the backstop
	dbProblem    string      // the database problem last logged (checkDatabase)
	dbLogged     time.Time   // and when
	nudging      atomic.Bool // a request's backstop runs in the background
	// jobs are the built-in jobs' bodies (SetJobs); automationsOff stops
	// automations for the deployment (SetAutomationsOff).
	jobs           jobs.Stepper
	automationsOff bool
	// keys re-check auto approvals (SetAgentKeys); without them an auto
	// approval never holds.
	keys       AgentKeys
	background sync.WaitGroup
	// obs hears every tick (SetObserver): the metrics.
	obs Observer
}

// Observer hears every tick as it ends, whoever triggered it: what it
// did, how long it took on the engine's clock, and its error. Ticked must
// not block; the metrics are one.
type Observer interface {
	Ticked(trigger string, rep TickReport, took time.Duration, err error)
}

// SetObserver makes o hear every tick from now on.
func (t *Scheduler) SetObserver(o Observer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.obs = o
}

func (t *Scheduler) observer() Observer {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.obs
}

// New returns a stopped scheduler over e and store. log may be nil. It
// registers its manual run with e when e takes one (Releases.SetManualRunner),
// so the release use cases' approvals run an "on-approval" release at once.
func New(e Engine, store Store, log *slog.Logger) *Scheduler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Scheduler{e: e, store: store, log: log}
	if m, ok := e.(interface{ SetManualRunner(releases.ManualRunner) }); ok {
		m.SetManualRunner(s)
	}
	return s
}

// Start runs the loop in a goroutine. The first tick runs at once, which
// catches up on whatever came due while the process was down (§8.4).
func (t *Scheduler) Start(ctx context.Context) {
	ctx, t.cancel = context.WithCancel(ctx)
	t.quit = make(chan struct{})
	t.done.Add(1)
	go func() {
		defer t.done.Done()
		if err := t.ScheduleSystemJobs(ctx); err != nil {
			t.log.Error("schedules: the system jobs could not be scheduled", "err", err)
		}
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
			case <-t.quit:
				return
			}
		}
	}()
}

// Shutdown stops the scheduler as the process stops (SIGTERM): the loop
// takes no more work, the run in progress has until grace to finish, and
// a run still unfinished then is stopped and handed back (its lease ended,
// so the next tick anywhere takes it over at once). It returns when
// nothing of the scheduler runs any more.
func (t *Scheduler) Shutdown(grace time.Duration) {
	t.stopping.Store(true)
	if t.quit != nil {
		t.quitOnce.Do(func() { close(t.quit) })
	}
	finished := make(chan struct{})
	go func() {
		t.done.Wait()
		t.background.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(grace):
	}
	t.Stop()
}

// Stop ends the loop and waits for a tick in progress to finish, the
// loop's or a request backstop's.
func (t *Scheduler) Stop() {
	if t.cancel != nil {
		t.cancel()
	}
	t.done.Wait()
	t.Settle()
}

// Settle waits for the backstop ticks that requests started (Nudge). It is
// for a caller that sends no request meanwhile (a test between steps, or
// Stop once the server is down): a Nudge during the wait may race it.
func (t *Scheduler) Settle() { t.background.Wait() }
