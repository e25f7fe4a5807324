package releases_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// TestPerPersonOpenReleaseCap: someone without releases:publish has at most
// 20 open releases on a site, however they make them (issue 10 item 5).
func TestPerPersonOpenReleaseCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	var first releases.ReleaseRow
	for i := range releases.MaxOpenReleasesPerPerson {
		r := b.drDraft(t, b.Contributor, fmt.Sprintf("R%d", i), b.Article.ID)
		if i == 0 {
			first = r
		}
	}
	e := b.drRefused(t, releases.CodeTooManyOpenReleases, func() error {
		_, err := b.Releases.NewRelease(ctx, b.Contributor, b.Site.ID, "one too many", []string{b.Article.ID})
		return err
	})
	if e.Args["Max"] != 20 {
		t.Errorf("args %v", e.Args)
	}
	// A one-item schedule is a release too.
	page := b.drPage(t, "Press", content.StatusDraft)
	b.drRefused(t, releases.CodeTooManyOpenReleases, func() error {
		_, err := b.Releases.ScheduleNode(ctx, b.Contributor, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: page.ID,
			ExpectedRev: page.Rev, Date: "2026-11-03", Time: "09:00"})
		return err
	})
	// Others are not held back: another low role, and an Editor.
	own, err := b.Nodes.CreateNode(ctx, b.Author, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Author's own", Slug: "authors-own", Status: content.StatusDraft})
	if err != nil {
		t.Fatal(err)
	}
	b.drDraft(t, b.Author, "the author's", own.ID)
	b.drDraft(t, b.Editor, "the editor's", b.Article.ID)
	// A finished release no longer counts.
	if err := b.Releases.Cancel(ctx, b.Contributor, b.Site.ID, first.ID, first.Rev); err != nil {
		t.Fatal(err)
	}
	b.Schedule(t, b.Contributor, page, "2026-11-03", "09:00")
	b.drRefused(t, releases.CodeTooManyOpenReleases, func() error {
		_, err := b.Releases.NewRelease(ctx, b.Contributor, b.Site.ID, "again one too many", []string{b.Article.ID})
		return err
	})
	// People who may publish have only the site's cap.
	for i := range 25 {
		b.drDraft(t, b.Editor, fmt.Sprintf("E%d", i), b.Article.ID)
	}
}

// TestOpenReleaseCapsUnderConcurrentCreation: the caps are counted in the
// inserting transaction, so creations at once cannot pass them together.
func TestOpenReleaseCapsUnderConcurrentCreation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	race := func(t *testing.T, b *testBundle, u engine.User, n int) (ok int, codes map[string]int) {
		t.Helper()
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes = map[string]int{}
		for i := range n {
			wg.Go(func() {
				_, err := b.Releases.NewRelease(ctx, u, b.Site.ID, fmt.Sprintf("racer %d", i), []string{b.Article.ID})
				mu.Lock()
				defer mu.Unlock()
				if e, isRefusal := engine.AsError(err); isRefusal {
					codes[e.Code]++
				} else if err != nil {
					t.Error(err)
				} else {
					ok++
				}
			})
		}
		wg.Wait()
		return ok, codes
	}
	t.Run("PerPerson", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		for i := range 15 {
			b.drDraft(t, b.Contributor, fmt.Sprintf("R%d", i), b.Article.ID)
		}
		ok, codes := race(t, b, b.Contributor, 12)
		if ok != 5 || codes[releases.CodeTooManyOpenReleases] != 7 {
			t.Errorf("%d created, refusals %v; want 5 and 7 too_many_open_releases", ok, codes)
		}
		if n := b.Count(t, `SELECT count(*) FROM releases WHERE state = 'draft'`); n != 20 {
			t.Errorf("%d open releases, want 20", n)
		}
	})
	t.Run("PerSite", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		for i := range releases.MaxOpenReleases - 5 {
			b.drDraft(t, b.Editor, fmt.Sprintf("R%d", i), b.Article.ID)
		}
		ok, codes := race(t, b, b.Editor, 12)
		if ok != 5 || codes[releases.CodeTooManyReleases] != 7 {
			t.Errorf("%d created, refusals %v; want 5 and 7 too_many_releases", ok, codes)
		}
		if n := b.Count(t, `SELECT count(*) FROM releases WHERE state = 'draft'`); n != releases.MaxOpenReleases {
			t.Errorf("%d open releases, want %d", n, releases.MaxOpenReleases)
		}
	})
}

// TestRequestsAtMost30DaysAhead: someone without releases:publish asks for
// approval at most 30 days ahead, when scheduling and when moving (§10.5's
// rule for agents, issue 10 item 5). The clock is 2 November 2026, 08:00
// in Istanbul.
func TestRequestsAtMost30DaysAhead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("ScheduleNode", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		in := releases.ScheduleInput{SiteID: b.Site.ID, NodeID: b.Article.ID, ExpectedRev: b.Article.Rev, Date: "2026-12-02", Time: "08:01"}
		for _, u := range []engine.User{b.Contributor, b.Author} {
			e := b.drRefused(t, releases.CodeTooFarForRequest, func() error { _, err := b.Releases.ScheduleNode(ctx, u, in); return err })
			if e.Field != "time" || e.Args["Days"] != 30 {
				t.Errorf("refusal %+v", e)
			}
		}
		// Exactly 30 days ahead is allowed; an Editor goes as far as 366 days.
		b.Schedule(t, b.Contributor, b.Article, "2026-12-02", "08:00")
		b.Schedule(t, b.Editor, b.drPage(t, "Far", content.StatusDraft), "2027-10-01", "09:00")
	})

	t.Run("ScheduleDraft", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.drDraft(t, b.Contributor, "Autumn", b.Article.ID)
		b.drRefused(t, releases.CodeTooFarForRequest, func() error {
			_, err := b.Releases.ScheduleRelease(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev, "2026-12-24", "09:00")
			return err
		})
		got, err := b.Releases.ScheduleRelease(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev, "2026-11-24", "09:00")
		if err != nil || got.State != release.StateAwaitingApproval {
			t.Fatalf("within 30 days: %v %v", got.State, err)
		}
	})

	t.Run("Move", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-10", "09:00")
		b.drRefused(t, releases.CodeTooFarForRequest, func() error {
			_, err := b.Releases.Move(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev, "2027-03-01", "09:00")
			return err
		})
		b.drRefused(t, releases.CodeTooFarForRequest, func() error {
			_, err := b.Releases.MoveAt(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev, start.Add(31*24*time.Hour).Truncate(time.Minute))
			return err
		})
		// The Editor who approves it may move it further.
		if _, err := b.Releases.Move(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2027-03-01", "09:00"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("TheClockMoves", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		b.Clock.Advance(24 * time.Hour) // 3 November: 3 December is 30 days ahead now
		b.Schedule(t, b.Contributor, b.Article, "2026-12-03", "08:00")
	})
}
