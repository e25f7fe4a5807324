package scheduler

import (
	"context"
	"errors"
	"slices"
	"time"

	"studio/engine"
)

// Gauges are the scheduler's state as the metrics show it at a moment:
// what the database holds, the same for every instance that reads it.
type Gauges struct {
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

// LatenessSummary is how late the releases published in a window went
// live (§8.7's 7-day lag): the median and the 95th percentile, nearest
// rank, over Runs releases; zero when there were none.
type LatenessSummary struct {
	Runs     int
	P50, P95 time.Duration
}

// latenessWindow is the window GET /api/scheduler summarises (§13).
const latenessWindow = 7 * 24 * time.Hour

// LatenessWeek summarises the lateness of the releases published in the
// last seven days: on the sites memberID belongs to, or on every site for
// "" (an operator's deploy token), as StatusOf and Status name releases.
func (t *Scheduler) LatenessWeek(ctx context.Context, memberID string) (LatenessSummary, error) {
	lates, err := t.store.PublishLateness(ctx, t.e.Now().Add(-latenessWindow), memberID)
	if err != nil || len(lates) == 0 {
		return LatenessSummary{}, err
	}
	slices.Sort(lates)
	rank := func(p int) time.Duration { return lates[max((p*len(lates)+99)/100, 1)-1] }
	return LatenessSummary{Runs: len(lates), P50: rank(50), P95: rank(95)}, nil
}
