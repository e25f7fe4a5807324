package calendar_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"studio/engine/calendar"
	"studio/engine/internal/enginetest"
	"studio/engine/releases"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/model/release"
)

// midnightIn is 00:00 (or the first instant after it) of a date in zone.
func midnightIn(tb testing.TB, zone string, y int, m time.Month, d int) time.Time {
	tb.Helper()
	loc, err := localtime.LoadZone(zone)
	if err != nil {
		tb.Fatal(err)
	}
	at, _ := localtime.Resolve(localtime.Wall{Year: y, Month: m, Day: d}, loc)
	return at.UTC()
}

// wallIn is the instant of a wall-clock time in zone, by D2.
func wallIn(tb testing.TB, zone, wall string) time.Time {
	tb.Helper()
	loc, err := localtime.LoadZone(zone)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := localtime.ParseWall(wall)
	if err != nil {
		tb.Fatal(err)
	}
	at, _ := localtime.Resolve(w, loc)
	return at.UTC()
}

// calendarAll reads every page of q (Limit per page) and returns the items
// in the order the pages gave them, failing if a page is over the limit.
func calendarAll(tb testing.TB, b *testBundle, u engine.User, q calendar.CalendarQuery) []calendar.CalendarItem {
	tb.Helper()
	var all []calendar.CalendarItem
	for pages := 0; ; pages++ {
		if pages > 1000 {
			tb.Fatal("the cursor does not end")
		}
		page, err := b.Cal.Calendar(context.Background(), u, q)
		if err != nil {
			tb.Fatal(err)
		}
		if limit := q.Limit; limit > 0 && len(page.Items) > limit {
			tb.Fatalf("a page of %d items, limit %d", len(page.Items), limit)
		}
		all = append(all, page.Items...)
		if page.NextCursor == "" {
			return all
		}
		if len(page.Items) == 0 {
			tb.Fatal("an empty page with a next cursor")
		}
		q.Cursor = page.NextCursor
	}
}

func itemIDs(items []calendar.CalendarItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func itemByID(tb testing.TB, items []calendar.CalendarItem, id string) calendar.CalendarItem {
	tb.Helper()
	for _, it := range items {
		if it.ID == id {
			return it
		}
	}
	tb.Fatalf("no item %s in %v", id, itemIDs(items))
	return calendar.CalendarItem{}
}

func occID(automationID string, at time.Time) string {
	return "occ:" + automationID + ":" + localtime.FormatInstant(at)
}

func (b *testBundle) automation(tb testing.TB, name, job, rule, start string) automations.Automation {
	tb.Helper()
	a, err := automations.New(b.Store, b.Eng).CreateAutomation(context.Background(), b.Editor, b.Site.ID, name, job, rule, start)
	if err != nil {
		tb.Fatalf("create automation %q: %v", name, err)
	}
	return a
}

// wantSorted fails unless items are in strictly increasing (At, ID) order.
func wantSorted(tb testing.TB, items []calendar.CalendarItem) {
	tb.Helper()
	for i := 1; i < len(items); i++ {
		a, b := items[i-1], items[i]
		if a.At.After(b.At) || (a.At.Equal(b.At) && a.ID >= b.ID) {
			tb.Fatalf("items %d and %d out of order: %s %s, %s %s", i-1, i, a.At, a.ID, b.At, b.ID)
		}
	}
}

// TestCalendarSources: one query path lists releases (one-item publishes
// and expiries, releases of several items), the gates of pages and entries,
// and the occurrences of automations, each with its facets.
func TestCalendarSources(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	zone := b.Site.TimeZone

	publish := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	p1 := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "One", Slug: "one", Status: content.StatusDraft})
	p2 := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Two", Slug: "two", Status: content.StatusDraft})
	draft, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "Launch", []string{p1.ID, p2.ID})
	if err != nil {
		t.Fatal(err)
	}
	several, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, draft.ID, draft.Rev, "2026-11-03", "10:00")
	if err != nil {
		t.Fatal(err)
	}
	about := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "About", Slug: "about", Status: content.StatusPublished})
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	takeDown, err := b.Releases.CreateDraft(ctx, b.Editor, releases.DraftInput{SiteID: b.Site.ID, RemoveIDs: []string{about.ID}})
	if err != nil {
		t.Fatal(err)
	}
	expiry, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, takeDown.ID, takeDown.Rev, "2026-11-04", "11:00")
	if err != nil {
		t.Fatal(err)
	}
	from, until, past := wallIn(t, zone, "2026-11-05T12:00"), wallIn(t, zone, "2026-11-20T12:00"), wallIn(t, zone, "2026-11-01T09:00")
	gated := b.CreateNode(t, b.Site.ID, release.KindContentEntry, content.Body{Title: "Campaign", Slug: "campaign",
		Status: content.StatusPublished, Availability: &content.Availability{From: &from, Until: &until}})
	wasGated := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Old news", Slug: "old-news",
		Status: content.StatusPublished, Availability: &content.Availability{From: &past}})
	sweep := b.automation(t, "Broken-link sweep", "builtin:broken-links", "FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=0", "2026-11-02T07:00")
	task := b.automation(t, "Triage", "agent-task", "", "2026-11-06T09:07")

	q := calendar.CalendarQuery{SiteID: b.Site.ID, From: midnightIn(t, zone, 2026, 11, 1), To: midnightIn(t, zone, 2026, 12, 1)}
	page, err := b.Cal.Calendar(ctx, b.Editor, q)
	if err != nil {
		t.Fatal(err)
	}
	if page.TimeZone != "Europe/Istanbul" || page.NextCursor != "" {
		t.Fatalf("page: zone %q, cursor %q", page.TimeZone, page.NextCursor)
	}
	items := page.Items
	wantSorted(t, items)

	got := itemByID(t, items, publish.ID)
	want := calendar.CalendarItem{ID: publish.ID, Kind: calendar.ItemPublish, At: nine, Title: "Election night", Target: publish.ID,
		Origin: "person", By: b.Editor.Actor(), Approval: calendar.ApprovalApproved, State: "scheduled",
		Collection: "contentEntry", Rev: publish.Rev}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("publish:\n got %+v\nwant %+v", got, want)
	}
	if got := itemByID(t, items, several.ID); got.Kind != calendar.ItemRelease || got.Collection != "" || got.Title != "Launch" {
		t.Errorf("release of two: %+v", got)
	}
	if got := itemByID(t, items, expiry.ID); got.Kind != calendar.ItemExpiry || got.Collection != "page" || got.Title != "About" {
		t.Errorf("take-down: %+v", got)
	}
	embargo := itemByID(t, items, "gate:"+gated.ID+":from")
	want = calendar.CalendarItem{ID: "gate:" + gated.ID + ":from", Kind: calendar.ItemEmbargo, At: from, Title: "Campaign",
		Target: gated.ID, Origin: "person", By: b.Contributor.Actor(), Approval: calendar.ApprovalNone, State: "scheduled",
		Collection: "contentEntry"}
	if !reflect.DeepEqual(embargo, want) {
		t.Errorf("embargo:\n got %+v\nwant %+v", embargo, want)
	}
	if got := itemByID(t, items, "gate:"+gated.ID+":until"); got.Kind != calendar.ItemExpiry || !got.At.Equal(until) {
		t.Errorf("expiry gate: %+v", got)
	}
	if got := itemByID(t, items, "gate:"+wasGated.ID+":from"); got.State != calendar.ItemDone || got.Collection != "page" {
		t.Errorf("a gate that has passed: %+v", got)
	}

	// The sweep's Mondays: 2 November at 07:00 was before it existed.
	mondays := []time.Time{wallIn(t, zone, "2026-11-09T07:00"), wallIn(t, zone, "2026-11-16T07:00"),
		wallIn(t, zone, "2026-11-23T07:00"), wallIn(t, zone, "2026-11-30T07:00")}
	var gotSweep []string
	for _, it := range items {
		if it.Target == sweep.ID {
			gotSweep = append(gotSweep, it.ID)
		}
	}
	var wantSweep []string
	for _, m := range mondays {
		wantSweep = append(wantSweep, occID(sweep.ID, m))
	}
	if !slices.Equal(gotSweep, wantSweep) {
		t.Errorf("sweep occurrences:\n got %v\nwant %v", gotSweep, wantSweep)
	}
	occ := itemByID(t, items, occID(sweep.ID, mondays[0]))
	want = calendar.CalendarItem{ID: occID(sweep.ID, mondays[0]), Kind: calendar.ItemAutomation, At: mondays[0],
		Title: "Broken-link sweep", Target: sweep.ID, Origin: "person", By: b.Editor.Actor(), Approval: calendar.ApprovalNone,
		State: "scheduled", Recurring: true}
	if !reflect.DeepEqual(occ, want) {
		t.Errorf("occurrence:\n got %+v\nwant %+v", occ, want)
	}
	once := itemByID(t, items, occID(task.ID, wallIn(t, zone, "2026-11-06T09:07")))
	if once.Origin != "agent" || once.Recurring || once.State != "scheduled" {
		t.Errorf("a one-off agent task: %+v", once)
	}

	t.Run("PastAndPaused", func(t *testing.T) {
		b.Clock.Set(wallIn(t, zone, "2026-11-10T08:00"))
		b.Exec(t, `UPDATE automations SET state = 'paused' WHERE id = ?`, sweep.ID) // no pause use case yet
		page, err := b.Cal.Calendar(ctx, b.Editor, q)
		if err != nil {
			t.Fatal(err)
		}
		// No run is behind a past occurrence (automations run from the
		// next issue on): it is not run, never done (§11.7).
		notRun := itemByID(t, page.Items, occID(sweep.ID, mondays[0]))
		if notRun.State != calendar.ItemNotRun || notRun.Recurring || calendar.StateFacet(notRun.State) != calendar.FacetNotRun {
			t.Errorf("a past occurrence: %+v", notRun)
		}
		for _, c := range []struct {
			facet string
			shown bool
		}{{calendar.FacetDone, false}, {calendar.FacetNotRun, true}, {calendar.FacetAttention, false}} {
			fq := q
			fq.States = []string{c.facet}
			fp, err := b.Cal.Calendar(ctx, b.Editor, fq)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.ContainsFunc(fp.Items, func(it calendar.CalendarItem) bool { return it.ID == notRun.ID }); got != c.shown {
				t.Errorf("state facet %q shows the past occurrence: %v, want %v", c.facet, got, c.shown)
			}
		}
		paused := itemByID(t, page.Items, occID(sweep.ID, mondays[1]))
		if paused.State != calendar.ItemPaused || !paused.Recurring || calendar.StateFacet(paused.State) != calendar.FacetScheduled {
			t.Errorf("a paused automation's occurrence: %+v", paused)
		}
	})
}

func TestStateFacet(t *testing.T) {
	produced := map[string]bool{}
	for state, want := range map[string]string{
		"scheduled": "scheduled", "draft": "", "paused": "scheduled", // drafts are not on the calendar
		"awaiting_approval": "waiting", "running": "running",
		"conflict": "attention", "failed": "attention", "missed": "attention",
		"published": "done", "done": "done", "ran": "done", "not_run": "not_run",
		"canceled": "canceled", "expired": "canceled", "denied": "canceled",
		"held": "",
	} {
		if got := calendar.StateFacet(state); got != want {
			t.Errorf("StateFacet(%q) = %q, want %q", state, got, want)
		}
		produced[want] = want != ""
	}
	for _, f := range calendar.StateFacets {
		if !produced[f] {
			t.Errorf("no state has the facet %q", f)
		}
	}
	if len(produced) != len(calendar.StateFacets)+1 {
		t.Errorf("facets %v, listed %v", produced, calendar.StateFacets)
	}
}

// TestCalendarFacets: facets filter every source alike; canceled, denied
// and expired items are hidden unless asked for (§15.5).
func TestCalendarFacets(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	zone := b.Site.TimeZone
	page := func(title string) content.Node {
		return b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: title,
			Slug: strings.ToLower(strings.ReplaceAll(title, " ", "-")), Status: content.StatusDraft})
	}
	// Before the clock moves: one to publish, one request to expire.
	published := b.Schedule(t, b.Editor, page("Published"), "2026-11-02", "08:15")
	expired := b.Schedule(t, b.Contributor, page("Expired"), "2026-11-02", "08:30")
	b.Clock.Set(wallIn(t, zone, "2026-11-02T08:45"))
	if rep := b.Tick(t); rep.Published != 1 {
		t.Fatalf("tick: %+v", rep)
	}
	if got := b.Release(t, expired.ID).State; got != release.StateExpired {
		t.Fatalf("the unapproved request is %s", got)
	}
	scheduled := b.Schedule(t, b.Editor, b.Article, "2026-11-03", "09:00")
	waiting := b.Schedule(t, b.Contributor, page("Waiting"), "2026-11-03", "10:00")
	approved := b.Schedule(t, b.Contributor, page("Approved"), "2026-11-03", "11:00")
	views, err := b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		if v.Release.ID == approved.ID {
			if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, v.Request.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	canceled := b.Schedule(t, b.Editor, page("Canceled"), "2026-11-04", "09:00")
	if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, canceled.ID, canceled.Rev); err != nil {
		t.Fatal(err)
	}
	daily := b.automation(t, "Stale content review", "builtin:stale-content", "FREQ=DAILY;BYHOUR=6;BYMINUTE=30", "2026-11-01T06:30")

	base := calendar.CalendarQuery{SiteID: b.Site.ID, From: midnightIn(t, zone, 2026, 11, 2), To: midnightIn(t, zone, 2026, 11, 5)}
	occ := func(day int) string { return occID(daily.ID, wallIn(t, zone, fmt.Sprintf("2026-11-%02dT06:30", day))) }
	for _, c := range []struct {
		name   string
		change func(*calendar.CalendarQuery)
		as     engine.User
		want   []string
	}{
		{"Default", func(*calendar.CalendarQuery) {}, b.Editor,
			[]string{published.ID, occ(3), scheduled.ID, waiting.ID, approved.ID, occ(4)}},
		{"Canceled", func(q *calendar.CalendarQuery) { q.States = []string{calendar.FacetCanceled} }, b.Editor,
			[]string{expired.ID, canceled.ID}},
		{"ApprovalExpired", func(q *calendar.CalendarQuery) { q.Approvals = []string{calendar.ApprovalExpired} }, b.Editor,
			[]string{expired.ID}},
		{"Waiting", func(q *calendar.CalendarQuery) { q.States = []string{calendar.FacetWaiting} }, b.Editor,
			[]string{waiting.ID}},
		{"Pending", func(q *calendar.CalendarQuery) { q.Approvals = []string{calendar.ApprovalPending} }, b.Editor,
			[]string{waiting.ID}},
		{"DoneAndScheduled", func(q *calendar.CalendarQuery) { q.States = []string{calendar.FacetDone, calendar.FacetScheduled} }, b.Editor,
			[]string{published.ID, occ(3), scheduled.ID, approved.ID, occ(4)}},
		{"Approved", func(q *calendar.CalendarQuery) { q.Approvals = []string{calendar.ApprovalApproved} }, b.Editor,
			[]string{published.ID, scheduled.ID, approved.ID}},
		{"Automations", func(q *calendar.CalendarQuery) { q.Kinds = []string{calendar.ItemAutomation} }, b.Editor,
			[]string{occ(3), occ(4)}},
		{"Entries", func(q *calendar.CalendarQuery) { q.Collections = []string{"contentEntry"} }, b.Editor,
			[]string{scheduled.ID}},
		{"Agents", func(q *calendar.CalendarQuery) { q.Origins = []string{"agent"} }, b.Editor, nil},
		{"MineEditor", func(q *calendar.CalendarQuery) { q.Mine = true }, b.Editor,
			[]string{published.ID, occ(3), scheduled.ID, approved.ID, occ(4)}},
		{"MineContributor", func(q *calendar.CalendarQuery) { q.Mine = true }, b.Contributor,
			[]string{waiting.ID, approved.ID}},
		{"Nothing", func(q *calendar.CalendarQuery) { q.States = []string{"no-such-state"} }, b.Editor, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := base
			c.change(&q)
			got := itemIDs(calendarAll(t, b, c.as, q))
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
			// The Month grid counts exactly what the pages list.
			days, err := b.Cal.CalendarDays(ctx, c.as, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, d := range days {
				total += d.Total
			}
			if total != len(c.want) {
				t.Errorf("CalendarDays counts %d, Calendar lists %d", total, len(c.want))
			}
		})
	}
	items := calendarAll(t, b, b.Editor, base)
	if w := itemByID(t, items, waiting.ID); w.Approval != calendar.ApprovalPending || w.State != "awaiting_approval" || w.RequestID == "" {
		t.Errorf("waiting: %+v", w)
	}
	if p := itemByID(t, items, published.ID); p.State != "published" || calendar.StateFacet(p.State) != calendar.FacetDone {
		t.Errorf("published: %+v", p)
	}
	if o := itemByID(t, items, occ(3)); o.State != "scheduled" {
		t.Errorf("tomorrow's occurrence: %+v", o)
	}
}

// TestCalendarOverlapsAndRequests: a release whose node is in another
// pending release is flagged (D15); a waiting release carries its request.
func TestCalendarOverlapsAndRequests(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	zone := b.Site.TimeZone
	if _, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "Later", []string{b.Article.ID}); err != nil {
		t.Fatal(err)
	}
	shared := b.Schedule(t, b.Editor, b.Article, "2026-11-03", "09:00")
	alone := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Alone", Slug: "alone", Status: content.StatusDraft})
	single := b.Schedule(t, b.Editor, alone, "2026-11-03", "10:00")
	asked := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Asked", Slug: "asked", Status: content.StatusDraft})
	request := b.Schedule(t, b.Contributor, asked, "2026-11-03", "11:00")
	views, err := b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
	if err != nil || len(views) != 1 {
		t.Fatal(views, err)
	}

	q := calendar.CalendarQuery{SiteID: b.Site.ID, From: midnightIn(t, zone, 2026, 11, 3), To: midnightIn(t, zone, 2026, 11, 4)}
	items := calendarAll(t, b, enginetest.On(b.Editor, q.SiteID), q)
	if !itemByID(t, items, shared.ID).Overlaps || itemByID(t, items, single.ID).Overlaps {
		t.Errorf("overlaps: shared %v, single %v", itemByID(t, items, shared.ID).Overlaps, itemByID(t, items, single.ID).Overlaps)
	}
	if got := itemByID(t, items, request.ID).RequestID; got != views[0].Request.ID {
		t.Errorf("request id %q, want %q", got, views[0].Request.ID)
	}
	days, err := b.Cal.CalendarDays(ctx, enginetest.On(b.Editor, q.SiteID), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].Total != 3 || days[0].Waiting != 1 || days[0].ByKind[calendar.ItemPublish] != 3 {
		t.Fatalf("day: %+v", days)
	}
	// The chips are whole items, as the page has them.
	if !reflect.DeepEqual(days[0].Items, items) {
		t.Errorf("chips:\n got %+v\nwant %+v", days[0].Items, items)
	}
}

// TestCalendarRange: at most 62 days on the site's clock, To after From,
// a cursor only as handed out.
func TestCalendarRange(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	berlin, err := b.CreateSite(ctx, "Berliner Blatt", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	ist := b.Site.TimeZone
	from := midnightIn(t, ist, 2026, 11, 1)
	call := func(site string, from, to time.Time, cursor string) error {
		q := calendar.CalendarQuery{SiteID: site, From: from, To: to, Cursor: cursor}
		_, err := b.Cal.Calendar(ctx, enginetest.On(b.Editor, site), q)
		if _, errDays := b.Cal.CalendarDays(ctx, enginetest.On(b.Editor, site), q, nil); cursor == "" && (err == nil) != (errDays == nil) {
			t.Errorf("Calendar says %v, CalendarDays %v", err, errDays)
		}
		return err
	}
	if err := call(b.Site.ID, from, from.AddDate(0, 0, 62), ""); err != nil {
		t.Errorf("62 days: %v", err)
	}
	e := wantRefusal(t, call(b.Site.ID, from, from.AddDate(0, 0, 62).Add(time.Minute), ""), calendar.CodeRangeTooLong, "to")
	if e.Args["MaxDays"] != calendar.CalendarMaxDays {
		t.Errorf("args %v", e.Args)
	}
	// 62 days on Berlin's clock: 62 × 24 h less the hour skipped in March,
	// or plus the hour repeated in October.
	spring, summer := midnightIn(t, "Europe/Berlin", 2027, 3, 1), midnightIn(t, "Europe/Berlin", 2027, 5, 2)
	if d := summer.Sub(spring); d != 62*24*time.Hour-time.Hour {
		t.Fatalf("spring span %v", d)
	}
	if err := call(berlin.ID, spring, summer, ""); err != nil {
		t.Errorf("62 days across spring forward: %v", err)
	}
	autumn, winter := midnightIn(t, "Europe/Berlin", 2026, 10, 1), midnightIn(t, "Europe/Berlin", 2026, 12, 2)
	if err := call(berlin.ID, autumn, winter, ""); err != nil {
		t.Errorf("62 days across fall back: %v", err)
	}
	wantRefusal(t, call(berlin.ID, autumn, winter.Add(time.Minute), ""), calendar.CodeRangeTooLong, "to")
	wantRefusal(t, call(b.Site.ID, from, from, ""), calendar.CodeBadRange, "to")
	wantRefusal(t, call(b.Site.ID, from, from.Add(-time.Hour), ""), calendar.CodeBadRange, "to")
	wantRefusal(t, call(b.Site.ID, time.Time{}, from, ""), calendar.CodeBadRange, "from")
	for _, c := range []string{"!!!", "eA", "MjAyNi0xMS0wMlQwNjowMDowMC4wMDBafA", "bm90IGEgdGltZXxyZWxfeA"} {
		wantRefusal(t, call(b.Site.ID, from, from.AddDate(0, 0, 7), c), calendar.CodeBadCursor, "cursor")
	}
	if _, err := b.Cal.Calendar(ctx, engine.User{ID: "user_x", SiteID: b.Site.ID}, calendar.CalendarQuery{SiteID: b.Site.ID, From: from,
		To: from.AddDate(0, 0, 1)}); err == nil {
		t.Error("a user without a role read the calendar")
	} else {
		wantRefusal(t, err, engine.CodeForbidden, "")
	}
}

// pagingFixture fills a week with ties: two hourly automations at :00 and
// releases and gates at the same instants, so (At, ID) order is tested
// where it matters.
func pagingFixture(t *testing.T) (*testBundle, calendar.CalendarQuery) {
	b := newBundle(t)
	zone := b.Site.TimeZone
	hourly := "FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=0"
	b.automation(t, "Feed check A", "builtin:feed-check", hourly, "2026-11-01T00:00")
	b.automation(t, "Feed check B", "builtin:feed-check", hourly, "2026-11-01T00:00")
	b.automation(t, "Digest", "builtin:weekly-digest", "FREQ=WEEKLY;BYDAY=TU;BYHOUR=9;BYMINUTE=0", "2026-11-03T09:00")
	for i := range 12 {
		day := 2 + i%5
		n := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: fmt.Sprintf("Page %d", i),
			Slug: fmt.Sprintf("page-%d", i), Status: content.StatusDraft})
		b.Schedule(t, b.Editor, n, fmt.Sprintf("2026-11-%02d", day), fmt.Sprintf("%02d:00", 9+i%3))
	}
	for i := range 4 {
		at := wallIn(t, zone, fmt.Sprintf("2026-11-%02dT10:00", 3+i))
		b.CreateNode(t, b.Site.ID, release.KindContentEntry, content.Body{Title: fmt.Sprintf("Gated %d", i),
			Slug: fmt.Sprintf("gated-%d", i), Status: content.StatusPublished, Availability: &content.Availability{From: &at}})
	}
	return b, calendar.CalendarQuery{SiteID: b.Site.ID, From: midnightIn(t, zone, 2026, 11, 2), To: midnightIn(t, zone, 2026, 11, 9)}
}

// TestCalendarCursor: pages of any size list every item exactly once, in
// (At, ID) order, whatever the facets.
func TestCalendarCursor(t *testing.T) {
	b, q := pagingFixture(t)
	// Everything: 7 days × 48 hourly occurrences, less the nine hours of
	// 2 November until the automations existed (08:00, the instant they
	// were created, is not theirs: the runner runs the occurrences after
	// it), 12 releases, 4 gates and a weekly digest.
	var all []calendar.CalendarItem
	for _, kinds := range [][]string{nil, {calendar.ItemPublish, calendar.ItemEmbargo}} {
		q := q
		q.Kinds = kinds
		full := calendarAll(t, b, b.Editor, q)
		wantSorted(t, full)
		if kinds == nil {
			all = full
			if want := 7*48 - 2*9 + 12 + 4 + 1; len(full) != want {
				t.Fatalf("%d items, want %d", len(full), want)
			}
		}
		for _, limit := range []int{1, 7, 48, 199, 200, 1000} {
			q.Limit = limit
			got := calendarAll(t, b, b.Editor, q)
			if !slices.Equal(itemIDs(got), itemIDs(full)) {
				t.Fatalf("kinds %v, pages of %d: %d items, want %d", kinds, limit, len(got), len(full))
			}
		}
	}
	if len(all) <= calendar.CalendarMaxItems {
		t.Fatalf("only %d items: the default page cap is not exercised", len(all))
	}
	page, err := b.Cal.Calendar(context.Background(), b.Editor, q)
	if err != nil || len(page.Items) != calendar.CalendarMaxItems || page.NextCursor == "" {
		t.Fatalf("first page: %d items, cursor %q, %v", len(page.Items), page.NextCursor, err)
	}
}

// TestCalendarDaysCountsEveryItem: each day of the grid counts exactly the
// items Calendar lists for it, by kind and waiting, with the first three as
// chips; a day with more than the 200 of a page counts them all.
func TestCalendarDaysCountsEveryItem(t *testing.T) {
	b, q := pagingFixture(t)
	ctx := context.Background()
	asked := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Asked", Slug: "asked", Status: content.StatusDraft})
	b.Schedule(t, b.Contributor, asked, "2026-11-04", "10:00")
	q.From = midnightIn(t, b.Site.TimeZone, 2026, 10, 26) // the grid of November starts on Monday 26 October
	q.To = midnightIn(t, b.Site.TimeZone, 2026, 12, 7)
	all := calendarAll(t, b, b.Editor, q)
	days, err := b.Cal.CalendarDays(ctx, enginetest.On(b.Editor, q.SiteID), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 42 || days[0].Date != "2026-10-26" || days[41].Date != "2026-12-06" {
		t.Fatalf("%d days from %s", len(days), days[0].Date)
	}
	seen := 0
	for _, d := range days {
		var in []calendar.CalendarItem
		byKind, waiting := map[string]int{}, 0
		for _, it := range all {
			if !it.At.Before(d.Start) && it.At.Before(d.End) {
				in = append(in, it)
				byKind[it.Kind]++
				if it.Approval == calendar.ApprovalPending {
					waiting++
				}
			}
		}
		seen += len(in)
		if d.Total != len(in) || !reflect.DeepEqual(d.ByKind, byKind) || d.Waiting != waiting {
			t.Errorf("%s: total %d %v waiting %d, want %d %v %d", d.Date, d.Total, d.ByKind, d.Waiting, len(in), byKind, waiting)
		}
		chips := in[:min(len(in), calendar.CalendarDayItems)]
		if len(chips) == 0 {
			chips = []calendar.CalendarItem{}
		}
		if !reflect.DeepEqual(d.Items, chips) {
			t.Errorf("%s chips:\n got %v\nwant %v", d.Date, itemIDs(d.Items), itemIDs(chips))
		}
		if d.More() != len(in)-len(chips) {
			t.Errorf("%s: more %d", d.Date, d.More())
		}
	}
	if seen != len(all) {
		t.Errorf("the days hold %d of %d items", seen, len(all))
	}
}

// TestCalendarDST: days are the site's days, 23 or 25 hours long when the
// clocks change, and occurrences follow D2 (Berlin).
func TestCalendarDST(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	const zone = "Europe/Berlin"
	site, err := b.CreateSite(ctx, "Berliner Blatt", zone)
	if err != nil {
		t.Fatal(err)
	}
	a, err := automations.New(b.Store, b.Eng).CreateAutomation(ctx, enginetest.On(b.Editor, site.ID), site.ID, "Nightly", "builtin:cleanup", "FREQ=DAILY;BYHOUR=2;BYMINUTE=30",
		"2027-03-20T02:30")
	if err != nil {
		t.Fatal(err)
	}
	page := func(slug string) content.Node {
		return b.CreateNode(t, site.ID, release.KindPage, content.Body{Title: slug, Slug: slug, Status: content.StatusDraft})
	}

	t.Run("SpringForward", func(t *testing.T) {
		q := calendar.CalendarQuery{SiteID: site.ID, From: midnightIn(t, zone, 2027, 3, 27), To: midnightIn(t, zone, 2027, 3, 30)}
		items := calendarAll(t, b, enginetest.On(b.Editor, q.SiteID), q)
		// 02:30 on 28 March does not exist: it runs at 03:30 CEST (D2).
		want := []string{occID(a.ID, time.Date(2027, 3, 27, 1, 30, 0, 0, time.UTC)),
			occID(a.ID, time.Date(2027, 3, 28, 1, 30, 0, 0, time.UTC)),
			occID(a.ID, time.Date(2027, 3, 29, 0, 30, 0, 0, time.UTC))}
		if !slices.Equal(itemIDs(items), want) {
			t.Fatalf("got  %v\nwant %v", itemIDs(items), want)
		}
		days, err := b.Cal.CalendarDays(ctx, enginetest.On(b.Editor, q.SiteID), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(days) != 3 || days[1].Date != "2027-03-28" || days[1].End.Sub(days[1].Start) != 23*time.Hour {
			t.Fatalf("days: %+v", days)
		}
		for i, d := range days {
			if d.Total != 1 || d.Items[0].ID != want[i] {
				t.Errorf("%s: %d items %v", d.Date, d.Total, itemIDs(d.Items))
			}
		}
	})

	t.Run("FallBack", func(t *testing.T) {
		late := b.Schedule(t, b.Editor, page("late"), "2027-10-31", "23:30")   // 22:30Z, still 31 October
		early := b.Schedule(t, b.Editor, page("early"), "2027-11-01", "00:30") // 23:30Z on 31 October in UTC
		twice := b.Schedule(t, b.Editor, page("twice"), "2027-10-31", "02:30") // happens twice: the first, 00:30Z
		q := calendar.CalendarQuery{SiteID: site.ID, From: midnightIn(t, zone, 2027, 10, 30), To: midnightIn(t, zone, 2027, 11, 2)}
		days, err := b.Cal.CalendarDays(ctx, enginetest.On(b.Editor, q.SiteID), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(days) != 3 || days[1].Date != "2027-10-31" || days[1].End.Sub(days[1].Start) != 25*time.Hour {
			t.Fatalf("days: %+v", days)
		}
		got := map[string][]string{}
		for _, d := range days {
			if d.Total != len(d.Items) {
				t.Fatalf("%s: %d items, %d chips", d.Date, d.Total, len(d.Items))
			}
			got[d.Date] = itemIDs(d.Items)
		}
		want := map[string][]string{
			"2027-10-30": {occID(a.ID, time.Date(2027, 10, 30, 0, 30, 0, 0, time.UTC))},
			"2027-10-31": {occID(a.ID, time.Date(2027, 10, 31, 0, 30, 0, 0, time.UTC)), twice.ID, late.ID},
			"2027-11-01": {early.ID, occID(a.ID, time.Date(2027, 11, 1, 1, 30, 0, 0, time.UTC))},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("days:\n got %v\nwant %v", got, want)
		}
		if !itemByID(t, days[1].Items, twice.ID).At.Equal(time.Date(2027, 10, 31, 0, 30, 0, 0, time.UTC)) {
			t.Error("02:30 on the fall-back day is not its first instant")
		}
	})
}

// TestCalendarMonthInTheSiteZone: a month is the site's month. In New York
// 23:30 on 30 November is 1 December in UTC and stays in November; in
// Istanbul 00:30 on 1 December is 30 November in UTC and is December's.
func TestCalendarMonthInTheSiteZone(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	ny, err := b.CreateSite(ctx, "Gazette NY", "America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	nyPage := b.CreateNode(t, ny.ID, release.KindPage, content.Body{Title: "Late", Slug: "late", Status: content.StatusDraft})
	nyLate := b.Schedule(t, b.Editor, nyPage, "2026-11-30", "23:30")
	nyRow, err := b.Releases.Release(ctx, engine.Reader(ny.ID), ny.ID, nyLate.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := nyRow.When.At.UTC(); got.Day() != 1 || got.Month() != time.December {
		t.Fatalf("New York 23:30 is %s", got)
	}
	istEarly := b.Schedule(t, b.Editor, b.Article, "2026-12-01", "00:30")
	if got := b.Release(t, istEarly.ID).When.At.UTC(); got.Day() != 30 || got.Month() != time.November {
		t.Fatalf("Istanbul 00:30 is %s", got)
	}
	for _, c := range []struct {
		site                engine.Site
		id                  string
		inNovember, lastDay bool
	}{
		{ny, nyLate.ID, true, true},
		{b.Site, istEarly.ID, false, false},
	} {
		zone := c.site.TimeZone
		november := calendar.CalendarQuery{SiteID: c.site.ID, From: midnightIn(t, zone, 2026, 11, 1), To: midnightIn(t, zone, 2026, 12, 1)}
		december := november
		december.From, december.To = november.To, midnightIn(t, zone, 2027, 1, 1)
		inNov := slices.Contains(itemIDs(calendarAll(t, b, enginetest.On(b.Editor, c.site.ID), november)), c.id)
		inDec := slices.Contains(itemIDs(calendarAll(t, b, enginetest.On(b.Editor, c.site.ID), december)), c.id)
		if inNov != c.inNovember || inDec == c.inNovember {
			t.Errorf("%s: in November %v, in December %v", zone, inNov, inDec)
		}
		days, err := b.Cal.CalendarDays(ctx, enginetest.On(b.Editor, november.SiteID), november, nil)
		if err != nil {
			t.Fatal(err)
		}
		last := days[len(days)-1]
		if len(days) != 30 || last.Date != "2026-11-30" || (last.Total == 1) != c.lastDay {
			t.Errorf("%s: %d days, last %s with %d items", zone, len(days), last.Date, last.Total)
		}
		decDays, err := b.Cal.CalendarDays(ctx, enginetest.On(b.Editor, december.SiteID), december, nil)
		if err != nil {
			t.Fatal(err)
		}
		if first := decDays[0]; first.Date != "2026-12-01" || (first.Total == 1) == c.inNovember {
			t.Errorf("%s: 1 December has %d items", zone, first.Total)
		}
	}
}

// TestCreateAutomation: people with automations:manage create them; every
// field is checked and a refusal writes nothing; the rule is stored in its
// canonical form; the act is audited.
func TestCreateAutomation(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	before := b.Count(t, `SELECT count(*) FROM automations`)
	for _, c := range []struct {
		name                    string
		u                       engine.User
		title, job, rule, start string
		code, field, reason     string
	}{
		{"Contributor", b.Contributor, "Sweep", "builtin:broken-links", "FREQ=DAILY", "2026-11-03T07:00", engine.CodeForbidden, "", ""},
		{"Author", b.Author, "Sweep", "builtin:broken-links", "FREQ=DAILY", "2026-11-03T07:00", engine.CodeForbidden, "", ""},
		{"NoName", b.Editor, "  ", "builtin:broken-links", "FREQ=DAILY", "2026-11-03T07:00", "bad_name", "name", ""},
		{"TwoLines", b.Editor, "Sweep\nnow", "builtin:broken-links", "FREQ=DAILY", "2026-11-03T07:00", "bad_name", "name", ""},
		{"LongName", b.Editor, strings.Repeat("x", 121), "builtin:broken-links", "FREQ=DAILY", "2026-11-03T07:00", "bad_name", "name", ""},
		{"Bidi", b.Editor, "Sweep\u202e", "builtin:broken-links", "FREQ=DAILY", "2026-11-03T07:00", "bad_name", "name", ""},
		{"UnknownBuiltin", b.Editor, "Sweep", "builtin:nope", "FREQ=DAILY", "2026-11-03T07:00", "unknown_builtin", "job", ""},
		{"UnknownJob", b.Editor, "Sweep", "cron", "FREQ=DAILY", "2026-11-03T07:00", "unknown_job_kind", "job", ""},
		{"Hourly", b.Editor, "Sweep", "builtin:broken-links", "FREQ=HOURLY", "2026-11-03T07:00", automations.CodeBadRule, "rule", "unsupported_freq"},
		{"TooFrequent", b.Editor, "Sweep", "builtin:broken-links", "FREQ=DAILY;BYHOUR=7;BYMINUTE=0,30", "2026-11-03T07:00", automations.CodeBadRule, "rule", "too_frequent"},
		{"Never", b.Editor, "Sweep", "builtin:broken-links", "FREQ=DAILY;UNTIL=20261101T000000Z", "2026-11-03T07:00", automations.CodeBadRule, "rule", "never_occurs"},
		{"BadStart", b.Editor, "Sweep", "builtin:broken-links", "FREQ=DAILY", "2026-11-31T07:00", "bad_wall", "start", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := automations.New(b.Store, b.Eng).CreateAutomation(ctx, c.u, b.Site.ID, c.title, c.job, c.rule, c.start)
			e := wantRefusal(t, err, c.code, c.field)
			if c.reason != "" && e.Args["Reason"] != c.reason {
				t.Errorf("reason %v, want %s", e.Args["Reason"], c.reason)
			}
		})
	}
	if n := b.Count(t, `SELECT count(*) FROM automations`); n != before {
		t.Fatalf("refusals wrote %d automations", n-before)
	}
	a, err := automations.New(b.Store, b.Eng).CreateAutomation(ctx, b.Editor, b.Site.ID, " Broken-link sweep ", "builtin:broken-links",
		"byminute=0;freq=weekly;byday=mo;byhour=7", "2026-11-09T07:00")
	if err != nil {
		t.Fatal(err)
	}
	want := automations.Automation{ID: a.ID, SiteID: b.Site.ID, Name: "Broken-link sweep", Job: "builtin:broken-links",
		Rule: "FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=0", StartLocal: "2026-11-09T07:00", TimeZone: "Europe/Istanbul",
		State: automations.AutomationActive, CreatedBy: b.Editor.Actor(), Origin: "person", Rev: 1, CreatedAt: start, UpdatedAt: start,
		Preset: "weekly", Owner: automation.Owner{ID: b.Editor.ID, Name: b.Editor.Name}, HandledAt: start}
	next := time.Date(2026, 11, 9, 4, 0, 0, 0, time.UTC) // Monday 07:00 in Istanbul
	want.NextRunAt, want.DueAt = &next, &next
	if !reflect.DeepEqual(a, want) || !strings.HasPrefix(a.ID, "aut_") {
		t.Errorf("created:\n got %+v\nwant %+v", a, want)
	}
	list, err := automations.New(b.Store, b.Eng).Automations(ctx, b.Site.ID)
	if err != nil || len(list) != 1 || !reflect.DeepEqual(list[0], want) {
		t.Errorf("listed %+v, %v", list, err)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'automation.create' AND automation_id IS NULL
		AND json_extract(details, '$.automation') = ?`, a.ID); n != 1 {
		t.Errorf("%d audit rows", n)
	}
	task, err := automations.New(b.Store, b.Eng).CreateAutomation(ctx, b.Owner, b.Site.ID, "Comment triage", "agent-task", "", "2026-11-05T09:07")
	if err != nil || task.Origin != "agent" || task.Rule != "" {
		t.Errorf("agent task %+v, %v", task, err)
	}
}

// TestCalendarStatements: the calendar costs a fixed number of statements
// whatever the number of items: no query per item (overlaps, requests and
// item summaries are read with the releases; the past occurrences' runs in
// one statement), a page of a month dense with
// automation runs reads one window of releases, and the Month grid reads
// every release of six weeks in one statement and its chips in one more.
func TestCalendarStatements(t *testing.T) {
	b := calendarFixture(t, 2000)
	_, _, gridFrom, gridTo := benchRanges(t, b)
	ctx := context.Background()
	q := calendar.CalendarQuery{SiteID: b.Site.ID, From: gridFrom, To: gridTo}
	measure := func(name string, budget int64, fn func() error) {
		t.Helper()
		before := b.Store.Statements()
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		got := b.Store.Statements() - before
		t.Logf("%s: %d statements (budget %d)", name, got, budget)
		if got > budget {
			t.Errorf("%s took %d statements, budget %d", name, got, budget)
		}
	}
	// Site, releases (one window), gates, automations, the automations'
	// runs in the range's past.
	measure("Calendar", 5, func() error {
		page, err := b.Cal.Calendar(ctx, b.Editor, q)
		if err == nil && len(page.Items) != calendar.CalendarMaxItems {
			t.Errorf("%d items", len(page.Items))
		}
		return err
	})
	// Site, releases (brief), gates, automations, the automations' runs in
	// the range's past, the chips' releases.
	measure("CalendarDays", 6, func() error {
		days, err := b.Cal.CalendarDays(ctx, enginetest.On(b.Editor, q.SiteID), q, nil)
		total := 0
		for _, d := range days {
			total += d.Total
		}
		if err == nil && total < 5*calendar.CalendarMaxItems {
			t.Errorf("the grid counts only %d items", total)
		}
		return err
	})
}

// An unscheduled release is a draft: it keeps its old time but is off the
// calendar, on the page and in the day counts alike.
func TestUnscheduledReleaseLeavesTheCalendar(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	q := calendar.CalendarQuery{SiteID: b.Site.ID, From: start, To: start.Add(24 * time.Hour)}
	page, err := b.Cal.Calendar(ctx, b.Editor, q)
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("before: %d items, %v", len(page.Items), err)
	}
	if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, b.Release(t, r.ID).Rev); err != nil {
		t.Fatal(err)
	}
	if page, err = b.Cal.Calendar(ctx, b.Editor, q); err != nil || len(page.Items) != 0 {
		t.Fatalf("after Unschedule: %+v, %v", page.Items, err)
	}
	loc, _ := time.LoadLocation("Europe/Istanbul")
	days, err := b.Cal.CalendarDays(ctx, b.Editor, q, loc)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range days {
		if d.Total != 0 {
			t.Fatalf("day %v counts %d items after Unschedule", d.Date, d.Total)
		}
	}
}
