package releases_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/scheduler"
)

func TestNotifications(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kinds := func(t *testing.T, b *testBundle, u engine.User) []string {
		t.Helper()
		list, err := b.Sched.Notifications(ctx, u, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range list {
			out = append(out, n.Kind)
		}
		slices.Sort(out)
		return out
	}
	want := func(t *testing.T, what string, got []string, kinds ...string) {
		t.Helper()
		if !slices.Equal(got, kinds) {
			t.Errorf("%s: %v, want %v", what, got, kinds)
		}
	}

	t.Run("ApprovalDueForThoseWhoMayDecide", func(t *testing.T) {
		b := newBundle(t)
		b.Tick(t) // a live scheduler
		b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "10:00")
		ten := nine.Add(time.Hour)
		b.Clock.Set(ten.Add(-61 * time.Minute))
		b.Tick(t)
		want(t, "editor, 61 min before", kinds(t, b, b.Editor))
		b.Clock.Set(ten.Add(-59 * time.Minute))
		b.Tick(t)
		want(t, "editor, 59 min before", kinds(t, b, b.Editor), scheduler.NoticeApprovalDue)
		want(t, "the requester", kinds(t, b, b.Contributor))
	})

	t.Run("UpcomingPublishedAndMissed", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		other := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Late", Slug: "late", Status: content.StatusDraft})
		b.Schedule(t, b.Editor, other, "2026-11-02", "08:30")
		b.Clock.Set(nine.Add(-14 * time.Minute))
		b.Tick(t) // 08:30 is 16 minutes late: still runs
		want(t, "creator at 08:46", kinds(t, b, b.Editor), scheduler.NoticePublished, scheduler.NoticeUpcoming)
		want(t, "contributor at 08:46", kinds(t, b, b.Contributor))

		b.Clock.Set(nine.Add(2 * time.Hour))
		b.Tick(t)
		if got := b.Release(t, r.ID); got.State != release.StateMissed {
			t.Fatalf("state = %s", got.State)
		}
		want(t, "the creator after the miss", kinds(t, b, b.Editor), scheduler.NoticeMissed, scheduler.NoticePublished)
		want(t, "an administrator after the miss", kinds(t, b, b.Admin), scheduler.NoticeMissed)
		want(t, "a contributor after the miss", kinds(t, b, b.Contributor))
		list, _ := b.Sched.Notifications(ctx, b.Editor, b.Site.ID)
		for _, n := range list {
			if n.Kind == scheduler.NoticeMissed && n.ID != "schedule-missed:"+r.ID {
				t.Errorf("unstable id %q", n.ID)
			}
		}
	})

	t.Run("SchedulerStalled", func(t *testing.T) {
		b := newBundle(t)
		want(t, "admin, never ticked", kinds(t, b, b.Admin), scheduler.NoticeStalled)
		want(t, "contributor with nothing due", kinds(t, b, b.Contributor))
		b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "20:00")
		want(t, "contributor with work due today", kinds(t, b, b.Contributor), scheduler.NoticeStalled)
		b.Tick(t)
		want(t, "admin after a tick", kinds(t, b, b.Admin))
	})
}
