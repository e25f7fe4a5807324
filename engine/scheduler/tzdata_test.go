package scheduler_test

import (
	"context"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
)

// TestTzdataChanged (issue 16, §9.1): when the zone data changes between
// runs, the releases to come are resolved again at once: one whose stored
// instant the new data puts later moves there, audited as adjusted by
// tzdata; one it would put earlier keeps its instant (never early). The
// same version again does nothing.
func TestTzdataChanged(t *testing.T) {
	ctx := context.Background()
	b := newBundle(t)
	early := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	other := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Budget", Slug: "budget", Status: content.StatusDraft, Text: "Numbers."})
	late := b.Schedule(t, b.Editor, other, "2026-11-02", "10:00")
	// As an older tzdata would have resolved them: 09:00 half an hour too
	// soon, 10:00 half an hour too late.
	b.SetExecuteAt(t, early.ID, nine.Add(-30*time.Minute))
	b.SetExecuteAt(t, late.ID, nine.Add(90*time.Minute))

	rep, err := b.Sched.TzdataChanged(ctx, "2026a")
	if err != nil || rep.Before != "" || rep.Looked != 2 || rep.Moved != 1 {
		t.Fatalf("first run: %+v %v", rep, err)
	}
	sameInstant(t, "09:00 re-resolved", *b.Release(t, early.ID).ExecuteAt, nine)
	sameInstant(t, "10:00 kept (never early)", *b.Release(t, late.ID).ExecuteAt, nine.Add(90*time.Minute))
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE release_id = ? AND action = 'release.reschedule'
		AND json_extract(details, '$.adjusted') = 'tzdata' AND json_extract(details, '$.tzdata.to') = '2026a'`, early.ID); n != 1 {
		t.Errorf("%d audit rows of the tzdata reschedule, want 1", n)
	}

	b.SetExecuteAt(t, early.ID, nine.Add(-30*time.Minute))
	if rep, err := b.Sched.TzdataChanged(ctx, "2026a"); err != nil || rep.Looked != 0 || rep.Moved != 0 {
		t.Fatalf("the same version again: %+v %v", rep, err)
	}
	sameInstant(t, "an unchanged version moves nothing", *b.Release(t, early.ID).ExecuteAt, nine.Add(-30*time.Minute))
	if rep, err := b.Sched.TzdataChanged(ctx, "2026b"); err != nil || rep.Before != "2026a" || rep.Moved != 1 {
		t.Fatalf("a newer version: %+v %v", rep, err)
	}
}
