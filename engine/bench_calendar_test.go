package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/localtime"
)

// calendarFixture is the load: on a real SQLite file, a site (in
// Istanbul) holding 10,000 releases timed over the year from the bundle's
// clock and 50 automations with mixed rules (10 hourly, 20 daily, 20
// weekly), plus a few hundred gates. Releases are written straight into
// the tables in one transaction: the engine's limit of 200 open releases
// a site (§6.1 step 7) would refuse this many, and the calendar only reads.
// One in twenty awaits approval with a waiting request, one in twenty-five
// has two items of which one is also in the next release (an overlap).
func calendarFixture(tb testing.TB, releases int) *testBundle {
	tb.Helper()
	b := newBundle(tb)
	ctx := context.Background()
	tx, err := b.store.DB().BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	exec := func(q string, args ...any) {
		if _, err := tx.Exec(q, args...); err != nil {
			tx.Rollback()
			tb.Fatal(err)
		}
	}
	ins := func(t time.Time) string { return localtime.FormatInstant(t) }
	now := b.clock.Now()
	by := fmt.Sprintf(`{"kind":"person","id":%q,"name":%q}`, b.editor.ID, b.editor.Name)
	approval := fmt.Sprintf(`{"kind":"person","by":{"kind":"person","id":%q,"name":%q},"at":%q}`, b.editor.ID, b.editor.Name, ins(now))
	step := 365 * 24 * time.Hour / time.Duration(releases)
	node := func(id, kind, title string, gate string) {
		body := fmt.Sprintf(`{"title":%q,"slug":%q,"status":"draft"%s}`, title, id, gate)
		exec(`INSERT INTO nodes (id, site_id, kind, body, rev, hash, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)`,
			id, b.site.ID, kind, body, "sha256-"+id, ins(now))
		exec(`INSERT INTO node_versions (node_id, rev, hash, body, saved_by, saved_at) VALUES (?, 1, ?, ?, ?, ?)`,
			id, "sha256-"+id, body, b.editor.ID, ins(now))
	}
	item := func(rel, nodeID, kind string) {
		exec(`INSERT INTO release_items (release_id, site_id, node_id, op, node_kind, target_rev, target_hash, deps, held)
			VALUES (?, ?, ?, 'set', ?, 1, ?, '[]', 1)`, rel, b.site.ID, nodeID, kind, "sha256-"+nodeID)
	}
	for i := range releases {
		at := now.Add(time.Hour + time.Duration(i)*step).Truncate(time.Minute)
		rel, nodeID := fmt.Sprintf("rel_bench%06d", i), fmt.Sprintf("ent_bench%06d", i)
		kind := "contentEntry"
		if i%3 == 0 {
			kind = "page"
		}
		gate := ""
		if i%40 == 0 { // an embargo a day before its release, an expiry a week after
			gate = fmt.Sprintf(`,"availability":{"from":%q,"until":%q}`,
				at.Add(-24*time.Hour).Format(time.RFC3339), at.Add(7*24*time.Hour).Format(time.RFC3339))
		}
		node(nodeID, kind, fmt.Sprintf("Article %d", i), gate)
		state, appr := "scheduled", any(approval)
		if i%20 == 7 {
			state, appr = "awaiting_approval", nil
		}
		exec(`INSERT INTO releases (id, site_id, title, state, hash, when_kind, execute_at, time_zone, approval, created_by,
			rev, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'at', ?, ?, ?, ?, 1, ?, ?)`,
			rel, b.site.ID, fmt.Sprintf("Article %d", i), state, "rl1:"+rel, ins(at), b.site.TimeZone, appr, by, ins(now), ins(now))
		item(rel, nodeID, kind)
		if i%25 == 3 && i+1 < releases { // a second item, shared with the next release
			item(rel, fmt.Sprintf("ent_bench%06d", i+1), "contentEntry")
		}
		if state == "awaiting_approval" {
			exec(`INSERT INTO approvals (id, site_id, release_id, state_hash, args_hash, execute_at, requested_by, status, created_at)
				VALUES (?, ?, ?, ?, 'args', ?, ?, 'waiting', ?)`, "apr_"+rel, b.site.ID, rel, "rl1:"+rel, ins(at), by, ins(now))
			exec(`UPDATE releases SET request_id = ? WHERE id = ?`, "apr_"+rel, rel)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	rules := []struct {
		n          int
		name, rule string
	}{
		{10, "Hourly check", "FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=7"},
		{20, "Daily review", "FREQ=DAILY;BYHOUR=6;BYMINUTE=30"},
		{20, "Weekly sweep", "FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=0"},
	}
	for _, r := range rules {
		for i := range r.n {
			if _, err := b.eng.CreateAutomation(ctx, b.editor, b.site.ID, fmt.Sprintf("%s %d", r.name, i),
				"builtin:broken-links", r.rule, "2026-11-01T00:00"); err != nil {
				tb.Fatal(err)
			}
		}
	}
	var n int
	if err := b.store.DB().QueryRow(`SELECT count(*) FROM releases`).Scan(&n); err != nil || n != releases {
		tb.Fatalf("releases = %d, %v", n, err)
	}
	return b
}

// benchRanges are 31 days from 1 November 2026 in Istanbul and the Month
// grid of November: six weeks from Monday 26 October.
func benchRanges(tb testing.TB, b *testBundle) (from, to, gridFrom, gridTo time.Time) {
	tb.Helper()
	loc, err := localtime.LoadZone(b.site.TimeZone)
	if err != nil {
		tb.Fatal(err)
	}
	day := func(y int, m time.Month, d int) time.Time {
		t, _ := localtime.Resolve(localtime.Wall{Year: y, Month: m, Day: d}, loc)
		return t
	}
	return day(2026, 11, 1), day(2026, 12, 2), day(2026, 10, 26), day(2026, 12, 7)
}

// BenchmarkCalendarPage is the Agenda's read: the first page (200 items) of
// a 31-day range.
func BenchmarkCalendarPage(b *testing.B) {
	tb := calendarFixture(b, 10000)
	from, to, _, _ := benchRanges(b, tb)
	ctx := context.Background()
	q := engine.CalendarQuery{SiteID: tb.site.ID, From: from, To: to}
	b.ReportAllocs()
	for b.Loop() {
		page, err := tb.eng.Calendar(ctx, tb.editor, q)
		if err != nil || len(page.Items) != engine.CalendarMaxItems || page.NextCursor == "" {
			b.Fatal(len(page.Items), err)
		}
	}
}

// BenchmarkCalendarPageReleases is the same page filtered to releases (no
// automation occurrences): 200 of the range's ~850 releases.
func BenchmarkCalendarPageReleases(b *testing.B) {
	tb := calendarFixture(b, 10000)
	from, to, _, _ := benchRanges(b, tb)
	ctx := context.Background()
	q := engine.CalendarQuery{SiteID: tb.site.ID, From: from, To: to,
		Kinds: []string{engine.ItemPublish, engine.ItemRelease, engine.ItemExpiry}}
	b.ReportAllocs()
	for b.Loop() {
		page, err := tb.eng.Calendar(ctx, tb.editor, q)
		if err != nil || len(page.Items) != engine.CalendarMaxItems {
			b.Fatal(len(page.Items), err)
		}
	}
}

// BenchmarkCalendarDays is the Month grid's read: every day of November's
// six-week grid (42 days) with its chips and counts, every item counted.
func BenchmarkCalendarDays(b *testing.B) {
	tb := calendarFixture(b, 10000)
	_, _, from, to := benchRanges(b, tb)
	ctx := context.Background()
	q := engine.CalendarQuery{SiteID: tb.site.ID, From: from, To: to}
	b.ReportAllocs()
	for b.Loop() {
		days, err := tb.eng.CalendarDays(ctx, tb.editor, q, nil)
		if err != nil || len(days) != 42 {
			b.Fatal(len(days), err)
		}
	}
}

// BenchmarkCalendarDaysMonth is CalendarDays for the 30 days of November
// alone (the grid above adds the weeks around it).
func BenchmarkCalendarDaysMonth(b *testing.B) {
	tb := calendarFixture(b, 10000)
	from, _, _, _ := benchRanges(b, tb)
	to := midnightIn(b, tb.site.TimeZone, 2026, 12, 1)
	ctx := context.Background()
	q := engine.CalendarQuery{SiteID: tb.site.ID, From: from, To: to}
	b.ReportAllocs()
	for b.Loop() {
		days, err := tb.eng.CalendarDays(ctx, tb.editor, q, nil)
		if err != nil || len(days) != 30 {
			b.Fatal(len(days), err)
		}
	}
}
