package scheduler_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/engine/scheduler"
)

// TestLatenessIsEachReleases: two releases of one site due at 09:00 run
// in one tick, the first taking seven seconds; the second's lateness,
// outcome and snapshot say it went live seven seconds late, not at the
// tick's start (issue 14: a busy tick under-reported its later releases).
func TestLatenessIsEachReleases(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	other := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Budget night", Slug: "budget-night", Status: content.StatusDraft, Text: "Numbers."})
	first := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	second := b.Schedule(t, b.Editor, other, "2026-11-02", "09:00")
	b.Clock.Set(nine)
	slow := &hookedStore{Store: b.Store, afterClaim: func() error { b.Clock.Advance(7 * time.Second); return nil }}
	sched := scheduler.New(releases.New(engine.New(b.Store, b.Clock, nil), b.Store), slow, nil)
	if _, err := sched.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	lateness := map[string]int64{}
	for _, id := range []string{first.ID, second.ID} {
		r := b.Release(t, id)
		if r.State != release.StatePublished || r.Outcome == nil || r.Outcome.LatenessSeconds == nil {
			t.Fatalf("%s: %s %+v", id, r.State, r.Outcome)
		}
		lateness[id] = *r.Outcome.LatenessSeconds
	}
	if min(lateness[first.ID], lateness[second.ID]) != 0 || max(lateness[first.ID], lateness[second.ID]) != 7 {
		t.Fatalf("lateness %v: want 0 for the first to run and 7 for the one after it", lateness)
	}
}
