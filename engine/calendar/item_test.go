package calendar_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/calendar"
	"studio/engine/model/release"
)

// TestItemIsTheListedItem: every item the calendar lists (a release, an
// occurrence, past and future) is found by its id as it is listed; a
// canceled release, which the list leaves out, is found too; other ids
// are not found.
func TestItemIsTheListedItem(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	ctx := context.Background()
	kept := b.Schedule(t, b.Editor, b.Article, "2026-11-03", "09:00")
	b.builtin(t, "Link check", "FREQ=DAILY;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:07")
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	items := b.allItems(t, calendar.CalendarQuery{SiteID: b.Site.ID, From: from, To: from.AddDate(0, 0, 14)})
	if len(items) < 3 {
		t.Fatalf("%d items", len(items))
	}
	for _, want := range items {
		got, err := b.Cal.Item(ctx, b.Editor, b.Site.ID, want.ID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Item(%s) = %+v, %v; listed %+v", want.ID, got, err, want)
		}
	}
	if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, kept.ID, b.Release(t, kept.ID).Rev); err != nil {
		t.Fatal(err)
	}
	got, err := b.Cal.Item(ctx, b.Editor, b.Site.ID, kept.ID)
	if err != nil || got.State != string(release.StateCanceled) {
		t.Fatalf("the canceled release: %+v %v", got, err)
	}
	for _, id := range []string{"rel_nope", "gate:" + b.Article.ID + ":from", "occ:aut_nope:2026-11-02T06:07:00.000Z",
		"occ:broken", "nope", ""} {
		if _, err := b.Cal.Item(ctx, b.Editor, b.Site.ID, id); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Item(%q): %v", id, err)
		}
	}
	if _, err := b.Cal.Item(ctx, b.Editor, "site_nope", kept.ID); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("another site: %v", err)
	}
}

// TestCalendarTypes: each of §12's types lists exactly the items of that
// type, and the three together list everything.
func TestCalendarTypes(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	b.Schedule(t, b.Editor, b.Article, "2026-11-03", "09:00")
	b.builtin(t, "Link check", "FREQ=DAILY;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:07")
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	q := calendar.CalendarQuery{SiteID: b.Site.ID, From: from, To: from.AddDate(0, 0, 14)}
	all := b.allItems(t, q)
	n := 0
	for _, typ := range calendar.ItemTypes {
		q.Types = []string{typ}
		for _, it := range b.allItems(t, q) {
			if calendar.ItemType(it) != typ {
				t.Fatalf("types [%s] lists %s", typ, it.ID)
			}
			n++
		}
	}
	if n != len(all) {
		t.Fatalf("%d items by type, %d in all", n, len(all))
	}
}
