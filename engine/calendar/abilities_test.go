package calendar_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/calendar"
	"studio/engine/content"
	"studio/engine/internal/enginetest"
	"studio/engine/model/release"
)

// TestItemAbilities: with CalendarQuery.Abilities, each release item says
// what the person may do to it (the release rule), a waiting one carries
// its request, and Drag is Move for a time still to come; an automation's
// occurrence offers its automation's Run now (not while the site is
// paused) and Edit; a gate's item offers nothing. The Agenda's and the
// Month's actions are these answers, from Calendar and CalendarDays alike.
func TestItemAbilities(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	cal := b.Cal
	zone := b.Site.TimeZone
	// Every node is the Contributor's (CreateNode); Elif (Editor) schedules
	// one, the Contributor asks for another to be approved.
	alone := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Alone", Slug: "alone", Status: content.StatusDraft})
	sched := b.Schedule(t, b.Editor, alone, "2026-11-03", "10:00")
	asked := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Asked", Slug: "asked", Status: content.StatusDraft})
	waiting := b.Schedule(t, b.Contributor, asked, "2026-11-03", "11:00")
	views, err := b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
	if err != nil || len(views) != 1 {
		t.Fatal(views, err)
	}
	req := views[0].Request.ID
	b.builtin(t, "Link check", "FREQ=DAILY;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:07")

	type may = calendar.ItemAbilities
	q := calendar.CalendarQuery{SiteID: b.Site.ID, From: midnightIn(t, zone, 2026, 11, 3), To: midnightIn(t, zone, 2026, 11, 4),
		Abilities: true}
	check := func(when string, u engine.User, want map[string]may, occurrence may) {
		t.Helper()
		u = enginetest.On(u, b.Site.ID)
		page, err := cal.Calendar(ctx, u, q)
		if err != nil {
			t.Fatal(err)
		}
		days, err := cal.CalendarDays(ctx, u, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(days) != 1 {
			t.Fatalf("%d days", len(days))
		}
		for name, items := range map[string][]calendar.CalendarItem{"Calendar": page.Items, "CalendarDays": days[0].Items} {
			seen := 0
			for _, it := range items {
				w, ok := want[it.ID]
				switch it.Type() {
				case calendar.TypeAutomation:
					w, ok = occurrence, true
				case calendar.TypeGate:
					w, ok = may{}, true
				}
				if !ok {
					t.Fatalf("%s: unexpected item %s", name, it.ID)
				}
				seen++
				if it.May != w {
					t.Errorf("%s, %s, %s: %s may %+v, want %+v", when, name, u.Role, it.ID, it.May, w)
				}
			}
			if seen != 3 {
				t.Errorf("%s: %d items, want the two releases and the occurrence", name, seen)
			}
		}
	}

	none := may{}
	manage := may{RunNow: true, Edit: true}
	for _, c := range []struct {
		u               engine.User
		sched, wai, occ may
	}{
		// The Editor created one and may approve both: the waiting one is
		// theirs to decide.
		{b.Editor, may{Move: true, Drag: true, PublishNow: true, Unschedule: true},
			may{Move: true, Drag: true, Unschedule: true, Decide: true, Request: req}, manage},
		{b.Admin, may{Move: true, Drag: true, PublishNow: true, Unschedule: true},
			may{Move: true, Drag: true, Unschedule: true, Decide: true, Request: req}, manage},
		// The Contributor changes only their own release, and never decides
		// their own request.
		// Neither manages automations.
		{b.Contributor, none, may{Move: true, Drag: true, Unschedule: true, Request: req}, none},
		// The Author owns neither node.
		{b.Author, none, may{Request: req}, none},
	} {
		check("before", c.u, map[string]may{sched.ID: c.sched, waiting.ID: c.wai}, c.occ)
	}

	// Once its time has passed, a release still moves from its page but
	// no longer drags on the grid.
	b.Clock.Set(time.Date(2026, 11, 3, 7, 30, 0, 0, time.UTC)) // 10:30 in Istanbul
	check("after 10:00", b.Editor, map[string]may{
		sched.ID:   {Move: true, PublishNow: true, Unschedule: true},
		waiting.ID: {Move: true, Drag: true, Unschedule: true, Decide: true, Request: req},
	}, manage)

	// The kill switch holds every run: the occurrence's Run now waits,
	// its Edit does not.
	b.Pause(t, b.Owner, "Checking the feed")
	check("paused", b.Admin, map[string]may{
		sched.ID:   {Move: true, PublishNow: true, Unschedule: true},
		waiting.ID: {Move: true, Drag: true, Unschedule: true, Decide: true, Request: req},
	}, may{Edit: true})

	// Without the question, no item carries abilities (the JSON API's and
	// MCP's items are as before).
	q.Abilities = false
	page, err := cal.Calendar(ctx, enginetest.On(b.Editor, b.Site.ID), q)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range page.Items {
		if it.May != none {
			t.Errorf("%s carries %+v unasked", it.ID, it.May)
		}
	}
	// A calendar wired without the release use cases says so rather than
	// answering "may not".
	q.Abilities = true
	if _, err := calendar.New(b.Store, nil, b.Clock, nil).Calendar(ctx, enginetest.On(b.Editor, b.Site.ID), q); err == nil {
		t.Error("abilities from a calendar without releases: no error")
	}
}
