package releases_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
)

// The invariants of RFC §17 that the release engine owns, on a real SQLite
// file: S1, S4, S5, S6, S7 and S14.

// invSeed is the seed of the property tests; a failure names its round.
const invSeed = 0x5eed_0008

// S1: a release changes the live snapshot exactly by its items:
// nodes(S) = nodes(L) − ids + targets, where L is what is live when it runs.
// Property: random sites of pages and entries, some live, some edited; a
// random subset pinned in one release (sets of new and changed nodes,
// removals of live ones); unrelated edits published by an ordinary publish
// between pin and run.
func TestInvariantS1ReleaseChangesLiveExactlyByItsItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	rounds := invRounds(60, 12)
	for round := range rounds {
		rng := rand.New(rand.NewPCG(invSeed, uint64(round)))
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("round %d (seed %#x): %s", round, invSeed, fmt.Sprintf(format, args...))
		}
		site, err := b.CreateSite(ctx, fmt.Sprintf("Round %d", round), "UTC")
		if err != nil {
			t.Fatal(err)
		}
		status := func() content.Status {
			if rng.IntN(4) == 0 {
				return content.StatusDraft
			}
			return content.StatusPublished
		}
		edit := func(id, text string) {
			d := b.NodeOn(t, site.ID, id)
			body := d.Body
			body.Text, body.Status = text, status()
			if _, err := b.Nodes.SaveNode(ctx, on(b.Editor, site.ID), site.ID, id, d.Rev, body); err != nil {
				fail("edit %s: %v", id, err)
			}
		}
		var nodes []string
		for i := range 3 + rng.IntN(7) {
			kind := release.KindPage
			if rng.IntN(2) == 0 {
				kind = release.KindContentEntry
			}
			n := b.CreateNode(t, site.ID, kind, content.Body{Title: fmt.Sprintf("Node %d", i), Slug: fmt.Sprintf("node-%d", i),
				Status: status(), Text: "v1"})
			nodes = append(nodes, n.ID)
		}
		b.publishSite(t, site.ID)
		for _, id := range nodes {
			if rng.IntN(2) == 0 {
				edit(id, "v2")
			}
		}

		// Pin a random non-empty subset.
		_, live := b.liveOf(t, site.ID)
		var pins []pinItem
		inRelease := map[string]bool{}
		for _, i := range rng.Perm(len(nodes)) {
			if len(pins) > 0 && rng.IntN(2) == 0 {
				continue
			}
			id := nodes[i]
			d := b.NodeOn(t, site.ID, id)
			l, isLive := live[id]
			changed := !isLive || l.Rev != d.Rev
			pins = append(pins, pinItem{node: id, remove: isLive && (!changed || rng.IntN(3) == 0)})
			inRelease[id] = true
		}
		at := b.Clock.Now().Add(2 * time.Minute).UTC().Truncate(time.Minute)
		r := b.pinRelease(t, site.ID, b.Editor, at, pins...)

		// Between pin and run: unrelated edits, a new node, an ordinary publish.
		for _, id := range nodes {
			if !inRelease[id] && rng.IntN(2) == 0 {
				edit(id, "v3")
			}
		}
		if rng.IntN(2) == 0 {
			b.CreateNode(t, site.ID, release.KindPage, content.Body{Title: "Late", Slug: "late", Status: content.StatusPublished})
		}
		b.publishSite(t, site.ID)

		liveID, before := b.liveOf(t, site.ID)
		b.Clock.Set(at)
		if rep := b.Tick(t); rep.Published != 1 {
			got, _ := b.Store.Release(ctx, site.ID, r.ID)
			fail("tick %+v: release %s %+v", rep, got.State, got.Outcome)
		}
		afterID, after := b.liveOf(t, site.ID)

		want := maps.Clone(before)
		for _, it := range r.Items {
			delete(want, it.NodeID)
			if it.Op == release.OpSet {
				want[it.NodeID] = release.Ref{ID: it.NodeID, Kind: it.NodeKind, Rev: it.Target.Rev, Hash: it.Target.Hash}
			}
		}
		if !maps.Equal(after, want) {
			fail("live after the release:\n%v\nwant nodes(L) − ids + targets:\n%v\n(L %v, items %+v)", after, want, before, r.Items)
		}
		got, err := b.Store.Release(ctx, site.ID, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := b.Store.Snapshot(ctx, afterID)
		if err != nil {
			t.Fatal(err)
		}
		if o := got.Outcome; o == nil || o.SnapshotID != afterID || o.BaseSnapshotID != liveID || snap.ParentID != liveID ||
			snap.Reason != "scheduled" || snap.Metadata["studio.release"] != r.ID || snap.Metadata["studio.base"] != liveID {
			fail("outcome %+v, snapshot %+v: want a scheduled snapshot on top of L %s", got.Outcome, snap, liveID)
		}
	}
}

// S4: a changed pinned node or base holds the release, and nothing is
// applied partially. A three-item release (A: a live entry's new version;
// B: a new page; C: a live page's new version) is pinned; then A's live
// version moves in one of three ways; at T the release ends conflict
// naming only A, the live snapshot is the one before the run, and neither
// B nor C went live.
func TestInvariantS4ConflictHoldsTheRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	half := start.Add(30 * time.Minute)

	type fixture struct {
		b            *testBundle
		a, bb, c     content.Node
		earlier      releases.ReleaseRow // published A at 08:30
		pinR         func() releases.ReleaseRow
		aBase, cBase release.Version
	}
	setup := func(t *testing.T) *fixture {
		b := newBundle(t)
		f := &fixture{b: b}
		f.c = b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Contact", Slug: "contact", Status: content.StatusPublished, Text: "v1"})
		b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "About", Slug: "about", Status: content.StatusPublished, Text: "v1"})
		b.publishSite(t, b.Site.ID)
		// A goes live at 08:30 by a release, so a rollback has something to undo.
		f.a = b.CreateNode(t, b.Site.ID, release.KindContentEntry, content.Body{Title: "Budget", Slug: "budget", Status: content.StatusPublished, Text: "v1"})
		f.earlier = b.pinRelease(t, b.Site.ID, b.Editor, half, pinItem{node: f.a.ID})
		b.Clock.Set(half)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("08:30 tick %+v", rep)
		}
		f.earlier = b.Release(t, f.earlier.ID)
		d := b.Node(t, f.a.ID)
		body := d.Body
		body.Text = "v2: embargoed figures"
		var err error
		if f.a, err = b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, f.a.ID, d.Rev, body); err != nil {
			t.Fatal(err)
		}
		f.bb = b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Figures", Slug: "figures", Status: content.StatusDraft, Text: "tables"})
		f.pinR = func() releases.ReleaseRow {
			d := b.Node(t, f.c.ID)
			body := d.Body
			body.Text = "v2"
			if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, f.c.ID, d.Rev, body); err != nil {
				t.Fatal(err)
			}
			r := b.pinRelease(t, b.Site.ID, b.Editor, nine, pinItem{node: f.a.ID}, pinItem{node: f.bb.ID}, pinItem{node: f.c.ID})
			for _, it := range r.Items {
				switch it.NodeID {
				case f.a.ID:
					f.aBase = *it.Base
				case f.c.ID:
					f.cBase = *it.Base
				}
			}
			return r
		}
		return f
	}

	for _, tc := range []struct {
		name string
		move func(t *testing.T, f *fixture) releases.ReleaseRow // pins the release and moves A's live version
	}{
		// An ordinary publish of A's new version cannot happen between pin
		// and run: publishes keep held nodes, and one that read the holds
		// before the pin is refused in its transaction
		// (TestInvariantS5PublishRacingASchedule).
		// A rollback (Undo of the 08:30 release) between pin and run.
		{"Rollback", func(t *testing.T, f *fixture) releases.ReleaseRow {
			r := f.pinR()
			site, err := f.b.Eng.Site(ctx, f.b.Site.ID)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := f.b.Releases.PlanUndo(ctx, f.b.Editor, f.b.Site.ID, f.earlier.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Conflicts) != 1 || plan.Conflicts[0].ID != r.ID {
				t.Fatalf("rollback dialog lists %v, want the pinned release", plan.Conflicts)
			}
			if _, err := f.b.Releases.Undo(ctx, f.b.Editor, f.b.Site.ID, f.earlier.ID, site.Rev); err != nil {
				t.Fatal(err)
			}
			return r
		}},
		// Edit and publish of A. The lock refuses it (shown first); no use
		// case gets past the lock ("Unschedule and edit" makes the release a
		// draft, which never runs), so a writer that ignores locks (an older
		// build, a restore) is simulated: the hold is lifted in the database
		// for the edit and the publish, then put back.
		{"EditAndPublishOfAPinnedNode", func(t *testing.T, f *fixture) releases.ReleaseRow {
			r := f.pinR()
			b := f.b
			b.wantLocked(t, b.Site.ID, f.a.ID, r.ID)
			b.execSQL(t, `UPDATE release_items SET held = 0 WHERE release_id = ? AND node_id = ?`, r.ID, f.a.ID)
			d := b.Node(t, f.a.ID)
			body := d.Body
			body.Text = "v3: corrected after pinning"
			if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, f.a.ID, d.Rev, body); err != nil {
				t.Fatal(err)
			}
			b.publishSite(t, b.Site.ID)
			b.execSQL(t, `UPDATE release_items SET held = 1 WHERE release_id = ? AND node_id = ?`, r.ID, f.a.ID)
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			b := f.b
			r := tc.move(t, f)
			liveID, before := b.liveOf(t, b.Site.ID)
			if l, ok := before[f.a.ID]; ok && l.Rev == f.aBase.Rev && l.Hash == f.aBase.Hash {
				t.Fatalf("setup: A is still live at its base %+v", f.aBase)
			}
			snapshots := b.Count(t, `SELECT count(*) FROM snapshots`)

			b.Clock.Set(nine)
			if rep := b.Tick(t); rep.Failed != 1 || rep.Published != 0 {
				t.Fatalf("tick %+v", rep)
			}
			got := b.Release(t, r.ID)
			if got.State != release.StateConflict {
				t.Fatalf("state %s (%+v), want conflict", got.State, got.Outcome)
			}
			c := got.Outcome.Conflicts
			if len(c) != 1 || c[0].NodeID != f.a.ID || c[0].Expected == nil || *c[0].Expected != f.aBase {
				t.Fatalf("conflicts %+v, want only A expected at %+v", c, f.aBase)
			}
			// Nothing applied: the same live snapshot, no new snapshot, B not
			// live, C at its base.
			afterID, after := b.liveOf(t, b.Site.ID)
			if afterID != liveID || !maps.Equal(after, before) {
				t.Fatalf("live %s %v → %s %v across a conflict", liveID, before, afterID, after)
			}
			if n := b.Count(t, `SELECT count(*) FROM snapshots`); n != snapshots {
				t.Fatalf("%d snapshots written by a conflict", n-snapshots)
			}
			if n := b.Count(t, `SELECT count(*) FROM snapshots WHERE json_extract(metadata, '$."studio.release"') = ?`, r.ID); n != 0 {
				t.Fatalf("%d snapshots of the conflicting release", n)
			}
			if _, ok := after[f.bb.ID]; ok {
				t.Fatal("B went live from a conflicting release")
			}
			if l := after[f.c.ID]; l.Rev != f.cBase.Rev || l.Hash != f.cBase.Hash {
				t.Fatalf("C live at %+v, want its base %+v", l, f.cBase)
			}
			if h := b.heldItems(t, r.ID); h != 0 {
				t.Fatalf("%d items still held after the conflict", h)
			}
			if s := b.Text(t, `SELECT state FROM schedule_runs WHERE id = ?`, ids.RunID(r.ID, nine)); s != "failed" {
				t.Fatalf("run %s", s)
			}
			b.lastAudit(t, r.ID, "release.conflict", engine.Scheduler.ID)
		})
	}
}

// S5: held nodes are locked and kept at their live version by ordinary
// publishes; every other node publishes. Property over random sites: nodes
// live or not, edited or not, some held by a scheduled release (an
// approver's) or a waiting one (a contributor's request).
func TestInvariantS5HeldNodesKeepTheirLiveVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	rounds := invRounds(30, 6)
	for round := range rounds {
		rng := rand.New(rand.NewPCG(invSeed, 500+uint64(round)))
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("round %d (seed %#x): %s", round, invSeed, fmt.Sprintf(format, args...))
		}
		site, err := b.CreateSite(ctx, fmt.Sprintf("Round %d", round), "Europe/Istanbul")
		if err != nil {
			t.Fatal(err)
		}
		var nodes []string
		for i := range 3 + rng.IntN(6) {
			st := content.StatusPublished
			if rng.IntN(3) == 0 {
				st = content.StatusDraft
			}
			n := b.CreateNode(t, site.ID, release.KindContentEntry, content.Body{Title: fmt.Sprintf("Entry %d", i),
				Slug: fmt.Sprintf("entry-%d", i), Status: st, Text: "v1"})
			nodes = append(nodes, n.ID)
		}
		b.publishSite(t, site.ID)
		editAll := func(text string, skip map[string]string) {
			for _, id := range nodes {
				if _, held := skip[id]; held || rng.IntN(3) == 0 {
					continue
				}
				d := b.NodeOn(t, site.ID, id)
				body := d.Body
				body.Text = text
				if rng.IntN(3) > 0 {
					body.Status = content.StatusPublished
				}
				if _, err := b.Nodes.SaveNode(ctx, on(b.Editor, site.ID), site.ID, id, d.Rev, body); err != nil {
					fail("edit: %v", err)
				}
			}
		}
		editAll("v2", nil)
		heldBy := map[string]string{}
		for _, id := range nodes {
			if rng.IntN(2) == 0 {
				continue
			}
			u := b.Editor
			if rng.IntN(2) == 0 {
				u = b.Contributor
			}
			d := b.NodeOn(t, site.ID, id)
			r, err := b.Releases.ScheduleNode(ctx, on(u, site.ID), releases.ScheduleInput{SiteID: site.ID, NodeID: id, ExpectedRev: d.Rev,
				Date: "2026-11-02", Time: "09:00"})
			if err != nil {
				fail("schedule: %v", err)
			}
			heldBy[id] = r.ID
		}
		editAll("v3", heldBy)

		_, before := b.liveOf(t, site.ID)
		pending, _, err := b.Nodes.PendingRefs(ctx, site.ID)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := b.Nodes.Publish(ctx, on(b.Editor, site.ID), site.ID)
		if e, ok := engine.AsError(err); ok && e.Code == release.CodeNothingToPublish {
			continue
		} else if err != nil {
			fail("publish: %v", err)
		}
		if !slices.Equal(snap.Refs, pending) {
			fail("published %v, but PendingRefs showed %v", snap.Refs, pending)
		}
		_, after := b.liveOf(t, site.ID)
		for _, id := range nodes {
			d := b.NodeOn(t, site.ID, id)
			l, isLive := after[id]
			was, wasLive := before[id]
			switch {
			case heldBy[id] != "":
				if isLive != wasLive || (isLive && l != was) {
					fail("held node %s live %v %+v after a publish, want its live version %v %+v", id, isLive, l, wasLive, was)
				}
				if d.Held == nil || d.Held.ReleaseID != heldBy[id] {
					fail("node %s held by %+v, want %s", id, d.Held, heldBy[id])
				}
			case wasLive || d.Body.Status == content.StatusPublished:
				if !isLive || l != d.Ref() {
					fail("free node %s live %v %+v, want its working copy %+v", id, isLive, l, d.Ref())
				}
			default:
				if isLive {
					fail("a never-published draft %s went live", id)
				}
			}
		}
		// Editing a held node is refused, naming its release.
		for _, id := range slices.Sorted(maps.Keys(heldBy)) {
			b.wantLocked(t, site.ID, id, heldBy[id])
			break
		}
	}
}

// S5 under concurrency: an ordinary publish reads what is held (PendingRefs)
// and then flips the site pointer; a release that pins a node in between is
// not seen, and the site CAS does not catch it because pinning does not
// change the site row.
func TestInvariantS5PublishRacingASchedule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	p0 := time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)
	v1 := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Budget", Slug: "budget", Status: content.StatusPublished, PublishedAt: &p0, Text: "v1"})
	b.publishSite(t, b.Site.ID)
	body := v1.Body
	body.Text = "v2: embargoed until 09:00"
	v2, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, v1.ID, v1.Rev, body)
	if err != nil {
		t.Fatal(err)
	}
	hs, hookedEng := b.hooked()
	racer := nodes.New(hookedEng, hs)
	var r release.Release
	hs.beforePublish = func() { r = b.Schedule(t, b.Admin, v2, "2026-11-02", "09:00") }
	_, err = racer.Publish(ctx, b.Editor, b.Site.ID)
	live := b.Live(t)[v1.ID]
	d := b.Node(t, v1.ID)
	if d.Held == nil || d.Held.ReleaseID != r.ID {
		t.Fatalf("setup: node held by %+v, want %s", d.Held, r.ID)
	}
	if err == nil && live.Rev != v1.Rev {
		t.Fatalf("publish put held node %s live at v%d while release %s holds it at v%d (S5)", v1.ID, live.Rev, r.ID, v1.Rev)
	}
	if live.Rev != v1.Rev || live.Hash != v1.Hash {
		t.Fatalf("held node live at v%d, want v%d", live.Rev, v1.Rev)
	}
}

// S6: approvals bind to rl1: and the time. An approver's move keeps the
// approval (and the run is on the original approver's behalf); anyone
// else's move voids it; any item change changes the hash, so the approval
// no longer matches and the run expires it (approval_lost).
func TestInvariantS6ApprovalsBindToHashAndTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ten30 := nine.Add(90 * time.Minute)

	t.Run("AnApproversMoveKeepsIt", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		moved, err := b.Releases.Move(ctx, b.Admin, b.Site.ID, r.ID, r.Rev, "2026-11-02", "10:30")
		if err != nil {
			t.Fatal(err)
		}
		if moved.Approval == nil || moved.Approval.By.ID != b.Editor.ID || !moved.Approval.ExecuteAt.Equal(ten30) || moved.Hash != r.Hash {
			t.Fatalf("after the move %+v", moved.Approval)
		}
		b.Clock.Set(ten30)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick %+v", rep)
		}
		if a := b.lastAudit(t, r.ID, "release.publish", engine.Scheduler.ID); !onBehalfOf(a, b.Editor.ID) {
			t.Fatalf("published on behalf of %v, want the approver", a.Details["onBehalfOf"])
		}
	})

	t.Run("ANonApproversMoveVoidsIt", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		approved, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, b.waitingRequest(t, r.ID).ID)
		if err != nil {
			t.Fatal(err)
		}
		moved, err := b.Releases.Move(ctx, b.Contributor, b.Site.ID, r.ID, approved.Rev, "2026-11-02", "10:30")
		if err != nil {
			t.Fatal(err)
		}
		if moved.State != release.StateAwaitingApproval || moved.Approval != nil {
			t.Fatalf("after a contributor's move: %s %+v", moved.State, moved.Approval)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("ran at the approved old time: %+v", rep)
		}
		b.Clock.Set(ten30)
		b.Tick(t)
		if got := b.Release(t, r.ID); got.State != release.StateExpired || got.Outcome.Reason != "unapproved" {
			t.Fatalf("%s %+v, want expired unapproved", got.State, got.Outcome)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("published on a voided approval")
		}
	})

	// An item change. No use case re-pins an item of a scheduled release
	// yet ("Edit and re-approve"), so the change is written to the database
	// directly: item A is re-pinned to another version of its node.
	repin := func(t *testing.T, b *testBundle, r releases.ReleaseRow) []release.Item {
		t.Helper()
		items := slices.Clone(r.Items)
		it := items[0]
		v1 := release.Version{Rev: b.Article.Rev, Hash: b.Article.Hash}
		if *it.Target == v1 {
			t.Fatal("setup: target is already v1")
		}
		it.Target = &v1
		items[0] = it
		if release.Hash(r.SiteID, items) == r.Hash {
			t.Fatal("a different target left the rl1: hash unchanged")
		}
		b.execSQL(t, `UPDATE release_items SET target_rev = ?, target_hash = ? WHERE release_id = ? AND node_id = ?`,
			v1.Rev, v1.Hash, r.ID, it.NodeID)
		return items
	}
	runExpires := func(t *testing.T, b *testBundle, id string) {
		t.Helper()
		liveID, _ := b.liveOf(t, b.Site.ID)
		b.Clock.Set(nine)
		b.Tick(t)
		got := b.Release(t, id)
		if got.State != release.StateExpired || got.Outcome.Reason != "approval_lost" {
			t.Fatalf("%s %+v, want expired approval_lost", got.State, got.Outcome)
		}
		if afterID, _ := b.liveOf(t, b.Site.ID); afterID != liveID {
			t.Fatal("the live snapshot moved")
		}
		if h := b.heldItems(t, id); h != 0 {
			t.Fatalf("%d items held", h)
		}
	}

	t.Run("AnItemChangeVoidsIt", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		repin(t, b, b.Release(t, r.ID))
		runExpires(t, b, r.ID)
	})

	// A re-pin writes the new items and their new hash (§6.1 step 6: "every
	// change to items re-pins and re-hashes"). An item change that neither
	// clears the approval nor carries a new one is refused by the store, so
	// a path that forgot to ask again cannot publish new items on the old
	// approval; settled by the engine's rule, it voids the approval.
	t.Run("AnItemChangeWithItsNewHashStillVoidsIt", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		row := b.Release(t, r.ID)
		d := b.Node(t, b.Article.ID)
		items := append([]release.Item(nil), row.Items...)
		items[0].Target = &release.Version{Rev: d.Rev - 1, Hash: b.Text(t, `SELECT hash FROM node_versions WHERE node_id = ? AND rev = ?`, d.ID, d.Rev-1)}
		items[0].RestoreRev = 0
		c := releases.Change{ID: r.ID, Rev: row.Rev, From: []release.State{release.StateScheduled},
			To: release.StateScheduled, Items: &releases.ItemsUpdate{Items: items, Hash: release.Hash(b.Site.ID, items),
				PinnedRevs: map[string]int64{d.ID: d.Rev}},
			Audit: engine.AuditEntry{Action: "test.repin", Actor: b.Editor.Actor(), SiteID: b.Site.ID, ReleaseID: r.ID, At: b.Clock.Now()}}
		if err := b.Store.ChangeRelease(ctx, c); err == nil {
			t.Fatal("the store wrote an item change that says nothing of the approval")
		}
		if got := b.Release(t, r.ID); got.Approval == nil || got.Hash != r.Hash || got.Rev != row.Rev {
			t.Fatalf("a refused change wrote: approval %+v, hash %s (was %s)", got.Approval, got.Hash, r.Hash)
		}
		if err := b.Store.ChangeRelease(ctx, c.Settled()); err != nil {
			t.Fatal(err)
		}
		if got := b.Release(t, r.ID); got.Approval != nil || got.Hash == r.Hash {
			t.Fatalf("after the item change: approval %+v, hash %s (was %s)", got.Approval, got.Hash, r.Hash)
		}
		liveID, _ := b.liveOf(t, b.Site.ID)
		b.Clock.Set(nine)
		b.Tick(t)
		got := b.Release(t, r.ID)
		if got.State != release.StateExpired || got.Outcome.Reason != "unapproved" {
			t.Fatalf("%s %+v, want expired unapproved", got.State, got.Outcome)
		}
		if afterID, _ := b.liveOf(t, b.Site.ID); afterID != liveID {
			t.Fatal("the live snapshot moved")
		}
	})

	t.Run("ACarryOutOfChangedItemsIsDenied", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		q := b.waitingRequest(t, r.ID)
		repin(t, b, b.Release(t, r.ID))
		_, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, q.ID)
		wantRefusal(t, err, engine.CodeStateChanged, "")
		if got := b.Release(t, r.ID); got.State != release.StateDraft || got.Approval != nil {
			t.Fatalf("after the mismatch: %s %+v", got.State, got.Approval)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("ran: %+v", rep)
		}
	})
}

func onBehalfOf(a engine.AuditEntry, id string) bool {
	m, ok := a.Details["onBehalfOf"].(map[string]any)
	return ok && m["id"] == id && m["kind"] == "person"
}

// S7: rights are re-checked when a release runs. One site, one article per
// approver, all due at 09:00; between scheduling and the run each approver
// keeps, gains or loses the right (or leaves).
func TestInvariantS7RightsRecheckedAtRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	type row struct {
		name     string
		then     string // the approver's role at 09:00; "" = removed
		publish  bool
		approver engine.User
		rel      release.Release
		node     content.Node
	}
	rows := []*row{
		{name: "StillEditor", then: "editor", publish: true},
		{name: "PromotedToAdmin", then: "admin", publish: true},
		{name: "PromotedToOwner", then: "owner", publish: true},
		{name: "DemotedToAuthor", then: "author"},
		{name: "DemotedToContributor", then: "contributor"},
		{name: "Removed", then: ""},
	}
	for i, r := range rows {
		r.approver = b.AddUser(t, fmt.Sprintf("Approver%d", i), "editor")
		r.node = b.CreateNode(t, b.Site.ID, release.KindContentEntry,
			content.Body{Title: r.name, Slug: fmt.Sprintf("story-%d", i), Status: content.StatusDraft, Text: "x"})
		r.rel = b.Schedule(t, r.approver, r.node, "2026-11-02", "09:00")
	}
	for _, r := range rows {
		if r.then == "" {
			// No use case removes a member yet: the membership goes.
			b.execSQL(t, `DELETE FROM memberships WHERE user_id = ?`, r.approver.ID)
		} else {
			b.setRole(t, r.approver, r.then)
		}
	}
	b.Clock.Set(nine)
	if _, err := b.Sched.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	live := b.Live(t)
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			got := b.Release(t, r.rel.ID)
			_, isLive := live[r.node.ID]
			if r.publish {
				if got.State != release.StatePublished || !isLive {
					t.Fatalf("%s (%+v), live %v: an approver who still may approve runs", got.State, got.Outcome, isLive)
				}
				if a := b.lastAudit(t, r.rel.ID, "release.publish", engine.Scheduler.ID); !onBehalfOf(a, r.approver.ID) {
					t.Fatalf("on behalf of %v", a.Details["onBehalfOf"])
				}
				return
			}
			if got.State != release.StateExpired || got.Outcome.Reason != "approval_lost" || isLive {
				t.Fatalf("%s (%+v), live %v: want expired approval_lost, not published", got.State, got.Outcome, isLive)
			}
			if h := b.heldItems(t, r.rel.ID); h != 0 {
				t.Fatalf("%d items held", h)
			}
		})
	}
}

// S14: every scheduler action is audited as the scheduler, on behalf of
// the approver, with the release id and the run id; a publish also records
// the hash and the snapshot.
func TestInvariantS14SchedulerActsAreAudited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	for _, tc := range []struct {
		name  string
		state release.State
		// reach schedules the article as the editor (the approver), makes
		// the run end in state, and returns the release and the run's time.
		reach func(t *testing.T, b *testBundle) (release.Release, time.Time)
	}{
		{"Published", release.StatePublished, func(t *testing.T, b *testBundle) (release.Release, time.Time) {
			r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
			b.Clock.Set(nine)
			b.Tick(t)
			return r, nine
		}},
		{"Conflict", release.StateConflict, func(t *testing.T, b *testBundle) (release.Release, time.Time) {
			first := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
			b.Clock.Set(nine)
			b.Tick(t)
			d := b.Node(t, b.Article.ID)
			body := d.Body
			body.Text = "Final."
			n, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body)
			if err != nil {
				t.Fatal(err)
			}
			r := b.Schedule(t, b.Editor, n, "2026-11-02", "10:00")
			site, _ := b.Eng.Site(ctx, b.Site.ID)
			if _, err := b.Releases.Undo(ctx, b.Editor, b.Site.ID, first.ID, site.Rev); err != nil {
				t.Fatal(err)
			}
			at := nine.Add(time.Hour)
			b.Clock.Set(at)
			b.Tick(t)
			return r, at
		}},
		{"FailedDependencyMissing", release.StateFailed, func(t *testing.T, b *testBundle) (release.Release, time.Time) {
			r, _ := b.dependencyGone(t)
			b.Clock.Set(nine)
			b.Tick(t)
			return r, nine
		}},
		{"ExpiredApprovalLost", release.StateExpired, func(t *testing.T, b *testBundle) (release.Release, time.Time) {
			r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
			b.setRole(t, b.Editor, "contributor")
			b.Clock.Set(nine)
			b.Tick(t)
			return r, nine
		}},
		{"Missed", release.StateMissed, func(t *testing.T, b *testBundle) (release.Release, time.Time) {
			r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
			b.Clock.Set(nine.Add(2 * time.Hour))
			b.Tick(t)
			return r, nine
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBundle(t)
			r, at := tc.reach(t, b)
			got := b.Release(t, r.ID)
			if got.State != tc.state {
				t.Fatalf("setup reached %s (%+v), want %s", got.State, got.Outcome, tc.state)
			}
			runID := ids.RunID(r.ID, at)
			if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE id = ? AND subject_id = ?`, runID, r.ID); n != 1 {
				t.Fatalf("no run row %s", runID)
			}
			action := "release." + string(tc.state)
			if tc.state == release.StatePublished {
				action = "release.publish"
			}
			a := b.lastAudit(t, r.ID, action, engine.Scheduler.ID)
			problems := map[string][]string{} // by aspect
			if a.ReleaseID != r.ID || a.SiteID != b.Site.ID {
				problems["release"] = append(problems["release"], fmt.Sprintf("release/site %q/%q", a.ReleaseID, a.SiteID))
			}
			if a.RunID != runID {
				problems["run"] = append(problems["run"], fmt.Sprintf("run_id %q, want %q", a.RunID, runID))
			}
			if !onBehalfOf(a, b.Editor.ID) {
				problems["behalf"] = append(problems["behalf"], fmt.Sprintf("onBehalfOf %v, want the approver %s", a.Details["onBehalfOf"], b.Editor.ID))
			}
			if tc.state == release.StatePublished {
				if a.Details["hash"] != r.Hash || a.Details["snapshot"] != got.Outcome.SnapshotID || a.Details["snapshot"] == "" {
					problems["publish"] = append(problems["publish"], fmt.Sprintf("publish details %v, want hash %s and snapshot %s", a.Details, r.Hash, got.Outcome.SnapshotID))
				}
				if m, _ := a.Details["requestedBy"].(map[string]any); m["id"] != b.Editor.ID {
					problems["publish"] = append(problems["publish"], fmt.Sprintf("requestedBy %v", a.Details["requestedBy"]))
				}
			}
			for _, aspect := range slices.Sorted(maps.Keys(problems)) {
				t.Errorf("audit row %s of a %s release: %v", a.Action, tc.state, problems[aspect])
			}
		})
	}

	// The never-early recompute (§9.1) moving a release later is the
	// scheduler's act: audited as it, with both instants. No run exists
	// for the occurrence it moved away from.
	t.Run("NeverEarlyReschedule", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		early := nine.Add(-30 * time.Minute) // as a host with other tzdata stored it
		b.SetExecuteAt(t, r.ID, early)
		b.Clock.Set(early)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("ran early: %+v", rep)
		}
		a := b.lastAudit(t, r.ID, "release.reschedule", engine.Scheduler.ID)
		if a.ReleaseID != r.ID || a.Details["from"] != "2026-11-02T05:30:00.000Z" || a.Details["to"] != "2026-11-02T06:00:00.000Z" ||
			a.Details["adjusted"] != "tzdata" {
			t.Fatalf("audit %+v", a)
		}
	})

	// An unapproved request expiring is the scheduler's act too; it has no
	// run (nothing was claimed) and no approver.
	t.Run("ExpiredUnapproved", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		b.Clock.Set(nine)
		b.Tick(t)
		a := b.lastAudit(t, r.ID, "release.expired", engine.Scheduler.ID)
		if a.ReleaseID != r.ID || a.SiteID != b.Site.ID {
			t.Fatalf("audit %+v", a)
		}
	})
}
