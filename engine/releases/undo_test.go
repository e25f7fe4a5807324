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

func TestUndo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	first := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	page := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Results", Slug: "results", Status: content.StatusDraft})
	second := b.Schedule(t, b.Editor, page, "2026-11-02", "09:30")
	b.Clock.Set(nine)
	b.Tick(t)
	b.Clock.Set(nine.Add(30 * time.Minute))
	b.Tick(t)
	if n := len(b.Live(t)); n < 2 {
		t.Fatalf("live nodes = %d", n)
	}

	// A third release, pinned after both went live, on the first article:
	// undoing the first changes its base, so it would conflict.
	art := b.Node(t, b.Article.ID)
	body := art.Body
	body.Text = "Final results."
	edited, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, art.ID, art.Rev, body)
	if err != nil {
		t.Fatal(err)
	}
	third := b.Schedule(t, b.Editor, edited, "2026-11-02", "12:00")

	plan, err := b.Releases.PlanUndo(ctx, b.Editor, b.Site.ID, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Reverts) != 1 || plan.Reverts[0].ID != second.ID {
		t.Errorf("reverts = %v, want the 09:30 release", plan.Reverts)
	}
	if len(plan.Conflicts) != 1 || plan.Conflicts[0].ID != third.ID {
		t.Errorf("conflicts = %v, want the 12:00 release", plan.Conflicts)
	}

	before := b.Dump(t)
	for _, c := range []struct {
		name string
		u    engine.User
		id   string
		rev  int64
		code string
	}{
		{"Contributor", b.Contributor, first.ID, plan.Site.Rev, engine.CodeForbidden},
		{"StaleSite", b.Editor, first.ID, plan.Site.Rev - 1, engine.CodeStale},
		{"NotPublished", b.Editor, third.ID, plan.Site.Rev, releases.CodeNotPublished},
	} {
		_, err := b.Releases.Undo(ctx, c.u, b.Site.ID, c.id, c.rev)
		wantRefusal(t, err, c.code, "")
	}
	if after := b.Dump(t); after != before {
		t.Fatalf("refused undos changed:\n%s\n%s", before, after)
	}

	snap, err := b.Releases.Undo(ctx, b.Editor, b.Site.ID, first.ID, plan.Site.Rev)
	if err != nil {
		t.Fatal(err)
	}
	live := b.Live(t)
	if _, ok := live[b.Article.ID]; ok {
		t.Error("the undone article is still live")
	}
	if _, ok := live[page.ID]; ok {
		t.Error("the release published after it is still live")
	}
	if snap.Reason != "rollback" || snap.ParentID == plan.Base.ID {
		t.Errorf("snapshot %+v: want a new rollback snapshot whose parent is the last live one", snap)
	}
	if s := b.Text(t, `SELECT json_extract(details, '$.alsoReverts[0]') FROM audit WHERE action = 'release.undo'`); s != second.ID {
		t.Errorf("audit alsoReverts = %q", s)
	}
	b.Clock.Set(nine.Add(3 * time.Hour))
	b.Tick(t)
	if got := b.Release(t, third.ID); got.State != release.StateConflict {
		t.Errorf("the release pinned on the undone version is %s, want conflict", got.State)
	}
}
