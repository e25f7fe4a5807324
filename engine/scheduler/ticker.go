package engine

import (
	"context"
	"sync"
	"time"
)

const (
	minSleep        = time.Second
	retryAfterError = 5 * time.Second
)

// Ticker is the in-process scheduler loop: it runs a tick, sleeps until the
// next due instant or a minute at most, and is woken early by pokes. The
// database holds every fact; the ticker only decides when to look.
type Ticker struct {
	e *Engine
	// AfterTick, when set, is called after every tick; tests wait on it
	// instead of sleeping.
	AfterTick func(TickReport, error)

	cancel context.CancelFunc
	done   sync.WaitGroup
}

// NewTicker returns a stopped ticker for e.
func NewTicker(e *Engine) *Ticker { return &Ticker{e: e} }

// Start runs the loop in a goroutine. The first tick runs at once, which
// catches up on whatever came due while the process was down (§8.4).
func (t *Ticker) Start(ctx context.Context) {
	ctx, t.cancel = context.WithCancel(ctx)
	t.done.Add(1)
	go func() {
		defer t.done.Done()
		for {
			rep, err := t.e.RunDue(ctx, "node")
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
			case <-t.e.clock.WakeAt(wake):
			case <-t.e.pokes:
			case <-ctx.Done():
				return
			}
		}
	}()
}

// Stop ends the loop and waits for a tick in progress to finish.
func (t *Ticker) Stop() {
	if t.cancel != nil {
		t.cancel()
	}
	t.done.Wait()
}
