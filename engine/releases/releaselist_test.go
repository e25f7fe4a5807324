package releases_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// TestReleaseList: pages of the API's default list, in its order, by
// state; refusals of a bad state, limit or cursor.
func TestReleaseList(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	ctx := context.Background()
	b.Schedule(t, b.Editor, b.Article, "2026-11-03", "09:00")
	other := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Budget night", Slug: "budget-night", Status: content.StatusDraft, Text: "Numbers."})
	b.Schedule(t, b.Editor, other, "2026-11-04", "09:00")
	third := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Weather", Slug: "weather", Status: content.StatusDraft, Text: "Rain."})
	r := b.Schedule(t, b.Editor, third, "2026-11-05", "09:00")
	if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, b.Release(t, r.ID).Rev); err != nil {
		t.Fatal(err)
	}
	now := b.Eng.Now()
	all, err := b.Releases.Releases(ctx, engine.Reader(b.Site.ID), b.Site.ID, now, now.AddDate(0, 0, 400))
	if err != nil || len(all) == 0 {
		t.Fatalf("%d releases, %v", len(all), err)
	}
	var ids []string
	q := releases.ReleaseListQuery{SiteID: b.Site.ID, Limit: 1}
	for range len(all) + 1 {
		page, err := b.Releases.ReleaseList(ctx, b.Editor, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Releases {
			ids = append(ids, r.ID)
		}
		if q.Cursor = page.NextCursor; q.Cursor == "" {
			break
		}
	}
	if len(ids) != len(all) {
		t.Fatalf("paged %v, listed %d", ids, len(all))
	}
	for i, r := range all {
		if ids[i] != r.ID {
			t.Fatalf("order %v", ids)
		}
	}
	page, err := b.Releases.ReleaseList(ctx, b.Editor, releases.ReleaseListQuery{SiteID: b.Site.ID, State: release.StateScheduled})
	if err != nil || len(page.Releases) != 2 || page.Releases[0].State != release.StateScheduled || page.Releases[1].State != release.StateScheduled {
		t.Fatalf("scheduled: %+v %v", page, err)
	}
	for _, c := range []struct {
		q           releases.ReleaseListQuery
		code, field string
	}{
		{releases.ReleaseListQuery{SiteID: b.Site.ID, State: "asleep"}, releases.CodeUnknownReleaseState, "state"},
		{releases.ReleaseListQuery{SiteID: b.Site.ID, Limit: releases.ReleasePageMax + 1}, releases.CodeBadReleaseLimit, "limit"},
		{releases.ReleaseListQuery{SiteID: b.Site.ID, Limit: -1}, releases.CodeBadReleaseLimit, "limit"},
		{releases.ReleaseListQuery{SiteID: b.Site.ID, Cursor: "rel_nope"}, releases.CodeBadCursor, "cursor"},
	} {
		_, err := b.Releases.ReleaseList(ctx, b.Editor, c.q)
		wantRefusal(t, err, c.code, c.field)
	}
}

// TestReleaseListPagesProperty: for releases timed at random (several at
// one instant) and drafts without a time, paging with any limit, with or
// without a state, yields exactly the full list in its order, each page
// one bounded read.
func TestReleaseListPagesProperty(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 14))
	for i := range 24 {
		n := b.CreateNode(t, b.Site.ID, release.KindContentEntry, content.Body{Title: fmt.Sprintf("Story %d", i),
			Slug: fmt.Sprintf("story-%d", i), Status: content.StatusDraft, Text: "Words."})
		switch rng.IntN(3) {
		case 0: // a draft release without a time
			if _, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "", []string{n.ID}); err != nil {
				t.Fatal(err)
			}
		default: // scheduled, at one of a few instants so that ties on time are paged by id
			b.Schedule(t, b.Editor, n, fmt.Sprintf("2026-11-%02d", 3+rng.IntN(3)), []string{"09:00", "12:00"}[rng.IntN(2)])
		}
	}
	now := b.Eng.Now()
	all, err := b.Releases.Releases(ctx, engine.Reader(b.Site.ID), b.Site.ID, now, now.AddDate(0, 0, 400))
	if err != nil {
		t.Fatal(err)
	}
	for round := range 30 {
		state := []release.State{"", release.StateDraft, release.StateScheduled}[round%3]
		var want []string
		for _, r := range all {
			if state == "" || r.State == state {
				want = append(want, r.ID)
			}
		}
		q := releases.ReleaseListQuery{SiteID: b.Site.ID, State: state, Limit: 1 + rng.IntN(7)}
		var got []string
		for range len(all) + 1 {
			page, err := b.Releases.ReleaseList(ctx, b.Editor, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Releases) > q.Limit {
				t.Fatalf("a page of %d with limit %d", len(page.Releases), q.Limit)
			}
			for _, r := range page.Releases {
				got = append(got, r.ID)
			}
			if q.Cursor = page.NextCursor; q.Cursor == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("state %q, limit %d: paged\n%v\nwant\n%v", state, q.Limit, got, want)
		}
	}
}
