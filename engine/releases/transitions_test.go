package releases_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/internal/enginetest"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/engine/scheduler"
)

// The RFC §5.2 table, row by row, for the rows Studio has today: people's
// acts and the scheduler's. Each row is driven through the use cases on a
// real SQLite file and checked for what the row promises: the state after
// (and that engine/model/release's table allows the move), the holds
// (release_items.held, edits refused with scheduled_locked naming the
// release while held, an edit saving once the release lets go) and the
// audit row's action and actor.
//
// Rows that do not exist yet (no agents, no auto mode, no draft releases
// people can schedule later) are listed in TestReleaseTransitionRowsNotInStudio.

// rowAfter is what a §5.2 row leaves behind.
type rowAfter struct {
	from, to release.State
	held     bool   // the release's items are held and their nodes locked
	action   string // the release's newest audit row
	actor    string // its actor's id (engine.Scheduler.ID for the tick)
}

// checkRow checks a row's promises for release id of b's site. An edit of
// each item's node is saved at the end when the release let go.
func checkRow(t *testing.T, b *testBundle, id string, w rowAfter) releases.ReleaseRow {
	t.Helper()
	if !release.CanTransition(w.from, w.to) {
		t.Fatalf("engine/model/release refuses %s → %s, a §5.2 row", w.from, w.to)
	}
	got := b.Release(t, id)
	if got.State != w.to {
		t.Fatalf("state %s, want %s (outcome %+v)", got.State, w.to, got.Outcome)
	}
	if got.State.Terminal() && (got.Outcome == nil || got.Outcome.Kind != string(got.State)) {
		t.Fatalf("terminal %s with outcome %+v: outcome.kind must equal the state", got.State, got.Outcome)
	}
	b.lastAudit(t, id, w.action, w.actor)
	want := 0
	if w.held {
		want = len(got.Items)
	}
	if h := b.heldItems(t, id); h != want {
		t.Fatalf("%d of %d items held, want %d", h, len(got.Items), want)
	}
	if got.State.Holds() != w.held {
		t.Fatalf("state %s Holds() = %v, want %v", got.State, got.State.Holds(), w.held)
	}
	for _, it := range got.Items {
		if w.held {
			b.wantLocked(t, got.SiteID, it.NodeID, id)
		} else {
			b.wantEditable(t, got.SiteID, it.NodeID)
		}
	}
	return got
}

func argsHashOf(releaseID string, at time.Time) string {
	sum := sha256.Sum256([]byte(releaseID + "\n" + at.UTC().Format("2006-01-02T15:04:05.000Z")))
	return hex.EncodeToString(sum[:])
}

func TestReleaseTransitionTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ten30 := nine.Add(90 * time.Minute)

	// (new) → scheduled: a person who may approve schedules; their own
	// decision is the approval, and no request is filed.
	t.Run("NewToScheduledByAnApprover", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		got := b.Release(t, r.ID)
		a := got.Approval
		if a == nil || a.Kind != "person" || a.By.ID != b.Editor.ID || a.ExecuteAt == nil || !a.ExecuteAt.Equal(nine) || a.ApprovalID != "" {
			t.Fatalf("approval %+v, want the editor's own, for 09:00, with no request", a)
		}
		if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ?`, r.ID); n != 0 {
			t.Fatalf("%d requests filed for an approver's own schedule", n)
		}
		if d := b.Node(t, b.Article.ID); d.Held == nil || d.Held.At == nil || !d.Held.At.Equal(nine) {
			t.Fatalf("hold %+v, want one naming 09:00", d.Held)
		}
		a0 := b.lastAudit(t, r.ID, "release.schedule", b.Editor.ID)
		if a0.Details["state"] != string(release.StateScheduled) || a0.Details["hash"] != r.Hash {
			t.Fatalf("audit details %v", a0.Details)
		}
		checkRow(t, b, r.ID, rowAfter{from: release.StateDraft, to: release.StateScheduled, held: true,
			action: "release.schedule", actor: b.Editor.ID})
		// Released (canceled), the node is free again.
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, got.Rev); err != nil {
			t.Fatal(err)
		}
		b.wantEditable(t, b.Site.ID, b.Article.ID)
	})

	// (new) → awaiting_approval: a Contributor files one request bound to
	// rl1: and the time. (An Author may not schedule someone else's item
	// at all: schedules:write:own, TestOwnLevelByRole.)
	for _, who := range []string{"Contributor"} {
		t.Run("NewToAwaitingApprovalBy"+who, func(t *testing.T) {
			t.Parallel()
			b := newBundle(t)
			u := b.Contributor
			if who != "Contributor" {
				u = b.Author
			}
			r := b.Schedule(t, u, b.Article, "2026-11-02", "09:00")
			got := b.Release(t, r.ID)
			if got.Approval != nil {
				t.Fatalf("approval %+v before anyone approved", got.Approval)
			}
			if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ?`, r.ID); n != 1 {
				t.Fatalf("%d requests, want one", n)
			}
			q := b.waitingRequest(t, r.ID)
			if !strings.HasPrefix(q.StateHash, release.HashPrefix) || q.StateHash != got.Hash || q.StateHash != release.Hash(b.Site.ID, got.Items) {
				t.Fatalf("request bound to %q, want the release's rl1: %q", q.StateHash, got.Hash)
			}
			if q.ArgsHash != argsHashOf(r.ID, nine) || q.ExecuteAt == nil || !q.ExecuteAt.Equal(nine) {
				t.Fatalf("request time binding %q at %v, want {release, 09:00}", q.ArgsHash, q.ExecuteAt)
			}
			if q.RequestedBy.ID != u.ID || q.Status != releases.RequestWaiting {
				t.Fatalf("request %+v", q)
			}
			a := b.lastAudit(t, r.ID, "release.schedule", u.ID)
			if a.Details["state"] != string(release.StateAwaitingApproval) {
				t.Fatalf("audit details %v", a.Details)
			}
			checkRow(t, b, r.ID, rowAfter{from: release.StateDraft, to: release.StateAwaitingApproval, held: true,
				action: "release.schedule", actor: u.ID})
		})
	}

	// awaiting_approval → scheduled: an approver approves; carry-out
	// consumes the request.
	t.Run("AwaitingApprovalToScheduledOnApproval", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		q := b.waitingRequest(t, r.ID)
		if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q.ID); err != nil {
			t.Fatal(err)
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateAwaitingApproval, to: release.StateScheduled, held: true,
			action: "approval.approve", actor: b.Editor.ID})
		a := got.Approval
		if a == nil || a.Kind != "person" || a.By.ID != b.Editor.ID || a.ApprovalID != q.ID || a.ExecuteAt == nil || !a.ExecuteAt.Equal(nine) {
			t.Fatalf("approval %+v", a)
		}
		if s := b.Text(t, `SELECT status FROM approvals WHERE id = ?`, q.ID); s != releases.RequestApproved {
			t.Fatalf("request %s, want approved (consumed)", s)
		}
	})

	// awaiting_approval → draft: denied, or a person's Unschedule; and a
	// carry-out whose binding no longer matches is denied by the system.
	for _, tc := range []struct {
		name          string
		act           func(t *testing.T, b *testBundle, r release.Release, q releases.ApprovalRequest) error
		action, actor func(b *testBundle) string
		status        string
	}{
		{"Denied", func(t *testing.T, b *testBundle, r release.Release, q releases.ApprovalRequest) error {
			return b.Releases.Deny(ctx, b.Editor, b.Site.ID, q.ID, "Not before the count ends.")
		}, func(*testBundle) string { return "approval.deny" }, func(b *testBundle) string { return b.Editor.ID }, releases.RequestDenied},
		{"UnscheduledByTheRequester", func(t *testing.T, b *testBundle, r release.Release, q releases.ApprovalRequest) error {
			return b.Releases.Unschedule(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev)
		}, func(*testBundle) string { return "release.unschedule" }, func(b *testBundle) string { return b.Contributor.ID }, releases.RequestWithdrawn},
		{"UnscheduledByAnApprover", func(t *testing.T, b *testBundle, r release.Release, q releases.ApprovalRequest) error {
			return b.Releases.Unschedule(ctx, b.Admin, b.Site.ID, r.ID, r.Rev)
		}, func(*testBundle) string { return "release.unschedule" }, func(b *testBundle) string { return b.Admin.ID }, releases.RequestWithdrawn},
		{"CarryOutMismatch", func(t *testing.T, b *testBundle, r release.Release, q releases.ApprovalRequest) error {
			// The time moved under the request without a use case (as an
			// older process would have): the binding no longer matches.
			b.SetExecuteAt(t, r.ID, nine.Add(time.Hour))
			_, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q.ID)
			if e, ok := engine.AsError(err); ok && e.Code == engine.CodeStateChanged {
				return nil
			}
			return errors.New("approve after a mismatch: want state_changed, got " + errString(err))
		}, func(*testBundle) string { return "approval.deny" }, func(*testBundle) string { return engine.Scheduler.ID }, releases.RequestDenied},
	} {
		t.Run("AwaitingApprovalToDraft/"+tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBundle(t)
			r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
			q := b.waitingRequest(t, r.ID)
			if err := tc.act(t, b, r, q); err != nil {
				t.Fatal(err)
			}
			if s := b.Text(t, `SELECT status FROM approvals WHERE id = ?`, q.ID); s != tc.status {
				t.Fatalf("request %s, want %s", s, tc.status)
			}
			if d := b.Node(t, b.Article.ID); d.Body.Status != content.StatusDraft {
				t.Fatalf("article %s, want the draft put back", d.Body.Status)
			}
			got := checkRow(t, b, r.ID, rowAfter{from: release.StateAwaitingApproval, to: release.StateDraft,
				action: tc.action(b), actor: tc.actor(b)})
			if got.Approval != nil || got.Outcome != nil {
				t.Fatalf("draft with approval %+v outcome %+v", got.Approval, got.Outcome)
			}
			b.Clock.Set(nine)
			if rep := b.Tick(t); rep.Ran != 0 {
				t.Fatalf("a draft ran: %+v", rep)
			}
		})
	}

	// scheduled → scheduled: an approver moves it; the approval is kept,
	// executeAt follows, audited with both times (D4).
	t.Run("ScheduledToScheduledByAnApproversMove", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		before := b.Release(t, r.ID)
		if _, err := b.Releases.Move(ctx, b.Admin, b.Site.ID, r.ID, before.Rev, "2026-11-02", "10:30"); err != nil {
			t.Fatal(err)
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateScheduled, to: release.StateScheduled, held: true,
			action: "release.reschedule", actor: b.Admin.ID})
		a := got.Approval
		if a == nil || a.By.ID != b.Editor.ID || !a.At.Equal(before.Approval.At) || a.ExecuteAt == nil || !a.ExecuteAt.Equal(ten30) {
			t.Fatalf("approval %+v, want the editor's kept with executeAt 10:30", a)
		}
		sameInstant(t, "execute_at", *got.ExecuteAt, ten30)
		if got.Hash != r.Hash {
			t.Fatalf("hash %s → %s: the time is not in the binding", r.Hash, got.Hash)
		}
		au := b.lastAudit(t, r.ID, "release.reschedule", b.Admin.ID)
		if au.Details["from"] != "2026-11-02T06:00:00.000Z" || au.Details["to"] != "2026-11-02T07:30:00.000Z" {
			t.Fatalf("audit %v, want old and new times", au.Details)
		}
		if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ?`, r.ID); n != 0 {
			t.Fatalf("%d requests filed by an approver's move", n)
		}
	})

	// scheduled → awaiting_approval: anyone else's move voids the approval
	// and files a new request for the new time.
	t.Run("ScheduledToAwaitingApprovalByANonApproversMove", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		q := b.waitingRequest(t, r.ID)
		approved, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Releases.Move(ctx, b.Contributor, b.Site.ID, r.ID, approved.Rev, "2026-11-02", "10:30"); err != nil {
			t.Fatal(err)
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateScheduled, to: release.StateAwaitingApproval, held: true,
			action: "release.reschedule", actor: b.Contributor.ID})
		if got.Approval != nil {
			t.Fatalf("approval %+v survived a contributor's move", got.Approval)
		}
		nq := b.waitingRequest(t, r.ID)
		if nq.ID == q.ID || nq.StateHash != got.Hash || nq.ArgsHash != argsHashOf(r.ID, ten30) || nq.RequestedBy.ID != b.Contributor.ID {
			t.Fatalf("new request %+v", nq)
		}
		if s := b.Text(t, `SELECT status FROM approvals WHERE id = ?`, q.ID); s != releases.RequestApproved {
			t.Fatalf("the consumed request is %s", s)
		}
		if au := b.lastAudit(t, r.ID, "release.reschedule", b.Contributor.ID); au.Details["approval"] != "requested" {
			t.Fatalf("audit %v", au.Details)
		}
		// At 10:30 nobody has approved the new time: it expires, unpublished.
		b.Clock.Set(ten30)
		b.Tick(t)
		if got := b.Release(t, r.ID); got.State != release.StateExpired {
			t.Fatalf("unapproved move ran to %s", got.State)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("published at a time nobody approved")
		}
	})

	// scheduled → draft: "Unschedule and edit" (§6.2).
	t.Run("ScheduledToDraftByUnschedule", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateScheduled, to: release.StateDraft,
			action: "release.unschedule", actor: b.Editor.ID})
		if got.Approval != nil {
			t.Fatalf("draft kept approval %+v", got.Approval)
		}
	})

	// scheduled → published in one transaction: when the run's reads find
	// nothing in its way, the tick claims and publishes it in one guarded
	// write, running only inside it. Until then it is scheduled, unleased,
	// its nodes held, with no run row; then published, its run succeeded
	// on its first attempt.
	t.Run("ScheduledToPublishedInOneTransaction", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		hs, ticker := b.hooked()
		sawWrite := false
		hs.beforeApply = func(a scheduler.Apply) error {
			sawWrite = true
			got := b.Release(t, r.ID)
			if a.Claim == nil || a.Token != "" || got.State != release.StateScheduled || got.LeaseToken != "" {
				t.Fatalf("before the write: claim %+v token %q, release %s lease %q; want the claim in the write, scheduled",
					a.Claim, a.Token, got.State, got.LeaseToken)
			}
			if h := b.heldItems(t, r.ID); h != 1 {
				t.Fatalf("%d items held before the write", h)
			}
			if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id = ?`, r.ID); n != 0 {
				t.Fatalf("%d run rows before the write", n)
			}
			return nil
		}
		b.Clock.Set(nine)
		rep, err := enginetest.SchedulerOf(ticker, hs).RunDue(ctx, "manual")
		if err != nil || rep.Published != 1 || !sawWrite {
			t.Fatalf("tick: %+v %v (saw the write %v)", rep, err, sawWrite)
		}
		if !release.CanTransition(release.StateScheduled, release.StateRunning) {
			t.Fatal("engine/model/release refuses scheduled → running")
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateRunning, to: release.StatePublished,
			action: "release.publish", actor: engine.Scheduler.ID})
		snapID, _ := b.liveOf(t, b.Site.ID)
		if o := got.Outcome; o.RunID != ids.RunID(r.ID, nine) || o.SnapshotID != snapID || got.LeaseToken != "" {
			t.Fatalf("outcome %+v lease %q", o, got.LeaseToken)
		}
		if s := b.Text(t, `SELECT state || ' ' || attempt || ' ' || COALESCE(lease_token, '-') FROM schedule_runs WHERE id = ?`,
			ids.RunID(r.ID, nine)); s != "succeeded 1 -" {
			t.Fatalf("run row %q, want succeeded on its first attempt, no lease", s)
		}
	})

	// scheduled → running → published, the claimed way (a takeover, a
	// retry, or a one-transaction write that failed): the tick claims it
	// (running, under a lease, nodes still held), then the guarded batch
	// publishes it.
	t.Run("ScheduledToRunningToPublished", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		hs, ticker := b.hooked()
		hs.claimFirst = true
		sawRunning := false
		hs.beforeApply = func(a scheduler.Apply) error {
			sawRunning = true
			got := b.Release(t, r.ID)
			if !release.CanTransition(release.StateScheduled, release.StateRunning) {
				t.Fatal("engine/model/release refuses scheduled → running")
			}
			if got.State != release.StateRunning || got.LeaseToken == "" || got.LeaseToken != a.Token || got.LeaseUntil == nil ||
				!got.LeaseUntil.After(nine) {
				t.Fatalf("before the batch: %s lease %q until %v, want running under the run's lease", got.State, got.LeaseToken, got.LeaseUntil)
			}
			if h := b.heldItems(t, r.ID); h != 1 {
				t.Fatalf("running with %d items held", h)
			}
			b.wantLocked(t, b.Site.ID, b.Article.ID, r.ID)
			if s := b.Text(t, `SELECT state || ' ' || lease_token FROM schedule_runs WHERE id = ?`, a.RunID); s != "running "+a.Token {
				t.Fatalf("run row %q", s)
			}
			// A running release is past people's changes: its outcome is seconds away.
			before := b.Dump(t)
			wantRefusal(t, b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, got.Rev), engine.CodeRunning, "")
			wantRefusal(t, b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, got.Rev), engine.CodeBadState, "")
			_, err := b.Releases.Move(ctx, b.Editor, b.Site.ID, r.ID, got.Rev, "2026-11-02", "10:00")
			wantRefusal(t, err, engine.CodeBadState, "")
			_, err = b.Sched.PublishNow(ctx, b.Editor, b.Site.ID, r.ID, got.Rev)
			wantRefusal(t, err, engine.CodeRunning, "")
			if after := b.Dump(t); after != before {
				t.Fatalf("refused changes of a running release changed:\n%s\n%s", before, after)
			}
			return nil
		}
		b.Clock.Set(nine)
		rep, err := enginetest.SchedulerOf(ticker, hs).RunDue(ctx, "manual")
		if err != nil || rep.Published != 1 || !sawRunning {
			t.Fatalf("tick: %+v %v (saw running %v)", rep, err, sawRunning)
		}
		target := *r.Items[0].Target
		if l := b.Live(t)[b.Article.ID]; l.Rev != target.Rev || l.Hash != target.Hash {
			t.Fatalf("live article %+v, want the pinned %+v", l.Ref, target)
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateRunning, to: release.StatePublished,
			action: "release.publish", actor: engine.Scheduler.ID})
		snapID, _ := b.liveOf(t, b.Site.ID)
		if o := got.Outcome; o.RunID != ids.RunID(r.ID, nine) || o.SnapshotID != snapID || got.LeaseToken != "" {
			t.Fatalf("outcome %+v lease %q", o, got.LeaseToken)
		}
	})

	// running → conflict: a rollback moved a pinned node's live version
	// between pin and run.
	t.Run("RunningToConflictAfterARollback", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		first := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		b.Clock.Set(nine)
		b.Tick(t)
		d := b.Node(t, b.Article.ID)
		body := d.Body
		body.Text = "Final results."
		edited, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body)
		if err != nil {
			t.Fatal(err)
		}
		r := b.Schedule(t, b.Editor, edited, "2026-11-02", "10:30")
		site, _ := b.Eng.Site(ctx, b.Site.ID)
		if _, err := b.Releases.Undo(ctx, b.Editor, b.Site.ID, first.ID, site.Rev); err != nil {
			t.Fatal(err)
		}
		liveBefore, _ := b.liveOf(t, b.Site.ID)
		b.Clock.Set(ten30)
		if rep := b.Tick(t); rep.Failed != 1 {
			t.Fatalf("tick %+v", rep)
		}
		if liveAfter, _ := b.liveOf(t, b.Site.ID); liveAfter != liveBefore {
			t.Fatalf("a conflict moved the live snapshot %s → %s", liveBefore, liveAfter)
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateRunning, to: release.StateConflict,
			action: "release.conflict", actor: engine.Scheduler.ID})
		c := got.Outcome.Conflicts
		if len(c) != 1 || c[0].NodeID != b.Article.ID || !sameVersion(c[0].Expected, r.Items[0].Base) || c[0].Found != nil {
			t.Fatalf("conflicts %+v, want the article expected at its base and found not live", c)
		}
	})

	// scheduled → missed: more than an hour late; exactly an hour still runs.
	t.Run("ScheduledToMissed", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		b.Clock.Set(nine.Add(time.Hour + time.Minute))
		if rep := b.Tick(t); rep.Failed != 1 || rep.Published != 0 {
			t.Fatalf("tick %+v", rep)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("a missed release was published")
		}
		if d := b.Node(t, b.Article.ID); d.Body.Status != content.StatusDraft {
			t.Fatalf("article %s, want the draft put back", d.Body.Status)
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateScheduled, to: release.StateMissed,
			action: "release.missed", actor: engine.Scheduler.ID})
		if o := got.Outcome; o.LatenessSeconds == nil || *o.LatenessSeconds != 3660 {
			t.Fatalf("outcome %+v, want 3660 s late", o)
		}
		if s := b.Text(t, `SELECT state || ' ' || lateness_s FROM schedule_runs WHERE id = ?`, ids.RunID(r.ID, nine)); s != "missed 3660" {
			t.Fatalf("run row %q", s)
		}
	})
	t.Run("ScheduledExactlyAnHourLateStillRuns", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		b.Clock.Set(nine.Add(time.Hour))
		if rep := b.Tick(t); rep.Published != 1 || rep.Late != 1 {
			t.Fatalf("tick %+v", rep)
		}
		checkRow(t, b, r.ID, rowAfter{from: release.StateRunning, to: release.StatePublished,
			action: "release.publish", actor: engine.Scheduler.ID})
	})

	// running → missed: the run's batch failed (a store error) and left
	// the release running under its lease; the next look is more than an
	// hour late, so it is missed, never published.
	t.Run("RunningToMissedAfterAFailedBatch", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		hs, ticker := b.hooked()
		hs.claimFirst = true
		hs.beforeApply = func(scheduler.Apply) error { return errors.New("disk I/O error") }
		b.Clock.Set(nine)
		if _, err := enginetest.SchedulerOf(ticker, hs).RunDue(ctx, "manual"); err == nil {
			t.Fatal("the failed batch was not reported")
		}
		if got := b.Release(t, r.ID); got.State != release.StateRunning || b.heldItems(t, r.ID) != 1 {
			t.Fatalf("after the failed batch: %s with %d held", got.State, b.heldItems(t, r.ID))
		}
		b.Clock.Set(nine.Add(61 * time.Minute))
		if rep := b.Tick(t); rep.Failed != 1 || rep.Published != 0 {
			t.Fatalf("tick %+v", rep)
		}
		checkRow(t, b, r.ID, rowAfter{from: release.StateRunning, to: release.StateMissed,
			action: "release.missed", actor: engine.Scheduler.ID})
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("published more than an hour late")
		}
	})

	// awaiting_approval → expired: nobody approved by its time (D5).
	t.Run("AwaitingApprovalToExpired", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		q := b.waitingRequest(t, r.ID)
		b.Clock.Set(nine)
		b.Tick(t)
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateAwaitingApproval, to: release.StateExpired,
			action: "release.expired", actor: engine.Scheduler.ID})
		if got.Outcome.Reason != "unapproved" {
			t.Fatalf("outcome %+v", got.Outcome)
		}
		if s := b.Text(t, `SELECT status FROM approvals WHERE id = ?`, q.ID); s != releases.RequestExpired {
			t.Fatalf("request %s", s)
		}
	})

	// scheduled → expired: the approver lost the right before T (§10.6).
	t.Run("ScheduledToExpiredApprovalLost", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		b.setRole(t, b.Editor, "author")
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Failed != 1 {
			t.Fatalf("tick %+v", rep)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("published on a lost approval")
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateScheduled, to: release.StateExpired,
			action: "release.expired", actor: engine.Scheduler.ID})
		if got.Outcome.Reason != "approval_lost" {
			t.Fatalf("outcome %+v", got.Outcome)
		}
	})

	// running → failed: a target references a node that is neither live
	// nor in the release (§6.3 step 5).
	t.Run("RunningToFailedDependencyMissing", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r, dep := b.dependencyGone(t)
		liveBefore, _ := b.liveOf(t, b.Site.ID)
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Failed != 1 {
			t.Fatalf("tick %+v", rep)
		}
		if snap, _ := b.liveOf(t, b.Site.ID); snap != liveBefore {
			t.Fatalf("a failed release moved the live snapshot %s → %s", liveBefore, snap)
		}
		got := checkRow(t, b, r.ID, rowAfter{from: release.StateRunning, to: release.StateFailed,
			action: "release.failed", actor: engine.Scheduler.ID})
		if o := got.Outcome; o.Code != "dependency_missing" || o.Message != dep {
			t.Fatalf("outcome %+v, want dependency_missing naming %s", o, dep)
		}
	})
	t.Run("DependencyLiveRuns", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		sources := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Sources", Slug: "sources", Status: content.StatusPublished})
		b.publishSite(t, b.Site.ID)
		body := b.Article.Body
		body.Refs = []string{sources.ID}
		art, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, b.Article.ID, b.Article.Rev, body)
		if err != nil {
			t.Fatal(err)
		}
		b.Schedule(t, b.Editor, art, "2026-11-02", "09:00")
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick %+v: a live dependency must not fail the run", rep)
		}
	})

	// any non-terminal → canceled, by a person.
	for _, from := range []release.State{release.StateDraft, release.StateAwaitingApproval, release.StateScheduled} {
		t.Run("ToCanceledFrom/"+string(from), func(t *testing.T) {
			t.Parallel()
			b := newBundle(t)
			u := b.Editor
			if from == release.StateAwaitingApproval {
				u = b.Contributor
			}
			r := b.Schedule(t, u, b.Article, "2026-11-02", "09:00")
			if from == release.StateDraft {
				if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
					t.Fatal(err)
				}
			}
			cur := b.Release(t, r.ID)
			if cur.State != from {
				t.Fatalf("setup reached %s, want %s", cur.State, from)
			}
			b.Clock.Advance(time.Minute)
			if err := b.Releases.Cancel(ctx, b.Admin, b.Site.ID, r.ID, cur.Rev); err != nil {
				t.Fatal(err)
			}
			got := checkRow(t, b, r.ID, rowAfter{from: from, to: release.StateCanceled,
				action: "release.cancel", actor: b.Admin.ID})
			if o := got.Outcome; o.By == nil || o.By.ID != b.Admin.ID || !o.At.Equal(start.Add(time.Minute)) {
				t.Fatalf("outcome %+v", o)
			}
			if from == release.StateAwaitingApproval {
				if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ? AND status = 'waiting'`, r.ID); n != 0 {
					t.Fatalf("%d requests still waiting for a canceled release", n)
				}
			}
			b.Clock.Set(nine)
			if rep := b.Tick(t); rep.Ran != 0 {
				t.Fatalf("a canceled release ran: %+v", rep)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// TestReleaseTransitionsRefused tries what §5.2 has no row for, from states
// reached through the use cases, and checks each is refused with its code
// and changes nothing at all.
func TestReleaseTransitionsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	type refusal struct {
		op   string // cancel | unschedule | move | publishNow
		code string
	}
	for _, tc := range []struct {
		state release.State
		reach func(t *testing.T, b *testBundle) string // returns the release id
		want  []refusal
	}{
		{release.StatePublished, func(t *testing.T, b *testBundle) string {
			r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
			b.Clock.Set(nine)
			b.Tick(t)
			return r.ID
		}, []refusal{{"cancel", engine.CodeBadState}, {"unschedule", engine.CodeBadState}, {"move", engine.CodeBadState}, {"publishNow", engine.CodeBadState}}},
		{release.StateCanceled, func(t *testing.T, b *testBundle) string {
			r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
			if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
				t.Fatal(err)
			}
			return r.ID
		}, []refusal{{"cancel", engine.CodeBadState}, {"unschedule", engine.CodeBadState}, {"move", engine.CodeBadState}, {"publishNow", engine.CodeBadState}}},
		{release.StateMissed, func(t *testing.T, b *testBundle) string {
			r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
			b.Clock.Set(nine.Add(2 * time.Hour))
			b.Tick(t)
			return r.ID
		}, []refusal{{"cancel", engine.CodeBadState}, {"unschedule", engine.CodeBadState}, {"move", engine.CodeBadState}}},
		{release.StateExpired, func(t *testing.T, b *testBundle) string {
			r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
			b.Clock.Set(nine)
			b.Tick(t)
			return r.ID
		}, []refusal{{"cancel", engine.CodeBadState}, {"unschedule", engine.CodeBadState}, {"move", engine.CodeBadState},
			{"approve", releases.CodeNotWaiting}, {"deny", releases.CodeNotWaiting}}},
		{release.StateFailed, func(t *testing.T, b *testBundle) string {
			r, _ := b.dependencyGone(t)
			b.Clock.Set(nine)
			b.Tick(t)
			return r.ID
		}, []refusal{{"cancel", engine.CodeBadState}, {"unschedule", engine.CodeBadState}, {"move", engine.CodeBadState}, {"publishNow", engine.CodeBadState}}},
		{release.StateDraft, func(t *testing.T, b *testBundle) string {
			r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
			if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
				t.Fatal(err)
			}
			return r.ID
		}, []refusal{{"unschedule", engine.CodeBadState}, {"move", engine.CodeBadState}, {"publishNow", engine.CodeBadState}}},
	} {
		t.Run(string(tc.state), func(t *testing.T) {
			t.Parallel()
			b := newBundle(t)
			id := tc.reach(t, b)
			r := b.Release(t, id)
			if r.State != tc.state {
				t.Fatalf("setup reached %s, want %s", r.State, tc.state)
			}
			before := b.Dump(t)
			for _, w := range tc.want {
				var err error
				switch w.op {
				case "cancel":
					err = b.Releases.Cancel(ctx, b.Editor, b.Site.ID, id, r.Rev)
				case "unschedule":
					err = b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, id, r.Rev)
				case "move":
					_, err = b.Releases.Move(ctx, b.Editor, b.Site.ID, id, r.Rev, "2026-11-03", "09:00")
				case "publishNow":
					_, err = b.Sched.PublishNow(ctx, b.Editor, b.Site.ID, id, r.Rev)
				case "approve", "deny":
					qid := b.Text(t, `SELECT id FROM approvals WHERE release_id = ?`, id)
					if w.op == "approve" {
						_, err = b.Releases.Approve(ctx, b.Editor, b.Site.ID, qid)
					} else {
						err = b.Releases.Deny(ctx, b.Editor, b.Site.ID, qid, "too late")
					}
				}
				if e, ok := engine.AsError(err); !ok || e.Code != w.code {
					t.Errorf("%s of a %s release: err %v, want %s", w.op, tc.state, err, w.code)
				}
			}
			if after := b.Dump(t); after != before {
				t.Fatalf("refused transitions of a %s release changed the database:\nbefore:\n%s\nafter:\n%s", tc.state, before, after)
			}
			// The model agrees: none of these moves is a §5.2 row.
			for _, to := range []release.State{release.StateCanceled, release.StateDraft, release.StateScheduled} {
				if tc.state != release.StateDraft && release.CanTransition(tc.state, to) {
					t.Errorf("engine/model/release allows %s → %s", tc.state, to)
				}
			}
		})
	}
}

// §5.2 rows proven elsewhere:
//   (new) → draft, draft → scheduled, draft → awaiting_approval     drafts_test.go
//   scheduled → awaiting_approval (an item re-pinned)               repin_test.go (EditAndRepin)
//   conflict → scheduled / awaiting_approval / canceled             repin_test.go
//   running → canceled (the system: a node gone)                    delete_test.go
//   running → missed (store errors retried until the hour ends)     retry_test.go
// Rows that wait for agents and auto mode (the MCP issue): draft →
// scheduled (auto), the agent's own cancel and move, scheduled → expired
// for auto approvals, an agent's cancel.

// TestRunEndsAreMovesOfTheModel checks that every end the tick writes for a
// claimed run (FinishRelease), read from the release as it is at that
// write, is a move engine/model/release's §5.2 table allows. One site, two
// releases due at 09:00: one whose dependency is gone (failed), one whose
// approver was demoted (expired, approval_lost).
func TestRunEndsAreMovesOfTheModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	failing, _ := b.dependencyGone(t)
	demoted := b.AddUser(t, "Deniz", "editor")
	page := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Results", Slug: "results", Status: content.StatusDraft})
	expiring := b.Schedule(t, demoted, page, "2026-11-02", "09:00")
	b.setRole(t, demoted, "author")

	hs, ticker := b.hooked()
	type move struct {
		id       string
		from, to release.State
	}
	var moves []move
	hs.onFinish = func(f scheduler.Finish) {
		moves = append(moves, move{f.ReleaseID, b.Release(t, f.ReleaseID).State, f.State})
	}
	b.Clock.Set(nine)
	if _, err := enginetest.SchedulerOf(ticker, hs).RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	want := map[string]release.State{failing.ID: release.StateFailed, expiring.ID: release.StateExpired}
	if len(moves) != len(want) {
		t.Fatalf("run ends %+v, want one per release", moves)
	}
	var outside []string
	for _, m := range moves {
		if m.to != want[m.id] {
			t.Fatalf("release %s ended %s, want %s", m.id, m.to, want[m.id])
		}
		if !release.CanTransition(m.from, m.to) {
			outside = append(outside, fmt.Sprintf("%s → %s (%s)", m.from, m.to, m.id))
		}
	}
	if len(outside) > 0 {
		t.Fatalf("run ends outside the §5.2 model: %v", outside)
	}
}
