package scheduler_test

import (
	"context"
	"studio/engine/scheduler"
	"testing"
	"time"

	"studio/engine/model/release"
)

func TestBackstop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	sched := scheduler.New(b.Releases, b.Store, nil)
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")

	// No tick yet: stalled, and the backstop ticks (nothing is due).
	if ran, err := sched.Backstop(ctx); err != nil || !ran {
		t.Fatalf("never ticked: ran %v err %v", ran, err)
	}

	// A healthy scheduler: the backstop only reads.
	b.Clock.Set(nine.Add(-2 * time.Minute))
	if _, err := b.Sched.RunDue(ctx, "node"); err != nil {
		t.Fatal(err)
	}
	b.Clock.Set(nine.Add(-time.Minute))
	if ran, err := sched.Backstop(ctx); err != nil || ran {
		t.Fatalf("healthy: ran %v err %v", ran, err)
	}

	// The ticker dies after 08:58. At 09:02 its promised beat (09:03) is
	// not yet overdue, but the 09:00 release is: the backstop ticks.
	b.Clock.Set(nine.Add(2 * time.Minute))
	ran, err := sched.Backstop(ctx)
	if err != nil || !ran {
		t.Fatalf("stalled: ran %v err %v", ran, err)
	}
	if got := b.Release(t, r.ID); got.State != release.StatePublished {
		t.Fatalf("after the backstop tick: %s", got.State)
	}
	var trigger string
	if err := b.Store.DB().QueryRow(`SELECT trigger FROM schedule_runs WHERE subject_id = ?`, r.ID).Scan(&trigger); err != nil || trigger != "request" {
		t.Fatalf("run trigger = %q (%v), want request", trigger, err)
	}

	// Within the minute it does not even look again.
	before := b.Store.Statements()
	if ran, err := sched.Backstop(ctx); err != nil || ran || b.Store.Statements() != before {
		t.Fatalf("memoised: ran %v err %v, %d statements", ran, err, b.Store.Statements()-before)
	}
}
