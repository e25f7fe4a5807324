package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/release"
)

// flakyStore fails the publishing write of the next fails runs, as a
// database that times out would (§8.8 "transient").
type flakyStore struct {
	engine.Store
	fails atomic.Int32
}

var errTimeout = errors.New("database is locked (timeout)")

func (f *flakyStore) ApplyRelease(ctx context.Context, a engine.Apply) (bool, error) {
	if f.fails.Add(-1) >= 0 {
		return false, errTimeout
	}
	return f.Store.ApplyRelease(ctx, a)
}

// A transient error keeps the run claimed and brings its next try forward
// to the back-off (30 s, 1 min, 2 min …) instead of the lease's ten minutes;
// the release publishes once the store answers, late but inside the hour,
// exactly once.
func TestTransientErrorRetriesWithBackOff(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	flaky := &flakyStore{Store: b.store}
	flaky.fails.Store(3)
	eng := engine.New(flaky, b.clock, nil)
	r := b.schedule(t, b.editor, b.article, "2026-11-02", "09:00")

	b.clock.Set(nine)
	wantNext := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute}
	at := nine
	for i, d := range wantNext {
		rep, err := eng.RunDue(ctx, "test")
		if !errors.Is(err, errTimeout) {
			t.Fatalf("try %d: err = %v, want the store's timeout", i+1, err)
		}
		got := b.release(t, r.ID)
		if got.State != release.StateRunning || got.LeaseUntil == nil || !got.LeaseUntil.Equal(at.Add(d)) {
			t.Fatalf("try %d: state %s lease %v, want running until %v", i+1, got.State, got.LeaseUntil, at.Add(d))
		}
		if wake := at.Add(min(d, time.Minute)); !rep.NextWakeAt.Equal(wake) { // the ticker sleeps a minute at most
			t.Fatalf("try %d: next wake %v, want %v", i+1, rep.NextWakeAt, wake)
		}
		if n := b.count(t, `SELECT attempt FROM schedule_runs WHERE subject_id = ? AND error LIKE '%timeout%'`, r.ID); n != i+1 {
			t.Fatalf("try %d: run attempt %d", i+1, n)
		}
		// Nothing happens before the back-off ends.
		b.clock.Set(at.Add(d - time.Second))
		if rep, err := eng.RunDue(ctx, "test"); err != nil || rep.Ran != 0 {
			t.Fatalf("try %d: a tick inside the back-off ran %d (err %v)", i+1, rep.Ran, err)
		}
		at = at.Add(d)
		b.clock.Set(at)
	}
	rep, err := eng.RunDue(ctx, "test")
	if err != nil || rep.Published != 1 {
		t.Fatalf("fourth try: %+v, %v", rep, err)
	}
	got := b.release(t, r.ID)
	if got.State != release.StatePublished || got.Outcome == nil || *got.Outcome.LatenessSeconds != int64(at.Sub(nine)/time.Second) {
		t.Fatalf("after the retries: %s %+v", got.State, got.Outcome)
	}
	if n := b.count(t, `SELECT count(*) FROM snapshots WHERE reason = 'scheduled'`); n != 1 {
		t.Fatalf("%d scheduled snapshots, want exactly 1", n)
	}
}

// A run that keeps failing is tried inside the hour only; then it is missed,
// with nothing published.
func TestTransientErrorsEndMissedAfterTheHour(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	flaky := &flakyStore{Store: b.store}
	flaky.fails.Store(1000)
	eng := engine.New(flaky, b.clock, nil)
	r := b.schedule(t, b.editor, b.article, "2026-11-02", "09:00")
	live := b.site.PublishedSnapshotID

	b.clock.Set(nine)
	for b.clock.Now().Before(nine.Add(2*time.Hour)) && b.release(t, r.ID).State == release.StateRunning ||
		b.clock.Now().Equal(nine) {
		rep, _ := eng.RunDue(ctx, "test")
		b.clock.Set(rep.NextWakeAt)
	}
	got := b.release(t, r.ID)
	if got.State != release.StateMissed {
		t.Fatalf("state %s at %v, want missed", got.State, b.clock.Now())
	}
	// Tries at 09:00, 09:00:30, 09:01:30, 09:03:30, 09:08:30, then every ten
	// minutes to 09:58:30; the next would be after 10:00.
	if n := b.count(t, `SELECT attempt FROM schedule_runs WHERE subject_id = ? AND state = 'missed'`, r.ID); n != 10 {
		t.Fatalf("%d tries inside the hour, want 10", n)
	}
	site, err := b.eng.Site(ctx, b.site.ID)
	if err != nil || site.PublishedSnapshotID != live {
		t.Fatalf("the live snapshot moved to %q (err %v)", site.PublishedSnapshotID, err)
	}
}
