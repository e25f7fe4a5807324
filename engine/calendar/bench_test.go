package calendar_test

import (
	"context"
	"studio/engine/calendar"
	"testing"
	"time"

	"studio/engine/automations"
	"studio/engine/localtime"
	"studio/internal/calendarfixture"
)

// calendarFixture is a bundle with the load (calendarfixture.Seed).
func calendarFixture(tb testing.TB, releases int) *testBundle {
	tb.Helper()
	b := newBundle(tb)
	if err := calendarfixture.Seed(context.Background(), b.Store.DB(), b.Eng, automations.New(b.Store, b.Eng), b.Site, b.Editor, b.Clock.Now(), releases); err != nil {
		tb.Fatal(err)
	}
	var n int
	if err := b.Store.DB().QueryRow(`SELECT count(*) FROM releases`).Scan(&n); err != nil || n != releases {
		tb.Fatalf("releases = %d, %v", n, err)
	}
	return b
}

// benchRanges are 31 days from 1 November 2026 in Istanbul and the Month
// grid of November: six weeks from Monday 26 October.
func benchRanges(tb testing.TB, b *testBundle) (from, to, gridFrom, gridTo time.Time) {
	tb.Helper()
	loc, err := localtime.LoadZone(b.Site.TimeZone)
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
	q := calendar.CalendarQuery{SiteID: tb.Site.ID, From: from, To: to}
	b.ReportAllocs()
	for b.Loop() {
		page, err := tb.Cal.Calendar(ctx, tb.Editor, q)
		if err != nil || len(page.Items) != calendar.CalendarMaxItems || page.NextCursor == "" {
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
	q := calendar.CalendarQuery{SiteID: tb.Site.ID, From: from, To: to,
		Kinds: []string{calendar.ItemPublish, calendar.ItemRelease, calendar.ItemExpiry}}
	b.ReportAllocs()
	for b.Loop() {
		page, err := tb.Cal.Calendar(ctx, tb.Editor, q)
		if err != nil || len(page.Items) != calendar.CalendarMaxItems {
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
	q := calendar.CalendarQuery{SiteID: tb.Site.ID, From: from, To: to}
	b.ReportAllocs()
	for b.Loop() {
		days, err := tb.Cal.CalendarDays(ctx, tb.Editor, q, nil)
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
	to := midnightIn(b, tb.Site.TimeZone, 2026, 12, 1)
	ctx := context.Background()
	q := calendar.CalendarQuery{SiteID: tb.Site.ID, From: from, To: to}
	b.ReportAllocs()
	for b.Loop() {
		days, err := tb.Cal.CalendarDays(ctx, tb.Editor, q, nil)
		if err != nil || len(days) != 30 {
			b.Fatal(len(days), err)
		}
	}
}
