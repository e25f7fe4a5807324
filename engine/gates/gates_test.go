package gates_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/gates"
	"studio/engine/model/gate"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// Gate times of these tests, in Istanbul (UTC+3): tomorrow 09:00 and
// Friday 6 November 18:00.
var (
	tomorrowNine = time.Date(2026, 11, 3, 6, 0, 0, 0, time.UTC)
	fridayEve    = time.Date(2026, 11, 6, 15, 0, 0, 0, time.UTC)
)

// setGates changes a node's gates as u, on the rev the node has now.
func (b *testBundle) setGates(t *testing.T, u engine.User, id string, from, until gates.GateTime, apply string) gates.GateResult {
	t.Helper()
	res, err := b.Gates.SetGates(context.Background(), u, b.gateInput(t, id, from, until, apply))
	if err != nil {
		t.Fatalf("set gates of %s: %v", id, err)
	}
	return res
}

func (b *testBundle) gateInput(t *testing.T, id string, from, until gates.GateTime, apply string) gates.GateInput {
	t.Helper()
	return gates.GateInput{SiteID: b.Site.ID, NodeID: id, ExpectedRev: b.Node(t, id).Rev, From: from, Until: until, Apply: apply}
}

// liveGates is the article's live from and until.
func (b *testBundle) liveGates(t *testing.T, id string) (from, until *time.Time) {
	t.Helper()
	l, ok := b.Live(t)[id]
	if !ok {
		t.Fatalf("%s is not live", id)
	}
	return l.Body.Gates()
}

func wantInstant(t *testing.T, what string, got *time.Time, want time.Time) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s is absent, want %s", what, want.Format(time.RFC3339))
	}
	sameInstant(t, what, *got, want)
}

func auditDetails(t *testing.T, b *testBundle, action, releaseID string) map[string]any {
	t.Helper()
	raw := b.Text(t, `SELECT details FROM audit WHERE action = ? AND release_id = ?`, action, releaseID)
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGateValidation: every refused gate change says why, in a field where
// it has one, and writes nothing.
func TestGateValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	id := b.Article.ID
	rev := b.Node(t, id).Rev
	in := func(from, until gates.GateTime) gates.GateInput {
		return gates.GateInput{SiteID: b.Site.ID, NodeID: id, ExpectedRev: rev, From: from, Until: until}
	}
	set := func(gi gates.GateInput) func() error {
		return func() error { _, err := b.Gates.SetGates(ctx, b.Editor, gi); return err }
	}
	for _, c := range []struct {
		name, code, field string
		in                gates.GateInput
	}{
		{"BadDate", "bad_date", "from", in(gates.GateWall("2026-13-01", "09:00"), gates.KeepGate())},
		{"DateWithoutTime", "bad_time", "until", in(gates.KeepGate(), gates.GateWall("2026-11-03", ""))},
		{"TimeWithoutDate", "bad_date", "from", in(gates.GateWall("", "09:00"), gates.KeepGate())},
		{"FromInThePast", gates.CodeGateInPast, "from", in(gates.GateWall("2026-11-02", "07:59"), gates.KeepGate())},
		{"FromAtNow", gates.CodeGateInPast, "from", in(gates.GateAt(start), gates.KeepGate())},
		{"UntilInThePast", gates.CodeGateInPast, "until", in(gates.KeepGate(), gates.GateAt(start.Add(-time.Hour)))},
		{"UntilBeforeFrom", gates.CodeGateOrder, "until", in(gates.GateAt(fridayEve), gates.GateAt(tomorrowNine))},
		{"UntilAtFrom", gates.CodeGateOrder, "until", in(gates.GateWall("2026-11-03", "09:00"), gates.GateAt(tomorrowNine))},
		{"BadApply", gates.CodeBadApply, "apply", gates.GateInput{SiteID: b.Site.ID, NodeID: id, ExpectedRev: rev,
			From: gates.GateAt(tomorrowNine), Apply: "later"}},
		{"Stale", engine.CodeStale, "", gates.GateInput{SiteID: b.Site.ID, NodeID: id, ExpectedRev: rev - 1,
			From: gates.GateAt(tomorrowNine)}},
	} {
		t.Run(c.name, func(t *testing.T) { b.RefuseChange(t, c.code, c.field, set(c.in)) })
	}
	t.Run("NotFound", func(t *testing.T) {
		before := b.Dump(t)
		_, err := b.Gates.SetGates(ctx, b.Editor, gates.GateInput{SiteID: b.Site.ID, NodeID: "ent_nothing", ExpectedRev: 1,
			From: gates.GateAt(tomorrowNine)})
		if err != engine.ErrNotFound {
			t.Fatalf("err = %v, want not found", err)
		}
		if b.Dump(t) != before {
			t.Fatal("a refused change wrote something")
		}
	})
	t.Run("Locked", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		e := b.RefuseChange(t, engine.CodeScheduledLocked, "", func() error {
			_, err := b.Gates.SetGates(ctx, b.Editor, b.gateInput(t, b.Article.ID, gates.GateAt(tomorrowNine), gates.KeepGate(), ""))
			return err
		})
		if e.Args["Release"] != r.ID {
			t.Fatalf("lock names %v, want %s", e.Args, r.ID)
		}
	})
	t.Run("ContentValidateRefusesDisorderedGates", func(t *testing.T) {
		// Every writer, not only SetGates: a whole body saved with its gates
		// out of order is refused too.
		d := b.Node(t, id)
		body := d.Body
		body.Availability = &content.Availability{From: &fridayEve, Until: &tomorrowNine}
		b.RefuseChange(t, gates.CodeGateOrder, "until", func() error {
			_, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, id, d.Rev, body)
			return err
		})
	})
}

// TestGateOnANodeThatIsNotLive: the embargo is saved on the working copy,
// part of its version and hash, and rides along with the next ordinary
// publish, which cannot break it; the entry's date becomes the embargo's
// from (§7.5).
func TestGateOnANodeThatIsNotLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	// An expiry of what is live (§12 schedule_unpublish) has nothing to
	// take down.
	b.RefuseChange(t, releases.CodeNotLive, "nodeId", func() error {
		in := b.gateInput(t, b.Article.ID, gates.KeepGate(), gates.GateAt(fridayEve), "")
		in.LiveOnly = true
		_, err := b.Gates.SetGates(ctx, b.Editor, in)
		return err
	})
	before := b.Node(t, b.Article.ID)
	res := b.setGates(t, b.Contributor, b.Article.ID, gates.GateWall("2026-11-03", "09:00"),
		gates.GateWall("2026-11-06", "18:00"), gates.GateApplyNow)
	if res.Status != gates.GateSaved || res.Release != nil {
		t.Fatalf("status %s release %v, want saved without a release", res.Status, res.Release)
	}
	d := b.Node(t, b.Article.ID)
	from, until := d.Body.Gates()
	wantInstant(t, "from", from, tomorrowNine)
	wantInstant(t, "until", until, fridayEve)
	if d.Rev != before.Rev+1 || d.Hash == before.Hash || d.Hash != content.Hash(d.Body) {
		t.Fatalf("rev %d hash %s: the gate is not a new version of the node", d.Rev, d.Hash)
	}
	if n := b.Count(t, `SELECT count(*) FROM releases`); n != 0 {
		t.Fatalf("%d releases for a node that is not live", n)
	}
	// The same gates again change nothing.
	again := b.Dump(t)
	if res := b.setGates(t, b.Editor, b.Article.ID, gates.GateWall("2026-11-03", "09:00"), gates.KeepGate(), ""); res.Status != gates.GateUnchanged {
		t.Fatalf("status %s, want unchanged", res.Status)
	}
	if b.Dump(t) != again {
		t.Fatal("an unchanged gate wrote something")
	}
	view, err := b.Gates.NodeGates(ctx, b.Editor, b.Site.ID, b.Article.ID)
	if err != nil {
		t.Fatal(err)
	}
	if view.Live != nil || view.State != gate.Embargoed || view.LiftableUntil != nil {
		t.Fatalf("view %+v, want not live, embargoed, nothing to lift", view)
	}

	// An early ordinary publish carries the embargo into the snapshot.
	live := b.PublishArticle(t)
	l := b.Live(t)[b.Article.ID]
	lf, lu := l.Body.Gates()
	wantInstant(t, "live from", lf, tomorrowNine)
	wantInstant(t, "live until", lu, fridayEve)
	wantInstant(t, "publishedAt", l.Body.PublishedAt, tomorrowNine)
	if l.Hash != live.Hash || l.Rev != live.Rev {
		t.Fatalf("snapshot has %d:%s, want the working copy %d:%s", l.Rev, l.Hash, live.Rev, live.Hash)
	}
	gn := gate.Node{Published: true, From: lf, Until: lu}
	if gate.IsAvailable(gn, start) || !gate.IsAvailable(gn, tomorrowNine) || gate.IsAvailable(gn, fridayEve) {
		t.Fatal("the published gates do not hold")
	}
}

// TestGateOnALiveNodeByAnEditor: a gate-only change of a live node is a
// one-item release the editor approves and runs at once (the manual run),
// audited; both an embargo (hiding) and an expiry.
func TestGateOnALiveNodeByAnEditor(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	live := b.PublishArticle(t)
	b.Clock.Set(start.Add(5 * time.Minute))
	in := b.gateInput(t, b.Article.ID, gates.GateAt(tomorrowNine), gates.GateWall("2026-11-06", "18:00"), "")
	in.LiveOnly = true // what is live may be taken down
	res, err := b.Gates.SetGates(context.Background(), b.Editor, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != gates.GatePublished || res.Release == nil {
		t.Fatalf("status %s, want published", res.Status)
	}
	r := res.Release
	it := r.Items[0]
	if r.State != release.StatePublished || len(r.Items) != 1 || *it.Base != live.Version() || *it.Target != res.Node.Version() ||
		r.When == nil || r.When.Kind != "on-approval" || r.Approval == nil || r.Approval.By.ID != b.Editor.ID {
		t.Fatalf("release %+v item %+v, want a published one-item release on the live base, by the editor", r.Release, it)
	}
	if r.Outcome == nil || r.Outcome.By == nil || r.Outcome.By.ID != b.Editor.ID || !r.Outcome.At.Equal(b.Clock.Now()) {
		t.Fatalf("outcome %+v, want published now by the editor", r.Outcome)
	}
	from, until := b.liveGates(t, b.Article.ID)
	wantInstant(t, "live from", from, tomorrowNine)
	wantInstant(t, "live until", until, fridayEve)
	if res.Node.Held != nil || res.Node.Live == nil || *res.Node.Live != res.Node.Ref() {
		t.Fatalf("node %+v, want live at its working copy and free", res.Node)
	}
	d := auditDetails(t, b, "schedule.gates.set", r.ID)
	if d["from"] != "2026-11-03T06:00:00.000Z" || d["until"] != "2026-11-06T15:00:00.000Z" || d["previousFrom"] != "" {
		t.Fatalf("audit details %v", d)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.publish_now' AND release_id = ?`, r.ID); n != 1 {
		t.Fatalf("%d publish-now audit rows, want 1", n)
	}

	t.Run("TheDiffShowsTheGates", func(t *testing.T) {
		_, items, err := b.Releases.ReleaseDiff(context.Background(), b.Editor, b.Site.ID, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		changed := map[string]bool{}
		for _, f := range items[0].Fields() {
			if f.Changed() {
				changed[f.Field] = true
			}
		}
		if len(changed) != 2 || !changed["availability.from"] || !changed["availability.until"] {
			t.Fatalf("changed fields %v, want the two gates only", changed)
		}
	})

	t.Run("MovingTheEmbargoLaterHidesLonger", func(t *testing.T) {
		res := b.setGates(t, b.Editor, b.Article.ID, gates.GateWall("2026-11-03", "12:00"), gates.KeepGate(), "")
		if res.Status != gates.GatePublished {
			t.Fatalf("status %s", res.Status)
		}
		from, _ := b.liveGates(t, b.Article.ID)
		wantInstant(t, "live from", from, tomorrowNine.Add(3*time.Hour))
	})

	t.Run("KillSwitch", func(t *testing.T) {
		b := newBundle(t)
		b.PublishArticle(t)
		b.Pause(t, b.Owner, "Checking the feed")
		b.RefuseChange(t, engine.CodeSitePaused, "", func() error {
			_, err := b.Gates.SetGates(context.Background(), b.Editor, b.gateInput(t, b.Article.ID, gates.KeepGate(), gates.GateAt(fridayEve), ""))
			return err
		})
	})
}

// TestGateOnALiveNodeByAContributor: a contributor's expiry waits for
// approval as an on-approval release, holding the node; approving it
// publishes it at once; denying it puts the working copy back.
func TestGateOnALiveNodeByAContributor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	live := b.PublishArticle(t)
	res := b.setGates(t, b.Contributor, b.Article.ID, gates.KeepGate(), gates.GateAt(fridayEve), gates.GateApplyNow)
	r := res.Release
	if res.Status != gates.GateAwaitingApproval || r == nil || r.State != release.StateAwaitingApproval || r.ExecuteAt != nil ||
		r.When == nil || r.When.Kind != "on-approval" || r.Approval != nil {
		t.Fatalf("status %s release %+v, want an unapproved on-approval release", res.Status, r)
	}
	if res.Node.Held == nil || res.Node.Held.ReleaseID != r.ID {
		t.Fatalf("node %+v, want held by the release", res.Node)
	}
	if _, until := b.liveGates(t, b.Article.ID); until != nil {
		t.Fatal("the expiry went live before approval")
	}
	// The request is bound to the release's hash and "on-approval".
	q := b.Text(t, `SELECT id FROM approvals WHERE release_id = ? AND status = 'waiting'`, r.ID)
	if _, err := b.Releases.Approve(ctx, b.Contributor, b.Site.ID, q); err == nil {
		t.Fatal("a contributor approved a release")
	}
	// Nobody's run touches it meanwhile: it has no time.
	b.Clock.Set(start.Add(2 * time.Hour))
	if rep := b.Tick(t); rep.Ran != 0 {
		t.Fatalf("tick %+v ran an unapproved on-approval release", rep)
	}
	got, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != release.StatePublished || got.Outcome == nil || !got.Outcome.At.Equal(b.Clock.Now()) {
		t.Fatalf("approved release %s %+v, want published at once", got.State, got.Outcome)
	}
	_, until := b.liveGates(t, b.Article.ID)
	wantInstant(t, "live until", until, fridayEve)
	after := b.Node(t, b.Article.ID)
	if after.Held != nil || *after.Live != after.Ref() || after.Rev != live.Rev+1 {
		t.Fatalf("article %+v, want free and live at the gate version", after)
	}

	t.Run("DeniedPutsTheWorkingCopyBack", func(t *testing.T) {
		b := newBundle(t)
		live := b.PublishArticle(t)
		res := b.setGates(t, b.Contributor, b.Article.ID, gates.KeepGate(), gates.GateAt(fridayEve), "")
		q := b.Text(t, `SELECT id FROM approvals WHERE release_id = ? AND status = 'waiting'`, res.Release.ID)
		if err := b.Releases.Deny(ctx, b.Editor, b.Site.ID, q, "Not this week."); err != nil {
			t.Fatal(err)
		}
		after := b.Node(t, b.Article.ID)
		if after.Held != nil || after.Hash != live.Hash {
			t.Fatalf("after the denial the working copy is %s (held %v), want the live version's %s", after.Hash, after.Held, live.Hash)
		}
	})

	t.Run("WithNextPublishOnlySaves", func(t *testing.T) {
		b := newBundle(t)
		live := b.PublishArticle(t)
		res := b.setGates(t, b.Contributor, b.Article.ID, gates.KeepGate(), gates.GateAt(fridayEve), gates.GateApplyWithNextPublish)
		if res.Status != gates.GateSaved || res.Release != nil || res.Node.Held != nil || res.Node.Rev != live.Rev+1 {
			t.Fatalf("result %+v, want the working copy saved", res)
		}
		view, err := b.Gates.NodeGates(ctx, b.Editor, b.Site.ID, b.Article.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !view.Pending || view.OtherEdits || view.LiveState != gate.Open {
			t.Fatalf("view %+v, want pending gates and no other edits", view)
		}
	})
}

// TestGateWithOtherEdits: a live node whose working copy has other edits
// cannot carry a gate-only change; with the edits included (the plan shows
// the whole diff) it publishes all of it.
func TestGateWithOtherEdits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	b.PublishArticle(t)
	d := b.Node(t, b.Article.ID)
	if _, err := b.Nodes.EditNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, content.Edit{Title: d.Body.Title, Slug: d.Body.Slug,
		Text: "Results.\nTurnout: 84%.", Status: content.StatusPublished}); err != nil {
		t.Fatal(err)
	}
	in := b.gateInput(t, b.Article.ID, gates.GateAt(tomorrowNine), gates.KeepGate(), "")
	e := b.RefuseChange(t, gates.CodeOtherEdits, "", func() error { _, err := b.Gates.SetGates(ctx, b.Editor, in); return err })
	if e.Args["Title"] != "Election night" {
		t.Fatalf("refusal args %v", e.Args)
	}
	plan, err := b.Gates.PlanGates(ctx, b.Editor, in)
	if err == nil || !plan.OtherEdits {
		t.Fatalf("plan %+v err %v, want other edits", plan, err)
	}
	diff := plan.Diff()
	if diff.Base == nil || diff.Base.Text != "Results." || diff.Target.Text != "Results.\nTurnout: 84%." {
		t.Fatalf("diff %+v, want live text against the edit", diff)
	}
	if from, _ := diff.Target.Gates(); from == nil || !from.Equal(tomorrowNine) {
		t.Fatalf("diff target gates %v, want the new from", diff.Target.Availability)
	}
	in.IncludeEdits = true
	res, err := b.Gates.SetGates(ctx, b.Editor, in)
	if err != nil {
		t.Fatal(err)
	}
	l := b.Live(t)[b.Article.ID]
	if res.Status != gates.GatePublished || l.Body.Text != "Results.\nTurnout: 84%." {
		t.Fatalf("status %s live text %q, want the edits published with the gate", res.Status, l.Body.Text)
	}
	if d := auditDetails(t, b, "schedule.gates.set", res.Release.ID); d["includeEdits"] != true {
		t.Fatalf("audit details %v", d)
	}
}

// TestLiftEmbargo: moving a live embargo earlier or removing it is a lift
// (D8): Editor and above, with a reason, audited; it publishes at once.
func TestLiftEmbargo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	b.PublishArticle(t)
	b.setGates(t, b.Editor, b.Article.ID, gates.GateAt(tomorrowNine), gates.KeepGate(), "")
	id := b.Article.ID
	rev := b.Node(t, id).Rev

	for _, c := range []struct {
		name string
		from gates.GateTime
	}{{"Cleared", gates.ClearGate()}, {"Earlier", gates.GateWall("2026-11-02", "18:00")}} {
		t.Run("SetGatesRefuses"+c.name, func(t *testing.T) {
			for _, apply := range []string{gates.GateApplyNow, gates.GateApplyWithNextPublish} {
				e := b.RefuseChange(t, gates.CodeLiftRequired, "from", func() error {
					_, err := b.Gates.SetGates(ctx, b.Editor, gates.GateInput{SiteID: b.Site.ID, NodeID: id, ExpectedRev: rev, From: c.from, Apply: apply})
					return err
				})
				if w, _ := e.Args["When"].(time.Time); !w.Equal(tomorrowNine) {
					t.Fatalf("args %v, want the embargo's time", e.Args)
				}
			}
		})
	}
	lift := func(u engine.User, reason string, rev int64) func() error {
		return func() error {
			_, err := b.Gates.LiftEmbargo(ctx, u, gates.LiftInput{SiteID: b.Site.ID, NodeID: id, ExpectedRev: rev, Reason: reason})
			return err
		}
	}
	b.RefuseChange(t, engine.CodeForbidden, "", lift(b.Author, "The results are in.", rev))
	b.RefuseChange(t, engine.CodeForbidden, "", lift(b.Contributor, "The results are in.", rev))
	b.RefuseChange(t, releases.CodeReason, "reason", lift(b.Editor, "  ", rev))
	b.RefuseChange(t, releases.CodeReason, "reason", lift(b.Editor, strings.Repeat("x", 501), rev))
	b.RefuseChange(t, engine.CodeStale, "", lift(b.Editor, "The results are in.", rev-1))

	b.Clock.Set(start.Add(time.Hour))
	res, err := b.Gates.LiftEmbargo(ctx, b.Editor, gates.LiftInput{SiteID: b.Site.ID, NodeID: id, ExpectedRev: rev, Reason: " The results are in. "})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != gates.GatePublished || res.Release.State != release.StatePublished {
		t.Fatalf("status %s, want published", res.Status)
	}
	if from, _ := b.liveGates(t, id); from != nil {
		t.Fatalf("live from %v after the lift", from)
	}
	d := auditDetails(t, b, "schedule.embargo.lift", res.Release.ID)
	if d["reason"] != "The results are in." || d["from"] != "2026-11-03T06:00:00.000Z" {
		t.Fatalf("audit details %v", d)
	}
	if by := b.Text(t, `SELECT json_extract(actor, '$.id') FROM audit WHERE action = 'schedule.embargo.lift'`); by != b.Editor.ID {
		t.Fatalf("lift audited as %s", by)
	}
	b.RefuseChange(t, gates.CodeNotEmbargoed, "", lift(b.Editor, "Again.", b.Node(t, id).Rev))

	t.Run("NotLiveIsNotALift", func(t *testing.T) {
		b := newBundle(t)
		b.setGates(t, b.Editor, b.Article.ID, gates.GateAt(tomorrowNine), gates.KeepGate(), "")
		b.RefuseChange(t, gates.CodeNotEmbargoed, "", func() error {
			_, err := b.Gates.LiftEmbargo(ctx, b.Editor, gates.LiftInput{SiteID: b.Site.ID, NodeID: b.Article.ID,
				ExpectedRev: b.Node(t, b.Article.ID).Rev, Reason: "Early."})
			return err
		})
		// Its from is only edited: anyone who writes content clears it.
		if res := b.setGates(t, b.Contributor, b.Article.ID, gates.ClearGate(), gates.KeepGate(), ""); res.Status != gates.GateSaved {
			t.Fatalf("status %s", res.Status)
		}
	})

	t.Run("OtherEdits", func(t *testing.T) {
		b := newBundle(t)
		b.PublishArticle(t)
		b.setGates(t, b.Editor, b.Article.ID, gates.GateAt(tomorrowNine), gates.KeepGate(), "")
		d := b.Node(t, b.Article.ID)
		if _, err := b.Nodes.EditNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, content.Edit{Title: "Election night: results",
			Slug: d.Body.Slug, Text: d.Body.Text, Status: content.StatusPublished}); err != nil {
			t.Fatal(err)
		}
		in := gates.LiftInput{SiteID: b.Site.ID, NodeID: b.Article.ID, ExpectedRev: d.Rev + 1, Reason: "Early."}
		b.RefuseChange(t, gates.CodeOtherEdits, "", func() error { _, err := b.Gates.LiftEmbargo(ctx, b.Editor, in); return err })
		in.IncludeEdits = true
		if _, err := b.Gates.LiftEmbargo(ctx, b.Editor, in); err != nil {
			t.Fatal(err)
		}
		if l := b.Live(t)[b.Article.ID]; l.Body.Title != "Election night: results" || l.Body.Availability != nil {
			t.Fatalf("live %+v, want the edit and no gates", l.Body)
		}
	})
}

// TestLiftEmbargoEarlier: a lift may move the embargo earlier to a new
// time instead of removing it (§12 lift_embargo from, D8): the article is
// visible from the new time, never before it, and the embargo's old time
// means nothing any more. A time that is not earlier, or has passed, is
// refused and changes nothing.
func TestLiftEmbargoEarlier(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setup := func(t *testing.T) (*testBundle, gates.LiftInput) {
		b := newBundle(t)
		b.PublishArticle(t)
		b.setGates(t, b.Editor, b.Article.ID, gates.GateAt(tomorrowNine), gates.KeepGate(), "")
		return b, gates.LiftInput{SiteID: b.Site.ID, NodeID: b.Article.ID, ExpectedRev: b.Node(t, b.Article.ID).Rev,
			Reason: "The announcement was moved up."}
	}
	visible := func(b *testBundle, at time.Time) bool {
		l := b.Live(t)[b.Article.ID]
		from, until := l.Body.Gates()
		return gate.IsAvailable(gate.Node{Published: l.Body.Status == content.StatusPublished, From: from, Until: until}, at)
	}

	t.Run("VisibleAtTheNewTimeNeverEarlier", func(t *testing.T) {
		b, in := setup(t)
		earlier := time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC) // 18:00 in Istanbul, today
		in.From = gates.GateWall("2026-11-02", "18:00")
		res, err := b.Gates.LiftEmbargo(ctx, b.Editor, in)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != gates.GatePublished {
			t.Fatalf("status %s, want published", res.Status)
		}
		if from, _ := b.liveGates(t, b.Article.ID); from == nil || !from.Equal(earlier) {
			t.Fatalf("live from %v, want %s", from, earlier)
		}
		for _, c := range []struct {
			at   time.Time
			want bool
		}{{start, false}, {earlier.Add(-time.Millisecond), false}, {earlier, true}, {tomorrowNine, true}} {
			b.Clock.Set(c.at)
			if got := visible(b, c.at); got != c.want {
				t.Errorf("visible at %s = %v, want %v", c.at.Format(time.RFC3339Nano), got, c.want)
			}
		}
		d := auditDetails(t, b, "schedule.embargo.lift", res.Release.ID)
		if d["from"] != "2026-11-03T06:00:00.000Z" || d["to"] != "2026-11-02T15:00:00.000Z" || d["reason"] != in.Reason {
			t.Fatalf("audit details %v", d)
		}
		// As an instant too (the API's).
		b2, in2 := setup(t)
		in2.From = gates.GateAt(earlier)
		if _, err := b2.Gates.LiftEmbargo(ctx, b2.Editor, in2); err != nil {
			t.Fatal(err)
		}
		if from, _ := b2.liveGates(t, b2.Article.ID); from == nil || !from.Equal(earlier) {
			t.Fatalf("instant: live from %v", from)
		}
	})

	t.Run("Refused", func(t *testing.T) {
		b, in := setup(t)
		for _, c := range []struct {
			name, code string
			from       gates.GateTime
		}{
			{"Same", gates.CodeLiftNotEarlier, gates.GateAt(tomorrowNine)},
			{"SameAsShown", gates.CodeLiftNotEarlier, gates.GateWall("2026-11-03", "09:00")},
			{"Later", gates.CodeLiftNotEarlier, gates.GateWall("2026-11-04", "09:00")},
			{"Passed", gates.CodeGateInPast, gates.GateWall("2026-11-02", "07:00")},
			{"Now", gates.CodeGateInPast, gates.GateAt(start)},
			{"BadTime", "bad_time", gates.GateWall("2026-11-02", "25:00")},
		} {
			t.Run(c.name, func(t *testing.T) {
				in := in
				in.From = c.from
				b.RefuseChange(t, c.code, "from", func() error { _, err := b.Gates.LiftEmbargo(ctx, b.Editor, in); return err })
			})
		}
		if !b.Node(t, b.Article.ID).Body.Availability.From.Equal(tomorrowNine) || visible(b, tomorrowNine.Add(-time.Millisecond)) {
			t.Fatal("a refused lift moved the embargo")
		}
	})
}
