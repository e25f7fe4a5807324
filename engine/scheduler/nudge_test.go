package scheduler_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/fakeclock"
	"studio/engine/releases"
	"studio/engine/scheduler"
)

// blockedEngine is an engine on a fake clock; a tick over it runs no
// release (neverBeat has none), so the rest of scheduler.Engine is never
// asked.
type blockedEngine struct {
	scheduler.Engine
	clock *fakeclock.Clock
}

func (e *blockedEngine) Now() time.Time                      { return e.clock.Now() }
func (e *blockedEngine) WakeAt(t time.Time) <-chan time.Time { return e.clock.WakeAt(t) }
func (e *blockedEngine) Pokes() <-chan struct{}              { return nil }

// neverBeat is a store whose scheduler never beat: stalled. Its ticks wait
// until released; it runs no release, so the rest of scheduler.Store is
// never asked.
type neverBeat struct {
	scheduler.Store
	release chan struct{}
	entered chan struct{}
	ticks   atomic.Int64
}

// Liveness is where a tick blocks: it is the first thing it asks (the
// database check).
func (s *neverBeat) Liveness(context.Context) error {
	s.ticks.Add(1)
	s.entered <- struct{}{}
	<-s.release
	return nil
}

func (*neverBeat) Heartbeat(context.Context) (scheduler.Heartbeat, error) {
	return scheduler.Heartbeat{}, engine.ErrNotFound
}
func (*neverBeat) DueReleases(context.Context, time.Time, int) ([]releases.ReleaseRow, error) {
	return nil, nil
}
func (*neverBeat) DueWork(context.Context, time.Time, int, string) (scheduler.DueWork, error) {
	return scheduler.DueWork{}, nil
}
func (*neverBeat) ScheduleSystemJob(context.Context, string, time.Time) error { return nil }
func (*neverBeat) WriteHeartbeat(context.Context, scheduler.Heartbeat) error  { return nil }
func (*neverBeat) StuckReleases(context.Context, string, string, time.Time, time.Time, int) ([]scheduler.StuckRelease, error) {
	return nil, nil
}
func (*neverBeat) Releases(context.Context, string, time.Time, time.Time) ([]releases.ReleaseRow, error) {
	return nil, nil
}

// TestNudgeNeverWaitsAndRunsOne: a request's backstop runs beside the
// request (Nudge returns while the tick it started is still running), and a
// flood of requests meanwhile starts no second one.
func TestNudgeNeverWaitsAndRunsOne(t *testing.T) {
	t.Parallel()
	e := &blockedEngine{clock: fakeclock.New(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))}
	st := &neverBeat{release: make(chan struct{}), entered: make(chan struct{}, 10)}
	s := scheduler.New(e, st, nil)
	s.Nudge() // returns although the tick blocks
	<-st.entered
	for range 100 {
		s.Nudge()
	}
	// A minute on, the backstop may look again, but one is still running.
	e.clock.Advance(2 * time.Minute)
	for range 100 {
		s.Nudge()
	}
	close(st.release)
	s.Stop() // waits for the background backstop
	if n := st.ticks.Load(); n != 1 {
		t.Fatalf("%d backstop ticks for a flood of requests, want 1", n)
	}
	// Once it is done, the next request past the minute runs one again.
	s.Nudge()
	<-st.entered
	s.Stop()
	if n := st.ticks.Load(); n != 2 {
		t.Fatalf("%d backstop ticks, want 2", n)
	}
}
