package releases_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/gates"
	"studio/engine/model/release"
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
	live := b.PublishArticle(t)
	page := func(title, slug string) content.Node {
		return b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: title, Slug: slug, Status: content.StatusDraft, Text: "."})
	}
	// Asked in this order: tomorrow, then today at 12:00, then today at
	// 09:00 (a minute later each), then a live article's expiry, which has
	// no time of its own.
	tomorrow := b.Schedule(t, b.Contributor, page("Tomorrow", "tomorrow"), "2026-11-03", "09:00")
	b.Clock.Set(start.Add(time.Minute))
	noon := b.Schedule(t, b.Contributor, page("Noon", "noon"), "2026-11-02", "12:00")
	b.Clock.Set(start.Add(2 * time.Minute))
	morning := b.Schedule(t, b.Contributor, page("Morning", "morning"), "2026-11-02", "09:00")
	b.Clock.Set(start.Add(3 * time.Minute))
	gate := b.setGates(t, b.Contributor, live.ID, gates.KeepGate(), gates.GateAt(fridayEve), gates.GateApplyNow).Release
	want := []string{gate.ID, morning.ID, noon.ID, tomorrow.ID}

	list, err := b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
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
	first, total, err := b.Releases.FirstWaitingRequests(ctx, b.Editor, b.Site.ID, 2)
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

// TestGatePublishedNowIsRecordedNow is issue 10's "An immediate 'Save and
// publish' of a gate is recorded as a release at the next minute": the
// one-item release that publishes a live node's gate change at once has the
// instant it went live as its time, whether an editor publishes it in the
// same act or an approver's decision does. The minute ahead stays the
// ticker's fallback only.
func TestGatePublishedNowIsRecordedNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("SaveAndPublish", func(t *testing.T) {
		b := newBundle(t)
		b.PublishArticle(t)
		b.Clock.Set(start.Add(17*time.Minute + 23*time.Second))
		res := b.setGates(t, b.Editor, b.Article.ID, gates.KeepGate(), gates.GateAt(fridayEve), gates.GateApplyNow)
		if res.Status != gates.GatePublished || res.Release == nil || res.Release.ExecuteAt == nil {
			t.Fatalf("status %s release %+v, want published", res.Status, res.Release)
		}
		now := b.Clock.Now()
		sameInstant(t, "release time", *res.Release.ExecuteAt, now)
		sameInstant(t, "when.at", res.Release.When.At, now)
		sameInstant(t, "outcome", res.Release.Outcome.At, now)
		if got := b.Text(t, `SELECT execute_at FROM releases WHERE id = ?`, res.Release.ID); got != "2026-11-02T05:17:23.000Z" {
			t.Fatalf("stored execute_at %s", got)
		}
	})

	t.Run("ApprovedByAnEditor", func(t *testing.T) {
		b := newBundle(t)
		b.PublishArticle(t)
		res := b.setGates(t, b.Contributor, b.Article.ID, gates.KeepGate(), gates.GateAt(fridayEve), gates.GateApplyNow)
		q := b.Text(t, `SELECT id FROM approvals WHERE release_id = ? AND status = 'waiting'`, res.Release.ID)
		b.Clock.Set(start.Add(time.Hour + 5*time.Second))
		got, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != release.StatePublished || got.ExecuteAt == nil {
			t.Fatalf("approved: %s %v", got.State, got.ExecuteAt)
		}
		sameInstant(t, "release time", *got.ExecuteAt, b.Clock.Now())
	})

	t.Run("AScheduledReleaseKeepsItsTime", func(t *testing.T) {
		// Publish now of an ordinary release keeps the time it was
		// scheduled for (its lateness is counted from it).
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		got, err := b.Sched.PublishNow(ctx, b.Editor, b.Site.ID, r.ID, r.Rev)
		if err != nil {
			t.Fatal(err)
		}
		sameInstant(t, "release time", *got.ExecuteAt, nine)
	})
}
