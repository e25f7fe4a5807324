package releases_test

import (
	"context"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
)

// "Edit and re-approve" on a release that promoted a draft: if the release
// later lets go (unscheduled here; canceled, missed and expired alike), the
// draft put back is the edited one, so the correction is neither lost nor
// published in its old form when the article is scheduled again.
func TestEditAndRepinSurvivesTheDraftPutBack(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00") // promotes the draft
	d := b.Node(t, b.Article.ID)
	edit := content.Edit{Title: d.Body.Title, Slug: d.Body.Slug, Summary: d.Body.Summary, Text: "Results, corrected.",
		Status: content.StatusPublished}
	row, err := b.Releases.EditAndRepin(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, b.Release(t, r.ID).Rev, edit)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Node(t, d.ID); got.Body.Text != "Results, corrected." || got.Body.Status != content.StatusPublished {
		t.Fatalf("after the edit the working copy is %+v", got.Body)
	}
	if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, row.Rev); err != nil {
		t.Fatal(err)
	}
	back := b.Node(t, d.ID)
	if back.Body.Text != "Results, corrected." {
		t.Fatalf("the draft put back lost the edit: %q", back.Body.Text)
	}
	if back.Body.Status != content.StatusDraft || back.Body.PublishedAt != nil {
		t.Fatalf("the draft put back is %s (date %v), want the draft it was", back.Body.Status, back.Body.PublishedAt)
	}
	again := b.Schedule(t, b.Editor, back.Node, "2026-11-02", "10:00")
	b.Clock.Set(nine.Add(60 * 60 * 1e9))
	if rep := b.Tick(t); rep.Published != 1 {
		t.Fatalf("tick: %+v", rep)
	}
	if live := b.Live(t)[d.ID]; live.Body.Text != "Results, corrected." {
		t.Fatalf("published %q, want the corrected text", live.Body.Text)
	}
	if got := b.Release(t, again.ID); got.State != release.StatePublished {
		t.Fatalf("release %s", got.State)
	}
}
