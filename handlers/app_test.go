package handlers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/gates"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/engine/services"
	"studio/engine/setup"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"
	"golang.org/x/crypto/bcrypt"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/identity"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/people"
	"studio/engine/policy"
	"studio/handlers"
	"studio/handlers/studio"
	"studio/store"
	"studio/store/storetest"
)

// start is Monday 2 November 2026, 08:00 in Istanbul (05:00Z).
var start = time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)

// testCDNMaxAge is the tests' ceiling on CDN lifetimes: long enough that
// the gates and releases of a fixture, hours apart, decide max-age.
const testCDNMaxAge = 24 * time.Hour

// password is every test account's password.
const password = "correct horse battery"

const sessionCookie = "studio_session"

// testApp is Studio wired as cmd/studio's newApp wires it, on a fresh
// migrated SQLite file and a fake clock, served by httptest, with the demo
// site: "Demo Gazette" in Istanbul, an editor, a contributor, a live page, a
// live article and a draft article.
type testApp struct {
	URL   string
	store *store.Store
	clock settledClock
	eng   *engine.Engine
	nodes *nodes.Nodes
	// releases is the release use cases (svc.Releases).
	releases *releases.Releases
	sched    *scheduler.Scheduler // the handlers' backstop (no loop runs)
	gates    *gates.Gates
	// identity is the handlers' people use cases: its sign-in throttle is
	// the one the sign-in form counts on.
	identity *identity.Identity
	// aut is the handlers' automation use cases.
	aut *automations.Automations
	// agents is the handlers' agent-key use cases.
	agents *agents.Agents
	// setup is the handlers' first run: the token its link holds.
	setup *setup.Setup
	// people is the handlers' members and invitations of a site.
	people *people.People

	site        engine.Site
	editor      engine.User
	contributor engine.User
	page        content.Node // live, /about
	live        content.Node // live, /posts/welcome
	draft       content.Node // draft, /posts/election-night

	// releasesChecked counts the releases of /api answers checked against
	// §4.2's schema (checkReleases).
	releasesChecked *atomic.Int64
}

func newApp(t *testing.T, opts ...handlers.Option) *testApp {
	t.Helper()
	ctx := context.Background()
	a := emptyApp(t, opts...)
	var err error
	if a.site, err = a.eng.CreateSite(ctx, "Demo Gazette", "Europe/Istanbul"); err != nil {
		t.Fatal(err)
	}
	a.editor = a.addUser(t, "editor@example.com", "Elif Editor", policy.Editor, "en")
	a.contributor = a.addUser(t, "contributor@example.com", "Chris Contributor", policy.Contributor, "en")
	now := a.eng.Now()
	a.page = a.createNode(t, release.KindPage, content.Body{Title: "About", Slug: "about", Lang: "en",
		Status: content.StatusPublished, Text: "Demo Gazette is a sample site."})
	a.live = a.createNode(t, release.KindContentEntry, content.Body{Title: "Welcome to the Gazette", Slug: "welcome",
		Lang: "en", Status: content.StatusPublished, Summary: "What this site is for.", PublishedAt: &now,
		Text: "This is the first article."})
	if _, err := a.nodes.Publish(ctx, a.editor, a.site.ID); err != nil {
		t.Fatal(err)
	}
	a.draft = a.createNode(t, release.KindContentEntry, content.Body{Title: "Election night live", Slug: "election-night",
		Lang: "en", Status: content.StatusDraft, Summary: "Results as they come in.", Text: "Follow the results here."})
	return a
}

// emptyApp is a Studio on a database with no site and no person: a first run.
func emptyApp(t *testing.T, opts ...handlers.Option) *testApp {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	a := &testApp{releasesChecked: new(atomic.Int64)}
	a.store = st
	a.clock = settledClock{Clock: fakeclock.New(start), settle: func() { a.sched.Settle() }}
	a.eng = engine.New(st, a.clock, log)

	// As cmd/studio's newApp, minus the cleanup goroutine.
	sessions := scs.New()
	sessions.Store = studio.HashedStore(sqlite3store.NewWithCleanupInterval(st.DB(), 0))
	sessions.Lifetime = 14 * 24 * time.Hour
	sessions.IdleTimeout = 48 * time.Hour
	sessions.Cookie.Name = sessionCookie
	sessions.Cookie.HttpOnly = true
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	sessions.Cookie.Path = "/"
	sessions.Cookie.Secure = false
	// The public site's base URL is the server's own, known once it listens.
	var h http.Handler
	srv := httptest.NewServer(checkReleases(t, a.releasesChecked,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })))
	svc := services.Of(a.eng, st, a.clock, log)
	a.sched, a.gates, a.identity, a.aut, a.agents, a.setup = svc.Scheduler, svc.Gates, svc.Identity, svc.Automations, svc.Agents, svc.Setup
	a.people = svc.People
	a.nodes = svc.Nodes
	a.releases = svc.Releases
	sched := a.sched
	stop := func() {}
	h = handlers.New(svc, sessions, log, append([]handlers.Option{handlers.WithPublicURL(srv.URL), handlers.WithCDNMaxAge(testCDNMaxAge),
		handlers.WithStopper(func(f func()) { stop = f })}, opts...)...)
	t.Cleanup(func() {
		srv.Close()
		sched.Stop() // a request's backstop may still run
		stop()       // the 404s still waiting, before the database closes
		st.Close()
	})
	a.URL = srv.URL
	return a
}

// settledClock is the fake clock a test moves only once the backstop ticks
// its earlier requests started have ended: a backstop that read the moved
// clock would run, in the background, the tick the test is about to run and
// check (it failed TestDraftReleaseFlow that way).
type settledClock struct {
	*fakeclock.Clock
	settle func()
}

func (c settledClock) Set(t time.Time) {
	c.settle()
	c.Clock.Set(t)
}

func (c settledClock) Advance(d time.Duration) {
	c.settle()
	c.Clock.Advance(d)
}

// routeTable is the Studio route table, for its methods, patterns and
// scopes only.
func routeTable() []handlers.Route {
	return handlers.StudioRoutes(studio.New(&services.Services{}, nil, nil))
}

// cheapHash is password hashed at bcrypt's lowest cost. identity.AddUser uses
// the default cost, about a second per hash under -race; SignIn reads the
// cost from the stored hash, so accounts made with this one sign in alike.
var cheapHash = sync.OnceValue(func() string {
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		panic(err)
	}
	return string(h)
})

func (a *testApp) addUser(t *testing.T, email, name string, role policy.Role, lang string) engine.User {
	t.Helper()
	u := engine.User{ID: ids.New("user"), Email: email, Name: name, Role: role, SiteID: a.site.ID, Lang: lang}
	if err := a.store.CreateUser(context.Background(), u, cheapHash(), start); err != nil {
		t.Fatal(err)
	}
	return u
}

// createNode creates a node written by the contributor, so that their
// own-level scopes (§10.1) reach the nodes the tests give them; the editor
// acts on any node.
func (a *testApp) createNode(t *testing.T, kind release.NodeKind, body content.Body) content.Node {
	t.Helper()
	n, err := a.nodes.CreateNode(context.Background(), a.contributor, a.site.ID, kind, body)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// otherDraft creates a second draft article, to schedule beside the first.
func (a *testApp) otherDraft(t *testing.T) content.Node {
	t.Helper()
	return a.createNode(t, release.KindContentEntry, content.Body{Title: "Budget night", Slug: "budget-night",
		Lang: "en", Status: content.StatusDraft, Text: "The numbers, line by line."})
}

func (a *testApp) setLang(t *testing.T, u engine.User, lang string) {
	t.Helper()
	if err := a.identity.SetLanguage(context.Background(), u, lang); err != nil {
		t.Fatal(err)
	}
}

// scheduleAt schedules node through the engine, as u, for a date and time in
// Istanbul.
func (a *testApp) scheduleAt(t *testing.T, u engine.User, node content.Node, date, clock string) release.Release {
	t.Helper()
	d, err := a.nodes.Node(context.Background(), a.editor, a.site.ID, node.ID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.releases.ScheduleNode(context.Background(), u, releases.ScheduleInput{SiteID: a.site.ID, NodeID: node.ID,
		ExpectedRev: d.Rev, Date: date, Time: clock})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// pendingRequest has the contributor ask for a new draft page at 11:00 and
// returns the waiting approval request's id.
func (a *testApp) pendingRequest(t *testing.T) string {
	t.Helper()
	return a.request(t, content.Body{Title: "Press", Slug: "press", Status: content.StatusDraft, Text: "Contact us."}, "11:00")
}

// pendingRequest2 is a second request, for another page at 12:00.
func (a *testApp) pendingRequest2(t *testing.T) string {
	t.Helper()
	return a.request(t, content.Body{Title: "Jobs", Slug: "jobs", Status: content.StatusDraft, Text: "We are hiring."}, "12:00")
}

func (a *testApp) request(t *testing.T, body content.Body, clock string) string {
	t.Helper()
	n := a.createNode(t, release.KindPage, body)
	r := a.scheduleAt(t, a.contributor, n, "2026-11-02", clock)
	list, err := a.releases.Approvals(context.Background(), a.editor, a.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range list {
		if v.Release.ID == r.ID {
			return v.Request.ID
		}
	}
	t.Fatalf("no request for %s", r.ID)
	return ""
}

func (a *testApp) release(t *testing.T, id string) releases.ReleaseRow {
	t.Helper()
	r, err := a.releases.Release(context.Background(), a.editor, a.site.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fingerprint summarises every table a Studio request may change (sessions
// aside), so a test can assert that a refused request changed nothing.
func (a *testApp) fingerprint(t *testing.T) string {
	t.Helper()
	var fp string
	err := a.store.DB().QueryRow(`SELECT
		(SELECT count(*) FROM releases) || ' releases [' ||
		(SELECT coalesce(group_concat(id || ':' || state || ':' || rev, ' '), '') FROM releases) || '] ' ||
		(SELECT count(*) FROM release_items) || ' items, ' ||
		(SELECT count(*) FROM node_versions) || ' versions [' ||
		(SELECT coalesce(group_concat(id || ':' || rev, ' '), '') FROM nodes) || '] ' ||
		(SELECT count(*) FROM snapshots) || ' snapshots, live ' ||
		(SELECT coalesce(group_concat(coalesce(published_snapshot_id, '-') || ':' || rev), '') FROM sites) || ', ' ||
		(SELECT count(*) FROM audit) || ' audit, langs ' ||
		(SELECT coalesce(group_concat(email || '=' || lang, ' '), '') FROM users)`).Scan(&fp)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func (a *testApp) releaseCount(t *testing.T) int {
	t.Helper()
	var n int
	if err := a.store.DB().QueryRow(`SELECT count(*) FROM releases`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// client is one browser: a cookie jar, a language, and no redirects
// followed, so a test sees every 303 and its Location.
type client struct {
	t    *testing.T
	app  *testApp
	hc   *http.Client
	jar  *cookiejar.Jar
	lang string // Accept-Language, if any
	// agent is the User-Agent it sends, if any.
	agent string
}

func (a *testApp) client(t *testing.T, acceptLanguage string) *client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &client{t: t, app: a, hc: hc, jar: jar, lang: acceptLanguage}
}

// signedIn is a client signed in as u.
func (a *testApp) signedIn(t *testing.T, u engine.User) *client {
	t.Helper()
	c := a.client(t, "")
	c.signIn(u.Email)
	return c
}

type response struct {
	Status int
	Header http.Header
	Body   string
	raw    *http.Response
}

func (c *client) do(method, path string, form url.Values, header map[string]string) response {
	c.t.Helper()
	res, err := c.tryDo(method, path, form, header)
	if err != nil {
		c.t.Fatal(err)
	}
	return res
}

// tryDo is do for goroutines other than the test's: it returns its error.
func (c *client) tryDo(method, path string, form url.Values, header map[string]string) (response, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.app.URL+path, body)
	if err != nil {
		return response{}, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.lang != "" {
		req.Header.Set("Accept-Language", c.lang)
	}
	if c.agent != "" {
		req.Header.Set("User-Agent", c.agent)
	}
	for k, v := range header {
		if k == "Host" { // the public site is chosen by it
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: string(b), raw: res}, nil
}

func (c *client) get(path string) response { c.t.Helper(); return c.do(http.MethodGet, path, nil, nil) }

func (c *client) post(path string, form url.Values) response {
	c.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return c.do(http.MethodPost, path, form, nil)
}

var csrfRe = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// csrf GETs path and returns the CSRF token of its first form.
func (c *client) csrf(path string) string {
	c.t.Helper()
	res := c.get(path)
	if res.Status != http.StatusOK {
		c.t.Fatalf("GET %s: status %d, want 200", path, res.Status)
	}
	m := csrfRe.FindStringSubmatch(res.Body)
	if m == nil {
		c.t.Fatalf("GET %s: no csrf_token in the page", path)
	}
	return m[1]
}

// signIn signs in through the form with the test password.
func (c *client) signIn(email string) {
	c.t.Helper()
	token := c.csrf("/studio/login")
	res := c.post("/studio/login", url.Values{"csrf_token": {token}, "email": {email}, "password": {password}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/studio" {
		c.t.Fatalf("sign in as %s: status %d to %q, want 303 to /studio\n%s", email, res.Status, res.Header.Get("Location"), res.Body)
	}
}

// token returns the signed-in session's current CSRF token.
func (c *client) token() string { c.t.Helper(); return c.csrf("/studio/schedules") }

func (c *client) setCookie(name, value string) {
	u, _ := url.Parse(c.app.URL)
	c.jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

func (c *client) cookie(name string) string {
	u, _ := url.Parse(c.app.URL)
	for _, ck := range c.jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// scenario is one request and what its response must hold.
type scenario struct {
	Name               string
	Method             string
	URL                string
	Form               url.Values
	Header             map[string]string
	ExpectedStatus     int
	ExpectedContent    []string
	NotExpectedContent []string
	ExpectedHeaders    map[string]string // exact values; "" means absent
}

// check sends the scenario's request and asserts its response.
func (c *client) check(t *testing.T, sc scenario) response {
	t.Helper()
	method := sc.Method
	if method == "" {
		method = http.MethodGet
	}
	form := sc.Form
	if form == nil && method == http.MethodPost {
		form = url.Values{}
	}
	res := c.do(method, sc.URL, form, sc.Header)
	if res.Status != sc.ExpectedStatus {
		t.Errorf("%s %s: status %d, want %d\n%s", method, sc.URL, res.Status, sc.ExpectedStatus, excerpt(res.Body))
	}
	for _, s := range sc.ExpectedContent {
		if !strings.Contains(res.Body, s) {
			t.Errorf("%s %s: body lacks %q\n%s", method, sc.URL, s, excerpt(res.Body))
		}
	}
	for _, s := range sc.NotExpectedContent {
		if strings.Contains(res.Body, s) {
			t.Errorf("%s %s: body has %q, want it absent\n%s", method, sc.URL, s, excerpt(res.Body))
		}
	}
	for k, want := range sc.ExpectedHeaders {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s %s: header %s = %q, want %q", method, sc.URL, k, got, want)
		}
	}
	return res
}

// runScenarios runs each scenario as a subtest, in order, on one client.
func runScenarios(t *testing.T, c *client, scs []scenario) {
	t.Helper()
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) { c.check(t, sc) })
	}
}

// excerpt keeps failure output readable: the <main> of a page, or its start.
func excerpt(body string) string {
	if i := strings.Index(body, `<main`); i >= 0 {
		body = body[i:]
	}
	if len(body) > 1500 {
		body = body[:1500] + "…"
	}
	return body
}

// loginNext is where Guard sends a signed-out request for uri.
func loginNext(uri string) string { return "/studio/login?next=" + url.QueryEscape(uri) }

var releaseIDRe = regexp.MustCompile(`data-testid="release-(rel_[^"]+)"`)

// agendaReleaseIDs lists the release ids on an Agenda page, in order.
func agendaReleaseIDs(body string) []string {
	var out []string
	for _, m := range releaseIDRe.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}
