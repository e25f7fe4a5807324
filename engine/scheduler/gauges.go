package scheduler

import (
	"context"
	"errors"
	"time"

	"studio/engine"
)

// Gauges are the scheduler's state as the metrics show it at a moment:
// what the database holds, the same for every instance that reads it.
type Gauges struct {
	At time.Time
	// Releases counts the releases by state; AutomationRuns the
	// automations' runs by state.
	Releases       map[string]int
	AutomationRuns map[string]int
	// DueBacklog counts the releases whose time has come (scheduled, or
	// waiting for an approval that lapses at their time) not yet run.
	DueBacklog int
	// HeartbeatAge is how long ago a tick last wrote the heartbeat (every
	// tick that ran something, else every 5 minutes); HeartbeatSeen is
	// false before the first tick.
	HeartbeatAge  time.Duration
	HeartbeatSeen bool
}

// Gauges reads the scheduler's state for the metrics, at the clock's now.
func (t *Scheduler) Gauges(ctx context.Context) (Gauges, error) {
	now := t.e.Now()
	g, err := t.store.SchedulerGauges(ctx, now)
	if err != nil {
		return g, err
	}
	g.At = now
	hb, err := t.store.Heartbeat(ctx)
	switch {
	case errors.Is(err, engine.ErrNotFound):
	case err != nil:
		return g, err
	default:
		g.HeartbeatAge, g.HeartbeatSeen = max(now.Sub(hb.At), 0), true
	}
	return g, nil
}
