package releases_test

import (
	"context"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
)

func TestMoveAt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")

	t.Run("AnInstantOnAMinute", func(t *testing.T) {
		at := time.Date(2026, 11, 2, 7, 30, 0, 0, time.UTC) // 10:30 Istanbul
		row, err := b.Releases.MoveAt(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, at)
		if err != nil {
			t.Fatal(err)
		}
		sameInstant(t, "execute at", *row.ExecuteAt, at)
		if row.When.LocalTime != "2026-11-02T10:30" || row.State != release.StateScheduled {
			t.Errorf("when %+v, state %s", row.When, row.State)
		}
	})

	t.Run("SecondsAreRefused", func(t *testing.T) {
		cur := b.Release(t, r.ID)
		before := b.Dump(t)
		_, err := b.Releases.MoveAt(ctx, b.Editor, b.Site.ID, r.ID, cur.Rev, time.Date(2026, 11, 2, 7, 30, 30, 0, time.UTC))
		wantRefusal(t, err, "bad_at", "at")
		if after := b.Dump(t); after != before {
			t.Errorf("a refused move changed:\n%s\n%s", before, after)
		}
	})

	t.Run("TheRepeatedHour", func(t *testing.T) {
		// Berlin turns its clocks back on 31 October 2027: 02:30 happens at
		// 00:30Z and again at 01:30Z. A date and a time name the first (D2);
		// the second cannot be kept as a date and a time, so it is refused.
		berlin, err := b.CreateSite(ctx, "Berlin desk", "Europe/Berlin")
		if err != nil {
			t.Fatal(err)
		}
		n := b.CreateNode(t, berlin.ID, release.KindContentEntry,
			content.Body{Title: "Clocks go back", Slug: "clocks", Status: content.StatusDraft})
		r := b.Schedule(t, b.Editor, n, "2027-10-30", "09:00")
		_, err = b.Releases.MoveAt(ctx, on(b.Editor, berlin.ID), berlin.ID, r.ID, r.Rev, time.Date(2027, 10, 31, 1, 30, 0, 0, time.UTC))
		wantRefusal(t, err, "bad_at", "at")
		first := time.Date(2027, 10, 31, 0, 30, 0, 0, time.UTC)
		row, err := b.Releases.MoveAt(ctx, on(b.Editor, berlin.ID), berlin.ID, r.ID, r.Rev, first)
		if err != nil {
			t.Fatal(err)
		}
		sameInstant(t, "execute at", *row.ExecuteAt, first)
		if row.When.LocalTime != "2027-10-31T02:30" {
			t.Errorf("local time %q", row.When.LocalTime)
		}
	})

	t.Run("StaleAndForbiddenAsMove", func(t *testing.T) {
		at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
		_, err := b.Releases.MoveAt(ctx, b.Editor, b.Site.ID, r.ID, 1, at)
		wantRefusal(t, err, "stale", "")
		_, err = b.Releases.MoveAt(ctx, b.Contributor, b.Site.ID, r.ID, b.Release(t, r.ID).Rev, at)
		wantRefusal(t, err, "forbidden", "")
	})
}
