package releases_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// noon is 2 November 2026, 12:00 in Istanbul; one is 13:00.
var (
	noon = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	one  = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
)

// conflicted is a release held as a conflict by a rollback between its pin
// and its run (§6.4): release "first" publishes a version of the article at
// 09:00; "second" pins the next version at 12:00, based on it; an Undo of
// "first" puts back what was live before; the tick at 12:00 finds the base
// gone. With liveBefore the article was live (version 2, a plain Publish)
// before "first", so the Undo puts version 2 back; without, the article was
// a draft and the Undo takes it off the site. edit changes the second
// version before it is scheduled (nil: the text only).
type conflicted struct {
	first, second releases.ReleaseRow
	target        release.Version // second's pinned target
	base          release.Version // second's pinned base
}

func (b *testBundle) conflict(t *testing.T, liveBefore bool, by engine.User, edit func(*content.Body)) conflicted {
	t.Helper()
	ctx := context.Background()
	save := func(mod func(*content.Body)) content.Node {
		t.Helper()
		d := b.Node(t, b.Article.ID)
		body := d.Body
		mod(&body)
		n, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if liveBefore {
		save(func(body *content.Body) { body.Status, body.PublishedAt = content.StatusPublished, &start })
		if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
			t.Fatal(err)
		}
		save(func(body *content.Body) { body.Text = "Results.\nFirst count." })
	}
	first := b.Schedule(t, b.Editor, b.Node(t, b.Article.ID).Node, "2026-11-02", "09:00")
	b.Clock.Set(nine)
	if rep := b.Tick(t); rep.Published != 1 {
		t.Fatalf("09:00 tick %+v, want first published", rep)
	}
	n := save(func(body *content.Body) {
		body.Text = "Results.\nFirst count.\nFinal count."
		if edit != nil {
			edit(body)
		}
	})
	second := b.Schedule(t, by, n, "2026-11-02", "12:00")
	if by.ID != b.Editor.ID { // a Contributor's waits: the editor approves it
		q := b.Text(t, `SELECT id FROM approvals WHERE release_id = ? AND status = 'waiting'`, second.ID)
		if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := b.Releases.PlanUndo(ctx, b.Editor, b.Site.ID, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Releases.Undo(ctx, b.Editor, b.Site.ID, first.ID, plan.Site.Rev); err != nil {
		t.Fatal(err)
	}
	b.Clock.Set(noon)
	if rep := b.Tick(t); rep.Failed != 1 {
		t.Fatalf("12:00 tick %+v, want second held", rep)
	}
	got := b.Release(t, second.ID)
	if got.State != release.StateConflict || got.Outcome == nil || len(got.Outcome.Conflicts) != 1 {
		t.Fatalf("second is %s %+v, want a conflict on the article", got.State, got.Outcome)
	}
	return conflicted{first: b.Release(t, first.ID), second: got, target: *got.Items[0].Target, base: *got.Items[0].Base}
}

func bodyText(b *content.Body) string {
	if b == nil {
		return "<absent>"
	}
	return b.Text
}

func TestConflictView(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("RollbackToAnOlderVersion", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, true, b.Editor, nil)
		v, err := b.Releases.ConflictView(ctx, b.Contributor, b.Site.ID, c.second.ID) // anyone who reads schedules
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Nodes) != 1 {
			t.Fatalf("%d conflict rows, want the article", len(v.Nodes))
		}
		n := v.Nodes[0]
		if n.Item.NodeID != b.Article.ID || n.Title != "Election night" || n.Live == nil || n.Live.Rev != 2 || n.Working != c.target {
			t.Fatalf("row %+v", n)
		}
		if got := bodyText(n.BaseToLive.Base) + " | " + bodyText(n.BaseToLive.Target) + " | " + bodyText(n.BaseToTarget.Target); got !=
			"Results.\nFirst count. | Results. | Results.\nFirst count.\nFinal count." {
			t.Fatalf("base | live | target = %q", got)
		}
		var toLive, toTarget []string
		for _, l := range n.BaseToLive.Text() {
			toLive = append(toLive, string(l.Op)+l.Text)
		}
		for _, l := range n.BaseToTarget.Text() {
			toTarget = append(toTarget, string(l.Op)+l.Text)
		}
		if strings.Join(toLive, "|") != " Results.|-First count." || strings.Join(toTarget, "|") != " Results.| First count.|+Final count." {
			t.Fatalf("diffs base→live %q, base→target %q", toLive, toTarget)
		}
		// Version 2 is live again and the target, version 4, was written on
		// top of it: the target contains it, so Re-base is possible.
		if !n.Rebase.Possible || !v.Rebase.Possible {
			t.Fatalf("rebase %+v / %+v, want possible", n.Rebase, v.Rebase)
		}
	})

	t.Run("TakenOffTheSite", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, false, b.Editor, nil)
		v, err := b.Releases.ConflictView(ctx, b.Editor, b.Site.ID, c.second.ID)
		if err != nil {
			t.Fatal(err)
		}
		n := v.Nodes[0]
		if n.Live != nil || n.BaseToLive.Target != nil || n.BaseToLive.Base == nil {
			t.Fatalf("row %+v, want the base against nothing live", n)
		}
		if v.Rebase.Possible || v.Rebase.Reason != releases.RebaseNotLive || v.Rebase.Title != "Election night" {
			t.Fatalf("rebase %+v, want not possible: not live", v.Rebase)
		}
	})

	t.Run("OnlyForConflicts", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		_, err := b.Releases.ConflictView(ctx, b.Editor, b.Site.ID, r.ID)
		wantRefusal(t, err, engine.CodeBadState, "")
	})
}

func TestRebase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("EditorReapprovesAndItPublishes", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, true, b.Editor, nil)
		r := c.second
		rebase := func(u engine.User, rev int64, date, clock string) func() error {
			return func() error { _, err := b.Releases.Rebase(ctx, u, b.Site.ID, r.ID, rev, date, clock); return err }
		}
		b.Clock.Set(noon.Add(10 * time.Second))
		b.RefuseChange(t, engine.CodeForbidden, "", rebase(b.Contributor, r.Rev, "2026-11-02", "13:00"))
		b.RefuseChange(t, engine.CodeStale, "", rebase(b.Editor, r.Rev-1, "2026-11-02", "13:00"))
		// The release's own time has passed: a new one is needed.
		b.RefuseChange(t, release.CodeTimeInPast, "time", rebase(b.Editor, r.Rev, "", ""))
		b.RefuseChange(t, release.CodeTimeInPast, "time", rebase(b.Editor, r.Rev, "2026-11-02", "11:59"))
		b.RefuseChange(t, release.CodeTooSoon, "time", rebase(b.Editor, r.Rev, "2026-11-02", "12:01"))
		b.RefuseChange(t, engine.CodeBadState, "", func() error {
			_, err := b.Releases.Rebase(ctx, b.Editor, b.Site.ID, c.first.ID, c.first.Rev, "2026-11-02", "13:00")
			return err
		})

		got, err := b.Releases.Rebase(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "13:00")
		if err != nil {
			t.Fatal(err)
		}
		it := got.Items[0]
		if got.State != release.StateScheduled || got.Hash == r.Hash || got.Hash != release.Hash(b.Site.ID, got.Items) {
			t.Fatalf("release %s hash %s (was %s), want scheduled with a new hash", got.State, got.Hash, r.Hash)
		}
		if *it.Target != c.target || it.Base == nil || it.Base.Rev != 2 {
			t.Fatalf("item %+v, want the same target on the live version 2", it)
		}
		if a := got.Approval; a == nil || a.By.ID != b.Editor.ID || !a.At.Equal(b.Clock.Now()) || a.ExecuteAt == nil || !a.ExecuteAt.Equal(one) {
			t.Fatalf("approval %+v, want the editor's, now, for 13:00", got.Approval)
		}
		sameInstant(t, "execute at", *got.ExecuteAt, one)
		if got.Outcome != nil || got.When.LocalTime != "2026-11-02T13:00" {
			t.Fatalf("outcome %+v local %q", got.Outcome, got.When.LocalTime)
		}
		if d := b.Node(t, b.Article.ID); d.Held == nil || d.Held.ReleaseID != r.ID {
			t.Fatalf("article held %+v, want held by the release again", d.Held)
		}
		if s := b.Text(t, `SELECT json_extract(details, '$.oldHash') || ' ' || json_extract(details, '$.hash') || ' ' ||
			json_extract(details, '$.approval') FROM audit WHERE action = 'release.rebase' AND release_id = ?`, r.ID); s != r.Hash+" "+got.Hash+" given" {
			t.Fatalf("audit %q", s)
		}
		if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ? AND status = 'waiting'`, r.ID); n != 0 {
			t.Fatalf("%d waiting requests, want none", n)
		}

		b.Clock.Set(one)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("13:00 tick %+v", rep)
		}
		if l := b.Live(t)[b.Article.ID]; l.Rev != c.target.Rev || l.Body.Text != "Results.\nFirst count.\nFinal count." {
			t.Fatalf("live article %d %q, want the target", l.Rev, l.Body.Text)
		}
	})

	// The release had promoted a draft; the conflict put the draft back.
	// Re-base keeps the target: it becomes the working copy again, as the
	// next version with the same body and hash, so what goes live is what
	// the working copy shows.
	t.Run("TheTargetComesBackOverThePutBackDraft", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, true, b.Editor, func(body *content.Body) { body.Status = content.StatusDraft })
		d := b.Node(t, b.Article.ID)
		if d.Body.Status != content.StatusDraft || d.Rev != c.target.Rev+1 {
			t.Fatalf("setup: article rev %d %s, want the draft put back", d.Rev, d.Body.Status)
		}
		got, err := b.Releases.Rebase(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev, "2026-11-02", "13:00")
		if err != nil {
			t.Fatal(err)
		}
		it := got.Items[0]
		after := b.Node(t, b.Article.ID)
		if it.Target.Hash != c.target.Hash || it.Target.Rev != d.Rev+1 || after.Version() != *it.Target || it.RestoreRev != d.Rev {
			t.Fatalf("item %+v, article %+v: want the target's body again as version %d", it, after.Version(), d.Rev+1)
		}
		b.Clock.Set(one)
		b.Tick(t)
		if l := b.Live(t)[b.Article.ID]; l.Hash != c.target.Hash || l.Body.Status != content.StatusPublished {
			t.Fatalf("live %+v %s", l.Ref, l.Body.Status)
		}
		if n := b.Node(t, b.Article.ID); n.Version() != *it.Target {
			t.Fatalf("working copy %+v after the publish, want the live target", n.Version())
		}
	})

	t.Run("RefusedByHash", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			setup  func(t *testing.T, b *testBundle, c conflicted)
			reason string
		}{
			// Nothing of it is live: the take-down is not in the target.
			{"NotLive", nil, releases.RebaseNotLive},
			// After the conflict let go of the article, a newer version was
			// saved and published: the target does not contain it.
			{"LiveNewer", func(t *testing.T, b *testBundle, c conflicted) {
				d := b.Node(t, b.Article.ID)
				body := d.Body
				body.Text += "\nRecount."
				if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body); err != nil {
					t.Fatal(err)
				}
				if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
					t.Fatal(err)
				}
			}, releases.RebaseLiveNewer},
			// Edited, not published: the edit would be hidden behind the
			// older target.
			{"Edited", func(t *testing.T, b *testBundle, c conflicted) {
				d := b.Node(t, b.Article.ID)
				body := d.Body
				body.Summary = "Edited after the conflict."
				if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body); err != nil {
					t.Fatal(err)
				}
			}, releases.RebaseEdited},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b := newBundle(t)
				c := b.conflict(t, tc.setup != nil, b.Editor, nil)
				if tc.setup != nil {
					tc.setup(t, b, c)
				}
				v, err := b.Releases.ConflictView(ctx, b.Editor, b.Site.ID, c.second.ID)
				if err != nil {
					t.Fatal(err)
				}
				if v.Rebase.Possible || v.Rebase.Reason != tc.reason || v.Rebase.NodeID != b.Article.ID {
					t.Fatalf("rebase %+v, want not possible: %s", v.Rebase, tc.reason)
				}
				e := b.RefuseChange(t, releases.CodeRebaseNotPossible, "", func() error {
					_, err := b.Releases.Rebase(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev, "2026-11-02", "13:00")
					return err
				})
				if e.Args["Title"] != "Election night" {
					t.Fatalf("refusal args %v, want the article named", e.Args)
				}
			})
		}
	})
}

func TestRepin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("EditorReapprovesAndTheWorkingCopyPublishes", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, false, b.Editor, nil)
		r := c.second
		b.RefuseChange(t, engine.CodeForbidden, "", func() error {
			_, err := b.Releases.Repin(ctx, b.Author, b.Site.ID, r.ID, r.Rev, "2026-11-02", "13:00")
			return err
		})
		b.RefuseChange(t, engine.CodeStale, "", func() error {
			_, err := b.Releases.Repin(ctx, b.Editor, b.Site.ID, r.ID, r.Rev+1, "2026-11-02", "13:00")
			return err
		})
		b.RefuseChange(t, "bad_time", "time", func() error {
			_, err := b.Releases.Repin(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "25:00")
			return err
		})
		// After the conflict the article is free: someone edits it. Re-pin
		// takes that working copy, live changes and all.
		d := b.Node(t, b.Article.ID)
		body := d.Body
		body.Text += "\nTurnout: 84%."
		edited, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Releases.Repin(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "13:00")
		if err != nil {
			t.Fatal(err)
		}
		it := got.Items[0]
		if got.State != release.StateScheduled || got.Hash == r.Hash || got.Hash != release.Hash(b.Site.ID, got.Items) {
			t.Fatalf("release %s hash %s, want scheduled with a new hash", got.State, got.Hash)
		}
		if *it.Target != edited.Version() || it.Base != nil {
			t.Fatalf("item %+v, want the edited working copy %+v, not live", it, edited.Version())
		}
		if got.Approval == nil || got.Approval.By.ID != b.Editor.ID || got.Approval.ApprovalID != "" {
			t.Fatalf("approval %+v, want the editor's own", got.Approval)
		}
		if s := b.Text(t, `SELECT json_extract(details, '$.oldHash') || ' ' || json_extract(details, '$.hash')
			FROM audit WHERE action = 'release.repin' AND release_id = ?`, r.ID); s != r.Hash+" "+got.Hash {
			t.Fatalf("audit %q", s)
		}
		b.Clock.Set(one)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("13:00 tick %+v", rep)
		}
		if l := b.Live(t)[b.Article.ID]; l.Rev != edited.Rev || !strings.HasSuffix(l.Body.Text, "Turnout: 84%.") {
			t.Fatalf("live article %d %q, want the re-pinned working copy", l.Rev, l.Body.Text)
		}
	})

	t.Run("ContributorSendsItForApproval", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, false, b.Contributor, nil)
		r := c.second
		if r.Approval == nil || r.Approval.By.ID != b.Editor.ID {
			t.Fatalf("setup: approval %+v", r.Approval)
		}
		b.Clock.Set(noon.Add(5 * time.Minute))
		got, err := b.Releases.Repin(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "13:00")
		if err != nil {
			t.Fatal(err)
		}
		if got.State != release.StateAwaitingApproval || got.Approval != nil || got.Hash == r.Hash {
			t.Fatalf("release %s approval %+v, want waiting, the approval void, a new hash", got.State, got.Approval)
		}
		if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ? AND status = 'waiting'`, r.ID); n != 1 {
			t.Fatalf("%d waiting requests, want exactly one", n)
		}
		q := b.Text(t, `SELECT id FROM approvals WHERE release_id = ? AND status = 'waiting'`, r.ID)
		if s := b.Text(t, `SELECT state_hash || ' ' || json_extract(requested_by, '$.id') FROM approvals WHERE id = ?`, q); s != got.Hash+" "+b.Contributor.ID {
			t.Fatalf("request %q, want bound to the new hash, asked by the contributor", s)
		}
		if d := b.Node(t, b.Article.ID); d.Held == nil || d.Held.ReleaseID != r.ID {
			t.Fatalf("article held %+v, want held while it waits", d.Held)
		}
		if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q); err != nil {
			t.Fatal(err)
		}
		b.Clock.Set(one)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("13:00 tick %+v", rep)
		}
	})

	// The release had promoted a draft (status published on a new version);
	// the conflict put the draft back. Re-pin promotes the draft again,
	// exactly as scheduling does, and a later cancel would put it back.
	t.Run("PromotesADraftLikeScheduling", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, false, b.Editor, func(body *content.Body) { body.Status = content.StatusDraft })
		if c.second.Items[0].RestoreRev == 0 {
			t.Fatalf("setup: item %+v, want a promoted draft", c.second.Items[0])
		}
		d := b.Node(t, b.Article.ID)
		if d.Body.Status != content.StatusDraft || d.Rev != c.target.Rev+1 {
			t.Fatalf("setup: article rev %d %s, want the draft put back", d.Rev, d.Body.Status)
		}
		got, err := b.Releases.Repin(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev, "2026-11-02", "13:00")
		if err != nil {
			t.Fatal(err)
		}
		it := got.Items[0]
		after := b.Node(t, b.Article.ID)
		if it.Target.Rev != d.Rev+1 || it.RestoreRev != d.Rev || after.Version() != *it.Target ||
			after.Body.Status != content.StatusPublished || after.Body.PublishedAt == nil {
			t.Fatalf("item %+v, article rev %d %s: want the draft promoted as the next version", it, after.Rev, after.Body.Status)
		}
		b.Clock.Set(one)
		b.Tick(t)
		if l, ok := b.Live(t)[b.Article.ID]; !ok || l.Body.Status != content.StatusPublished || l.Rev != it.Target.Rev {
			t.Fatalf("live article %+v", l.Ref)
		}
	})

	t.Run("NothingToPublish", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, true, b.Editor, nil)
		// After the conflict, someone publishes the working copy itself.
		if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
			t.Fatal(err)
		}
		e := b.RefuseChange(t, release.CodeNothingToPublish, "", func() error {
			_, err := b.Releases.Repin(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev, "2026-11-02", "13:00")
			return err
		})
		if e.Args["Title"] != "Election night" {
			t.Fatalf("args %v", e.Args)
		}
		// The third way out: cancel.
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev); err != nil {
			t.Fatal(err)
		}
		if got := b.Release(t, c.second.ID); got.State != release.StateCanceled {
			t.Fatalf("release %s, want canceled", got.State)
		}
	})

	// Deleted after the conflict let go of it: only Cancel is left.
	t.Run("NodeDeleted", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, false, b.Editor, nil)
		d := b.Node(t, b.Article.ID)
		if err := b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev); err != nil {
			t.Fatal(err)
		}
		v, err := b.Releases.ConflictView(ctx, b.Editor, b.Site.ID, c.second.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Rebase.Possible || v.Rebase.Reason != releases.RebaseGone || v.Rebase.Title != "Election night" {
			t.Fatalf("rebase %+v, want not possible: gone", v.Rebase)
		}
		for name, change := range map[string]func() error{
			"Repin": func() error {
				_, err := b.Releases.Repin(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev, "2026-11-02", "13:00")
				return err
			},
			"Rebase": func() error {
				_, err := b.Releases.Rebase(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev, "2026-11-02", "13:00")
				return err
			},
		} {
			if e := b.RefuseChange(t, releases.CodeNodeGone, "", change); e.Args["Title"] != "Election night" {
				t.Fatalf("%s: args %v", name, e.Args)
			}
		}
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("HeldByAnotherRelease", func(t *testing.T) {
		b := newBundle(t)
		c := b.conflict(t, false, b.Editor, nil)
		other := b.Schedule(t, b.Editor, b.Node(t, b.Article.ID).Node, "2026-11-02", "18:00")
		e := b.RefuseChange(t, engine.CodeScheduledLocked, "", func() error {
			_, err := b.Releases.Repin(ctx, b.Editor, b.Site.ID, c.second.ID, c.second.Rev, "2026-11-02", "13:00")
			return err
		})
		if e.Args["Release"] != other.ID {
			t.Fatalf("args %v, want the other release named", e.Args)
		}
	})
}

func TestEditAndRepin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	edit := func(d releases.NodeDetail, text string) content.Edit {
		return content.Edit{Title: d.Body.Title, Slug: d.Body.Slug, Summary: d.Body.Summary, Text: text, Status: d.Body.Status}
	}

	t.Run("EditorReapprovesInTheSameAct", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		d := b.Node(t, b.Article.ID)
		rel := b.Release(t, r.ID)
		editRepin := func(u engine.User, rev, relRev int64, in content.Edit) func() error {
			return func() error {
				_, err := b.Releases.EditAndRepin(ctx, u, b.Site.ID, b.Article.ID, rev, relRev, in)
				return err
			}
		}
		b.RefuseChange(t, engine.CodeStale, "", editRepin(b.Editor, d.Rev-1, rel.Rev, edit(d, "New.")))
		b.RefuseChange(t, engine.CodeStale, "", editRepin(b.Editor, d.Rev, rel.Rev+1, edit(d, "New.")))
		b.RefuseChange(t, engine.CodeForbidden, "", editRepin(b.Contributor, d.Rev, rel.Rev, edit(d, "New.")))
		b.RefuseChange(t, releases.CodeUnchanged, "", editRepin(b.Editor, d.Rev, rel.Rev, edit(d, d.Body.Text)))
		noTitle := edit(d, "New.")
		noTitle.Title = " "
		b.RefuseChange(t, "title_required", "title", editRepin(b.Editor, d.Rev, rel.Rev, noTitle))

		b.Clock.Set(start.Add(10 * time.Minute))
		in := edit(d, "Results.\nTurnout: 84%.")
		in.Status = content.StatusDraft // the pinned version is the published one, whatever the field says
		got, err := b.Releases.EditAndRepin(ctx, b.Editor, b.Site.ID, b.Article.ID, d.Rev, rel.Rev, in)
		if err != nil {
			t.Fatal(err)
		}
		after := b.Node(t, b.Article.ID)
		it := got.Items[0]
		// The edit is saved as the draft it edits, then promoted (see
		// TestEditAndRepinSurvivesTheDraftPutBack).
		if after.Rev != d.Rev+2 || after.Body.Text != "Results.\nTurnout: 84%." || after.Body.Status != content.StatusPublished ||
			after.Body.PublishedAt == nil || !after.Body.PublishedAt.Equal(nine) {
			t.Fatalf("article rev %d %q %s %v", after.Rev, after.Body.Text, after.Body.Status, after.Body.PublishedAt)
		}
		if *it.Target != after.Version() || it.RestoreRev != d.Rev+1 || it.Base != nil {
			t.Fatalf("item %+v, want pinned to the edit, the edited draft to put back", it)
		}
		if got.State != release.StateScheduled || got.Hash == rel.Hash || got.Approval == nil ||
			got.Approval.By.ID != b.Editor.ID || !got.Approval.At.Equal(b.Clock.Now()) {
			t.Fatalf("release %s approval %+v, want scheduled with the editor's new approval", got.State, got.Approval)
		}
		if after.Held == nil || after.Held.ReleaseID != r.ID {
			t.Fatalf("article held %+v", after.Held)
		}
		if s := b.Text(t, `SELECT json_extract(details, '$.oldHash') || ' ' || json_extract(details, '$.hash')
			FROM audit WHERE action = 'release.edit' AND release_id = ?`, r.ID); s != rel.Hash+" "+got.Hash {
			t.Fatalf("audit %q", s)
		}
		// An ordinary edit is still locked.
		b.RefuseChange(t, engine.CodeScheduledLocked, "", func() error {
			_, err := b.Nodes.EditNode(ctx, b.Editor, b.Site.ID, b.Article.ID, after.Rev, edit(after, "Sneaky."))
			return err
		})
		// Under a minute before its time, it runs as approved.
		b.Clock.Set(nine.Add(-30 * time.Second))
		b.RefuseChange(t, releases.CodeReleaseDue, "", editRepin(b.Editor, after.Rev, got.Rev, edit(after, "Late.")))

		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("09:00 tick %+v", rep)
		}
		if l := b.Live(t)[b.Article.ID]; l.Body.Text != "Results.\nTurnout: 84%." {
			t.Fatalf("live %q, want the edit", l.Body.Text)
		}
	})

	t.Run("ContributorVoidsTheApproval", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		q1 := b.Text(t, `SELECT id FROM approvals WHERE release_id = ?`, r.ID)
		if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q1); err != nil {
			t.Fatal(err)
		}
		d := b.Node(t, b.Article.ID)
		rel := b.Release(t, r.ID)
		got, err := b.Releases.EditAndRepin(ctx, b.Contributor, b.Site.ID, b.Article.ID, d.Rev, rel.Rev, edit(d, "Results.\nCorrected."))
		if err != nil {
			t.Fatal(err)
		}
		if got.State != release.StateAwaitingApproval || got.Approval != nil || got.Hash == rel.Hash {
			t.Fatalf("release %s approval %+v, want waiting with the approval void", got.State, got.Approval)
		}
		if s := b.Text(t, `SELECT group_concat(status, ' ') FROM (SELECT status FROM approvals WHERE release_id = ? ORDER BY created_at, status) a`, r.ID); s != "approved waiting" {
			t.Fatalf("requests %q, want the old one approved and exactly one new one waiting", s)
		}
		if s := b.Text(t, `SELECT state_hash FROM approvals WHERE release_id = ? AND status = 'waiting'`, r.ID); s != got.Hash {
			t.Fatalf("request bound to %s, want %s", s, got.Hash)
		}
		// Waiting, edited again: the waiting request is replaced, not added to.
		d = b.Node(t, b.Article.ID)
		got2, err := b.Releases.EditAndRepin(ctx, b.Contributor, b.Site.ID, b.Article.ID, d.Rev, got.Rev, edit(d, "Results.\nCorrected twice."))
		if err != nil {
			t.Fatal(err)
		}
		if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ? AND status = 'waiting'`, r.ID); n != 1 || got2.State != release.StateAwaitingApproval {
			t.Fatalf("%d waiting requests, state %s", n, got2.State)
		}
		if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ? AND status = 'withdrawn'`, r.ID); n != 1 {
			t.Fatalf("%d withdrawn requests, want the replaced one", n)
		}
		// The editor approves the edit; the tick publishes it.
		q := b.Text(t, `SELECT id FROM approvals WHERE release_id = ? AND status = 'waiting'`, r.ID)
		if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q); err != nil {
			t.Fatal(err)
		}
		b.Clock.Set(nine)
		b.Tick(t)
		if l := b.Live(t)[b.Article.ID]; l.Body.Text != "Results.\nCorrected twice." {
			t.Fatalf("live %q", l.Body.Text)
		}
	})

	t.Run("NotHeld", func(t *testing.T) {
		b := newBundle(t)
		b.RefuseChange(t, engine.CodeStale, "", func() error {
			_, err := b.Releases.EditAndRepin(ctx, b.Editor, b.Site.ID, b.Article.ID, b.Article.Rev, 1, content.Edit{Title: "x", Slug: "x"})
			return err
		})
	})
}
