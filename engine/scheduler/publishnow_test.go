package scheduler_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// missedAt is 11:30 Istanbul on 2 November: two and a half hours after nine.
var missedAt = nine.Add(150 * time.Minute)

// missed schedules the draft article for 09:00 as the editor and lets the
// scheduler miss it: the tick runs first at 11:30. The release let go of
// the article, and the draft scheduling had promoted is back as version 3.
func (b *testBundle) missed(t *testing.T) releases.ReleaseRow {
	t.Helper()
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	b.Clock.Set(missedAt)
	if rep := b.Tick(t); rep.Ran != 1 || rep.Published != 0 {
		t.Fatalf("tick at 11:30: %+v, want the release missed", rep)
	}
	got := b.Release(t, r.ID)
	if got.State != release.StateMissed {
		t.Fatalf("release is %s, want missed", got.State)
	}
	if d := b.Node(t, b.Article.ID); d.Rev != 3 || d.Body.Status != content.StatusDraft || d.Held != nil {
		t.Fatalf("article after the miss: rev %d %s held %+v, want the draft put back as version 3", d.Rev, d.Body.Status, d.Held)
	}
	return got
}

// refusePublishNow checks that PublishNow is refused with code and that not
// one row changed.
func (b *testBundle) refusePublishNow(t *testing.T, u engine.User, id string, rev int64, code string) *engine.Error {
	t.Helper()
	before := b.Dump(t)
	got, err := b.Sched.PublishNow(context.Background(), u, b.Site.ID, id, rev)
	e := wantRefusal(t, err, code, "")
	if got.ID != "" {
		t.Errorf("a refused Publish now returned release %s", got.ID)
	}
	if after := b.Dump(t); after != before {
		t.Fatalf("a refused Publish now changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	return e
}

func TestPublishNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// §8.6: a missed release, published by a person's manual run: their
	// approval, a run of its own at the real time, the pinned version live.
	t.Run("MissedIsPublishedByAPerson", func(t *testing.T) {
		b := newBundle(t)
		r := b.missed(t)
		target := *r.Items[0].Target
		b.Clock.Advance(7 * time.Second)
		now := b.Clock.Now()

		got, err := b.Sched.PublishNow(ctx, b.Admin, b.Site.ID, r.ID, r.Rev)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != release.StatePublished {
			t.Fatalf("state %s, want published", got.State)
		}
		runID := ids.RunID(r.ID, now)
		a := got.Approval
		if a == nil || a.Kind != "person" || a.By.ID != b.Admin.ID || !a.At.Equal(now) {
			t.Fatalf("approval %+v, want the administrator's at now", a)
		}
		o := got.Outcome
		if o == nil || o.Kind != "published" || o.RunID != runID || !o.At.Equal(now) || o.By == nil || o.By.ID != b.Admin.ID ||
			o.LatenessSeconds == nil || *o.LatenessSeconds != int64(now.Sub(nine)/time.Second) || o.SnapshotID == "" {
			t.Fatalf("outcome %+v, want published now by the administrator, late from 09:00", o)
		}
		// The release keeps its time: the calendar shows when it was meant to run.
		sameInstant(t, "execute_at", *got.ExecuteAt, nine)

		// A run of its own: trigger manual, its occurrence the real time.
		if s := b.Text(t, `SELECT trigger || ' ' || occurrence_at || ' ' || state || ' ' || lateness_s || ' ' || COALESCE(lease_token, '-')
			FROM schedule_runs WHERE id = ?`, runID); s != "manual "+localtime.FormatInstant(now)+" succeeded 9007 -" {
			t.Fatalf("run row %q", s)
		}
		if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id = ? AND state = 'missed'`, r.ID); n != 1 {
			t.Fatalf("%d missed runs, want the tick's one kept", n)
		}
		// The snapshot records the real time and the person.
		if s := b.Text(t, `SELECT created_at || ' ' || reason || ' ' || json_extract(actor, '$.id') || ' ' ||
			json_extract(metadata, '$."studio.trigger"') || ' ' || json_extract(metadata, '$."studio.run"')
			FROM snapshots WHERE id = ?`, o.SnapshotID); s != localtime.FormatInstant(now)+" scheduled "+b.Admin.ID+" manual "+runID {
			t.Fatalf("snapshot %q", s)
		}
		live := b.Live(t)[b.Article.ID]
		if live.Rev != target.Rev || live.Hash != target.Hash || live.Body.Status != content.StatusPublished {
			t.Fatalf("live article %+v, want the pinned version %+v", live.Ref, target)
		}
		// The draft the miss put back is promoted again, as version 4: the
		// working copy is what is live, and the next publish keeps it up.
		d := b.Node(t, b.Article.ID)
		if d.Rev != 4 || d.Hash != target.Hash || d.Body.Status != content.StatusPublished || d.Held != nil {
			t.Fatalf("article after Publish now: rev %d %s %s held %+v", d.Rev, d.Hash, d.Body.Status, d.Held)
		}
		if n := b.Count(t, `SELECT count(*) FROM node_versions WHERE node_id = ? AND rev = 4 AND hash = ?`, b.Article.ID, target.Hash); n != 1 {
			t.Fatal("version 4 not recorded")
		}
		if n := b.Count(t, `SELECT count(*) FROM release_items WHERE release_id = ? AND held = 1`, r.ID); n != 0 {
			t.Fatalf("%d items still held", n)
		}
		// Audited as the person's act, with the approval it replaced.
		if s := b.Text(t, `SELECT json_extract(actor, '$.id') || ' ' || run_id || ' ' || json_extract(details, '$.trigger') || ' ' ||
			json_extract(details, '$.approval') || ' ' || json_extract(details, '$.replacedApproval.by.id') || ' ' ||
			json_extract(details, '$.scheduledFor') FROM audit WHERE action = 'release.publish_now' AND release_id = ?`, r.ID); s !=
			b.Admin.ID+" "+runID+" manual replaced "+b.Editor.ID+" "+localtime.FormatInstant(nine) {
			t.Fatalf("audit %q", s)
		}
		// Nothing left for the scheduler.
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("tick after Publish now: %+v", rep)
		}
		b.refusePublishNow(t, b.Admin, r.ID, got.Rev, engine.CodeBadState)
	})

	// §10.6 "Approve and publish now": an expired request nobody approved.
	t.Run("ExpiredUnapproved", func(t *testing.T) {
		setup := func(t *testing.T) (*testBundle, releases.ReleaseRow) {
			b := newBundle(t)
			r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
			if r.State != release.StateAwaitingApproval {
				t.Fatalf("contributor's release is %s", r.State)
			}
			b.Clock.Set(nine.Add(time.Minute))
			b.Tick(t)
			got := b.Release(t, r.ID)
			if got.State != release.StateExpired || got.Approval != nil {
				t.Fatalf("release is %s with approval %+v, want expired unapproved", got.State, got.Approval)
			}
			return b, got
		}

		t.Run("ContributorIsForbidden", func(t *testing.T) {
			b, r := setup(t)
			b.refusePublishNow(t, b.Contributor, r.ID, r.Rev, engine.CodeForbidden)
		})
		t.Run("AuthorIsForbidden", func(t *testing.T) {
			b, r := setup(t)
			b.refusePublishNow(t, b.Author, r.ID, r.Rev, engine.CodeForbidden)
		})
		t.Run("EditorApprovesByPublishing", func(t *testing.T) {
			b, r := setup(t)
			got, err := b.Sched.PublishNow(ctx, b.Editor, b.Site.ID, r.ID, r.Rev)
			if err != nil {
				t.Fatal(err)
			}
			if got.State != release.StatePublished || got.Approval == nil || got.Approval.By.ID != b.Editor.ID ||
				got.Approval.Kind != "person" {
				t.Fatalf("release %s approval %+v, want published with the editor's approval", got.State, got.Approval)
			}
			if got.Outcome.LatenessSeconds == nil || *got.Outcome.LatenessSeconds != 60 {
				t.Fatalf("outcome %+v, want 60 s late", got.Outcome)
			}
			if s := b.Text(t, `SELECT json_extract(details, '$.approval') || ' ' || json_extract(details, '$.from')
				FROM audit WHERE action = 'release.publish_now' AND release_id = ?`, r.ID); s != "given expired" {
				t.Fatalf("audit %q, want the approval given by publishing", s)
			}
			if _, ok := b.Live(t)[b.Article.ID]; !ok {
				t.Fatal("article not live")
			}
			// The request stays as it ended: expired, not approved after the fact.
			if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ? AND status = 'expired'`, r.ID); n != 1 {
				t.Fatalf("%d expired requests", n)
			}
		})
	})

	// §6.4: the conflict check against the live snapshot applies. After the
	// miss let go of the article, something else (here a snapshot written
	// directly, as a rollback to an older snapshot would) put a version of
	// it live: its base changed, so the run is a conflict and nothing is
	// published.
	t.Run("ConflictPublishesNothing", func(t *testing.T) {
		b := newBundle(t)
		r := b.missed(t)
		site, err := b.Eng.Site(ctx, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		refs := []release.Ref{b.Node(t, b.Article.ID).Ref()}
		for _, l := range b.Live(t) {
			refs = append(refs, l.Ref)
		}
		snap := engine.Snapshot{ID: ids.New("snp"), SiteID: site.ID, ParentID: site.PublishedSnapshotID, Reason: "rollback",
			Actor: b.Editor.Actor(), Refs: refs, CreatedAt: b.Clock.Now()}
		if err := b.Store.PublishSnapshot(ctx, site, "sha256-test-rollback", snap, engine.AuditEntry{Action: "test", At: b.Clock.Now()}); err != nil {
			t.Fatal(err)
		}
		liveBefore := b.Live(t)[b.Article.ID]
		snapshots := b.Count(t, `SELECT count(*) FROM snapshots`)

		got, err := b.Sched.PublishNow(ctx, b.Editor, b.Site.ID, r.ID, r.Rev)
		wantRefusal(t, err, engine.CodeConflict, "")
		if got.State != release.StateConflict || got.Outcome == nil || len(got.Outcome.Conflicts) != 1 ||
			got.Outcome.Conflicts[0].NodeID != b.Article.ID || got.Outcome.By == nil || got.Outcome.By.ID != b.Editor.ID {
			t.Fatalf("release %s outcome %+v, want a conflict on the article", got.State, got.Outcome)
		}
		if n := b.Count(t, `SELECT count(*) FROM snapshots`); n != snapshots {
			t.Fatalf("%d snapshots, want %d: nothing published", n, snapshots)
		}
		if l := b.Live(t)[b.Article.ID]; l.Ref != liveBefore.Ref {
			t.Fatalf("live article moved from %+v to %+v", liveBefore.Ref, l.Ref)
		}
		if d := b.Node(t, b.Article.ID); d.Rev != 3 || d.Held != nil {
			t.Fatalf("article rev %d held %+v, want the draft as it was, free", d.Rev, d.Held)
		}
		if s := b.Text(t, `SELECT trigger || ' ' || state FROM schedule_runs WHERE id = ?`, got.Outcome.RunID); s != "manual failed" {
			t.Fatalf("run %q", s)
		}
		if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.conflict' AND json_extract(actor, '$.id') = ?`, b.Editor.ID); n != 1 {
			t.Fatalf("%d conflict audit rows by the editor", n)
		}
		// A conflict is resolved by re-pinning, not by trying again.
		b.refusePublishNow(t, b.Editor, r.ID, got.Rev, engine.CodeBadState)
	})

	t.Run("StaleRevChangesNothing", func(t *testing.T) {
		b := newBundle(t)
		r := b.missed(t)
		b.refusePublishNow(t, b.Editor, r.ID, r.Rev-1, engine.CodeStale)
		b.refusePublishNow(t, b.Editor, r.ID, r.Rev+1, engine.CodeStale)
	})

	t.Run("NotEligible", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			make func(t *testing.T, b *testBundle) releases.ReleaseRow
			code string
		}{
			{"Draft", func(t *testing.T, b *testBundle) releases.ReleaseRow {
				r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
				if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
					t.Fatal(err)
				}
				return b.Release(t, r.ID)
			}, engine.CodeBadState},
			{"AwaitingApproval", func(t *testing.T, b *testBundle) releases.ReleaseRow {
				r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
				return b.Release(t, r.ID)
			}, engine.CodeBadState},
			{"Canceled", func(t *testing.T, b *testBundle) releases.ReleaseRow {
				r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
				if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
					t.Fatal(err)
				}
				return b.Release(t, r.ID)
			}, engine.CodeBadState},
			{"Published", func(t *testing.T, b *testBundle) releases.ReleaseRow {
				r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
				b.Clock.Set(nine)
				b.Tick(t)
				return b.Release(t, r.ID)
			}, engine.CodeBadState},
			{"Running", func(t *testing.T, b *testBundle) releases.ReleaseRow {
				r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
				if _, err := b.Store.DB().Exec(`UPDATE releases SET state = 'running', lease_token = 'lease_x',
					lease_until = '2026-11-02T06:10:00.000Z' WHERE id = ?`, r.ID); err != nil {
					t.Fatal(err)
				}
				return b.Release(t, r.ID)
			}, engine.CodeRunning},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b := newBundle(t)
				r := tc.make(t, b)
				b.refusePublishNow(t, b.Editor, r.ID, r.Rev, tc.code)
			})
		}
	})

	// The article was edited after the miss let go of it: the pinned
	// version is older than the working copy, so publishing it would drop
	// the edit from the next publish. Refused; the person schedules anew.
	t.Run("PinnedNodeEditedSince", func(t *testing.T) {
		b := newBundle(t)
		r := b.missed(t)
		d := b.Node(t, b.Article.ID)
		body := d.Body
		body.Text = "Results, corrected."
		if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body); err != nil {
			t.Fatal(err)
		}
		e := b.refusePublishNow(t, b.Editor, r.ID, r.Rev, engine.CodePinnedChanged)
		if e.Args["Title"] != "Election night" {
			t.Fatalf("refusal args %+v, want the article's title", e.Args)
		}
	})

	// Scheduled again in a new release: that release holds it now.
	t.Run("PinnedNodeHeldByAnotherRelease", func(t *testing.T) {
		b := newBundle(t)
		r := b.missed(t)
		again := b.Schedule(t, b.Editor, b.Node(t, b.Article.ID).Node, "2026-11-02", "13:00")
		e := b.refusePublishNow(t, b.Editor, r.ID, r.Rev, engine.CodeScheduledLocked)
		if e.Args["Release"] != again.ID {
			t.Fatalf("refusal args %+v, want the other release %s", e.Args, again.ID)
		}
	})

	// The kill switch stops manual runs as it stops the tick's.
	t.Run("SitePaused", func(t *testing.T) {
		b := newBundle(t)
		r := b.missed(t)
		b.Pause(t, b.Admin, "Checking the feed")
		b.refusePublishNow(t, b.Editor, r.ID, r.Rev, engine.CodeSitePaused)
	})

	// One release at a time per site (§6.5).
	t.Run("AnotherReleaseRunning", func(t *testing.T) {
		b := newBundle(t)
		r := b.missed(t)
		page := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Contact", Slug: "contact", Status: content.StatusDraft})
		other := b.Schedule(t, b.Editor, page, "2026-11-02", "13:00")
		if _, err := b.Store.DB().Exec(`UPDATE releases SET state = 'running', lease_token = 'lease_x',
			lease_until = '2026-11-02T08:40:00.000Z' WHERE id = ?`, other.ID); err != nil {
			t.Fatal(err)
		}
		b.refusePublishNow(t, b.Editor, r.ID, r.Rev, engine.CodeSiteBusy)
	})

	// §13: a scheduled release may be published early, by the same kind of
	// explicit act; it never runs again at its time.
	t.Run("ScheduledEarly", func(t *testing.T) {
		b := newBundle(t)
		s := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		req := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ?`, s.ID)
		if req != 1 {
			t.Fatalf("%d requests", req)
		}
		list, err := b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
		if err != nil || len(list) != 1 {
			t.Fatalf("approvals %v %v", list, err)
		}
		if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, list[0].Request.ID); err != nil {
			t.Fatal(err)
		}
		r := b.Release(t, s.ID)
		b.refusePublishNow(t, b.Contributor, r.ID, r.Rev, engine.CodeForbidden)
		b.Clock.Advance(10 * time.Minute) // 08:10
		got, err := b.Sched.PublishNow(ctx, b.Owner, b.Site.ID, r.ID, r.Rev)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != release.StatePublished || got.Approval.By.ID != b.Owner.ID ||
			got.Outcome.LatenessSeconds == nil || *got.Outcome.LatenessSeconds != 0 || !got.Outcome.At.Equal(b.Clock.Now()) {
			t.Fatalf("release %s approval %+v outcome %+v, want published at 08:10 by the owner", got.State, got.Approval, got.Outcome)
		}
		if d := b.Node(t, b.Article.ID); d.Rev != 2 || d.Held != nil {
			t.Fatalf("article rev %d held %+v: nothing to promote again", d.Rev, d.Held)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("tick at its time: %+v", rep)
		}
		if n := b.Count(t, `SELECT count(*) FROM snapshots WHERE json_extract(metadata, '$."studio.release"') = ?`, r.ID); n != 1 {
			t.Fatalf("%d snapshots of the release", n)
		}
	})
}

// Never twice: however many Publish now calls and ticks race for one
// release, it is published once.
func TestPublishNowConcurrentlyPublishesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	check := func(t *testing.T, b *testBundle, id string, errs []error) {
		t.Helper()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			if e, isRefusal := engine.AsError(err); !isRefusal || (e.Code != engine.CodeStale && e.Code != engine.CodeRunning &&
				e.Code != engine.CodeBadState) {
				t.Errorf("loser got %v", err)
			}
		}
		if ok > 1 {
			t.Fatalf("%d calls succeeded", ok)
		}
		if r := b.Release(t, id); r.State != release.StatePublished {
			t.Fatalf("release is %s", r.State)
		}
		if n := b.Count(t, `SELECT count(*) FROM snapshots WHERE json_extract(metadata, '$."studio.release"') = ?`, id); n != 1 {
			t.Fatalf("%d snapshots of the release, want 1", n)
		}
		if n := b.Count(t, `SELECT count(*) FROM audit WHERE release_id = ? AND action IN ('release.publish', 'release.publish_now')`, id); n != 1 {
			t.Fatalf("%d publish audit rows, want 1", n)
		}
		if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id = ? AND state = 'succeeded'`, id); n != 1 {
			t.Fatalf("%d succeeded runs, want 1", n)
		}
		if n := b.Count(t, `SELECT count(*) FROM node_versions WHERE node_id = ?`, b.Article.ID); n > 4 {
			t.Fatalf("%d versions of the article: promoted again more than once", n)
		}
	}

	t.Run("ManyPeople", func(t *testing.T) {
		b := newBundle(t)
		r := b.missed(t)
		const callers = 8
		errs := make([]error, callers)
		var wg sync.WaitGroup
		for i := range callers {
			u := []engine.User{b.Editor, b.Admin, b.Owner}[i%3]
			wg.Go(func() { _, errs[i] = b.Sched.PublishNow(ctx, u, b.Site.ID, r.ID, r.Rev) })
		}
		wg.Wait()
		check(t, b, r.ID, errs)
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			}
		}
		if ok != 1 {
			t.Fatalf("%d calls succeeded, want exactly 1", ok)
		}
	})

	t.Run("PersonAndTickAtItsTime", func(t *testing.T) {
		b := newBundle(t)
		s := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		r := b.Release(t, s.ID)
		b.Clock.Set(nine)
		var errs [2]error
		var wg sync.WaitGroup
		wg.Go(func() { _, errs[0] = b.Sched.PublishNow(ctx, b.Admin, b.Site.ID, r.ID, r.Rev) })
		wg.Go(func() { _, errs[1] = b.Sched.RunDue(ctx, "node") })
		wg.Wait()
		check(t, b, r.ID, errs[:1])
		if errs[1] != nil {
			t.Fatal(errs[1])
		}
	})
}
