package nodes_test

import (
	"context"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/nodes"
)

func TestPatchNode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	title := "Election night, live"

	n, err := b.Nodes.PatchNode(ctx, b.Contributor, b.Site.ID, b.Article.ID, b.Article.Rev, nodes.NodePatch{Title: &title})
	if err != nil {
		t.Fatal(err)
	}
	if n.Rev != 2 || n.Body.Title != title || n.Body.Slug != "election-night" || n.Body.Text != "Results." ||
		n.Body.Status != content.StatusDraft {
		t.Fatalf("patched node = %+v", n)
	}

	t.Run("Stale", func(t *testing.T) {
		before := b.Dump(t)
		_, err := b.Nodes.PatchNode(ctx, b.Editor, b.Site.ID, b.Article.ID, 1, nodes.NodePatch{Title: &title})
		wantRefusal(t, err, "stale", "")
		if after := b.Dump(t); after != before {
			t.Errorf("a stale patch changed:\n%s\n%s", before, after)
		}
	})

	t.Run("InvalidField", func(t *testing.T) {
		bad := content.Status("live")
		_, err := b.Nodes.PatchNode(ctx, b.Editor, b.Site.ID, b.Article.ID, 2, nodes.NodePatch{Status: &bad})
		wantRefusal(t, err, "status_invalid", "status")
		empty := " "
		_, err = b.Nodes.PatchNode(ctx, b.Editor, b.Site.ID, b.Article.ID, 2, nodes.NodePatch{Title: &empty})
		wantRefusal(t, err, "title_required", "title")
	})

	t.Run("HeldIsLocked", func(t *testing.T) {
		r := b.Schedule(t, b.Editor, b.Node(t, b.Article.ID).Node, "2026-11-02", "09:00")
		cur := b.Node(t, b.Article.ID)
		_, err := b.Nodes.PatchNode(ctx, b.Editor, b.Site.ID, b.Article.ID, cur.Rev, nodes.NodePatch{Title: &title})
		e := wantRefusal(t, err, "scheduled_locked", "")
		if e.Args["Release"] != r.ID {
			t.Errorf("the refusal names %v, want %s", e.Args["Release"], r.ID)
		}
		sameInstant(t, "its time", e.Args["When"].(time.Time), nine)
	})
}
