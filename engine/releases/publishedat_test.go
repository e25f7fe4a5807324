package releases_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/gates"
	"studio/engine/releases"
)

// Gate times of these tests, in Istanbul (UTC+3): tomorrow 09:00 and
// Friday 6 November 18:00.
var (
	tomorrowNine = time.Date(2026, 11, 3, 6, 0, 0, 0, time.UTC)
	fridayEve    = time.Date(2026, 11, 6, 15, 0, 0, 0, time.UTC)
)

// setGates changes a node's gates as u, on the rev the node has now
// (engine/gates: these tests only set gates up for the rules they test).
func (b *testBundle) setGates(t *testing.T, u engine.User, id string, from, until gates.GateTime, apply string) gates.GateResult {
	t.Helper()
	res, err := b.Gates.SetGates(context.Background(), u, gates.GateInput{SiteID: b.Site.ID, NodeID: id,
		ExpectedRev: b.Node(t, id).Rev, From: from, Until: until, Apply: apply})
	if err != nil {
		t.Fatalf("set gates of %s: %v", id, err)
	}
	return res
}

func wantInstant(t *testing.T, what string, got *time.Time, want time.Time) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s is absent, want %s", what, want.Format(time.RFC3339))
	}
	sameInstant(t, what, *got, want)
}

// TestPublishedAtIsFrom: an entry first published with an embargo takes
// its from as its date (§7.5), on every path that promotes a working copy
// for publishing; a date it already has is never moved.
func TestPublishedAtIsFrom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	embargoed := func(t *testing.T) *testBundle {
		b := newBundle(t)
		b.setGates(t, b.Editor, b.Article.ID, gates.GateAt(tomorrowNine), gates.KeepGate(), "")
		return b
	}
	targetDate := func(t *testing.T, b *testBundle, r releases.ReleaseRow) *time.Time {
		t.Helper()
		body, err := b.Store.NodeVersion(ctx, b.Article.ID, r.Items[0].Target.Rev)
		if err != nil {
			t.Fatal(err)
		}
		return body.PublishedAt
	}

	t.Run("ScheduleNode", func(t *testing.T) {
		b := embargoed(t)
		r := b.Schedule(t, b.Editor, b.Node(t, b.Article.ID).Node, "2026-11-02", "10:00")
		wantInstant(t, "publishedAt", targetDate(t, b, b.Release(t, r.ID)), tomorrowNine)
		b.Clock.Set(start.Add(2 * time.Hour))
		b.Tick(t)
		wantInstant(t, "live publishedAt", b.Live(t)[b.Article.ID].Body.PublishedAt, tomorrowNine)
	})
	t.Run("ScheduleNodeWithoutEmbargo", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "10:00")
		wantInstant(t, "publishedAt", targetDate(t, b, b.Release(t, r.ID)), start.Add(2*time.Hour))
	})
	t.Run("ScheduleRelease", func(t *testing.T) {
		b := embargoed(t)
		draft, err := b.Releases.CreateDraft(ctx, b.Editor, releases.DraftInput{SiteID: b.Site.ID, NodeIDs: []string{b.Article.ID}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, draft.ID, draft.Rev, "2026-11-02", "10:00")
		if err != nil {
			t.Fatal(err)
		}
		wantInstant(t, "publishedAt", targetDate(t, b, r), tomorrowNine)
	})
	t.Run("Repin", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, false, b.Editor, nil)
		// After the conflict the article is off the site again: its working
		// copy gets an embargo and loses its date before it is re-pinned.
		d := b.Node(t, b.Article.ID)
		body := d.Body
		body.PublishedAt, body.Status = nil, content.StatusDraft
		body.Availability = &content.Availability{From: &tomorrowNine}
		if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body); err != nil {
			t.Fatal(err)
		}
		if d.Live != nil {
			t.Fatal("the article is still live after the undo")
		}
		r, err := b.Releases.Repin(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev, "2026-11-02", "13:00")
		if err != nil {
			t.Fatal(err)
		}
		wantInstant(t, "publishedAt", targetDate(t, b, r), tomorrowNine)
	})
	t.Run("EditAndRepin", func(t *testing.T) {
		b := embargoed(t)
		r := b.Schedule(t, b.Editor, b.Node(t, b.Article.ID).Node, "2026-11-02", "10:00")
		d := b.Node(t, b.Article.ID)
		got, err := b.Releases.EditAndRepin(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, b.Release(t, r.ID).Rev, content.Edit{
			Title: d.Body.Title, Slug: d.Body.Slug, Text: "Results.\nFirst count.", Status: content.StatusPublished})
		if err != nil {
			t.Fatal(err)
		}
		wantInstant(t, "publishedAt", targetDate(t, b, got), tomorrowNine)
	})
	t.Run("OrdinaryPublish", func(t *testing.T) {
		b := embargoed(t)
		b.PublishArticle(t)
		wantInstant(t, "live publishedAt", b.Live(t)[b.Article.ID].Body.PublishedAt, tomorrowNine)
		wantInstant(t, "working publishedAt", b.Node(t, b.Article.ID).Body.PublishedAt, tomorrowNine)
	})
	t.Run("ADateIsNeverMoved", func(t *testing.T) {
		b := newBundle(t)
		d := b.Node(t, b.Article.ID)
		body := d.Body
		body.PublishedAt = &start
		if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body); err != nil {
			t.Fatal(err)
		}
		b.setGates(t, b.Editor, b.Article.ID, gates.GateAt(tomorrowNine), gates.KeepGate(), "")
		b.PublishArticle(t)
		wantInstant(t, "live publishedAt", b.Live(t)[b.Article.ID].Body.PublishedAt, start)
	})
}
