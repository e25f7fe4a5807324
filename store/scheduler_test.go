package store_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"studio/engine/identity"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/engine/scheduler"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/store"
	"studio/store/storetest"
)

// bundle is one Studio database with an engine on a fake clock, a site in
// Istanbul, an editor, a contributor and one draft article.
type bundle struct {
	path        string
	store       *store.Store
	clock       *fakeclock.Clock
	eng         *engine.Engine
	releases    *releases.Releases
	nodes       *nodes.Nodes
	sched       *scheduler.Scheduler
	site        engine.Site
	editor      engine.User
	contributor engine.User
	article     content.Node
}

// start is Monday 2 November 2026, 08:00 in Istanbul (05:00Z).
var start = time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)

func setup(t *testing.T) *bundle {
	t.Helper()
	return setupOn(t, storetest.Database(t))
}

// setupOn is setup on the database at path.
func setupOn(t *testing.T, path string) *bundle {
	t.Helper()
	ctx := context.Background()
	b := &bundle{path: path, clock: fakeclock.New(start)}
	var err error
	if b.store, err = store.Open(ctx, b.path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.store.Close() })
	b.eng = engine.New(b.store, b.clock, nil)
	b.releases = releases.New(b.eng, b.store)
	b.nodes = nodes.New(b.releases, b.store)
	b.sched = scheduler.New(b.releases, b.store, nil)
	if b.site, err = b.eng.CreateSite(ctx, "Demo Gazette", "Europe/Istanbul"); err != nil {
		t.Fatal(err)
	}
	people := identity.New(b.eng, b.store, nil)
	if b.editor, err = people.AddUser(ctx, b.site.ID, "editor@example.com", "Elif", policy.Editor, "correct horse", "tr"); err != nil {
		t.Fatal(err)
	}
	if b.contributor, err = people.AddUser(ctx, b.site.ID, "contrib@example.com", "Can", policy.Contributor, "correct horse", "en"); err != nil {
		t.Fatal(err)
	}
	// The contributor writes it: their own-level scopes reach it (§10.1).
	b.article, err = b.nodes.CreateNode(ctx, b.contributor, b.site.ID, release.KindContentEntry,
		content.Body{Title: "Election night", Slug: "election-night", Status: content.StatusDraft, Text: "Results."})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// schedule schedules the article for 2 November 09:00 Istanbul (06:00Z).
func (b *bundle) schedule(t *testing.T, u engine.User) release.Release {
	t.Helper()
	r, err := b.releases.ScheduleNode(context.Background(), u, releases.ScheduleInput{SiteID: b.site.ID, NodeID: b.article.ID,
		ExpectedRev: b.article.Rev, Date: "2026-11-02", Time: "09:00"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (b *bundle) live(t *testing.T) map[string]engine.LiveNode {
	t.Helper()
	site, err := b.eng.Site(context.Background(), b.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := b.nodes.LiveNodes(context.Background(), site)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]engine.LiveNode{}
	for _, n := range nodes {
		out[n.ID] = n
	}
	return out
}

func (b *bundle) tick(t *testing.T) scheduler.TickReport {
	t.Helper()
	rep, err := b.sched.RunDue(context.Background(), "manual")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func (b *bundle) release(t *testing.T, id string) releases.ReleaseRow {
	t.Helper()
	r, err := b.releases.Release(context.Background(), engine.User{ID: "user_reader", Role: policy.Owner, SiteID: b.site.ID}, b.site.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (b *bundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := b.store.DB().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTickPublishesAtItsTimeExactlyOnce(t *testing.T) {
	b := setup(t)
	r := b.schedule(t, b.editor)
	if r.State != release.StateScheduled || r.Approval == nil || r.Approval.By.ID != b.editor.ID {
		t.Fatalf("editor's schedule: state %s approval %+v", r.State, r.Approval)
	}
	at := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	if !r.When.At.Equal(at) || r.When.LocalTime != "2026-11-02T09:00" || r.When.TimeZone != "Europe/Istanbul" {
		t.Fatalf("when = %+v", r.When)
	}

	b.clock.Set(at.Add(-time.Millisecond))
	if rep := b.tick(t); rep.Ran != 0 {
		t.Fatalf("tick before T ran %d", rep.Ran)
	}
	if _, ok := b.live(t)[b.article.ID]; ok {
		t.Fatal("article live before its time")
	}
	if got := b.release(t, r.ID).State; got != release.StateScheduled {
		t.Fatalf("state before T = %s", got)
	}

	b.clock.Set(at.Add(1500 * time.Millisecond))
	if rep := b.tick(t); rep.Published != 1 {
		t.Fatalf("tick at T: %+v", rep)
	}
	n, ok := b.live(t)[b.article.ID]
	if !ok || n.Body.Status != content.StatusPublished || n.Rev != r.Items[0].Target.Rev {
		t.Fatalf("live after T: %+v (ok %v)", n, ok)
	}
	got := b.release(t, r.ID)
	runID := ids.RunID(r.ID, at)
	if got.State != release.StatePublished || got.Outcome == nil || got.Outcome.RunID != runID ||
		got.Outcome.LatenessSeconds == nil || *got.Outcome.LatenessSeconds != 1 || got.LeaseToken != "" {
		t.Fatalf("release after T: %+v outcome %+v", got, got.Outcome)
	}
	if c := b.count(t, `SELECT count(*) FROM schedule_runs WHERE id = ? AND state = 'succeeded' AND lateness_s = 1`, runID); c != 1 {
		t.Fatalf("run rows = %d", c)
	}
	if c := b.count(t, `SELECT count(*) FROM audit WHERE action = 'release.publish' AND release_id = ? AND run_id = ?`, r.ID, runID); c != 1 {
		t.Fatalf("audit rows = %d", c)
	}
	if c := b.count(t, `SELECT count(*) FROM release_items WHERE held = 1`); c != 0 {
		t.Fatalf("held items after publish = %d", c)
	}

	b.clock.Advance(time.Minute)
	if rep := b.tick(t); rep.Ran != 0 {
		t.Fatalf("second tick ran %d", rep.Ran)
	}
	if c := b.count(t, `SELECT count(*) FROM snapshots WHERE reason = 'scheduled'`); c != 1 {
		t.Fatalf("scheduled snapshots = %d", c)
	}
}

func TestConcurrentTickersOnOneDatabasePublishOnce(t *testing.T) {
	b := setup(t)
	r := b.schedule(t, b.editor)
	b.clock.Set(r.When.At)

	// Four engines on two stores (separate connection pools on one file),
	// each ticking repeatedly at the same instant.
	engines := []*scheduler.Scheduler{b.sched}
	for range 3 {
		s, err := store.Open(context.Background(), b.path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		engines = append(engines, scheduler.New(releases.New(engine.New(s, b.clock, nil), s), s, nil))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	published := 0
	for _, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				rep, err := e.RunDue(context.Background(), "node")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				published += rep.Published
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if published != 1 {
		t.Fatalf("published %d times", published)
	}
	if c := b.count(t, `SELECT count(*) FROM snapshots WHERE reason = 'scheduled'`); c != 1 {
		t.Fatalf("scheduled snapshots = %d", c)
	}
	if c := b.count(t, `SELECT count(*) FROM audit WHERE action = 'release.publish'`); c != 1 {
		t.Fatalf("publish audits = %d", c)
	}
	if got := b.release(t, r.ID).State; got != release.StatePublished {
		t.Fatalf("state = %s", got)
	}
}

func TestMoreThanAnHourLateIsMissed(t *testing.T) {
	b := setup(t)
	r := b.schedule(t, b.editor)
	b.clock.Set(r.When.At.Add(time.Hour + time.Second))
	if rep := b.tick(t); rep.Published != 0 || rep.Failed != 1 {
		t.Fatalf("late tick: %+v", rep)
	}
	got := b.release(t, r.ID)
	if got.State != release.StateMissed || got.Outcome.Kind != "missed" || *got.Outcome.LatenessSeconds != 3601 {
		t.Fatalf("late release: %s %+v", got.State, got.Outcome)
	}
	if _, ok := b.live(t)[b.article.ID]; ok {
		t.Fatal("missed release was published")
	}
}

func TestWithinTheHourStillRuns(t *testing.T) {
	b := setup(t)
	r := b.schedule(t, b.editor)
	b.clock.Set(r.When.At.Add(59 * time.Minute))
	if rep := b.tick(t); rep.Published != 1 || rep.Late != 1 {
		t.Fatalf("tick 59 min late: %+v", rep)
	}
}

func TestUnapprovedRequestExpiresAtItsTime(t *testing.T) {
	b := setup(t)
	r := b.schedule(t, b.contributor)
	if r.State != release.StateAwaitingApproval || r.Approval != nil {
		t.Fatalf("contributor's schedule: %s %+v", r.State, r.Approval)
	}
	b.clock.Set(r.When.At)
	b.tick(t)
	got := b.release(t, r.ID)
	if got.State != release.StateExpired || got.Outcome.Reason != "unapproved" {
		t.Fatalf("unapproved at T: %s %+v", got.State, got.Outcome)
	}
	if _, ok := b.live(t)[b.article.ID]; ok {
		t.Fatal("unapproved release was published")
	}
}

func TestConflictWhenTheBaseMoved(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	r := b.schedule(t, b.editor)
	// Someone publishes the site: the held article stays out, so its base
	// is still absent. Then the release is canceled, the article set to
	// published and published the ordinary way: a release pinned before
	// that would conflict.
	if _, err := b.nodes.Publish(ctx, b.editor, b.site.ID); err == nil {
		t.Fatal("publish with only a held node changed should have nothing to publish")
	}
	if err := b.releases.Cancel(ctx, b.editor, b.site.ID, r.ID, r.Rev); err != nil {
		t.Fatal(err)
	}
	n, err := b.nodes.Node(ctx, b.editor, b.site.ID, b.article.ID)
	if err != nil {
		t.Fatal(err)
	}
	n.Body.Status = content.StatusPublished
	if _, err := b.nodes.SaveNode(ctx, b.editor, b.site.ID, n.ID, n.Rev, n.Body); err != nil {
		t.Fatal(err)
	}
	if _, err := b.nodes.Publish(ctx, b.editor, b.site.ID); err != nil {
		t.Fatal(err)
	}
	// A release pinned before that publish (base absent) now conflicts.
	stale := r
	stale.ID, stale.State, stale.Rev = ids.New("rel"), release.StateScheduled, 1
	at := b.clock.Now().Add(2 * time.Minute)
	stale.When.At = at
	stale.When.LocalTime = ""
	if err := b.store.CreateRelease(ctx, releases.NewRelease{Release: stale, ExecuteAt: &at, Audit: engine.AuditEntry{Action: "test", At: b.clock.Now()}}); err != nil {
		t.Fatal(err)
	}
	b.clock.Set(at)
	b.tick(t)
	got := b.release(t, stale.ID)
	if got.State != release.StateConflict || len(got.Outcome.Conflicts) != 1 || got.Outcome.Conflicts[0].Found == nil {
		t.Fatalf("stale release: %s %+v", got.State, got.Outcome)
	}
}

// The due read carries each release's approver as their account is now
// (the run re-checks their right with it, §10.6, without reading them
// again): the editor who scheduled it; none for a request nobody approved.
func TestDueWorkCarriesTheApprover(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	approved := b.schedule(t, b.editor)
	other, err := b.nodes.CreateNode(ctx, b.contributor, b.site.ID, release.KindContentEntry,
		content.Body{Title: "Budget night", Slug: "budget-night", Status: content.StatusDraft, Text: "Numbers."})
	if err != nil {
		t.Fatal(err)
	}
	asked, err := b.releases.ScheduleNode(ctx, b.contributor, releases.ScheduleInput{SiteID: b.site.ID, NodeID: other.ID,
		ExpectedRev: other.Rev, Date: "2026-11-02", Time: "09:00"})
	if err != nil || asked.State != release.StateAwaitingApproval {
		t.Fatalf("the contributor's request: %s, %v", asked.State, err)
	}
	w, err := b.store.DueWork(ctx, approved.When.At.Add(time.Minute), 10, "")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]releases.ReleaseRow{}
	for _, r := range w.Releases {
		seen[r.ID] = r
	}
	if r := seen[approved.ID]; !r.ApproverRead || r.Approver == nil || !reflect.DeepEqual(*r.Approver, b.editor) {
		t.Fatalf("approved release: read %v approver %+v, want %+v", r.ApproverRead, r.Approver, b.editor)
	}
	if r, ok := seen[asked.ID]; !ok || !r.ApproverRead || r.Approver != nil {
		t.Fatalf("waiting request: due %v read %v approver %+v, want read, none", ok, r.ApproverRead, r.Approver)
	}
}

// TestDueWorkStartsAtTheGivenSite: rows due at one instant come site by
// site, from the site given, around to the ones before it, each site's in
// its time order; an earlier instant comes first whatever the site; the
// limit cuts the rotation, not the site order. (Schedulers ticking at once
// start on different sites, so they read different rows.)
func TestDueWorkStartsAtTheGivenSite(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	sites := []engine.Site{b.site}
	for i := range 4 {
		s, err := b.eng.CreateSite(ctx, fmt.Sprintf("Gazette %d", i), "Europe/Istanbul")
		if err != nil {
			t.Fatal(err)
		}
		if err := b.store.AddMember(ctx, s.ID, b.editor.ID, policy.Editor, b.clock.Now()); err != nil {
			t.Fatal(err)
		}
		sites = append(sites, s)
	}
	scheduleOn := func(site engine.Site, n int, at string) string {
		u := b.editor
		u.SiteID = site.ID
		node, err := b.nodes.CreateNode(ctx, u, site.ID, release.KindContentEntry, content.Body{Title: "Budget",
			Slug: fmt.Sprintf("budget-%d-%s", n, at[:2]), Status: content.StatusDraft, Text: "Numbers."})
		if err != nil {
			t.Fatal(err)
		}
		r, err := b.releases.ScheduleNode(ctx, u, releases.ScheduleInput{SiteID: site.ID, NodeID: node.ID, ExpectedRev: node.Rev,
			Date: "2026-11-02", Time: at})
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	var early string
	for i, s := range sites {
		for n := range 3 {
			scheduleOn(s, n, "09:00")
		}
		if i == 2 {
			early = scheduleOn(s, 9, "08:59")
		}
	}
	due := func(from string, limit int) []releases.ReleaseRow {
		t.Helper()
		w, err := b.store.DueWork(ctx, time.Date(2026, 11, 2, 6, 1, 0, 0, time.UTC), limit, from)
		if err != nil {
			t.Fatal(err)
		}
		return w.Releases
	}
	// The database's own order of the sites (its collation), from "".
	var order []string
	for _, r := range due("", 100)[1:] {
		if len(order) == 0 || order[len(order)-1] != r.SiteID {
			order = append(order, r.SiteID)
		}
	}
	if len(order) != len(sites) {
		t.Fatalf("from the start, the sites come %v: not one run each of %d sites", order, len(sites))
	}
	for k := range sites {
		rows := due(order[k], 100)
		if len(rows) != 16 || rows[0].ID != early {
			t.Fatalf("from %s: %d rows, first %s; want 16, the 08:59 release %s first", order[k], len(rows), rows[0].ID, early)
		}
		want := append(slices.Clone(order[k:]), order[:k]...)
		for i, r := range rows[1:] {
			if site := want[i/3]; r.SiteID != site {
				t.Fatalf("from %s, row %d is of %s, want %s (sites in order %v)", order[k], i+1, r.SiteID, site, want)
			}
			if i%3 > 0 && r.ID <= rows[i].ID {
				t.Fatalf("from %s, %s's rows are not in their order: %s after %s", order[k], r.SiteID, r.ID, rows[i].ID)
			}
		}
		if cut := due(order[k], 5); len(cut) != 5 || cut[1].SiteID != want[0] || cut[4].SiteID != want[1] {
			t.Fatalf("from %s with a limit of 5: %v", order[k], siteIDs(cut))
		}
	}
}

func siteIDs(rows []releases.ReleaseRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.SiteID)
	}
	return out
}
