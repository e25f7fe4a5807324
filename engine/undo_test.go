package engine_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/release"
)

func TestUndo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	first := b.schedule(t, b.editor, b.article, "2026-11-02", "09:00")
	page := b.createNode(t, b.site.ID, release.KindPage, content.Body{Title: "Results", Slug: "results", Status: content.StatusDraft})
	second := b.schedule(t, b.editor, page, "2026-11-02", "09:30")
	b.clock.Set(nine)
	b.tick(t)
	b.clock.Set(nine.Add(30 * time.Minute))
	b.tick(t)
	if n := len(b.live(t)); n < 2 {
		t.Fatalf("live nodes = %d", n)
	}

	// A third release, pinned after both went live, on the first article:
	// undoing the first changes its base, so it would conflict.
	art := b.node(t, b.article.ID)
	body := art.Body
	body.Text = "Final results."
	edited, err := b.eng.SaveNode(ctx, b.editor, b.site.ID, art.ID, art.Rev, body)
	if err != nil {
		t.Fatal(err)
	}
	third := b.schedule(t, b.editor, edited, "2026-11-02", "12:00")

	plan, err := b.eng.PlanUndo(ctx, b.editor, b.site.ID, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Reverts) != 1 || plan.Reverts[0].ID != second.ID {
		t.Errorf("reverts = %v, want the 09:30 release", plan.Reverts)
	}
	if len(plan.Conflicts) != 1 || plan.Conflicts[0].ID != third.ID {
		t.Errorf("conflicts = %v, want the 12:00 release", plan.Conflicts)
	}

	before := b.dump(t)
	for _, c := range []struct {
		name string
		u    engine.User
		id   string
		rev  int64
		code string
	}{
		{"Contributor", b.contributor, first.ID, plan.Site.Rev, engine.CodeForbidden},
		{"StaleSite", b.editor, first.ID, plan.Site.Rev - 1, engine.CodeStale},
		{"NotPublished", b.editor, third.ID, plan.Site.Rev, engine.CodeNotPublished},
	} {
		_, err := b.eng.Undo(ctx, c.u, b.site.ID, c.id, c.rev)
		wantRefusal(t, err, c.code, "")
	}
	if after := b.dump(t); after != before {
		t.Fatalf("refused undos changed:\n%s\n%s", before, after)
	}

	snap, err := b.eng.Undo(ctx, b.editor, b.site.ID, first.ID, plan.Site.Rev)
	if err != nil {
		t.Fatal(err)
	}
	live := b.live(t)
	if _, ok := live[b.article.ID]; ok {
		t.Error("the undone article is still live")
	}
	if _, ok := live[page.ID]; ok {
		t.Error("the release published after it is still live")
	}
	if snap.Reason != "rollback" || snap.ParentID == plan.Base.ID {
		t.Errorf("snapshot %+v: want a new rollback snapshot whose parent is the last live one", snap)
	}
	if s := b.text(t, `SELECT json_extract(details, '$.alsoReverts[0]') FROM audit WHERE action = 'release.undo'`); s != second.ID {
		t.Errorf("audit alsoReverts = %q", s)
	}
	b.clock.Set(nine.Add(3 * time.Hour))
	b.tick(t)
	if got := b.release(t, third.ID); got.State != release.StateConflict {
		t.Errorf("the release pinned on the undone version is %s, want conflict", got.State)
	}
}
