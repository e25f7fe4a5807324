package releases_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// scheduleMany creates n pages and schedules each, as the editor, at its own
// minute from an hour ahead on (all in the future of the bundle's clock).
func scheduleMany(tb testing.TB, b *testBundle, n int) {
	tb.Helper()
	loc, err := localtime.LoadZone(b.Site.TimeZone)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		p := b.CreateNode(tb, b.Site.ID, release.KindPage,
			content.Body{Title: fmt.Sprintf("Page %d", i), Slug: fmt.Sprintf("page-%d", i), Status: content.StatusDraft})
		w := localtime.WallOf(b.Clock.Now().Add(time.Hour+time.Duration(i)*37*time.Minute), loc)
		b.Schedule(tb, b.Editor, p, w.Date(), w.Clock())
	}
}

// BenchmarkRunDueIdle is the ticker's commonest tick: nothing due, on a real
// SQLite file holding 200 releases scheduled in the future.
func BenchmarkRunDueIdle(b *testing.B) {
	tb := newBundle(b)
	scheduleMany(b, tb, 200)
	ctx := context.Background()
	if c := tb.Count(b, `SELECT count(*) FROM releases WHERE state = 'scheduled'`); c != 200 {
		b.Fatalf("scheduled = %d", c)
	}
	b.ReportAllocs()
	for b.Loop() {
		rep, err := tb.Sched.RunDue(ctx, "bench")
		if err != nil || rep.Ran != 0 {
			b.Fatal(rep, err)
		}
	}
}

// BenchmarkScheduleNode schedules one draft page per iteration (a new
// version and a release in one transaction) on a site holding one release
// fewer than the site's cap of open releases, so the timed one fits.
// Creating the page, and canceling the previous iteration's release so the
// site stays that full, are not timed.
func BenchmarkScheduleNode(b *testing.B) {
	tb := newBundle(b)
	scheduleMany(b, tb, releases.MaxOpenReleases-1)
	ctx := context.Background()
	var last release.Release
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if last.ID != "" {
			if err := tb.Releases.Cancel(ctx, tb.Editor, tb.Site.ID, last.ID, last.Rev); err != nil {
				b.Fatal(err)
			}
		}
		p := tb.CreateNode(b, tb.Site.ID, release.KindPage,
			content.Body{Title: "Bench", Slug: fmt.Sprintf("bench-%d", i), Status: content.StatusDraft})
		i++
		b.StartTimer()
		var err error
		last, err = tb.Releases.ScheduleNode(ctx, tb.Editor, releases.ScheduleInput{SiteID: tb.Site.ID, NodeID: p.ID,
			ExpectedRev: p.Rev, Date: "2026-11-03", Time: "09:00"})
		if err != nil {
			b.Fatal(err)
		}
	}
}
