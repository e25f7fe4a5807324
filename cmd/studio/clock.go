package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"studio/store"
)

// instanceClock is the clock a Studio process runs on. Alone on SQLite it
// is the machine's. On PostgreSQL it follows the database server's clock,
// so instances whose machines disagree still agree on what is due, and none
// publishes early because its own clock runs fast (one clock, issue 16).
//
// STUDIO_TEST_CLOCK_SKEW (a Go duration, "30s") shifts the machine's
// reading, for the tests' rehearsal of a machine whose clock is wrong: on
// PostgreSQL it changes nothing Studio decides; on SQLite it moves what is
// due, which is why it is a test hook, never an operator's setting.
type instanceClock struct {
	skew time.Duration
	// offset is what the skewed machine clock is behind the database's, in
	// nanoseconds; 0 on SQLite.
	offset atomic.Int64
	// database: the offset is measured (PostgreSQL).
	database bool
}

// clockResync is how often an instance on PostgreSQL measures the offset
// again, so a machine clock that drifts or is stepped is followed.
const clockResync = 10 * time.Second

func (c *instanceClock) Now() time.Time {
	return time.Now().Add(c.skew + time.Duration(c.offset.Load()))
}

func (c *instanceClock) WakeAt(t time.Time) <-chan time.Time { return time.After(t.Sub(c.Now())) }

// newInstanceClock returns the process's clock on st. On PostgreSQL it has
// measured the database's clock once before it returns, enough for a
// one-shot command; serve then keeps following it (follow).
func newInstanceClock(ctx context.Context, st *store.Store) (*instanceClock, error) {
	c := &instanceClock{}
	if v := os.Getenv("STUDIO_TEST_CLOCK_SKEW"); v != "" {
		skew, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("STUDIO_TEST_CLOCK_SKEW: %w", err)
		}
		c.skew = skew
	}
	var err error
	if c.database, err = c.measure(ctx, st); err != nil {
		return nil, err
	}
	return c, nil
}

// follow measures the database's clock again every clockResync until ctx
// ends, so a machine clock that drifts or is stepped is followed; nothing
// on SQLite, where the machine's clock is the only one.
func (c *instanceClock) follow(ctx context.Context, st *store.Store, log *slog.Logger) {
	for c.database {
		select {
		case <-time.After(clockResync):
		case <-ctx.Done():
			return
		}
		if _, err := c.measure(ctx, st); err != nil && ctx.Err() == nil {
			// The last offset stands; the database's own checks report the outage.
			log.Warn("schedules: could not read the database's clock", "err", err)
		}
	}
}

// banner is serve's line about the clocks when the machine's and the
// database's disagree by a second or more, "" otherwise: operators should
// fix a machine's clock, even though Studio no longer depends on it.
func (c *instanceClock) banner() string {
	off := time.Duration(c.offset.Load())
	switch {
	case off <= -time.Second:
		return fmt.Sprintf("This machine's clock is %.1f s ahead of the database's; schedules follow the database's.", -off.Seconds())
	case off >= time.Second:
		return fmt.Sprintf("This machine's clock is %.1f s behind the database's; schedules follow the database's.", off.Seconds())
	}
	return ""
}

// measure measures the offset to the database's clock; false on SQLite. The reading is
// compared with the machine's time after the answer came back, so the
// clock it gives is never ahead of the database's: at most one round trip
// behind, which can make a release that late but never early.
func (c *instanceClock) measure(ctx context.Context, st *store.Store) (bool, error) {
	db, ok, err := st.DatabaseTime(ctx)
	if err != nil || !ok {
		return ok, err
	}
	after := time.Now().Add(c.skew)
	c.offset.Store(int64(db.Sub(after)))
	return true, nil
}
