package releases_test

import (
	"context"
	"errors"
	"testing"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

func TestReleaseDiff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	// A live page, then a new working copy of it with a new title and text.
	page := b.CreateNode(t, b.Site.ID, release.KindPage,
		content.Body{Title: "About", Slug: "about", Status: content.StatusPublished, Text: "One.\nTwo."})
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	edited, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, page.ID, page.Rev,
		content.Body{Title: "About us", Slug: "about", Status: content.StatusPublished, Text: "One.\nThree."})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Schedule(t, b.Editor, edited, "2026-11-02", "09:00")

	row, items, err := b.Releases.ReleaseDiff(ctx, b.Contributor, b.Site.ID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if row.ID != r.ID || len(items) != 1 {
		t.Fatalf("diff of %s: %d items", row.ID, len(items))
	}
	d := items[0]
	if d.Base == nil || d.Target == nil || d.Base.Title != "About" || d.Target.Title != "About us" {
		t.Fatalf("bodies: base %+v target %+v", d.Base, d.Target)
	}
	changed := map[string]releases.FieldDiff{}
	for _, f := range d.Fields() {
		if f.Changed() {
			changed[f.Field] = f
		}
	}
	// The title was edited; the date is set by scheduling a first publish
	// (§7.5), to the release's time.
	if len(changed) != 2 || changed["title"].Base != "About" || changed["title"].Target != "About us" ||
		changed["publishedAt"].Base != "" || changed["publishedAt"].Target != "2026-11-02T06:00:00.000Z" {
		t.Errorf("changed fields = %+v, want the title and the date", changed)
	}
	var lines []string
	for _, l := range d.Text() {
		lines = append(lines, string(l.Op)+l.Text)
	}
	if got, want := lines, []string{" One.", "-Two.", "+Three."}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("text diff = %q, want %q", got, want)
	}

	t.Run("NotLiveHasNoBase", func(t *testing.T) {
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "10:00")
		_, items, err := b.Releases.ReleaseDiff(ctx, b.Editor, b.Site.ID, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if items[0].Base != nil || items[0].Target == nil {
			t.Fatalf("base %+v target %+v", items[0].Base, items[0].Target)
		}
		for _, f := range items[0].Fields() {
			if f.Base != "" {
				t.Errorf("field %s has base %q without a base version", f.Field, f.Base)
			}
		}
		if text := items[0].Text(); len(text) != 1 || text[0].Op != '+' || text[0].Text != "Results." {
			t.Errorf("text diff = %+v", text)
		}
	})

	t.Run("OtherSitesReleaseIsNotFound", func(t *testing.T) {
		other, err := b.CreateSite(ctx, "Other", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.Releases.ReleaseDiff(ctx, b.Editor, other.ID, r.ID); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("err = %v, want ErrNotFound", err)
		}
	})
}
