package nodes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
)

// Deleting a node takes it out of Studio at once and out of the live site
// with the next publish; its versions stay for the snapshots that name it.
func TestDeleteNodeLeavesWithTheNextPublish(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	page := b.CreateNode(t, b.Site.ID, release.KindPage,
		content.Body{Title: "About", Slug: "about", Status: content.StatusPublished, Text: "Us."})
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Live(t)[page.ID]; !ok {
		t.Fatal("the page is not live before the test")
	}

	before := b.Dump(t)
	wantRefusal(t, b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, page.ID, page.Rev-1), engine.CodeStale, "")
	if after := b.Dump(t); after != before {
		t.Fatalf("a stale delete changed the database:\n%s\n---\n%s", before, after)
	}

	if err := b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, page.ID, page.Rev); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Nodes.Node(ctx, b.Editor, b.Site.ID, page.ID); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("a deleted node reads as %v, want not found", err)
	}
	nodes, err := b.Nodes.Nodes(ctx, b.Editor, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.ID == page.ID {
			t.Fatal("the deleted node is still in the content list")
		}
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'node.delete' AND actor LIKE ?`, "%"+b.Editor.ID+"%"); n != 1 {
		t.Fatalf("%d node.delete audit rows, want 1", n)
	}
	if _, ok := b.Live(t)[page.ID]; !ok {
		t.Fatal("the deleted page left the live site before any publish")
	}
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Live(t)[page.ID]; ok {
		t.Fatal("the deleted page is still live after a publish")
	}
	// A second delete of the same node finds nothing.
	if err := b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, page.ID, page.Rev+1); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("deleting twice: %v, want not found", err)
	}
}

// A node a release holds cannot be deleted (RFC §6.2): the refusal names
// the release and its time, and nothing changes.
func TestDeleteHeldNodeIsLocked(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	n := b.Node(t, b.Article.ID)
	before := b.Dump(t)
	e := wantRefusal(t, b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, n.ID, n.Rev), engine.CodeScheduledLocked, "")
	if e.Args["Release"] != r.ID || !e.Args["When"].(time.Time).Equal(nine) {
		t.Fatalf("the refusal names %v, want %s at %v", e.Args, r.ID, nine)
	}
	if after := b.Dump(t); after != before {
		t.Fatalf("a refused delete changed the database:\n%s\n---\n%s", before, after)
	}
}

// §10.6 "The site or a node no longer exists": the run cancels the release,
// as the system, and publishes nothing. Studio never deletes a held node, so
// the test deletes it behind Studio's back, as a restore from a backup or a
// hand-made fix would.
func TestRunCancelsWhenANodeIsGone(t *testing.T) {
	b := newBundle(t)
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	if _, err := b.Store.DB().Exec(`UPDATE nodes SET deleted_at = '2026-11-02T05:30:00.000Z' WHERE id = ?`, b.Article.ID); err != nil {
		t.Fatal(err)
	}
	liveBefore := b.Text(t, `SELECT COALESCE(published_snapshot_id, '-') FROM sites WHERE id = ?`, b.Site.ID)
	b.Clock.Set(nine)
	rep := b.Tick(t)
	got := b.Release(t, r.ID)
	if rep.Ran != 1 || got.State != release.StateCanceled || got.Outcome == nil ||
		got.Outcome.Reason != "node_gone" || got.Outcome.Message != b.Article.ID || got.Outcome.By == nil || got.Outcome.By.ID != engine.Scheduler.ID {
		t.Fatalf("tick %+v; release %s %+v, want canceled by the system naming %s", rep, got.State, got.Outcome, b.Article.ID)
	}
	if liveAfter := b.Text(t, `SELECT COALESCE(published_snapshot_id, '-') FROM sites WHERE id = ?`, b.Site.ID); liveAfter != liveBefore {
		t.Fatalf("the live snapshot moved from %s to %s", liveBefore, liveAfter)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.canceled' AND release_id = ? AND actor LIKE '%sys_scheduler%'`, r.ID); n != 1 {
		t.Fatalf("%d audit rows of the system's cancel, want 1", n)
	}
	if n := b.Count(t, `SELECT count(*) FROM release_items WHERE release_id = ? AND held = 1`, r.ID); n != 0 {
		t.Fatal("the canceled release still holds its node")
	}
}
