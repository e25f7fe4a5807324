package scheduler_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/engine/scheduler"
)

// flakyStore fails the publishing write of the next fails runs, as a
// database that times out would (§8.8 "transient").
type flakyStore struct {
	scheduler.Store
	fails     atomic.Int32 // ApplyRelease
	userFails atomic.Int32 // MemberByID
}

func (f *flakyStore) MemberByID(ctx context.Context, siteID, id string) (engine.User, error) {
	if f.userFails.Add(-1) >= 0 {
		return engine.User{}, errTimeout
	}
	return f.Store.MemberByID(ctx, siteID, id)
}

var errTimeout = errors.New("database is locked (timeout)")

// ApplyRelease fails while fails lasts. A try is a claimed run's write:
// the tick's one-transaction publish, tried first, fails alike (the same
// database) without counting, and the run takes the claimed way.
func (f *flakyStore) ApplyRelease(ctx context.Context, a scheduler.Apply) (bool, error) {
	if a.Claim != nil && f.fails.Load() > 0 {
		return false, errTimeout
	}
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
	flaky := &flakyStore{Store: b.Store}
	flaky.fails.Store(3)
	sched := scheduler.New(releases.New(engine.New(b.Store, b.Clock, nil), b.Store), flaky, nil)
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")

	b.Clock.Set(nine)
	wantNext := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute}
	at := nine
	for i, d := range wantNext {
		rep, err := sched.RunDue(ctx, "test")
		if !errors.Is(err, errTimeout) {
			t.Fatalf("try %d: err = %v, want the store's timeout", i+1, err)
		}
		got := b.Release(t, r.ID)
		if got.State != release.StateRunning || got.LeaseUntil == nil || !got.LeaseUntil.Equal(at.Add(d)) {
			t.Fatalf("try %d: state %s lease %v, want running until %v", i+1, got.State, got.LeaseUntil, at.Add(d))
		}
		if wake := at.Add(min(d, time.Minute)); !rep.NextWakeAt.Equal(wake) { // the ticker sleeps a minute at most
			t.Fatalf("try %d: next wake %v, want %v", i+1, rep.NextWakeAt, wake)
		}
		if n := b.Count(t, `SELECT attempt FROM schedule_runs WHERE subject_id = ? AND error LIKE '%timeout%'`, r.ID); n != i+1 {
			t.Fatalf("try %d: run attempt %d", i+1, n)
		}
		// Nothing happens before the back-off ends.
		b.Clock.Set(at.Add(d - time.Second))
		if rep, err := sched.RunDue(ctx, "test"); err != nil || rep.Ran != 0 {
			t.Fatalf("try %d: a tick inside the back-off ran %d (err %v)", i+1, rep.Ran, err)
		}
		at = at.Add(d)
		b.Clock.Set(at)
	}
	rep, err := sched.RunDue(ctx, "test")
	if err != nil || rep.Published != 1 {
		t.Fatalf("fourth try: %+v, %v", rep, err)
	}
	got := b.Release(t, r.ID)
	if got.State != release.StatePublished || got.Outcome == nil || *got.Outcome.LatenessSeconds != int64(at.Sub(nine)/time.Second) {
		t.Fatalf("after the retries: %s %+v", got.State, got.Outcome)
	}
	if n := b.Count(t, `SELECT count(*) FROM snapshots WHERE reason = 'scheduled'`); n != 1 {
		t.Fatalf("%d scheduled snapshots, want exactly 1", n)
	}
}

// A run that keeps failing is tried inside the hour only; then it is missed,
// with nothing published.
func TestTransientErrorsEndMissedAfterTheHour(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	flaky := &flakyStore{Store: b.Store}
	flaky.fails.Store(1000)
	sched := scheduler.New(releases.New(engine.New(b.Store, b.Clock, nil), b.Store), flaky, nil)
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	live := b.Site.PublishedSnapshotID

	b.Clock.Set(nine)
	for b.Clock.Now().Before(nine.Add(2*time.Hour)) && b.Release(t, r.ID).State == release.StateRunning ||
		b.Clock.Now().Equal(nine) {
		rep, _ := sched.RunDue(ctx, "test")
		b.Clock.Set(rep.NextWakeAt)
	}
	got := b.Release(t, r.ID)
	if got.State != release.StateMissed {
		t.Fatalf("state %s at %v, want missed", got.State, b.Clock.Now())
	}
	// Tries at 09:00, 09:00:30, 09:01:30, 09:03:30, 09:08:30, then every ten
	// minutes to 09:58:30; the next would be after 10:00.
	if n := b.Count(t, `SELECT attempt FROM schedule_runs WHERE subject_id = ? AND state = 'missed'`, r.ID); n != 10 {
		t.Fatalf("%d tries inside the hour, want 10", n)
	}
	site, err := b.Eng.Site(ctx, b.Site.ID)
	if err != nil || site.PublishedSnapshotID != live {
		t.Fatalf("the live snapshot moved to %q (err %v)", site.PublishedSnapshotID, err)
	}
}

// Reading the approver fails at run time: that is a transient error, not a
// lost right (§10.6 vs §8.8). The tick reads the approver with what is due;
// a person's Publish now reads them in its run, which fails and puts the
// release back, approved, not expired; it publishes at its time.
func TestTransientErrorReadingTheApproverRetries(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	flaky := &flakyStore{Store: b.Store}
	flaky.userFails.Store(1)
	sched := scheduler.New(releases.New(engine.New(b.Store, b.Clock, nil), b.Store), flaky, nil)
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	if _, err := sched.PublishNow(ctx, b.Editor, b.Site.ID, r.ID, b.Release(t, r.ID).Rev); !errors.Is(err, errTimeout) {
		t.Fatalf("err = %v, want the timeout", err)
	}
	if got := b.Release(t, r.ID); got.State != release.StateScheduled || got.Approval == nil {
		t.Fatalf("after the failed read: %s %+v, want scheduled with its approval", got.State, got.Approval)
	}
	b.Clock.Set(nine)
	if rep, err := sched.RunDue(ctx, "test"); err != nil || rep.Published != 1 {
		t.Fatalf("the tick at its time: %+v, %v", rep, err)
	}
}

// A person's Publish now that fails on a transient error is not left to the
// tick (which would carry it out early, as its own): the release goes back
// to scheduled with its approval and runs at its time.
func TestFailedPublishNowGoesBack(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	flaky := &flakyStore{Store: b.Store}
	flaky.fails.Store(1)
	sched := scheduler.New(releases.New(engine.New(b.Store, b.Clock, nil), b.Store), flaky, nil)
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	before := b.Release(t, r.ID)
	if _, err := sched.PublishNow(ctx, b.Editor, b.Site.ID, r.ID, before.Rev); !errors.Is(err, errTimeout) {
		t.Fatalf("publish now: %v, want the timeout", err)
	}
	got := b.Release(t, r.ID)
	if got.State != release.StateScheduled || got.LeaseToken != "" || got.Approval == nil || got.Approval.By.ID != b.Editor.ID {
		t.Fatalf("after the failed run: %s lease %q approval %+v, want scheduled, no lease, the approval back", got.State, got.LeaseToken, got.Approval)
	}
	if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id = ? AND state = 'failed' AND trigger = 'manual'`, r.ID); n != 1 {
		t.Fatalf("%d failed manual runs recorded, want 1", n)
	}
	if n := b.Count(t, `SELECT count(*) FROM release_items WHERE release_id = ? AND held = 1`, r.ID); n != 1 {
		t.Fatal("the scheduled release no longer holds its node")
	}
	// Ten minutes on (the old lease's end) nothing runs early.
	b.Clock.Set(start.Add(11 * time.Minute))
	if rep := b.Tick(t); rep.Ran != 0 {
		t.Fatalf("a tick before 09:00 ran %+v", rep)
	}
	b.Clock.Set(nine)
	if rep := b.Tick(t); rep.Published != 1 {
		t.Fatalf("tick at 09:00: %+v", rep)
	}
}

// An early Publish now whose process died mid-run leaves a claim; when its
// lease ends before the release's time, the tick puts it back on schedule
// instead of running it early (S2).
func TestInterruptedEarlyPublishNowRunsAtItsTime(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	row := b.Release(t, r.ID)
	now := b.Clock.Now()
	approval := &release.Approval{Kind: "person", By: b.Editor.Actor(), At: now, ExecuteAt: &now}
	ok, err := b.Store.ClaimRelease(ctx, scheduler.Claim{RunID: "run_dead", SiteID: b.Site.ID, ReleaseID: r.ID, Rev: row.Rev,
		State: row.State, Token: "lease_dead", LeaseUntil: now.Add(10 * time.Minute), Trigger: scheduler.TriggerManual,
		Now: now, Manual: true, Approval: approval})
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	b.Clock.Set(now.Add(10*time.Minute + time.Second))
	if rep := b.Tick(t); rep.Published != 0 {
		t.Fatalf("the dead run was carried out early: %+v", rep)
	}
	if got := b.Release(t, r.ID); got.State != release.StateScheduled || got.LeaseToken != "" {
		t.Fatalf("after the lease: %s lease %q, want scheduled", got.State, got.LeaseToken)
	}
	b.Clock.Set(nine)
	if rep := b.Tick(t); rep.Published != 1 {
		t.Fatalf("tick at 09:00: %+v", rep)
	}
}
