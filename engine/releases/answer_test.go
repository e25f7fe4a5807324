package releases_test

import (
	"context"
	"testing"

	"studio/engine/internal/enginetest"
	"studio/engine/model/release"
)

// A release answered to a surface carries the caller's abilities and its
// waiting request, the request read once for both (issue 37: the API and
// MCP used to ask the engine for the abilities and then for the request,
// each reading the waiting request again).
func TestAnswerReadsTheWaitingRequestOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	waiting := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00") // a contributor's waits for approval
	if waiting.State != release.StateAwaitingApproval {
		t.Fatalf("state %s, want awaiting approval", waiting.State)
	}
	editor := enginetest.On(b.Editor, b.Site.ID)
	row := b.Release(t, waiting.ID)

	// What the surfaces read before: the abilities, then the request.
	before := b.Store.Statements()
	can, err := b.Releases.AbilitiesOfRelease(ctx, editor, row)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := b.Releases.WaitingRequestsOf(ctx, editor, b.Site.ID, []string{row.ID})
	if err != nil || len(reqs) != 1 {
		t.Fatalf("waiting requests %v, %v", reqs, err)
	}
	twoCalls := b.Store.Statements() - before

	before = b.Store.Statements()
	a, err := b.Releases.AnswerOf(ctx, editor, row)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Store.Statements() - before; got != 1 || twoCalls != 2 {
		t.Errorf("AnswerOf read %d statements (the two calls it replaces: %d), want 1: the waiting request once", got, twoCalls)
	}
	if a.Abilities != can || !a.Abilities.Approve || a.Request == nil || a.Request.ID != reqs[0].ID {
		t.Errorf("answer %+v request %+v, want abilities %+v and request %s", a.Abilities, a.Request, can, reqs[0].ID)
	}

	// get_release reads the waiting request once too: the release, its one
	// item's version, the held nodes, the request and the overlaps.
	before = b.Store.Statements()
	v, err := b.Releases.ReleaseView(ctx, editor, b.Site.ID, row.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Store.Statements() - before; got != 5 {
		t.Errorf("ReleaseView read %d statements, want 5", got)
	}
	if v.Request == nil || v.Request.ID != reqs[0].ID || v.Abilities != can {
		t.Errorf("view request %+v abilities %+v, want %s and %+v", v.Request, v.Abilities, reqs[0].ID, can)
	}
}
