package releases_test

import (
	"context"
	"testing"
	"time"

	"studio/engine/model/release"
	"studio/engine/releases"
)

// D15, §6.2 "Overlaps": a node in two pending releases is allowed and
// flagged on both; they run in time order, and the later one becomes a
// conflict when the earlier one changed the node's live version (§6.4).
// Real SQLite, a fake clock.
func TestOverlapsRunInTimeOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ten := nine.Add(time.Hour)

	// The article scheduled alone at 09:00, then in a second release at
	// 10:00: both accepted, both hold it, both flagged.
	setup := func(t *testing.T) (*testBundle, release.Release, releases.ReleaseRow) {
		t.Helper()
		b := newBundle(t)
		first := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		d, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "Later", []string{b.Article.ID})
		if err != nil {
			t.Fatalf("a held node refused from a second release: %v", err)
		}
		second, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, "2026-11-02", "10:00")
		if err != nil {
			t.Fatalf("the overlap refused: %v", err)
		}
		if second.State != release.StateScheduled || b.heldItems(t, first.ID) != 1 || b.heldItems(t, second.ID) != 1 {
			t.Fatalf("second %s; held %d and %d", second.State, b.heldItems(t, first.ID), b.heldItems(t, second.ID))
		}
		for _, c := range []struct {
			id, other string
			at        time.Time
		}{{first.ID, second.ID, ten}, {second.ID, first.ID, nine}} {
			got, err := b.Releases.Overlaps(ctx, b.Editor, b.Site.ID, c.id)
			if err != nil || len(got) != 1 || got[0].ReleaseID != c.other || got[0].At == nil || !got[0].At.Equal(c.at) ||
				len(got[0].NodeIDs) != 1 || got[0].NodeIDs[0] != b.Article.ID {
				t.Fatalf("overlaps of %s: %+v, %v", c.id, got, err)
			}
		}
		// Editing the node stays locked (§6.2), naming the first release.
		b.wantLocked(t, b.Site.ID, b.Article.ID, first.ID)
		return b, first, second
	}

	t.Run("TheLaterOneConflictsAfterTheFirstChangedTheBase", func(t *testing.T) {
		t.Parallel()
		b, first, second := setup(t)
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("09:00 tick %+v", rep)
		}
		if got := b.Release(t, first.ID); got.State != release.StatePublished {
			t.Fatalf("first %s", got.State)
		}
		if got := b.Release(t, second.ID); got.State != release.StateScheduled {
			t.Fatalf("second ran early: %s", got.State)
		}
		// Still held by the later one.
		b.wantLocked(t, b.Site.ID, b.Article.ID, second.ID)
		b.Clock.Set(ten)
		b.Tick(t)
		got := b.Release(t, second.ID)
		if got.State != release.StateConflict {
			t.Fatalf("second %s %+v, want conflict", got.State, got.Outcome)
		}
		if v, err := b.Releases.ConflictView(ctx, b.Editor, b.Site.ID, second.ID); err != nil || len(v.Nodes) != 1 {
			t.Fatalf("conflict view %+v, %v", v, err)
		}
	})

	t.Run("BothDueRunInTimeOrder", func(t *testing.T) {
		t.Parallel()
		b, first, second := setup(t)
		b.Clock.Set(ten) // the 09:00 one is an hour late: still runs, first
		b.Tick(t)
		b.Tick(t)
		if got := b.Release(t, first.ID); got.State != release.StatePublished {
			t.Fatalf("first %s", got.State)
		}
		if got := b.Release(t, second.ID); got.State != release.StateConflict {
			t.Fatalf("second %s, want conflict", got.State)
		}
	})

	t.Run("TheLaterOnePublishesWhenTheBaseDidNotChange", func(t *testing.T) {
		t.Parallel()
		b, first, second := setup(t)
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, first.ID, b.Release(t, first.ID).Rev); err != nil {
			t.Fatal(err)
		}
		if got, err := b.Releases.Overlaps(ctx, b.Editor, b.Site.ID, second.ID); err != nil || len(got) != 0 {
			t.Fatalf("overlaps after the cancel: %+v, %v", got, err)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("09:00 tick %+v", rep)
		}
		b.Clock.Set(ten)
		if rep := b.Tick(t); rep.Published != 1 {
			got := b.Release(t, second.ID)
			t.Fatalf("10:00 tick %+v: %s %+v", rep, got.State, got.Outcome)
		}
		if _, ok := b.Live(t)[b.Article.ID]; !ok {
			t.Fatal("the article is not live")
		}
	})
}
