package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/release"
)

// TestWaitingForApprovalSoonestFirst is issue 10's "Waiting for approval is
// not sorted by due time": requests are listed by the time their release
// would publish, soonest first, whatever order they were asked in; a
// request without a time ("publishes when approved") comes before them all.
// The Approvals page, the Schedules aside and the API all read these two
// use cases.
func TestWaitingForApprovalSoonestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	live := b.publishArticle(t)
	page := func(title, slug string) content.Node {
		return b.createNode(t, b.site.ID, release.KindPage, content.Body{Title: title, Slug: slug, Status: content.StatusDraft, Text: "."})
	}
	// Asked in this order: tomorrow, then today at 12:00, then today at
	// 09:00 (a minute later each), then a live article's expiry, which has
	// no time of its own.
	tomorrow := b.schedule(t, b.contributor, page("Tomorrow", "tomorrow"), "2026-11-03", "09:00")
	b.clock.Set(start.Add(time.Minute))
	noon := b.schedule(t, b.contributor, page("Noon", "noon"), "2026-11-02", "12:00")
	b.clock.Set(start.Add(2 * time.Minute))
	morning := b.schedule(t, b.contributor, page("Morning", "morning"), "2026-11-02", "09:00")
	b.clock.Set(start.Add(3 * time.Minute))
	gate := b.setGates(t, b.contributor, live.ID, engine.KeepGate(), engine.GateAt(fridayEve), engine.GateApplyNow).Release
	want := []string{gate.ID, morning.ID, noon.ID, tomorrow.ID}

	list, err := b.eng.Approvals(ctx, b.editor, b.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range list {
		got = append(got, v.Release.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Approvals order = %v, want %v (on-approval, 09:00, 12:00, tomorrow)", got, want)
	}

	// The aside's first two are the two soonest, not the two oldest.
	first, total, err := b.eng.FirstWaitingRequests(ctx, b.editor, b.site.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, q := range first {
		got = append(got, q.ReleaseID)
	}
	if total != 4 || !slices.Equal(got, want[:2]) {
		t.Fatalf("FirstWaitingRequests = %v of %d, want %v of 4", got, total, want[:2])
	}
}
