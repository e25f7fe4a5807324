package scheduler_test

import (
	"context"
	"encoding/json"
	"math/rand"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/fakeclock"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
)

func TestNeverEarly(t *testing.T) {
	t.Parallel()

	// setup schedules the article for 09:00 Istanbul (06:00Z) as the editor.
	setup := func(t *testing.T) (*testBundle, release.Release) {
		t.Helper()
		b := newBundle(t)
		return b, b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	}

	// wantRescheduled checks the audit of a never-early move from from to nine.
	wantRescheduled := func(t *testing.T, b *testBundle, id string, from time.Time) {
		t.Helper()
		var actor, details string
		err := b.Store.DB().QueryRow(`SELECT actor, details FROM audit WHERE action = 'release.reschedule' AND release_id = ?`, id).
			Scan(&actor, &details)
		if err != nil {
			t.Fatalf("reschedule audit: %v", err)
		}
		var a release.Actor
		var d map[string]any
		if err := json.Unmarshal([]byte(actor), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(details), &d); err != nil {
			t.Fatal(err)
		}
		if a.ID != engine.Scheduler.ID || d["from"] != localtime.FormatInstant(from) ||
			d["to"] != localtime.FormatInstant(nine) || d["adjusted"] != "tzdata" {
			t.Fatalf("reschedule audit: actor %s details %s", actor, details)
		}
	}

	t.Run("EarlierInstantIsMovedBackToTheWallTime", func(t *testing.T) {
		b, r := setup(t)
		early := nine.Add(-time.Hour)
		b.SetExecuteAt(t, r.ID, early)
		b.Clock.Set(early)

		rep := b.Tick(t)
		if rep.Ran != 0 || rep.Published != 0 {
			t.Fatalf("tick at the early instant: %+v", rep)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("published an hour before its wall-clock time")
		}
		got := b.Release(t, r.ID)
		if got.State != release.StateScheduled {
			t.Fatalf("state = %s", got.State)
		}
		sameInstant(t, "execute_at", *got.ExecuteAt, nine)
		if s := b.Text(t, `SELECT execute_at FROM releases WHERE id = ?`, r.ID); s != "2026-11-02T06:00:00.000Z" {
			t.Fatalf("stored execute_at = %s", s)
		}
		wantRescheduled(t, b, r.ID, early)
		if c := b.Count(t, `SELECT count(*) FROM schedule_runs`); c != 0 {
			t.Fatalf("runs claimed before T: %d", c)
		}
		// The ticker looks again within its minute, never later than the moved time.
		if w := rep.NextWakeAt; !w.After(early) || w.After(nine) {
			t.Fatalf("next wake = %s, want in (%s, %s]", w, early, nine)
		}

		b.Clock.Set(nine.Add(-time.Millisecond))
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("tick a millisecond before T: %+v", rep)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 || rep.Late != 0 {
			t.Fatalf("tick at T: %+v", rep)
		}
		got = b.Release(t, r.ID)
		if got.State != release.StatePublished || got.Outcome.RunID != ids.RunID(r.ID, nine) || *got.Outcome.LatenessSeconds != 0 {
			t.Fatalf("after T: %s %+v", got.State, got.Outcome)
		}
		if _, ok := b.Live(t)[b.Article.ID]; !ok {
			t.Fatal("not published at T")
		}
		if c := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.reschedule'`); c != 1 {
			t.Fatalf("reschedule audits = %d", c)
		}
	})

	t.Run("EarlierInstantAndAlreadyDue", func(t *testing.T) {
		b, r := setup(t)
		early := nine.Add(-time.Hour)
		b.SetExecuteAt(t, r.ID, early)
		b.Clock.Set(nine.Add(30 * time.Second))
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick: %+v", rep)
		}
		got := b.Release(t, r.ID)
		// The run is the wall time's occurrence, late by 30 s, not 3630 s.
		if got.Outcome.RunID != ids.RunID(r.ID, nine) || *got.Outcome.LatenessSeconds != 30 {
			t.Fatalf("outcome = %+v", got.Outcome)
		}
		wantRescheduled(t, b, r.ID, early)
	})

	t.Run("EarlierByMoreThanTheLateLimitIsNotMissed", func(t *testing.T) {
		b, r := setup(t)
		early := nine.Add(-3 * time.Hour)
		b.SetExecuteAt(t, r.ID, early)
		b.Clock.Set(nine.Add(-30 * time.Minute)) // 2.5 h after the stored instant
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("tick: %+v", rep)
		}
		if got := b.Release(t, r.ID); got.State != release.StateScheduled {
			t.Fatalf("state = %s (outcome %+v)", got.State, got.Outcome)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick at T: %+v", rep)
		}
	})

	t.Run("AwaitingApprovalDoesNotExpireEarly", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		early := nine.Add(-time.Hour)
		b.SetExecuteAt(t, r.ID, early)
		b.Clock.Set(early)
		b.Tick(t)
		if got := b.Release(t, r.ID); got.State != release.StateAwaitingApproval {
			t.Fatalf("request %s at %s, an hour before its time (outcome %+v)", got.State, early.Format(time.RFC3339), got.Outcome)
		}
	})

	t.Run("LaterInstantIsKept", func(t *testing.T) {
		b, r := setup(t)
		later := nine.Add(time.Hour)
		b.SetExecuteAt(t, r.ID, later)
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("tick at the wall time: %+v", rep)
		}
		b.Clock.Set(later)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick at the stored instant: %+v", rep)
		}
		if c := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.reschedule'`); c != 0 {
			t.Fatalf("moved earlier: %d reschedules", c)
		}
	})
}

// TestNeverEarlyProperty ticks one database at random instants before T,
// with the stored instant randomly drifted earlier (as other tzdata would
// have it): nothing is published, claimed or missed before T; at T it is
// published exactly once.
func TestNeverEarlyProperty(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	setup := func(t *testing.T) (*testBundle, release.Release) {
		t.Helper()
		b := newBundle(t)
		return b, b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	}

	const seed = 20261102
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	b, r := setup(t)
	upTo2h := func() time.Duration {
		return time.Duration(rng.Int63n(int64(2*time.Hour/time.Millisecond))) * time.Millisecond
	}

	// tickAt runs one tick at now on a fresh engine over the same database,
	// so the instants need not increase.
	tickAt := func(now time.Time) scheduler.TickReport {
		t.Helper()
		rep, err := scheduler.New(releases.New(engine.New(b.Store, fakeclock.New(now), nil), b.Store), b.Store, nil).RunDue(ctx, "manual")
		if err != nil {
			t.Fatalf("tick at %s: %v", now, err)
		}
		return rep
	}

	for i := range 50 {
		var stored time.Time
		if rng.Intn(2) == 0 {
			stored = nine.Add(-time.Millisecond - upTo2h())
			b.SetExecuteAt(t, r.ID, stored)
		} else {
			stored = *b.Release(t, r.ID).ExecuteAt
		}
		now := nine.Add(-time.Millisecond - upTo2h())
		rep := tickAt(now)

		if rep.Published != 0 || rep.Ran != 0 {
			t.Fatalf("iteration %d (now %s, stored %s): %+v", i, now, stored, rep)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatalf("iteration %d: published at %s, before %s", i, now, nine)
		}
		got := b.Release(t, r.ID)
		if got.State != release.StateScheduled {
			t.Fatalf("iteration %d: state %s", i, got.State)
		}
		if !stored.After(now) && !got.ExecuteAt.Equal(nine) {
			t.Fatalf("iteration %d: due early instant %s left at %s", i, stored, got.ExecuteAt)
		}
		if c := b.Count(t, `SELECT count(*) FROM schedule_runs`) + b.Count(t, `SELECT count(*) FROM snapshots`); c != 0 {
			t.Fatalf("iteration %d: %d runs or snapshots before T", i, c)
		}
	}

	if rep := tickAt(nine.Add(time.Duration(rng.Int63n(int64(time.Minute))))); rep.Published != 1 {
		t.Fatalf("tick at T: %+v", rep)
	}
	for range 10 {
		if rep := tickAt(nine.Add(upTo2h())); rep.Ran != 0 {
			t.Fatalf("ran again: %+v", rep)
		}
	}
	if c := b.Count(t, `SELECT count(*) FROM snapshots WHERE reason = 'scheduled'`); c != 1 {
		t.Fatalf("scheduled snapshots = %d", c)
	}
	if c := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.publish'`); c != 1 {
		t.Fatalf("publish audits = %d", c)
	}
	if got := b.Release(t, r.ID); got.State != release.StatePublished {
		t.Fatalf("state = %s", got.State)
	}
}
