package releases_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/settings"
)

func TestMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("AnApproverKeepsTheApproval", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		got, err := b.Releases.Move(ctx, b.Admin, b.Site.ID, r.ID, r.Rev, "2026-11-02", "10:30")
		if err != nil {
			t.Fatal(err)
		}
		ten30 := nine.Add(90 * time.Minute)
		if got.State != release.StateScheduled || !got.ExecuteAt.Equal(ten30) || got.When.LocalTime != "2026-11-02T10:30" ||
			got.Approval == nil || got.Approval.By.ID != b.Editor.ID || !got.Approval.ExecuteAt.Equal(ten30) || got.Hash != r.Hash {
			t.Fatalf("after the move: %s %v %+v", got.State, got.ExecuteAt, got.Approval)
		}
		if s := b.Text(t, `SELECT json_extract(details, '$.from') || ' → ' || json_extract(details, '$.to') FROM audit
			WHERE action = 'release.reschedule' AND release_id = ?`, r.ID); s != "2026-11-02T06:00:00.000Z → 2026-11-02T07:30:00.000Z" {
			t.Fatalf("audit = %q", s)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("ran at the old time: %+v", rep)
		}
		b.Clock.Set(ten30)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("at the new time: %+v", rep)
		}
	})

	t.Run("AnyoneElseAsksAgain", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		list, _ := b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
		if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, list[0].Request.ID); err != nil {
			t.Fatal(err)
		}
		approved := b.Release(t, r.ID)
		got, err := b.Releases.Move(ctx, b.Contributor, b.Site.ID, r.ID, approved.Rev, "2026-11-03", "09:00")
		if err != nil {
			t.Fatal(err)
		}
		if got.State != release.StateAwaitingApproval || got.Approval != nil {
			t.Fatalf("a contributor's move: %s %+v", got.State, got.Approval)
		}
		list, _ = b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
		if len(list) != 1 || !list[0].Request.ExecuteAt.Equal(nine.AddDate(0, 0, 1)) {
			t.Fatalf("requests after the move: %+v", list)
		}
		// A second move withdraws that request and files another.
		got, err = b.Releases.Move(ctx, b.Contributor, b.Site.ID, r.ID, got.Rev, "2026-11-04", "09:00")
		if err != nil {
			t.Fatal(err)
		}
		if c := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ? AND status = 'waiting'`, r.ID); c != 1 {
			t.Fatalf("%d waiting requests", c)
		}
		if c := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ? AND status = 'withdrawn'`, r.ID); c != 1 {
			t.Fatalf("%d withdrawn requests", c)
		}
	})

	t.Run("BadInputChangesNothing", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		before := b.Dump(t)
		for _, c := range []struct{ date, clock, code, field string }{
			{"2026-11-02", "07:00", release.CodeTimeInPast, "time"},
			{"2026-13-02", "09:00", "bad_date", "date"},
			{"2026-11-02", "9", "bad_time", "time"},
			{"2028-11-02", "09:00", release.CodeTooFar, "time"},
		} {
			_, err := b.Releases.Move(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, c.date, c.clock)
			wantRefusal(t, err, c.code, c.field)
		}
		_, err := b.Releases.Move(ctx, b.Editor, b.Site.ID, r.ID, r.Rev+1, "2026-11-02", "10:00")
		wantRefusal(t, err, engine.CodeStale, "")
		if after := b.Dump(t); after != before {
			t.Fatalf("a refused move changed:\n%s\n%s", before, after)
		}
	})
}

// A move after the site changed its zone is entered in the new zone, and
// the release keeps that zone: the never-early recompute at run time reads
// the wall time where it was entered, so the release runs at the moved
// time, not an hour off.
func TestMoveAfterTheSiteZoneChanged(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	site, err := settings.New(b.Eng, b.Store).SetSiteTimeZone(ctx, b.Owner, b.Site.ID, "Europe/Berlin", b.Site.Rev)
	if err != nil {
		t.Fatal(err)
	}
	if site.TimeZone != "Europe/Berlin" {
		t.Fatal("setup: zone not changed")
	}
	moved, err := b.Releases.Move(ctx, b.Editor, b.Site.ID, r.ID, b.Release(t, r.ID).Rev, "2026-11-02", "10:00")
	if err != nil {
		t.Fatal(err)
	}
	berlinTen := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC) // 10:00 CET
	if moved.When == nil || moved.When.TimeZone != "Europe/Berlin" || moved.When.LocalTime != "2026-11-02T10:00" {
		t.Fatalf("moved when = %+v, want 10:00 in Europe/Berlin", moved.When)
	}
	sameInstant(t, "executeAt", *moved.ExecuteAt, berlinTen)
	b.Clock.Set(berlinTen)
	if rep := b.Tick(t); rep.Published != 1 {
		t.Fatalf("tick at 10:00 Berlin: %+v, want the release published", rep)
	}
}
