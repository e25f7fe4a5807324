package scheduler_test

import (
	"context"
	"path/filepath"
	"strings"
	"studio/engine/scheduler"
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
	b.eng = engine.New(b.store, b.clock, nil)
	b.sched = scheduler.New(b.eng, b.store, nil)
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

func (b *testBundle) createNode(tb testing.TB, siteID string, kind release.NodeKind, body content.Body) content.Node {
	tb.Helper()
	n, err := b.eng.CreateNode(context.Background(), b.contributor, siteID, kind, body) // so own-level scopes reach it (§10.1)
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

// sameInstant fails unless got and want are the same instant.
func sameInstant(tb testing.TB, what string, got, want time.Time) {
	tb.Helper()
	if !got.Equal(want) {
		tb.Fatalf("%s = %s, want %s", what, got.UTC().Format(time.RFC3339Nano), want.UTC().Format(time.RFC3339Nano))
	}
}
