package releases_test

import (
	"context"
	"slices"
	"studio/engine/calendar"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/settings"
)

// TestPauseEffects (issue 10, the kill switch as a newcomer meets it): the
// pause holds releases, not gates. PauseEffects lists the embargo lifts and
// expiries of the live site due within a day (not a draft's, not the
// day after's), and, while paused, the releases the pause holds; the
// calendar marks them held, in "Needs attention", until the site resumes.
func TestPauseEffects(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	at := func(d time.Duration) *time.Time { v := start.Add(d); return &v }
	gated := func(title, slug string, status content.Status, from, until *time.Time) content.Node {
		return b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: title, Slug: slug, Status: status,
			Text: title + ".", Availability: &content.Availability{From: from, Until: until}})
	}
	lift := gated("Results page", "results", content.StatusPublished, at(3*time.Hour), nil)
	expiry := gated("Polling hours", "polling-hours", content.StatusPublished, nil, at(5*time.Hour))
	gated("Tomorrow's page", "tomorrow", content.StatusPublished, at(26*time.Hour), nil)
	gated("A draft's embargo", "draft-embargo", content.StatusDraft, at(2*time.Hour), nil)
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")

	fx, err := settings.New(b.Eng, b.Store).PauseEffects(ctx, b.Editor, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []settings.GateAhead{
		{NodeID: lift.ID, NodeKind: release.KindPage, Title: "Results page", Edge: "from", At: *at(3 * time.Hour)},
		{NodeID: expiry.ID, NodeKind: release.KindPage, Title: "Polling hours", Edge: "until", At: *at(5 * time.Hour)},
	}
	if !slices.EqualFunc(fx.Gates, want, func(a, b settings.GateAhead) bool {
		return a.NodeID == b.NodeID && a.Edge == b.Edge && a.At.Equal(b.At) && a.Title == b.Title && a.NodeKind == b.NodeKind
	}) || fx.MoreGates != 0 || fx.Paused || fx.HeldCount != 0 {
		t.Fatalf("running: %+v, want gates %+v", fx, want)
	}

	if _, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Owner, b.Site.ID, true, "Checking the results", 0); err != nil {
		t.Fatal(err)
	}
	attention := calendar.CalendarQuery{SiteID: b.Site.ID, From: start, To: start.Add(48 * time.Hour),
		States: []string{calendar.FacetAttention}}
	if page, err := b.Cal.Calendar(ctx, b.Editor, attention); err != nil || len(page.Items) != 0 {
		t.Fatalf("paused before its time: attention %+v, %v", page.Items, err)
	}
	b.Clock.Set(nine.Add(time.Minute)) // its time has come; no ticker runs here
	fx, err = settings.New(b.Eng, b.Store).PauseEffects(ctx, b.Editor, b.Site.ID)
	if err != nil || !fx.Paused || fx.HeldCount != 1 || len(fx.Held) != 1 || fx.Held[0].ID != r.ID ||
		fx.Held[0].Title != "Election night" || !fx.Held[0].At.Equal(nine) || len(fx.Gates) != 2 {
		t.Fatalf("paused at 09:01: %+v, %v", fx, err)
	}
	all := calendar.CalendarQuery{SiteID: b.Site.ID, From: start, To: start.Add(48 * time.Hour)}
	item := func(q calendar.CalendarQuery) *calendar.CalendarItem {
		t.Helper()
		page, err := b.Cal.Calendar(ctx, b.Editor, q)
		if err != nil {
			t.Fatal(err)
		}
		for i := range page.Items {
			if page.Items[i].ID == r.ID {
				return &page.Items[i]
			}
		}
		return nil
	}
	if it := item(all); it == nil || !it.Held || it.State != string(release.StateScheduled) {
		t.Errorf("paused at 09:01: the release on the calendar is %+v, want held", it)
	}
	if it := item(attention); it == nil || !it.Held {
		t.Errorf("paused at 09:01: Needs attention lacks the held release")
	}
	scheduled := all
	scheduled.States = []string{calendar.FacetScheduled}
	if it := item(scheduled); it != nil {
		t.Errorf("a held release is also under Scheduled: %+v", it)
	}
	days, err := b.Cal.CalendarDays(ctx, b.Editor, all, nil)
	if err != nil {
		t.Fatal(err)
	}
	held := false
	for _, d := range days {
		for _, c := range d.Items {
			held = held || (c.ID == r.ID && c.Held)
		}
	}
	if !held {
		t.Error("the Month grid's chip is not held")
	}

	set, err := b.Releases.ScheduleSettings(ctx, b.Editor, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Owner, b.Site.ID, false, "Checked", set.Rev); err != nil {
		t.Fatal(err)
	}
	if it := item(all); it == nil || it.Held {
		t.Errorf("resumed: the release is %+v, want not held", it)
	}
	if it := item(attention); it != nil {
		t.Errorf("resumed: Needs attention still lists it")
	}
	if fx, err = settings.New(b.Eng, b.Store).PauseEffects(ctx, b.Editor, b.Site.ID); err != nil || fx.Paused || fx.HeldCount != 0 {
		t.Errorf("resumed: %+v, %v", fx, err)
	}
}
