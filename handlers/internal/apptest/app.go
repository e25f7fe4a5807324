// Package apptest is the test fixture of the handlers packages: Studio
// wired as cmd/studio wires it on a fresh database and a fake clock (App),
// a browser that signs in and posts forms (Client), and the helpers the
// tests of more than one of handlers, handlers/studio, handlers/api,
// handlers/mcp and handlers/site share. Only _test packages import it; a
// helper that one package's tests use lives with those tests.
package apptest

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
	"studio/engine/oauth"
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

// Start is Monday 2 November 2026, 08:00 in Istanbul (05:00Z).
var Start = time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)

// CDNMaxAge is the tests' ceiling on CDN lifetimes: long enough that
// the gates and releases of a fixture, hours apart, decide max-age.
const CDNMaxAge = 24 * time.Hour

// Password is every test account's password.
const Password = "correct horse battery"

const SessionCookie = "studio_session"

// App is Studio wired as cmd/studio's newApp wires it, on a fresh
// migrated SQLite file and a fake clock, served by httptest, with the demo
// site: "Demo Gazette" in Istanbul, an editor, a contributor, a live page, a
// live article and a draft article.
type App struct {
	URL    string
	Store  *store.Store
	Clock  settledClock
	Engine *engine.Engine
	Nodes  *nodes.Nodes
	// Releases is the release use cases (svc.Releases).
	Releases  *releases.Releases
	Scheduler *scheduler.Scheduler // the handlers' backstop (no loop runs)
	Gates     *gates.Gates
	// Identity is the handlers' people use cases: its sign-in throttle is
	// the one the sign-in form counts on.
	Identity *identity.Identity
	// Automations is the handlers' automation use cases.
	Automations *automations.Automations
	// Agents is the handlers' agent-key use cases.
	Agents *agents.Agents
	// OAuth is the authorization server of connectors (issue 38).
	OAuth *oauth.OAuth
	// Setup is the handlers' first run: the token its link holds.
	Setup *setup.Setup
	// People is the handlers' members and invitations of a site.
	People *people.People

	Site        engine.Site
	Editor      engine.User
	Contributor engine.User
	Page        content.Node // live, /about
	Live        content.Node // live, /posts/welcome
	Draft       content.Node // draft, /posts/election-night

	// ReleasesChecked counts the releases of /api answers checked against
	// §4.2's schema (checkReleases).
	ReleasesChecked *atomic.Int64
}

func New(t *testing.T, opts ...handlers.Option) *App {
	t.Helper()
	ctx := context.Background()
	a := NewEmpty(t, opts...)
	var err error
	if a.Site, err = a.Engine.CreateSite(ctx, "Demo Gazette", "Europe/Istanbul"); err != nil {
		t.Fatal(err)
	}
	a.Editor = a.AddUser(t, "editor@example.com", "Elif Editor", policy.Editor, "en")
	a.Contributor = a.AddUser(t, "contributor@example.com", "Chris Contributor", policy.Contributor, "en")
	now := a.Engine.Now()
	a.Page = a.CreateNode(t, release.KindPage, content.Body{Title: "About", Slug: "about", Lang: "en",
		Status: content.StatusPublished, Text: "Demo Gazette is a sample site."})
	a.Live = a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Welcome to the Gazette", Slug: "welcome",
		Lang: "en", Status: content.StatusPublished, Summary: "What this site is for.", PublishedAt: &now,
		Text: "This is the first article."})
	if _, err := a.Nodes.Publish(ctx, a.Editor, a.Site.ID); err != nil {
		t.Fatal(err)
	}
	a.Draft = a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Election night live", Slug: "election-night",
		Lang: "en", Status: content.StatusDraft, Summary: "Results as they come in.", Text: "Follow the results here."})
	return a
}

// NewEmpty is a Studio on a database with no site and no person: a first run.
func NewEmpty(t *testing.T, opts ...handlers.Option) *App {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	a := &App{ReleasesChecked: new(atomic.Int64)}
	a.Store = st
	a.Clock = settledClock{Clock: fakeclock.New(Start), settle: func() { a.Scheduler.Settle() }}
	a.Engine = engine.New(st, a.Clock, log)

	// As cmd/studio's newApp, minus the cleanup goroutine.
	sessions := scs.New()
	sessions.Store = studio.HashedStore(sqlite3store.NewWithCleanupInterval(st.DB(), 0))
	sessions.Lifetime = 14 * 24 * time.Hour
	sessions.IdleTimeout = 48 * time.Hour
	sessions.Cookie.Name = SessionCookie
	sessions.Cookie.HttpOnly = true
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	sessions.Cookie.Path = "/"
	sessions.Cookie.Secure = false
	// The public site's base URL is the server's own, known once it listens.
	var h http.Handler
	srv := httptest.NewServer(checkReleases(t, a.ReleasesChecked,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })))
	svc := services.Of(a.Engine, st, a.Clock, log)
	a.Scheduler, a.Gates, a.Identity, a.Automations, a.Agents, a.Setup = svc.Scheduler, svc.Gates, svc.Identity, svc.Automations, svc.Agents, svc.Setup
	a.People = svc.People
	a.OAuth = svc.OAuth
	a.Nodes = svc.Nodes
	a.Releases = svc.Releases
	sched := a.Scheduler
	stop := func() {}
	h = handlers.New(svc, sessions, log, append([]handlers.Option{handlers.WithPublicURL(srv.URL), handlers.WithCDNMaxAge(CDNMaxAge),
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

// cheapHash is password hashed at bcrypt's lowest cost. identity.AddUser uses
// the default cost, about a second per hash under -race; SignIn reads the
// cost from the stored hash, so accounts made with this one sign in alike.
var cheapHash = sync.OnceValue(func() string {
	h, err := bcrypt.GenerateFromPassword([]byte(Password), bcrypt.MinCost)
	if err != nil {
		panic(err)
	}
	return string(h)
})

func (a *App) AddUser(t *testing.T, email, name string, role policy.Role, lang string) engine.User {
	t.Helper()
	u := engine.User{ID: ids.New("user"), Email: email, Name: name, Role: role, SiteID: a.Site.ID, Lang: lang}
	if err := a.Store.CreateUser(context.Background(), u, cheapHash(), Start); err != nil {
		t.Fatal(err)
	}
	return u
}

// CreateNode creates a node written by the contributor, so that their
// own-level scopes (§10.1) reach the nodes the tests give them; the editor
// acts on any node.
func (a *App) CreateNode(t *testing.T, kind release.NodeKind, body content.Body) content.Node {
	t.Helper()
	n, err := a.Nodes.CreateNode(context.Background(), a.Contributor, a.Site.ID, kind, body)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// OtherDraft creates a second draft article, to schedule beside the first.
func (a *App) OtherDraft(t *testing.T) content.Node {
	t.Helper()
	return a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Budget night", Slug: "budget-night",
		Lang: "en", Status: content.StatusDraft, Text: "The numbers, line by line."})
}

func (a *App) SetLang(t *testing.T, u engine.User, lang string) {
	t.Helper()
	if err := a.Identity.SetLanguage(context.Background(), u, lang); err != nil {
		t.Fatal(err)
	}
}

// ScheduleAt schedules node through the engine, as u, for a date and time in
// Istanbul.
func (a *App) ScheduleAt(t *testing.T, u engine.User, node content.Node, date, clock string) release.Release {
	t.Helper()
	d, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, node.ID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Releases.ScheduleNode(context.Background(), u, releases.ScheduleInput{SiteID: a.Site.ID, NodeID: node.ID,
		ExpectedRev: d.Rev, Date: date, Time: clock})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// PendingRequest has the contributor ask for a new draft page at 11:00 and
// returns the waiting approval request's id.
func (a *App) PendingRequest(t *testing.T) string {
	t.Helper()
	return a.request(t, content.Body{Title: "Press", Slug: "press", Status: content.StatusDraft, Text: "Contact us."}, "11:00")
}

// PendingRequest2 is a second request, for another page at 12:00.
func (a *App) PendingRequest2(t *testing.T) string {
	t.Helper()
	return a.request(t, content.Body{Title: "Jobs", Slug: "jobs", Status: content.StatusDraft, Text: "We are hiring."}, "12:00")
}

func (a *App) request(t *testing.T, body content.Body, clock string) string {
	t.Helper()
	n := a.CreateNode(t, release.KindPage, body)
	r := a.ScheduleAt(t, a.Contributor, n, "2026-11-02", clock)
	list, err := a.Releases.Approvals(context.Background(), a.Editor, a.Site.ID)
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

func (a *App) Release(t *testing.T, id string) releases.ReleaseRow {
	t.Helper()
	r, err := a.Releases.Release(context.Background(), a.Editor, a.Site.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Fingerprint summarises every table a Studio request may change (sessions
// aside), so a test can assert that a refused request changed nothing.
func (a *App) Fingerprint(t *testing.T) string {
	t.Helper()
	var fp string
	err := a.Store.DB().QueryRow(`SELECT
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

func (a *App) ReleaseCount(t *testing.T) int {
	t.Helper()
	var n int
	if err := a.Store.DB().QueryRow(`SELECT count(*) FROM releases`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Client is one browser: a cookie jar, a language, and no redirects
// followed, so a test sees every 303 and its Location.
type Client struct {
	T    *testing.T
	App  *App
	HTTP *http.Client
	Jar  *cookiejar.Jar
	Lang string // Accept-Language, if any
	// Agent is the User-Agent it sends, if any.
	Agent string
}

func (a *App) Client(t *testing.T, acceptLanguage string) *Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Client{T: t, App: a, HTTP: hc, Jar: jar, Lang: acceptLanguage}
}

// SignedIn is a client signed in as u.
func (a *App) SignedIn(t *testing.T, u engine.User) *Client {
	t.Helper()
	c := a.Client(t, "")
	c.SignIn(u.Email)
	return c
}

type Response struct {
	Status int
	Header http.Header
	Body   string
	Raw    *http.Response
}

func (c *Client) Do(method, path string, form url.Values, header map[string]string) Response {
	c.T.Helper()
	res, err := c.TryDo(method, path, form, header)
	if err != nil {
		c.T.Fatal(err)
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		if keys := RawKeys(res.Body); len(keys) > 0 {
			c.T.Errorf("%s %s shows message keys as text: %v", method, path, keys)
		}
	}
	return res
}

// TryDo is do for goroutines other than the test's: it returns its error.
func (c *Client) TryDo(method, path string, form url.Values, header map[string]string) (Response, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.App.URL+path, body)
	if err != nil {
		return Response{}, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.Lang != "" {
		req.Header.Set("Accept-Language", c.Lang)
	}
	if c.Agent != "" {
		req.Header.Set("User-Agent", c.Agent)
	}
	for k, v := range header {
		if k == "Host" { // the public site is chosen by it
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return Response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return Response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return Response{Status: res.StatusCode, Header: res.Header, Body: string(b), Raw: res}, nil
}

func (c *Client) Get(path string) Response { c.T.Helper(); return c.Do(http.MethodGet, path, nil, nil) }

func (c *Client) Post(path string, form url.Values) Response {
	c.T.Helper()
	if form == nil {
		form = url.Values{}
	}
	return c.Do(http.MethodPost, path, form, nil)
}

var CSRFRe = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// CSRF GETs path and returns the CSRF token of its first form.
func (c *Client) CSRF(path string) string {
	c.T.Helper()
	res := c.Get(path)
	if res.Status != http.StatusOK {
		c.T.Fatalf("GET %s: status %d, want 200", path, res.Status)
	}
	m := CSRFRe.FindStringSubmatch(res.Body)
	if m == nil {
		c.T.Fatalf("GET %s: no csrf_token in the page", path)
	}
	return m[1]
}

// SignIn signs in through the form with the test password.
func (c *Client) SignIn(email string) {
	c.T.Helper()
	token := c.CSRF("/studio/login")
	res := c.Post("/studio/login", url.Values{"csrf_token": {token}, "email": {email}, "password": {Password}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/studio" {
		c.T.Fatalf("sign in as %s: status %d to %q, want 303 to /studio\n%s", email, res.Status, res.Header.Get("Location"), res.Body)
	}
}

// Token returns the signed-in session's current CSRF token.
func (c *Client) Token() string { c.T.Helper(); return c.CSRF("/studio/schedules") }

func (c *Client) SetCookie(name, value string) {
	u, _ := url.Parse(c.App.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

func (c *Client) Cookie(name string) string {
	u, _ := url.Parse(c.App.URL)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// Scenario is one request and what its response must hold.
type Scenario struct {
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

// Check sends the scenario's request and asserts its response.
func (c *Client) Check(t *testing.T, sc Scenario) Response {
	t.Helper()
	method := sc.Method
	if method == "" {
		method = http.MethodGet
	}
	form := sc.Form
	if form == nil && method == http.MethodPost {
		form = url.Values{}
	}
	res := c.Do(method, sc.URL, form, sc.Header)
	if res.Status != sc.ExpectedStatus {
		t.Errorf("%s %s: status %d, want %d\n%s", method, sc.URL, res.Status, sc.ExpectedStatus, Excerpt(res.Body))
	}
	for _, s := range sc.ExpectedContent {
		if !strings.Contains(res.Body, s) {
			t.Errorf("%s %s: body lacks %q\n%s", method, sc.URL, s, Excerpt(res.Body))
		}
	}
	for _, s := range sc.NotExpectedContent {
		if strings.Contains(res.Body, s) {
			t.Errorf("%s %s: body has %q, want it absent\n%s", method, sc.URL, s, Excerpt(res.Body))
		}
	}
	for k, want := range sc.ExpectedHeaders {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s %s: header %s = %q, want %q", method, sc.URL, k, got, want)
		}
	}
	return res
}

// RunScenarios runs each scenario as a subtest, in order, on one client.
func RunScenarios(t *testing.T, c *Client, scs []Scenario) {
	t.Helper()
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) { c.Check(t, sc) })
	}
}

// Excerpt keeps failure output readable: the <main> of a page, or its start.
func Excerpt(body string) string {
	if i := strings.Index(body, `<main`); i >= 0 {
		body = body[i:]
	}
	if len(body) > 1500 {
		body = body[:1500] + "…"
	}
	return body
}

// LoginNext is where Guard sends a signed-out request for uri.
func LoginNext(uri string) string { return "/studio/login?next=" + url.QueryEscape(uri) }

var releaseIDRe = regexp.MustCompile(`data-testid="release-(rel_[^"]+)"`)

// AgendaReleaseIDs lists the release ids on an Agenda page, in order.
func AgendaReleaseIDs(body string) []string {
	var out []string
	for _, m := range releaseIDRe.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}
