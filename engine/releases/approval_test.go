package releases_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/releases"
)

func TestApprovals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// setup: a contributor asks for the draft article at 09:00 Istanbul.
	setup := func(t *testing.T) (*testBundle, release.Release, releases.ApprovalRequest) {
		t.Helper()
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		list, err := b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].Release.ID != r.ID {
			t.Fatalf("waiting requests = %+v, want the one for %s", list, r.ID)
		}
		return b, r, list[0].Request
	}

	t.Run("OneRequestBoundToTheHashAndTime", func(t *testing.T) {
		b, r, q := setup(t)
		if q.Status != releases.RequestWaiting || q.StateHash != r.Hash || q.RequestedBy.ID != b.Contributor.ID ||
			q.ExecuteAt == nil || !q.ExecuteAt.Equal(nine) {
			t.Fatalf("request = %+v", q)
		}
		if c := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ?`, r.ID); c != 1 {
			t.Fatalf("%d requests", c)
		}
		if id := b.Text(t, `SELECT request_id FROM releases WHERE id = ?`, r.ID); id != q.ID {
			t.Fatalf("release.request_id = %s", id)
		}
	})

	t.Run("ApproveCarriesOutAndPublishesAtItsTime", func(t *testing.T) {
		b, r, q := setup(t)
		v, err := b.Releases.Approval(ctx, b.Editor, b.Site.ID, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Items) != 1 || v.Items[0].Target == nil || v.Items[0].Target.Status != content.StatusPublished || v.Items[0].Base != nil {
			t.Fatalf("diff view = %+v", v.Items)
		}
		got, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != release.StateScheduled || got.Approval == nil || got.Approval.By.ID != b.Editor.ID ||
			got.Approval.ApprovalID != q.ID || got.Approval.ExecuteAt == nil || !got.Approval.ExecuteAt.Equal(nine) {
			t.Fatalf("after approve: %s %+v", got.State, got.Approval)
		}
		if s := b.Text(t, `SELECT status FROM approvals WHERE id = ?`, q.ID); s != releases.RequestApproved {
			t.Fatalf("request status = %s", s)
		}
		if _, err := b.Releases.Approve(ctx, b.Admin, b.Site.ID, q.ID); err == nil {
			t.Fatal("a request was approved twice")
		} else {
			wantRefusal(t, err, releases.CodeNotWaiting, "")
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick at T: %+v", rep)
		}
		if n, ok := b.Live(t)[b.Article.ID]; !ok || n.Body.Status != content.StatusPublished {
			t.Fatal("approved release did not publish")
		}
		onBehalf := b.Text(t, `SELECT json_extract(details, '$.onBehalfOf.id') FROM audit WHERE action = 'release.publish' AND release_id = ?`, r.ID)
		if onBehalf != b.Editor.ID {
			t.Fatalf("published on behalf of %q, want the approver", onBehalf)
		}
	})

	t.Run("WhoMayDecide", func(t *testing.T) {
		b, _, q := setup(t)
		before := b.Dump(t)
		for _, c := range []struct {
			name string
			u    engine.User
			code string
		}{
			{"Contributor", b.Contributor, engine.CodeForbidden},
			{"Author", b.Author, engine.CodeForbidden},
		} {
			_, err := b.Releases.Approve(ctx, c.u, b.Site.ID, q.ID)
			wantRefusal(t, err, c.code, "")
			wantRefusal(t, b.Releases.Deny(ctx, c.u, b.Site.ID, q.ID, "no"), c.code, "")
		}
		if after := b.Dump(t); after != before {
			t.Fatalf("refused decisions changed:\n%s\n%s", before, after)
		}
		// Nobody approves their own request, even with the right: make an
		// editor the requester by hand.
		if _, err := b.Store.DB().Exec(`UPDATE approvals SET requested_by = json_object('kind', 'person', 'id', CAST(? AS TEXT), 'name', 'Elif') WHERE id = ?`,
			b.Editor.ID, q.ID); err != nil {
			t.Fatal(err)
		}
		_, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q.ID)
		wantRefusal(t, err, releases.CodeOwnRequest, "")
		if _, err := b.Releases.Approve(ctx, b.Owner, b.Site.ID, q.ID); err != nil {
			t.Fatalf("the owner may approve an editor's request: %v", err)
		}
	})

	t.Run("ChangedAfterItWasAskedIsDenied", func(t *testing.T) {
		b, r, q := setup(t)
		// The release's time moved after the request was filed (a move by
		// anyone but a person who may approve voids the binding).
		later := nine.Add(time.Hour)
		if _, err := b.Store.DB().Exec(`UPDATE releases SET execute_at = ? WHERE id = ?`, later.Format("2006-01-02T15:04:05.000Z"), r.ID); err != nil {
			t.Fatal(err)
		}
		_, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q.ID)
		wantRefusal(t, err, engine.CodeStateChanged, "")
		got := b.Release(t, r.ID)
		if got.State != release.StateDraft || got.Approval != nil {
			t.Fatalf("after a mismatch the release is %s %+v", got.State, got.Approval)
		}
		if s := b.Text(t, `SELECT status || ':' || reason FROM approvals WHERE id = ?`, q.ID); s != "denied:state_changed" {
			t.Fatalf("request = %s", s)
		}
		if n := b.Node(t, b.Article.ID); n.Held != nil || n.Body.Status != content.StatusDraft {
			t.Fatalf("article after the denial: held %v status %s", n.Held, n.Body.Status)
		}
	})

	t.Run("DenyNeedsAReasonAndFreesTheNodes", func(t *testing.T) {
		b, r, q := setup(t)
		before := b.Dump(t)
		wantRefusal(t, b.Releases.Deny(ctx, b.Editor, b.Site.ID, q.ID, "  "), releases.CodeReason, "reason")
		if after := b.Dump(t); after != before {
			t.Fatalf("a refused denial changed:\n%s\n%s", before, after)
		}
		if err := b.Releases.Deny(ctx, b.Editor, b.Site.ID, q.ID, "The results are not final yet."); err != nil {
			t.Fatal(err)
		}
		got := b.Release(t, r.ID)
		if got.State != release.StateDraft {
			t.Fatalf("state = %s", got.State)
		}
		if s := b.Text(t, `SELECT status || ':' || reason || ':' || json_extract(decided_by, '$.id') FROM approvals WHERE id = ?`, q.ID); s != "denied:The results are not final yet.:"+b.Editor.ID {
			t.Fatalf("request = %s", s)
		}
		if n := b.Node(t, b.Article.ID); n.Held != nil || n.Body.Status != content.StatusDraft {
			t.Fatalf("article after the denial: held %v status %s", n.Held, n.Body.Status)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("a denied release ran: %+v", rep)
		}
	})

	t.Run("UndecidedRequestExpiresWithItsRelease", func(t *testing.T) {
		b, r, q := setup(t)
		b.Clock.Set(nine)
		b.Tick(t)
		if got := b.Release(t, r.ID); got.State != release.StateExpired {
			t.Fatalf("state = %s", got.State)
		}
		if s := b.Text(t, `SELECT status FROM approvals WHERE id = ?`, q.ID); s != releases.RequestExpired {
			t.Fatalf("request status = %s", s)
		}
		_, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q.ID)
		wantRefusal(t, err, releases.CodeNotWaiting, "")
	})

	t.Run("UnscheduleWithdrawsTheRequest", func(t *testing.T) {
		b, r, q := setup(t)
		if err := b.Releases.Unschedule(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		if s := b.Text(t, `SELECT status FROM approvals WHERE id = ?`, q.ID); s != releases.RequestWithdrawn {
			t.Fatalf("request status = %s", s)
		}
	})

	t.Run("UnknownRequest", func(t *testing.T) {
		b, _, _ := setup(t)
		if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, ids.New("apr")); err != engine.ErrNotFound {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestOnApprovalWithoutAManualRunIsTheTickers: an engine no scheduler was
// made for has no manual run (SetManualRunner), so an approver's
// "on-approval" release is not published in the act; it is left scheduled
// at its fallback minute, where the tick publishes it. With the bundle's
// engine, whose scheduler registered its PublishNow, the same act publishes
// at once.
func TestOnApprovalWithoutAManualRunIsTheTickers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	bare := releases.New(engine.New(b.Store, b.Clock, nil), b.Store)
	d, err := bare.CreateDraft(ctx, b.Editor, releases.DraftInput{SiteID: b.Site.ID, Title: "Now", NodeIDs: []string{b.Article.ID}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := bare.ScheduleReleaseWhen(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, &releases.WhenInput{OnApproval: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.State != release.StateScheduled || r.ExecuteAt == nil || !r.ExecuteAt.After(b.Clock.Now()) {
		t.Fatalf("without a manual run: %s at %v, want scheduled at the fallback minute", r.State, r.ExecuteAt)
	}
	b.Clock.Set(*r.ExecuteAt)
	if rep := b.Tick(t); rep.Published != 1 {
		t.Fatalf("the tick at the fallback minute: %+v", rep)
	}

	page := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "About", Slug: "about", Status: content.StatusDraft})
	d, err = b.Releases.CreateDraft(ctx, b.Editor, releases.DraftInput{SiteID: b.Site.ID, Title: "Now too", NodeIDs: []string{page.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = b.Releases.ScheduleReleaseWhen(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, &releases.WhenInput{OnApproval: true}); err != nil ||
		r.State != release.StatePublished {
		t.Fatalf("with the scheduler's manual run: %s, %v; want published at once", r.State, err)
	}
}
