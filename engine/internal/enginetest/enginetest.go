// Package enginetest is the engine tests' shared fixture: one Studio
// database (a SQLite file, or PostgreSQL in the conformance run) with the
// use-case families on a fake clock, a site in
// Istanbul, one person of every role and one draft article. Each engine
// test package embeds Bundle in its own testBundle, so it can add the
// helpers only it needs.
package enginetest

import (
	"context"
	"strings"
	"studio/engine/calendar"
	"studio/engine/localtime"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/engine/settings"
	"sync"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/gates"
	"studio/engine/identity"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/store"
	"studio/store/storetest"
)

// Start is Monday 2 November 2026, 08:00 in Istanbul (05:00Z).
var Start = time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)

// Nine is 2 November 2026, 09:00 in Istanbul: the time most tests schedule.
var Nine = time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)

// TinyPNG is a whole 1×1 PNG: a media file's bytes must be the image
// they say, to the end (nodes.cleanImage walks them).
var TinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\nIDAT\x78\x9c\x63\x00\x01\x00\x00\x05\x00\x01\x0d\x0a\x2d\xb4\x00\x00\x00\x00IEND\xaeB`\x82")

// Bundle is one Studio database file with an engine on a fake clock, a
// site in Istanbul, one person of every role and one draft article.
type Bundle struct {
	Path  string
	Store *store.Store
	Clock *fakeclock.Clock
	Eng   *engine.Engine
	// Releases is the release use cases on Eng (engine/releases).
	Releases *releases.Releases
	// Nodes is the node use cases beside them (engine/nodes).
	Nodes *nodes.Nodes
	Sched *scheduler.Scheduler
	Cal   *calendar.Calendar
	Gates *gates.Gates
	// Identity is the people use cases (sign-in, tokens) on the engine.
	Identity *identity.Identity
	Site     engine.Site

	Owner, Admin, Editor, Author, Contributor engine.User

	Article content.Node
}

// New builds a Bundle on a fresh database: a SQLite file in tb's temp dir,
// or in the conformance run a PostgreSQL database (storetest.Database).
// Users are inserted through the store with a dummy password hash: bcrypt
// under -race would cost most of the suite's time and is not under test here.
func New(tb testing.TB) *Bundle {
	tb.Helper()
	return NewAt(tb, storetest.Database(tb))
}

// NewAt builds a Bundle on the fresh database at address.
func NewAt(tb testing.TB, address string) *Bundle {
	tb.Helper()
	ctx := context.Background()
	b := &Bundle{Path: address, Clock: fakeclock.New(Start)}
	var err error
	if b.Store, err = store.Open(ctx, b.Path); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Store.Close() })
	// The engine and its scheduler (the runs' writes, Publish now) share
	// the S6-checking store; scheduler.New registers its manual run with
	// the engine, as in every process.
	s6 := &s6Store{Store: b.Store, tb: tb}
	b.Eng = engine.New(s6, b.Clock, nil)
	b.Releases = releases.New(b.Eng, s6)
	b.Nodes = nodes.New(b.Releases, s6)
	b.Sched = scheduler.New(b.Releases, s6, nil)
	b.Cal = calendar.New(b.Store, b.Releases, b.Clock, nil)
	b.Gates = gates.New(b.Releases, b.Sched, s6)
	b.Identity = identity.New(b.Eng, b.Store, nil)
	if b.Site, err = b.Eng.CreateSite(ctx, "Demo Gazette", "Europe/Istanbul"); err != nil {
		tb.Fatal(err)
	}
	b.Owner = b.AddUser(tb, "Oya", policy.Owner)
	b.Admin = b.AddUser(tb, "Ali", policy.Admin)
	b.Editor = b.AddUser(tb, "Elif", policy.Editor)
	b.Author = b.AddUser(tb, "Aras", policy.Author)
	b.Contributor = b.AddUser(tb, "Can", policy.Contributor)
	b.Article = b.CreateNode(tb, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Election night", Slug: "election-night", Status: content.StatusDraft, Text: "Results."})
	return b
}

func (b *Bundle) AddUser(tb testing.TB, name string, role policy.Role) engine.User {
	tb.Helper()
	u := engine.User{ID: ids.New("user"), Email: strings.ToLower(name) + "@example.com", Name: name, Role: role, SiteID: b.Site.ID, Lang: "en"}
	if err := b.Store.CreateUser(context.Background(), u, "not-a-bcrypt-hash", b.Clock.Now()); err != nil {
		tb.Fatal(err)
	}
	return u
}

// On is u acting on the site siteID, with the role they hold on b.Site:
// on the bundle's sites everyone holds one role (CreateSite).
func On(u engine.User, siteID string) engine.User {
	u.SiteID = siteID
	return u
}

// CreateSite creates another site on which everyone of the bundle holds
// the role they hold on b.Site, as the memberships migration gave everyone
// of a Studio from before per-site roles.
func (b *Bundle) CreateSite(ctx context.Context, name, zone string) (engine.Site, error) {
	site, err := b.Eng.CreateSite(ctx, name, zone)
	if err != nil {
		return site, err
	}
	_, err = b.Store.DB().ExecContext(ctx, `INSERT INTO memberships (site_id, user_id, role, created_at)
		SELECT ?, user_id, role, created_at FROM memberships WHERE site_id = ?`, site.ID, b.Site.ID)
	return site, err
}

// CreateNode creates a node written by the contributor: so that the
// lower roles' own-level scopes (§10.1) reach the nodes tests give them,
// while editors and above act on any node.
func (b *Bundle) CreateNode(tb testing.TB, siteID string, kind release.NodeKind, body content.Body) content.Node {
	tb.Helper()
	n, err := b.Nodes.CreateNode(context.Background(), On(b.Contributor, siteID), siteID, kind, body)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// Schedule schedules node (last seen at rev) for date and clock in the
// site's zone and fails the test if that is refused.
func (b *Bundle) Schedule(tb testing.TB, u engine.User, n content.Node, date, clock string) release.Release {
	tb.Helper()
	r, err := b.Releases.ScheduleNode(context.Background(), On(u, n.SiteID), releases.ScheduleInput{SiteID: n.SiteID, NodeID: n.ID,
		ExpectedRev: n.Rev, Date: date, Time: clock})
	if err != nil {
		tb.Fatalf("schedule %s at %s %s: %v", n.ID, date, clock, err)
	}
	return r
}

// PublishArticle makes the test article live, published, through an
// ordinary publish, and returns it as it is then.
func (b *Bundle) PublishArticle(tb testing.TB) releases.NodeDetail {
	tb.Helper()
	ctx := context.Background()
	d := b.Node(tb, b.Article.ID)
	body := d.Body
	body.Status = content.StatusPublished
	if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body); err != nil {
		tb.Fatal(err)
	}
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		tb.Fatal(err)
	}
	return b.Node(tb, b.Article.ID)
}

func (b *Bundle) Node(tb testing.TB, id string) releases.NodeDetail {
	tb.Helper()
	d, err := b.Nodes.Node(context.Background(), b.Editor, b.Site.ID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// NodeOn reads node id of siteID as a reader of that site sees it, with
// its live version and its hold.
func (b *Bundle) NodeOn(tb testing.TB, siteID, id string) releases.NodeDetail {
	tb.Helper()
	d, err := b.Nodes.Node(context.Background(), engine.User{ID: "user_reader", Role: policy.Owner, SiteID: siteID}, siteID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func (b *Bundle) Release(tb testing.TB, id string) releases.ReleaseRow {
	tb.Helper()
	r, err := b.Releases.Release(context.Background(), b.Editor, b.Site.ID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// Live returns the site's Live snapshot by node id.
func (b *Bundle) Live(tb testing.TB) map[string]engine.LiveNode {
	tb.Helper()
	site, err := b.Eng.Site(context.Background(), b.Site.ID)
	if err != nil {
		tb.Fatal(err)
	}
	nodes, err := b.Nodes.LiveNodes(context.Background(), site)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]engine.LiveNode{}
	for _, n := range nodes {
		out[n.ID] = n
	}
	return out
}

func (b *Bundle) Tick(tb testing.TB) scheduler.TickReport {
	tb.Helper()
	rep, err := b.Sched.RunDue(context.Background(), "manual")
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

func (b *Bundle) Count(tb testing.TB, query string, args ...any) int {
	tb.Helper()
	var n int
	if err := b.Store.DB().QueryRow(query, args...).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

func (b *Bundle) Text(tb testing.TB, query string, args ...any) string {
	tb.Helper()
	var s string
	if err := b.Store.DB().QueryRow(query, args...).Scan(&s); err != nil {
		tb.Fatal(err)
	}
	return s
}

// Exec runs a statement on the bundle's database, for a test that sets up
// a row no use case writes.
func (b *Bundle) Exec(tb testing.TB, query string, args ...any) {
	tb.Helper()
	if _, err := b.Store.DB().Exec(query, args...); err != nil {
		tb.Fatal(err)
	}
}

// SetExecuteAt writes a release's stored instant directly, as a host with
// different tzdata would have computed it (§9.1).
func (b *Bundle) SetExecuteAt(tb testing.TB, id string, at time.Time) {
	tb.Helper()
	b.Exec(tb, `UPDATE releases SET execute_at = ? WHERE id = ?`, localtime.FormatInstant(at), id)
}

// Dump describes every row a use case could write (nodes and their
// versions, sites, snapshots, releases, items and holds, runs, audit), so
// "changed nothing" is a string comparison.
func (b *Bundle) Dump(tb testing.TB) string {
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
		`SELECT 'automations ' || COALESCE(group_concat(id || '@' || rev || ':' || state || ':' || name || ':' || COALESCE(rule, '-') || ':' ||
			start_local || ':' || time_zone || ':' || COALESCE(config, '-') || ':' || COALESCE(open_run_id, '-'), ' ' ORDER BY id), '') FROM automations`,
		`SELECT 'audit ' || count(*) FROM audit`,
		`SELECT 'approvals ' || COALESCE(group_concat(id || ':' || status, ' ' ORDER BY id), '') FROM approvals`,
		`SELECT 'agent_keys ' || COALESCE(group_concat(id || ':' || mode || ':' || scopes || ':' || COALESCE(revoked_at, '-') || ':' ||
			COALESCE(automation_id, '-'), ' ' ORDER BY id), '') FROM agent_keys`,
	}
	lines := make([]string, len(queries))
	for i, q := range queries {
		lines[i] = b.Text(tb, q)
	}
	return strings.Join(lines, "\n")
}

// WantRefusal fails unless err is an *engine.Error with code and field.
func WantRefusal(tb testing.TB, err error, code, field string) *engine.Error {
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

// SameInstant fails unless got and want are the same instant.
func SameInstant(tb testing.TB, what string, got, want time.Time) {
	tb.Helper()
	if !got.Equal(want) {
		tb.Fatalf("%s = %s, want %s", what, got.UTC().Format(time.RFC3339Nano), want.UTC().Format(time.RFC3339Nano))
	}
}

// schedulers holds one scheduler per engine, as a process has one.
var schedulers sync.Map

// SchedulerOf is eng's scheduler over st, made on first use.
func SchedulerOf(eng *releases.Releases, st scheduler.Store) *scheduler.Scheduler {
	if s, ok := schedulers.Load(eng); ok {
		return s.(*scheduler.Scheduler)
	}
	s, _ := schedulers.LoadOrStore(eng, scheduler.New(eng, st, nil))
	return s.(*scheduler.Scheduler)
}

// s6Store is the real store that checks S6 on every release change the
// engine and its scheduler write: an item change carries a new approval or clears the old
// one, never both and never neither. Every engine test that drives a use
// case changing items (edit a draft, send it, re-pin, re-base, edit and
// re-pin, approve) runs through it, so the check is a property over the
// use cases, not over one.
type s6Store struct {
	*store.Store
	tb testing.TB
}

func (s *s6Store) check(c releases.Change) {
	if c.Items != nil && (c.Approval != nil) == c.ClearApproval {
		s.tb.Errorf("S6: item change of %s (%s → %s, %s) with approval %v, clear %v", c.ID, c.From, c.To, c.Audit.Action,
			c.Approval != nil, c.ClearApproval)
	}
}

func (s *s6Store) ChangeRelease(ctx context.Context, c releases.Change) error {
	s.check(c)
	return s.Store.ChangeRelease(ctx, c)
}

func (s *s6Store) DecideApproval(ctx context.Context, d releases.Decision) error {
	s.check(d.Release)
	return s.Store.DecideApproval(ctx, d)
}

// RefuseChange fails unless change is refused with code and field and
// writes not one row.
func (b *Bundle) RefuseChange(tb testing.TB, code, field string, change func() error) *engine.Error {
	tb.Helper()
	before := b.Dump(tb)
	e := WantRefusal(tb, change(), code, field)
	if after := b.Dump(tb); after != before {
		tb.Fatalf("a refused change (%s) changed the database:\nbefore:\n%s\nafter:\n%s", code, before, after)
	}
	return e
}

// Pause turns the site's kill switch on as u.
func (b *Bundle) Pause(tb testing.TB, u engine.User, reason string) releases.ScheduleSettings {
	tb.Helper()
	ctx := context.Background()
	cur, err := b.Releases.ScheduleSettings(ctx, b.Editor, b.Site.ID)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, u, b.Site.ID, true, reason, cur.Rev)
	if err != nil {
		tb.Fatalf("pause: %v", err)
	}
	return s
}
