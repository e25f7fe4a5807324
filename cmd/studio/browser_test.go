package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"studio/engine/automations"
	"studio/engine/gates"
	"studio/engine/identity"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/model/release"
	"studio/store"
	"studio/store/storetest"
)

// browserApp is Studio with the demo site on a fake clock, served over real
// HTTP, with its ticker running. Production wires the system clock instead.
type browserApp struct {
	url      string
	clock    *fakeclock.Clock
	ticks    chan scheduler.TickReport
	eng      *releases.Releases // for a test to set up what other people did without a browser
	nodes    *nodes.Nodes
	gates    *gates.Gates
	store    *store.Store
	sched    *scheduler.Scheduler
	identity *identity.Identity // the app's, whose sign-in throttle the server counts on
	agents   *agents.Agents     // the app's agent keys, for a test's agent to call /mcp with
	aut      *automations.Automations
}

// startBrowserApp starts Studio on the demo site at now. Each setup runs
// after the demo seed and before the ticker starts, so what it schedules is
// there for the ticker's first tick, the catch-up one, which it waits for.
func startBrowserApp(t *testing.T, now time.Time, setup ...func(demoFixture)) *browserApp {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := fakeclock.New(now)
	a := newApp(st, clock, slog.New(slog.NewTextHandler(io.Discard, nil)), false)
	if seeded, err := seedDemo(ctx, a.releases, st); err != nil || !seeded {
		t.Fatalf("seed: %v %v", seeded, err)
	}
	ba := newBrowserApp(a, st, clock)
	if len(setup) > 0 {
		f := ba.demo(t)
		for _, s := range setup {
			s(f)
		}
	}
	ba.serve(t, a)
	return ba
}

func newBrowserApp(a *app, st *store.Store, clock *fakeclock.Clock) *browserApp {
	return &browserApp{clock: clock, ticks: make(chan scheduler.TickReport, 64), eng: a.releases, nodes: a.nodes, gates: a.gates, store: st,
		sched: a.ticker, identity: a.identity, agents: a.agents, aut: a.automations}
}

// serve serves a over real HTTP and starts its ticker, waiting for its
// first tick, the catch-up one.
func (ba *browserApp) serve(t *testing.T, a *app) {
	t.Helper()
	ctx := context.Background()
	srv := httptest.NewServer(a.handler)
	ba.url = srv.URL
	a.ticker.AfterTick = func(rep scheduler.TickReport, err error) {
		if err != nil {
			t.Errorf("tick: %v", err)
		}
		ba.ticks <- rep
	}
	a.ticker.Start(ctx)
	t.Cleanup(func() { a.ticker.Stop(); srv.Close() })
	<-ba.ticks // the catch-up tick at start
}

// demoFixture is the seeded demo site, for a test to set up what other
// people did without a browser.
type demoFixture struct {
	t       *testing.T
	ctx     context.Context
	eng     *releases.Releases
	gates   *gates.Gates
	store   *store.Store
	sched   *scheduler.Scheduler // the app's, to tick without waiting for the loop
	clock   *fakeclock.Clock
	site    engine.Site
	users   map[string]engine.User // the demo users by email
	nodeIDs map[string]string      // node IDs by title
	nodes   *nodes.Nodes
}

// demo reads the demo site, its users and its nodes as they are now.
func (a *browserApp) demo(t *testing.T) demoFixture {
	t.Helper()
	ctx := context.Background()
	sites, err := a.eng.Sites(ctx)
	must(t, err)
	f := demoFixture{t: t, ctx: ctx, eng: a.eng, gates: a.gates, store: a.store, sched: a.sched, clock: a.clock, site: sites[0],
		users: map[string]engine.User{}, nodeIDs: map[string]string{}, nodes: a.nodes}
	for _, u := range demoUsers {
		found, err := a.identity.SignIn(ctx, identity.SignInTry{Email: u.email, Password: demoPassword})
		must(t, err)
		found, err = a.identity.OnSite(ctx, found, f.site.ID)
		must(t, err)
		f.users[u.email] = found
	}
	list, err := a.nodes.Nodes(ctx, f.users["owner@demo.test"], f.site.ID)
	must(t, err)
	for _, n := range list {
		f.nodeIDs[n.Body.Title] = n.ID
	}
	return f
}

// user is the demo user with email.
func (f demoFixture) user(email string) engine.User {
	f.t.Helper()
	return lookup(f.t, f.users, "user", email)
}

// node is the ID of the demo node titled title.
func (f demoFixture) node(title string) string {
	f.t.Helper()
	return lookup(f.t, f.nodeIDs, "node", title)
}

// lookup is m[key], and the test's end when m has no key.
func lookup[V any](t *testing.T, m map[string]V, what, key string) V {
	t.Helper()
	v, ok := m[key]
	if !ok {
		t.Fatalf("no demo %s %q", what, key)
	}
	return v
}

// page creates a draft page written by the contributor (so that their
// own-level scopes reach it; the editor acts on any node), its slug made
// from its title, and returns its ID.
func (f demoFixture) page(title string) string {
	f.t.Helper()
	slug := strings.ToLower(strings.ReplaceAll(title, " ", "-"))
	n, err := f.nodes.CreateNode(f.ctx, f.user("contributor@demo.test"), f.site.ID, release.KindPage, content.Body{Title: title,
		Slug: slug, Lang: "en", Status: content.StatusDraft, Text: title + "."})
	must(f.t, err)
	return n.ID
}

// schedule schedules the node's working copy, as u, for date and clock in
// the site's zone.
func (f demoFixture) schedule(u engine.User, nodeID, date, clock string) {
	f.t.Helper()
	d, err := f.nodes.Node(f.ctx, u, f.site.ID, nodeID)
	must(f.t, err)
	_, err = f.eng.ScheduleNode(f.ctx, u, releases.ScheduleInput{SiteID: f.site.ID, NodeID: nodeID, ExpectedRev: d.Rev,
		Date: date, Time: clock})
	must(f.t, err)
}

// waitPublished waits for a tick that published something.
func (a *browserApp) waitPublished(t *testing.T) {
	t.Helper()
	a.waitTick(t, "published nothing", func(rep scheduler.TickReport) bool { return rep.Published > 0 })
}

// waitHeld waits for a tick that ended a release without publishing it.
func (a *browserApp) waitHeld(t *testing.T) {
	t.Helper()
	a.waitTick(t, "held nothing", func(rep scheduler.TickReport) bool { return rep.Failed > 0 })
}

// waitTick waits up to 20 s for a tick whose report passes done.
func (a *browserApp) waitTick(t *testing.T, failure string, done func(scheduler.TickReport) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case rep := <-a.ticks:
			if done(rep) {
				return
			}
		case <-deadline:
			t.Fatal("the ticker " + failure)
		}
	}
}

// finishRun waits until the ticker has taken an automation's run to its
// end: Run now pokes the ticker, which claims the run, and each next step
// comes a second later on the ticker's (fake) clock, so move it on.
func (a *browserApp) finishRun(t *testing.T, who engine.User, runID string) {
	t.Helper()
	aut := automations.New(a.store, a.eng)
	for i := 0; ; i++ {
		a.waitTick(t, "ran no tick", func(scheduler.TickReport) bool { return true })
		r, err := aut.Run(context.Background(), who, a.demo(t).site.ID, runID)
		must(t, err)
		if !r.Open() {
			return
		}
		if i == 20 {
			t.Fatal("the run never ended")
		}
		a.clock.Advance(time.Second)
	}
}

// chromium is the one Chromium the browser tests of this process share;
// each test has a browser context of its own in it (cookies, storage and
// cache apart, as a fresh profile has them) and a tab there. A Chromium
// per test cost the browser tests a sixth more CPU (673 core-s against
// 575), on a machine whose CPU make test's runs share.
var chromium struct {
	once sync.Once
	ctx  context.Context // the browser's chromedp context
	stop func()
	err  error
}

// sharedChromium starts the process's Chromium on first use; TestMain
// stops it.
func sharedChromium(t *testing.T) context.Context {
	t.Helper()
	chromium.once.Do(func() {
		path, err := exec.LookPath("chromium")
		if err != nil {
			chromium.err = errors.New("chromium is not installed: run `make deps-test` (apt-get install chromium)")
			return
		}
		dir, err := os.MkdirTemp("", "studio-chromium-")
		if err != nil {
			chromium.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
			chromedp.UserDataDir(dir),
			chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true))
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelB := chromedp.NewContext(actx)
		chromium.ctx, chromium.stop = ctx, func() { cancelB(); cancelA(); os.RemoveAll(dir) }
		if err := chromedp.Do(ctx); err != nil {
			chromium.err = fmt.Errorf("start chromium: %w", err)
		}
	})
	if chromium.err != nil {
		t.Fatal(chromium.err)
	}
	return chromium.ctx
}

// newBrowser opens a tab for t in a browser context of its own, in the
// shared Chromium; both close when t ends.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	// A guard against a hung browser, not a time to beat: the longest test
	// (axe on 72 page states) took over three minutes on a CI machine that
	// also runs the race and PostgreSQL suites.
	tctx, cancelT := context.WithTimeout(sharedChromium(t), 8*time.Minute)
	ctx, cancel := chromedp.NewContext(tctx, chromedp.WithNewBrowserContext())
	t.Cleanup(func() { cancel(); cancelT() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	watchAxe(t, ctx) // every page the tab loads is checked (axe_test.go)
	return ctx
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// do runs steps in ctx's tab, one after the other, as chromedp.Do does,
// each of them again when it failed only because the node it found left
// the document before it was used (see steady).
func do(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	for _, step := range steps {
		if _, err := chromedp.Run(ctx, steady(step)); err != nil {
			return err
		}
	}
	return nil
}

// steady runs a again while it fails only because the node it found was
// gone when it came to use it. chromedp finds a node, then acts on it by
// its id in a second call: a swap or a page that loads in between (a
// form's answer, an htmx settle) takes the node away, and Chromium
// answers "No node with given id found". The action did not reach the
// page then (a click's mouse events come after its node's box is read),
// so running it again on the page as it is now is what the test meant.
// For ten seconds, as waitText waits: a page whose nodes never hold still
// is a failure.
func steady[T any](a chromedp.Action[T]) chromedp.Action[T] {
	return func(ctx context.Context, target *chromedp.Target) (T, error) {
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			v, err := a(ctx, target)
			if err == nil || !nodeGone(err) || ctx.Err() != nil || time.Now().After(end) {
				return v, err
			}
		}
	}
}

// nodeGone tells an error of a node that left the document from others.
func nodeGone(err error) bool {
	var e *cdproto.Error
	if !errors.As(err, &e) || e.Code != -32000 {
		return false
	}
	for _, gone := range []string{"No node with given id", "Could not find node with given id", "Node is detached from document"} {
		if strings.Contains(e.Message, gone) {
			return true
		}
	}
	return false
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, steady(chromedp.Text(chromedp.CSS(sel))))
	must(t, err)
	return s
}

// waitText waits until the element's text contains want (htmx swaps it).
func waitText(t *testing.T, ctx context.Context, sel, want string) string {
	t.Helper()
	var got string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[*string](`document.querySelector(`+"`"+sel+"`"+`)?.innerText ?? null`))
		if err != nil && strings.Contains(err.Error(), "(-32000)") {
			continue // the page navigated while it was asked (a form's answer loading): ask the new one, as waitJS does
		}
		must(t, err)
		if s != nil {
			if got = *s; strings.Contains(got, want) {
				return got
			}
		}
	}
	t.Fatalf("%s never showed %q (last %q)", sel, want, got)
	return ""
}

// waitHTMXSettled waits until htmx has no request in flight and has
// settled what it swapped in: until then new content is shown but its hx-
// attributes are not yet live.
func waitHTMXSettled(t *testing.T, ctx context.Context) {
	t.Helper()
	waitJS(t, ctx, `!document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")`)
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s: %q does not contain %q", what, got, w)
		}
	}
}

// screenshots says whether the browser tests save screenshots (`make
// screenshots` asks for them): in make test, reloading each page in four
// forms for its pictures cost a sixth of the browser tests' time.
var screenshots = os.Getenv("STUDIO_SCREENSHOTS") != ""

// saveScreenshot writes one screenshot, named name, to $STUDIO_ARTIFACTS or
// else test-artifacts/screenshots (git-ignored).
func saveScreenshot(t *testing.T, name string, png []byte) {
	t.Helper()
	dir := os.Getenv("STUDIO_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "test-artifacts", "screenshots")
	}
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, name), png, 0o644))
}

// shots has axe-core check the current page in the forms a person may see
// it in besides the one the test saw it in (already checked as it loaded):
// dark at a phone's width, where colour contrast and target sizes differ.
// With screenshots it reloads the page at desktop and phone widths, in
// light and dark, checks and saves each. Either way the tab stays dark,
// at desktop width.
func shots(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	url, err := chromedp.Run(ctx, chromedp.Location())
	must(t, err)
	schemes, widths := []string{"dark"}, []int64{390}
	if screenshots {
		schemes, widths = []string{"light", "dark"}, []int64{1440, 390}
	}
	for _, scheme := range schemes {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		must(t, err)
		for _, w := range widths {
			must(t, do(ctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("main"))))
			checkAxe(t, ctx, fmt.Sprintf("%s (%s, %d px)", name, scheme, w))
			if screenshots {
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				must(t, err)
				saveScreenshot(t, fmt.Sprintf("%s-%s-%d.png", name, scheme, w), png)
			}
		}
	}
	must(t, do(ctx, chromedp.EmulateViewport(1440, 900)))
}

// shot has axe-core check the page as it is, an open dialog included
// (shots reloads the page, which closes it), and with screenshots saves it
// as name.png.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	checkAxe(t, ctx, name)
	if !screenshots {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(t, err)
	saveScreenshot(t, name+".png", png)
}

// TestScheduleInTheBrowser is the newcomer's path: sign in, schedule an
// article, see it on the Agenda, let the ticker publish it, see it on the
// public site; in English and Turkish, with the viewer in another zone.
func TestScheduleInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul.
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	ctx := newBrowser(t)
	_, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Berlin"})
	must(t, err)

	t.Log("sign in (a wrong password first)")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), "wrong-password"),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="alert"]`)),
	))
	wantContains(t, "wrong password", text(t, ctx, `[data-testid="alert"]`), "The email or the password is wrong.")
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	// The demo editor prefers Turkish; this walk starts in English.
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`.user-menu > summary`)), chromedp.Click(chromedp.CSS(`.lang button[value="en"]`)), chromedp.WaitVisible(chromedp.CSS(`html[lang="en"]`))))
	wantContains(t, "empty agenda", text(t, ctx, "main"), "Nothing is scheduled")

	t.Log("the public site does not show the draft")
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(app.url+"/posts/election-night"))
	must(t, err)
	if resp.Status != 404 {
		t.Fatalf("draft article before its release: status %d", resp.Status)
	}

	t.Log("schedule the article for 09:00 Istanbul")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/content"),
		chromedp.Click(chromedp.Search(`//a[text()="Election night live"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="schedule"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="schedule-form"]`)),
	))
	wantContains(t, "zone note", text(t, ctx, "#zone-note"), "Istanbul (UTC+3)")
	shots(t, ctx, "schedule-en")
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#date"), "2026-11-02"),
		chromedp.SetValue(chromedp.CSS("#time"), "09:00"),
	))
	wantContains(t, "preview", waitText(t, ctx, `[data-testid="preview"]`, "Monday 2 November"), "09:00 Istanbul", "07:00 your time, Berlin")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="schedule-form"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.agenda li`)),
	))
	agenda := text(t, ctx, "main")
	wantContains(t, "agenda", agenda, "Scheduled.", "Today · Monday 2 November", "09:00 Istanbul", "07:00 your time, Berlin",
		"Election night live", "Scheduled", "by Elif Editor")
	shots(t, ctx, "agenda-en")

	t.Log("the release page")
	must(t, do(ctx, chromedp.Click(chromedp.Search(`//a[text()="Election night live"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="item-versions"]`))))
	wantContains(t, "release item", text(t, ctx, `[data-testid="item-versions"]`), "pinned version 2", "Not live")
	shots(t, ctx, "release-en")

	t.Log("one millisecond before its time, nothing; at its time the ticker publishes it")
	app.clock.Set(time.Date(2026, 11, 2, 5, 59, 59, 999e6, time.UTC))
	resp, err = chromedp.Run(ctx, chromedp.NavigateResponse(app.url+"/posts/election-night"))
	must(t, err)
	if resp.Status != 404 {
		t.Fatalf("before its time: status %d", resp.Status)
	}
	app.clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	app.waitPublished(t)
	resp, err = chromedp.Run(ctx, chromedp.NavigateResponse(app.url+"/posts/election-night"))
	must(t, err)
	if resp.Status != 200 {
		t.Fatalf("after its time: status %d", resp.Status)
	}
	wantContains(t, "public article", text(t, ctx, "article"), "Election night live", "Follow the results here")
	must(t, do(ctx, chromedp.Navigate(app.url+"/")))
	wantContains(t, "public home", text(t, ctx, "main"), "Election night live")
	shots(t, ctx, "site-home")

	t.Log("in Turkish")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/schedules"),
		chromedp.Click(chromedp.CSS(`.user-menu > summary`)),
		chromedp.Click(chromedp.CSS(`.lang button[value="tr"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="tr"]`)),
	))
	wantContains(t, "Turkish agenda", text(t, ctx, "main"), "Zamanlamalar", "Bugün · 2 Kasım Pazartesi", "09:00 İstanbul",
		"sizin saatinizle 07:00 (Berlin)", "Yayımlandı", "Elif Editor zamanladı")
	shots(t, ctx, "agenda-tr")
	must(t, do(ctx, chromedp.Click(chromedp.Search(`//a[text()="Election night live"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="release-outcome"]`))))
	wantContains(t, "Turkish outcome", text(t, ctx, `[data-testid="release-outcome"]`), "Yayımlandı: 2 Kasım 2026 09:00")
	shots(t, ctx, "release-tr")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content"), chromedp.WaitVisible(chromedp.CSS("table.list"))))
	shots(t, ctx, "content-tr")
}

// switchLanguage presses the language switch and waits for the page it
// comes back to. The old document is marked first: a switch to the
// language already shown looks the same before and after, and a Navigate
// while its page is still loading aborts it (net::ERR_ABORTED).
func switchLanguage(t *testing.T, ctx context.Context, lang string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.dataset.before = "switch"; true`))
	must(t, err)
	openUserMenu(t, ctx)
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`.lang button[value="`+lang+`"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`html[data-before]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"]`))))
}

// openUserMenu opens the bar's menu of the person signed in (their account,
// the language, Sign out), as a click on their name does; on a page
// without one (signing in) it does nothing.
func openUserMenu(t *testing.T, ctx context.Context) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () {
		var menu = document.querySelector(".user-menu");
		if (menu) menu.open = true;
		return true;
	})()`))
	must(t, err)
}

// signIn signs the demo's person with email in on the browser ctx, and
// waits for Studio's first page.
func signIn(t *testing.T, ctx context.Context, app *browserApp, email string) {
	t.Helper()
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), email),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
}
