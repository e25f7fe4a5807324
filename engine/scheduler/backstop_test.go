package scheduler_test

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"studio/engine/model/release"
	"studio/engine/scheduler"
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

// recorded keeps the levels and messages a logger was given.
type recorded struct {
	mu   sync.Mutex
	logs []string
}

func (r *recorded) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorded) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message == "schedules tick" { // each tick's own line
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, rec.Level.String()+" "+rec.Message)
	return nil
}
func (r *recorded) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorded) WithGroup(string) slog.Handler      { return r }

// TestNudgeOnANewDatabaseIsNoStall: the first request on a database no
// tick ever ran on (make run's first start) runs the first tick without
// warning that the scheduler had stalled; a ticker that stopped beating
// is warned about.
func TestNudgeOnANewDatabaseIsNoStall(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	rec := &recorded{}
	sched := scheduler.New(b.Releases, b.Store, slog.New(rec))
	sched.Nudge()
	sched.Settle()
	b.Clock.Advance(time.Hour) // the beat that first tick promised is long overdue
	sched.Nudge()
	sched.Settle()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	want := []string{"INFO schedules: no tick had run on this database yet; a request ran the first",
		"WARN schedules: the scheduler had stalled; a request ran a tick"}
	if !slices.Equal(rec.logs, want) {
		t.Fatalf("logs = %q, want %q", rec.logs, want)
	}
}
