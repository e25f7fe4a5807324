package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestAccessibilityInTheBrowser walks Studio's pages and the public site
// with the demo's whole calendar (releases, approvals, automations, an
// embargo), in English and Turkish, light and dark, and has axe-core check
// each against WCAG 2.0–2.2 A/AA (axe_test.go). Other browser tests check
// the pages they visit too; this one makes sure every page is covered in
// both languages and both colour schemes.
func TestAccessibilityInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		must(t, seedDemoSchedules(f.ctx, f.eng, f.store, f.site, f.user("owner@demo.test"), f.user("editor@demo.test"),
			f.user("contributor@demo.test")))
	})
	f := app.demo(t)
	ctx := newBrowser(t)
	scheme := func(s string) {
		t.Helper()
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}})
		must(t, err)
	}
	// firstLink is the address of the first link on the page at path
	// whose address starts with prefix.
	firstLink := func(path, prefix string) string {
		t.Helper()
		must(t, do(ctx, chromedp.Navigate(app.url+path)))
		href, err := chromedp.Run(ctx, chromedp.Evaluate[string](
			`(document.querySelector('main a[href^="`+prefix+`"]') || {}).getAttribute?.("href") || ""`))
		must(t, err)
		if href == "" {
			t.Fatalf("no link to %s… on %s", prefix, path)
		}
		return href
	}
	check := func(lang string, paths []string) {
		t.Helper()
		for _, s := range []string{"light", "dark"} {
			scheme(s)
			for _, p := range paths {
				must(t, do(ctx, chromedp.Navigate(app.url+p), chromedp.WaitVisible(chromedp.CSS("main"))))
				checkAxe(t, ctx, p+" ("+lang+", "+s+")")
			}
		}
	}

	t.Log("signed out: the sign-in page")
	check("en", []string{"/studio/login"})

	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	welcome := f.node("Welcome to the Gazette")
	paths := []string{
		"/studio/schedules",
		"/studio/schedules?view=month&date=2026-11",
		"/studio/schedules?preset=attention",
		firstLink("/studio/schedules", "/studio/releases/rel_"),
		"/studio/releases/new",
		"/studio/approvals",
		firstLink("/studio/approvals", "/studio/approvals/"),
		"/studio/notifications",
		"/studio/content",
		"/studio/content/new",
		"/studio/content/" + welcome,
		"/studio/content/" + f.node("Election night live") + "/schedule",
		"/studio/settings",
		"/studio/tokens",
		"/studio/agents",
		"/",
		"/posts",
		"/posts/welcome",
	}
	for _, lang := range []string{"tr", "en"} {
		t.Log("signed in, in " + lang)
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules")))
		switchLanguage(t, ctx, lang)
		check(lang, paths)
	}
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules?view=month&date=2026-11"),
		chromedp.WaitVisible(chromedp.CSS("#month-grid"))))
	shots(t, ctx, "a11y-month-en")
}

// TestAxeHarnessInTheBrowser: the harness is no silent pass. On a page
// with a strict Content-Security-Policy and an image without a text
// alternative, the check after the load finds it; text too faint to read, swapped in as htmx swaps content, is found
// after the swap; and each is reported once with its rule and element.
func TestAxeHarnessInTheBrowser(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// As strict as Studio's own policy may be: the harness still runs.
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:")
		w.Write([]byte(`<!doctype html><html lang="en"><head><title>Harness</title></head><body><main>
<h1>Harness</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20" id="no-alt">
<div id="region"></div></main></body></html>`))
	}))
	t.Cleanup(srv.Close)
	ctx := newBrowser(t)
	w := axeWatchOf(t, ctx)
	var found []string
	waitFor := func(what string) {
		t.Helper()
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			found = append(found, w.take()...)
			if strings.Contains(strings.Join(found, "\n"), what) {
				return
			}
		}
		t.Fatalf("axe never reported %q; it reported:\n%s", what, strings.Join(found, "\n"))
	}
	must(t, do(ctx, chromedp.Navigate(srv.URL+"/")))
	waitFor("image-alt (critical) on / [lang \"en\", light]")
	waitFor("#no-alt")

	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () {
		var r = document.getElementById("region");
		r.innerHTML = '<p id="faint" style="color:#bbb;background:#fff">Faint words</p>';
		r.dispatchEvent(new CustomEvent("htmx:afterSettle", { bubbles: true }));
		return true;
	})()`))
	must(t, err)
	waitFor("color-contrast (serious) on /")
	waitFor("#faint")

	runAxe(t, ctx) // the same violations again: nothing new to report
	if again := w.take(); len(again) != 0 {
		t.Errorf("reported twice:\n%s", strings.Join(again, "\n"))
	}
	if n := strings.Count(strings.Join(found, "\n"), "#no-alt"); n != 1 {
		t.Errorf("the image was reported %d times, want once:\n%s", n, strings.Join(found, "\n"))
	}
}
