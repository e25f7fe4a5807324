package releases_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/store"
)

// Helpers of the §5.2 transition tests (transitions_test.go) and the §17
// invariant tests (invariants_test.go).

// hookStore is the real store with hooks that run between an engine's reads
// and its guarded write, so a test can put another person's act exactly
// there, deterministically, on the same SQLite file.
type hookStore struct {
	*store.Store
	// beforePublish runs once, right before PublishSnapshot (the write of
	// nodes.Publish and engine.Undo, after all their reads).
	beforePublish func()
	// beforeApply runs once, right before ApplyRelease (the tick's guarded
	// batch, after its reads); a non-nil error is returned instead of
	// writing anything, as a store error would be.
	beforeApply func(scheduler.Apply) error
	// onFinish runs before every FinishRelease (a claimed run ending
	// without publishing).
	onFinish func(scheduler.Finish)
	// claimFirst refuses the tick's one-transaction publish (Apply.Claim),
	// as a failed write would be, so the run takes the claimed way: the
	// claim under a lease, then the reads, then the guarded batch.
	claimFirst bool
}

var errClaimFirst = errors.New("test: the one-transaction publish is refused")

var _ engine.Store = (*hookStore)(nil)

func (h *hookStore) PublishSnapshot(ctx context.Context, site engine.Site, newHash string, snap engine.Snapshot, a engine.AuditEntry) error {
	if f := h.beforePublish; f != nil {
		h.beforePublish = nil
		f()
	}
	return h.Store.PublishSnapshot(ctx, site, newHash, snap, a)
}

func (h *hookStore) ApplyRelease(ctx context.Context, a scheduler.Apply) (bool, error) {
	if h.claimFirst && a.Claim != nil {
		return false, errClaimFirst
	}
	if f := h.beforeApply; f != nil {
		h.beforeApply = nil
		if err := f(a); err != nil {
			return false, err
		}
	}
	return h.Store.ApplyRelease(ctx, a)
}

func (h *hookStore) FinishRelease(ctx context.Context, f scheduler.Finish) error {
	if h.onFinish != nil {
		h.onFinish(f)
	}
	return h.Store.FinishRelease(ctx, f)
}

// hooked returns a second engine on the bundle's database and clock whose
// store runs the hooks.
func (b *testBundle) hooked() (*hookStore, *releases.Releases) {
	h := &hookStore{Store: b.Store}
	return h, releases.New(engine.New(h, b.Clock, nil), h)
}

// execSQL runs a statement on the database directly: only for what no use case
// can do yet (each use says why).
func (b *testBundle) execSQL(tb testing.TB, query string, args ...any) {
	tb.Helper()
	if _, err := b.Store.DB().Exec(query, args...); err != nil {
		tb.Fatal(err)
	}
}

// heldItems counts the release's items with held = 1.
func (b *testBundle) heldItems(tb testing.TB, releaseID string) int {
	tb.Helper()
	return b.Count(tb, `SELECT count(*) FROM release_items WHERE release_id = ? AND held = 1`, releaseID)
}

// auditHistory is a release's audit rows, oldest first.
func (b *testBundle) auditHistory(tb testing.TB, releaseID string) []engine.AuditEntry {
	tb.Helper()
	h, err := b.Store.ReleaseHistory(context.Background(), releaseID)
	if err != nil {
		tb.Fatal(err)
	}
	if len(h) == 0 {
		tb.Fatalf("release %s has no audit rows", releaseID)
	}
	return h
}

// lastAudit is the release's newest audit row; it fails unless its action
// and actor are as given.
func (b *testBundle) lastAudit(tb testing.TB, releaseID, action string, actor string) engine.AuditEntry {
	tb.Helper()
	h := b.auditHistory(tb, releaseID)
	a := h[len(h)-1]
	if a.Action != action || a.Actor.ID != actor {
		tb.Fatalf("last audit row of %s = %s by %+v, want %s by %s (history %+v)", releaseID, a.Action, a.Actor, action, actor, h)
	}
	if actor == engine.Scheduler.ID && a.Actor != engine.Scheduler {
		tb.Fatalf("scheduler's audit actor = %+v, want %+v", a.Actor, engine.Scheduler)
	}
	return a
}

// wantLocked fails unless every edit of the node is refused with
// scheduled_locked naming releaseID, changing nothing.
func (b *testBundle) wantLocked(tb testing.TB, siteID, nodeID, releaseID string) {
	tb.Helper()
	ctx := context.Background()
	before := b.Dump(tb)
	d := b.NodeOn(tb, siteID, nodeID)
	if d.Held == nil || d.Held.ReleaseID != releaseID {
		tb.Fatalf("node %s held by %+v, want %s", nodeID, d.Held, releaseID)
	}
	body := d.Body
	body.Text += " Corrected."
	_, err := b.Nodes.SaveNode(ctx, on(b.Editor, siteID), siteID, nodeID, d.Rev, body)
	if e := wantRefusal(tb, err, engine.CodeScheduledLocked, ""); e.Args["Release"] != releaseID {
		tb.Fatalf("SaveNode lock names %v, want %s", e.Args["Release"], releaseID)
	}
	_, err = b.Nodes.EditNode(ctx, on(b.Owner, siteID), siteID, nodeID, d.Rev, content.Edit{Title: d.Body.Title, Slug: d.Body.Slug, Text: "x", Status: d.Body.Status})
	if e := wantRefusal(tb, err, engine.CodeScheduledLocked, ""); e.Args["Release"] != releaseID {
		tb.Fatalf("EditNode lock names %v, want %s", e.Args["Release"], releaseID)
	}
	if after := b.Dump(tb); after != before {
		tb.Fatalf("a refused edit of a held node changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// wantEditable fails unless the node is free and an edit of it saves.
func (b *testBundle) wantEditable(tb testing.TB, siteID, nodeID string) {
	tb.Helper()
	d := b.NodeOn(tb, siteID, nodeID)
	if d.Held != nil {
		tb.Fatalf("node %s still held by %+v", nodeID, d.Held)
	}
	body := d.Body
	body.Text += " Edited after the release let go."
	n, err := b.Nodes.SaveNode(context.Background(), on(b.Editor, siteID), siteID, nodeID, d.Rev, body)
	if err != nil {
		tb.Fatalf("edit after the release let go: %v", err)
	}
	if n.Rev != d.Rev+1 {
		tb.Fatalf("saved at rev %d, want %d", n.Rev, d.Rev+1)
	}
}

// liveOf is a site's live snapshot id and its refs by node id.
func (b *testBundle) liveOf(tb testing.TB, siteID string) (string, map[string]release.Ref) {
	tb.Helper()
	ctx := context.Background()
	site, err := b.Eng.Site(ctx, siteID)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]release.Ref{}
	if site.PublishedSnapshotID == "" {
		return "", out
	}
	snap, err := b.Store.Snapshot(ctx, site.PublishedSnapshotID)
	if err != nil {
		tb.Fatal(err)
	}
	for i, r := range snap.Refs {
		if i > 0 && snap.Refs[i-1].ID >= r.ID {
			tb.Fatalf("snapshot %s refs not sorted by id: %+v", snap.ID, snap.Refs)
		}
		out[r.ID] = r
	}
	return snap.ID, out
}

// publishSite is an ordinary publish of the site by the editor; nothing to
// publishSite is not an error.
func (b *testBundle) publishSite(tb testing.TB, siteID string) {
	tb.Helper()
	_, err := b.Nodes.Publish(context.Background(), on(b.Editor, siteID), siteID)
	if e, ok := engine.AsError(err); ok && e.Code == release.CodeNothingToPublish {
		return
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// pinItem is one item of pinRelease: set the node to its working copy, or
// remove it from the live site.
type pinItem struct {
	node   string
	remove bool
}

// pinRelease pins a release of several items, approved by approver, due at
// at, through the store's CreateRelease, as ScheduleNode pins one (each set
// item's target is the node's working copy and its deps the body's refs;
// the base is its live version). No use case builds a release of more than
// one item yet (propose_release and add_items do not exist), so the
// multi-item releases of the invariant tests are pinned here.
func (b *testBundle) pinRelease(tb testing.TB, siteID string, approver engine.User, at time.Time, pins ...pinItem) releases.ReleaseRow {
	tb.Helper()
	ctx := context.Background()
	_, live := b.liveOf(tb, siteID)
	now := b.Clock.Now().UTC().Truncate(time.Millisecond)
	var items []release.Item
	revs := map[string]int64{}
	for _, p := range pins {
		d := b.NodeOn(tb, siteID, p.node)
		it := release.Item{Op: release.OpSet, NodeID: d.ID, NodeKind: d.Kind, Target: &release.Version{Rev: d.Rev, Hash: d.Hash},
			Deps: d.Body.Refs}
		if p.remove {
			it.Op, it.Target, it.Deps = release.OpRemove, nil, nil
		}
		if l, ok := live[d.ID]; ok {
			it.Base = &release.Version{Rev: l.Rev, Hash: l.Hash}
		}
		items = append(items, it)
		revs[d.ID] = d.Rev
	}
	if err := release.ValidateItems(items); err != nil {
		tb.Fatalf("pinRelease: %v", err)
	}
	r := release.Release{SchemaVersion: 1, ID: ids.New("rel"), SiteID: siteID, Title: "Pinned set", Items: items,
		When:  &release.When{Kind: "at", At: at, TimeZone: "UTC"},
		State: release.StateScheduled, Hash: release.Hash(siteID, items),
		Approval:  &release.Approval{Kind: "person", By: approver.Actor(), At: now, ExecuteAt: &at},
		CreatedBy: approver.Actor(), CreatedAt: now, UpdatedAt: now, Rev: 1}
	audit := engine.AuditEntry{Action: "release.schedule", Actor: approver.Actor(), SiteID: siteID, ReleaseID: r.ID, At: now,
		Details: map[string]any{"at": localtime.FormatInstant(at), "hash": r.Hash, "state": r.State}}
	if err := b.Store.CreateRelease(ctx, releases.NewRelease{Release: r, ExecuteAt: &at, PinnedRevs: revs, Audit: audit}); err != nil {
		tb.Fatalf("pinRelease: %v", err)
	}
	got, err := b.Store.Release(ctx, siteID, r.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return got
}

// setRole changes a person's role. There is no use case for it yet (no
// member management), so the users row is written directly.
func (b *testBundle) setRole(tb testing.TB, u engine.User, role string) {
	tb.Helper()
	b.execSQL(tb, `UPDATE memberships SET role = ? WHERE user_id = ?`, role, u.ID)
}

// waitingRequest is the release's one waiting approval request.
func (b *testBundle) waitingRequest(tb testing.TB, releaseID string) releases.ApprovalRequest {
	tb.Helper()
	list, err := b.Releases.Approvals(context.Background(), b.Editor, b.Site.ID)
	if err != nil {
		tb.Fatal(err)
	}
	var out []releases.ApprovalRequest
	for _, v := range list {
		if v.Release.ID == releaseID {
			out = append(out, v.Request)
		}
	}
	if len(out) != 1 {
		tb.Fatalf("%d waiting requests for %s, want 1", len(out), releaseID)
	}
	return out[0]
}

// dependencyGone schedules the article for 09:00 (as the editor) with a
// reference to a page that is live when it is pinned, so no dependency
// closure adds it, and that an 08:30 release takes down: at 09:00 the
// article's dependency is neither live nor in its release (§6.3 step 5).
// It returns the 09:00 release and the page's id; the clock is at 08:30.
func (b *testBundle) dependencyGone(tb testing.TB) (release.Release, string) {
	tb.Helper()
	ctx := context.Background()
	dep := b.CreateNode(tb, b.Site.ID, release.KindPage, content.Body{Title: "Sources", Slug: "sources", Status: content.StatusPublished})
	b.publishSite(tb, b.Site.ID)
	half := start.Add(30 * time.Minute)
	takeDown := b.pinRelease(tb, b.Site.ID, b.Editor, half, pinItem{node: dep.ID, remove: true})
	body := b.Article.Body
	body.Refs = []string{dep.ID}
	art, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, b.Article.ID, b.Article.Rev, body)
	if err != nil {
		tb.Fatal(err)
	}
	r := b.Schedule(tb, b.Editor, art, "2026-11-02", "09:00")
	if deps := r.Items[len(r.Items)-1].Deps; !slices.Contains(deps, dep.ID) {
		tb.Fatalf("article's deps %v, want %s", deps, dep.ID)
	}
	b.Clock.Set(half)
	if rep := b.Tick(tb); rep.Published != 1 {
		tb.Fatalf("08:30 tick %+v", rep)
	}
	if got := b.Release(tb, takeDown.ID); got.State != release.StatePublished {
		tb.Fatalf("take-down release %s", got.State)
	}
	if _, ok := b.Live(tb)[dep.ID]; ok {
		tb.Fatal("the page is still live")
	}
	return r, dep.ID
}
