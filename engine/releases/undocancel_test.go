package releases_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// TestUndoCancel: a person's own Cancel of a scheduled release is taken back
// within its seconds, as if it had not happened (state, time, approval,
// holds, the promoted version as the working copy again); anyone else's
// Undo, a late one, one of a waiting release's Cancel, and one after the
// node changed are refused and change nothing.
func TestUndoCancel(t *testing.T) {
	ctx := context.Background()

	t.Run("back as it was", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		scheduled := b.Node(t, b.Article.ID)
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		canceled := b.Release(t, r.ID)
		if restored := b.Node(t, b.Article.ID); restored.Body.Status != content.StatusDraft || b.heldItems(t, r.ID) != 0 {
			t.Fatalf("after the Cancel: %s, %d held", restored.Body.Status, b.heldItems(t, r.ID))
		}
		b.Clock.Advance(releases.UndoCancelFor - time.Second)
		if err := b.Releases.UndoCancel(ctx, b.Editor, b.Site.ID, r.ID, canceled.Rev); err != nil {
			t.Fatal(err)
		}
		back := b.Release(t, r.ID)
		if back.State != release.StateScheduled || back.Outcome != nil || back.Approval == nil || back.Approval.By.ID != b.Editor.ID ||
			back.ExecuteAt == nil || !back.ExecuteAt.Equal(r.When.At) || b.heldItems(t, r.ID) != 1 {
			t.Fatalf("after Undo: %s, outcome %+v, approval %+v, at %v, %d held", back.State, back.Outcome, back.Approval, back.ExecuteAt, b.heldItems(t, r.ID))
		}
		n := b.Node(t, b.Article.ID)
		if n.Hash != scheduled.Hash || n.Body.Status != content.StatusPublished {
			t.Fatalf("the working copy after Undo: %s, hash %s, want the scheduled version's %s", n.Body.Status, n.Hash, scheduled.Hash)
		}
		if got := b.Text(t, `SELECT action FROM audit WHERE release_id = ? ORDER BY id DESC LIMIT 1`, r.ID); got != "release.uncancel" {
			t.Fatalf("last audit %q", got)
		}
		// It publishes at its time, as if never canceled.
		b.Clock.Set(*back.ExecuteAt)
		b.Tick(t)
		if got := b.Release(t, r.ID); got.State != release.StatePublished {
			t.Fatalf("at its time: %s", got.State)
		}
	})

	refused := func(t *testing.T, b *testBundle, u engine.User, id string, rev int64, code string) {
		t.Helper()
		before := b.Dump(t)
		wantRefusal(t, b.Releases.UndoCancel(ctx, u, b.Site.ID, id, rev), code, "")
		if after := b.Dump(t); after != before {
			t.Fatal("a refused Undo changed the database")
		}
	}
	canceled := func(t *testing.T, b *testBundle) releases.ReleaseRow {
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		return b.Release(t, r.ID)
	}
	t.Run("someone else's", func(t *testing.T) {
		b := newBundle(t)
		r := canceled(t, b)
		refused(t, b, b.Admin, r.ID, r.Rev, releases.CodeUndoGone)
	})
	t.Run("too late", func(t *testing.T) {
		b := newBundle(t)
		r := canceled(t, b)
		b.Clock.Advance(releases.UndoCancelFor + time.Second)
		refused(t, b, b.Editor, r.ID, r.Rev, releases.CodeUndoGone)
	})
	t.Run("at an old rev", func(t *testing.T) {
		b := newBundle(t)
		r := canceled(t, b)
		refused(t, b, b.Editor, r.ID, r.Rev-1, engine.CodeStale)
	})
	t.Run("the node edited since", func(t *testing.T) {
		b := newBundle(t)
		r := canceled(t, b)
		n := b.Node(t, b.Article.ID)
		body := n.Body
		body.Title = "Edited after the Cancel"
		if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, n.ID, n.Rev, body); err != nil {
			t.Fatal(err)
		}
		refused(t, b, b.Editor, r.ID, r.Rev, engine.CodeStale)
	})
	t.Run("a waiting release's", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		if r.State != release.StateAwaitingApproval {
			t.Fatalf("the contributor's release is %s", r.State)
		}
		if err := b.Releases.Cancel(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		refused(t, b, b.Contributor, r.ID, b.Release(t, r.ID).Rev, releases.CodeUndoGone)
	})
}
