package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"studio/engine/calendar"
	"studio/engine/scheduler"
	"sync"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/ids"
	"studio/engine/policy"
	"studio/engine/release"
	"studio/store"
)

// start is Monday 2 November 2026, 08:00 in Istanbul (05:00Z).
var start = time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)

// nine is 2 November 2026, 09:00 in Istanbul: the time most tests schedule.
var nine = time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)

// testBundle is one Studio database file with an engine on a fake clock, a
// site in Istanbul, one person of every role and one draft article.
type testBundle struct {
	path  string
	store *store.Store
	clock *fakeclock.Clock
	eng   *engine.Engine
	sched *scheduler.Scheduler
	cal   *calendar.Calendar
	site  engine.Site

	owner, admin, editor, author, contributor engine.User

	article content.Node
}

// newBundle builds a testBundle on a fresh SQLite file in tb's temp dir.
// Users are inserted through the store with a dummy password hash: bcrypt
// under -race would cost most of the suite's time and is not under test here.
func newBundle(tb testing.TB) *testBundle {
	tb.Helper()
	ctx := context.Background()
	b := &testBundle{path: filepath.Join(tb.TempDir(), "studio.db"), clock: fakeclock.New(start)}
	var err error
	if b.store, err = store.Open(ctx, b.path); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.store.Close() })
	b.eng = engine.New(&s6Store{Store: b.store, tb: tb}, b.clock, nil)
	b.sched = scheduler.New(b.eng, b.store, nil)
	b.cal = calendar.New(b.store, b.clock, nil)
	if b.site, err = b.eng.CreateSite(ctx, "Demo Gazette", "Europe/Istanbul"); err != nil {
		tb.Fatal(err)
	}
	b.owner = b.addUser(tb, "Oya", policy.Owner)
	b.admin = b.addUser(tb, "Ali", policy.Admin)
	b.editor = b.addUser(tb, "Elif", policy.Editor)
	b.author = b.addUser(tb, "Aras", policy.Author)
	b.contributor = b.addUser(tb, "Can", policy.Contributor)
	b.article = b.createNode(tb, b.site.ID, release.KindContentEntry,
		content.Body{Title: "Election night", Slug: "election-night", Status: content.StatusDraft, Text: "Results."})
	return b
}

func (b *testBundle) addUser(tb testing.TB, name string, role policy.Role) engine.User {
	tb.Helper()
	u := engine.User{ID: ids.New("user"), Email: strings.ToLower(name) + "@example.com", Name: name, Role: role, Lang: "en"}
	if err := b.store.CreateUser(context.Background(), u, "not-a-bcrypt-hash", b.clock.Now()); err != nil {
		tb.Fatal(err)
	}
	return u
}

// createNode creates a node written by the contributor: so that the
// lower roles' own-level scopes (§10.1) reach the nodes tests give them,
// while editors and above act on any node.
func (b *testBundle) createNode(tb testing.TB, siteID string, kind release.NodeKind, body content.Body) content.Node {
	tb.Helper()
	n, err := b.eng.CreateNode(context.Background(), b.contributor, siteID, kind, body)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// schedule schedules node (last seen at rev) for date and clock in the
// site's zone and fails the test if that is refused.
func (b *testBundle) schedule(tb testing.TB, u engine.User, n content.Node, date, clock string) release.Release {
	tb.Helper()
	r, err := b.eng.ScheduleNode(context.Background(), u, engine.ScheduleInput{SiteID: n.SiteID, NodeID: n.ID,
		ExpectedRev: n.Rev, Date: date, Time: clock})
	if err != nil {
		tb.Fatalf("schedule %s at %s %s: %v", n.ID, date, clock, err)
	}
	return r
}

func (b *testBundle) node(tb testing.TB, id string) engine.NodeDetail {
	tb.Helper()
	d, err := b.eng.Node(context.Background(), b.site.ID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func (b *testBundle) release(tb testing.TB, id string) engine.ReleaseRow {
	tb.Helper()
	r, err := b.eng.Release(context.Background(), b.site.ID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// live returns the site's live snapshot by node id.
func (b *testBundle) live(tb testing.TB) map[string]engine.LiveNode {
	tb.Helper()
	site, err := b.eng.Site(context.Background(), b.site.ID)
	if err != nil {
		tb.Fatal(err)
	}
	nodes, err := b.eng.LiveNodes(context.Background(), site)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]engine.LiveNode{}
	for _, n := range nodes {
		out[n.ID] = n
	}
	return out
}

func (b *testBundle) tick(tb testing.TB) scheduler.TickReport {
	tb.Helper()
	rep, err := b.sched.RunDue(context.Background(), "manual")
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

func (b *testBundle) count(tb testing.TB, query string, args ...any) int {
	tb.Helper()
	var n int
	if err := b.store.DB().QueryRow(query, args...).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

func (b *testBundle) text(tb testing.TB, query string, args ...any) string {
	tb.Helper()
	var s string
	if err := b.store.DB().QueryRow(query, args...).Scan(&s); err != nil {
		tb.Fatal(err)
	}
	return s
}

// dump describes every row a use case could write (nodes and their
// versions, sites, snapshots, releases, items and holds, runs, audit), so
// "changed nothing" is a string comparison.
func (b *testBundle) dump(tb testing.TB) string {
	tb.Helper()
	queries := []string{
		`SELECT 'nodes ' || COALESCE(group_concat(id || '@' || rev || ':' || hash, ' ' ORDER BY id), '') FROM nodes`,
		`SELECT 'versions ' || COALESCE(group_concat(node_id || '@' || rev || ':' || hash, ' ' ORDER BY node_id, rev), '') FROM node_versions`,
		`SELECT 'sites ' || COALESCE(group_concat(id || '@' || rev || ':' || hash || ':' || time_zone || ':' || COALESCE(published_snapshot_id, '-'), ' ' ORDER BY id), '') FROM sites`,
		`SELECT 'snapshots ' || count(*) FROM snapshots`,
		`SELECT 'releases ' || COALESCE(group_concat(id || '@' || rev || ':' || state || ':' || COALESCE(execute_at, '-') || ':' ||
			COALESCE(approval, '-') || ':' || COALESCE(outcome, '-') || ':' || COALESCE(lease_token, '-'), ' ' ORDER BY id), '') FROM releases`,
		`SELECT 'items ' || COALESCE(group_concat(release_id || '/' || node_id || ':' || held, ' ' ORDER BY release_id, node_id), '') FROM release_items`,
		`SELECT 'runs ' || count(*) FROM schedule_runs`,
		`SELECT 'audit ' || count(*) FROM audit`,
		`SELECT 'approvals ' || COALESCE(group_concat(id || ':' || status, ' ' ORDER BY id), '') FROM approvals`,
	}
	lines := make([]string, len(queries))
	for i, q := range queries {
		lines[i] = b.text(tb, q)
	}
	return strings.Join(lines, "\n")
}

// wantRefusal fails unless err is an *engine.Error with code and field.
func wantRefusal(tb testing.TB, err error, code, field string) *engine.Error {
	tb.Helper()
	e, ok := engine.AsError(err)
	if !ok {
		tb.Fatalf("err = %v (%T), want *engine.Error %s", err, err, code)
	}
	if e.Code != code || e.Field != field {
		tb.Fatalf("refusal = {Code: %q, Field: %q}, want {Code: %q, Field: %q}", e.Code, e.Field, code, field)
	}
	return e
}

// sameInstant fails unless got and want are the same instant.
func sameInstant(tb testing.TB, what string, got, want time.Time) {
	tb.Helper()
	if !got.Equal(want) {
		tb.Fatalf("%s = %s, want %s", what, got.UTC().Format(time.RFC3339Nano), want.UTC().Format(time.RFC3339Nano))
	}
}

// schedulers holds one scheduler per engine, as a process has one.
var schedulers sync.Map

// schedulerOf is eng's scheduler over st, made on first use.
func schedulerOf(eng *engine.Engine, st scheduler.Store) *scheduler.Scheduler {
	s, _ := schedulers.LoadOrStore(eng, scheduler.New(eng, st, nil))
	return s.(*scheduler.Scheduler)
}

// s6Store is the real store that checks S6 on every release change the
// engine writes: an item change carries a new approval or clears the old
// one, never both and never neither. Every engine test that drives a use
// case changing items (edit a draft, send it, re-pin, re-base, edit and
// re-pin, approve) runs through it, so the check is a property over the
// use cases, not over one.
type s6Store struct {
	*store.Store
	tb testing.TB
}

func (s *s6Store) check(c engine.Change) {
	if c.Items != nil && (c.Approval != nil) == c.ClearApproval {
		s.tb.Errorf("S6: item change of %s (%s → %s, %s) with approval %v, clear %v", c.ID, c.From, c.To, c.Audit.Action,
			c.Approval != nil, c.ClearApproval)
	}
}

func (s *s6Store) ChangeRelease(ctx context.Context, c engine.Change) error {
	s.check(c)
	return s.Store.ChangeRelease(ctx, c)
}

func (s *s6Store) DecideApproval(ctx context.Context, d engine.Decision) error {
	s.check(d.Release)
	return s.Store.DecideApproval(ctx, d)
}
