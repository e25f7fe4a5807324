package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"studio/engine"
)

// consoleProblems records what a page writes to the console as an error,
// every uncaught exception and every Content-Security-Policy violation the
// page reports, from now on. allow lists URLs whose failed load is meant
// (a 404 page the test asks for).
type consoleProblems struct {
	mu    sync.Mutex
	seen  []string
	allow []string
}

func watchConsole(t *testing.T, ctx context.Context) *consoleProblems {
	t.Helper()
	p := &consoleProblems{}
	must(t, chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
				return
			}
			var parts []string
			for _, a := range ev.Args {
				if len(a.Value) > 0 {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			msg = "console.error: " + strings.Join(parts, " ")
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level != log.EntryLevelError {
				return
			}
			msg = "log " + string(ev.Entry.Source) + ": " + ev.Entry.Text + " " + ev.Entry.URL
			if ev.Entry.Source == log.EntrySourceNetwork && p.allowed(ev.Entry.URL) {
				return
			}
		default:
			return
		}
		p.mu.Lock()
		p.seen = append(p.seen, msg)
		p.mu.Unlock()
	}))
	// The page's own report of a violation, however the browser logs it.
	_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
		document.addEventListener("securitypolicyviolation", function (e) {
			console.error("CSP violation: " + e.violatedDirective + " blocked " + (e.blockedURI || "inline") +
				" at " + e.sourceFile + ":" + e.lineNumber);
		});`})
	must(t, err)
	return p
}

func (p *consoleProblems) allowed(url string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if strings.HasSuffix(url, "/favicon.ico") {
		return true
	}
	for _, a := range p.allow {
		if strings.HasSuffix(url, a) {
			return true
		}
	}
	return false
}

// check fails the test for what was seen since the last check.
func (p *consoleProblems) check(t *testing.T, where string) {
	t.Helper()
	p.mu.Lock()
	seen := p.seen
	p.seen = nil
	p.mu.Unlock()
	for _, s := range seen {
		t.Errorf("%s: %s", where, s)
	}
}

// TestPagesKeepToTheCSPInTheBrowser visits Studio's pages and the public
// site in English and Turkish, with the strict Content-Security-Policy the
// server sends, and fails on any violation, console error or exception
// (issue 10, item 8); then changes the Agenda's filters and periods faster
// than the server answers, so htmx replaces requests still loading, and
// fails on any console error that leaves (issue 10: "htmx logs aborted
// filter requests as console errors"). Studio's 404 page is shot in both
// languages.
func TestPagesKeepToTheCSPInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startAgendaApp(t)
	ctx := newBrowser(t)
	problems := watchConsole(t, ctx)
	problems.allow = []string{"/studio/no-such-page", "/no-such-page"}
	f := app.demo(t)
	rels, err := app.eng.Releases(f.ctx, engine.Reader(f.site.ID), f.site.ID, app.clock.Now().Add(-24*time.Hour), app.clock.Now().Add(30*24*time.Hour))
	must(t, err)
	if len(rels) == 0 {
		t.Fatal("no releases in the agenda fixture")
	}
	release := rels[0].ID

	visit := func(t *testing.T, path string) {
		t.Helper()
		must(t, do(ctx, chromedp.Navigate(app.url+path), chromedp.WaitReady(chromedp.CSS("body"))))
		// Scripts run deferred: let them, and htmx's first pass, finish.
		waitJS(t, ctx, `document.readyState === "complete"`)
		problems.check(t, path)
	}
	t.Log("signed out")
	visit(t, "/studio/login")
	visit(t, "/studio/no-such-page")
	visit(t, "/")
	visit(t, "/posts")
	visit(t, "/posts/welcome")
	visit(t, "/about")
	visit(t, "/no-such-page")

	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	problems.check(t, "sign in")
	pages := []string{"/studio/schedules", "/studio/schedules?view=month&date=2026-11", "/studio/content",
		"/studio/content/" + f.node("Election night live"), "/studio/content/new?kind=page",
		"/studio/content/" + f.node("Election night live") + "/schedule", "/studio/releases/" + release,
		"/studio/approvals", "/studio/notifications", "/studio/settings", "/studio/tokens", "/studio/agents", "/studio/no-such-page"}
	for _, lang := range []string{"tr", "en"} {
		t.Log("signed in, in " + lang)
		visit(t, "/studio/schedules")
		submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`.user-menu > summary`)), chromedp.Click(chromedp.CSS(`.lang button[value="`+lang+`"]`)))
		must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"]`))))
		for _, p := range pages {
			visit(t, p)
		}
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/no-such-page"), chromedp.WaitVisible(chromedp.CSS("main"))))
		wantContains(t, "Studio's 404", text(t, ctx, "main"), map[string]string{
			"en": "This page does not exist, or it was deleted.", "tr": "Bu sayfa yok ya da silinmiş."}[lang])
		shots(t, ctx, "studio-404-"+lang)
		problems.check(t, "404 shots")
	}

	t.Log("filters and periods changed faster than the server answers")
	visit(t, "/studio/schedules")
	for round := range 3 {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
			document.getElementById("filters").open = true;
			const boxes = document.querySelectorAll("#filters-form input[type=checkbox]");
			boxes.forEach(b => b.click());
			boxes.forEach(b => b.click());
			for (let i = 0; i < 4; i++) document.getElementById("cal-next").click();
			document.getElementById("cal-today").click();
			return boxes.length > 0;
		})()`))
		must(t, err)
		waitJS(t, ctx, `!document.querySelector(".htmx-request") && document.querySelector("#calendar")`)
		problems.check(t, "quick changes, round "+string(rune('1'+round)))
	}
	// The last request won: the Agenda shows today, with every filter as before.
	waitLocation(t, ctx, "/studio/schedules")
	wantContains(t, "agenda after quick changes", text(t, ctx, "#calendar"), "Reader letters")
}
