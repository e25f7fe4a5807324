package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine/automations"
	"studio/engine/model/automation"
)

// TestBrokenLinksAfterAScheduledPublishInTheBrowser: readers ask for an
// article while it is still scheduled (a 404 then) and for a page that
// never existed; the article goes live at its time; the broken-link check
// that runs after reports the page that never existed and not the article,
// which resolves now. The run's page says so in Turkish and English.
func TestBrokenLinksAfterAScheduledPublishInTheBrowser(t *testing.T) {
	t.Parallel()
	var autID string
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) { // 08:00 in Istanbul
		owner := f.user("owner@demo.test")
		f.schedule(f.user("editor@demo.test"), f.node("Election night live"), "2026-11-02", "09:00")
		a, err := automations.New(f.store, f.eng).Create(f.ctx, owner, f.site.ID, automations.Input{Name: "Broken links",
			Builtin: automation.BuiltinBrokenLinks, Preset: "weekly", Start: "2026-11-09T07:00"})
		must(t, err)
		autID = a.ID
	})
	ctx := newBrowser(t)
	for _, path := range []string{"/posts/election-night", "/posts/no-such-story"} {
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(app.url+path))
		must(t, err)
		if resp.Status != http.StatusNotFound {
			t.Fatalf("%s before 09:00: %d, want 404", path, resp.Status)
		}
	}
	// The site writes its 404s a few seconds later, together.
	f := app.demo(t)
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		top, err := app.store.TopNotFound(context.Background(), f.site.ID, "2026-11-02", "2026-11-02", 10)
		must(t, err)
		written := 0
		for _, p := range top {
			if p.Path == "/posts/election-night" || p.Path == "/posts/no-such-story" {
				written++
			}
		}
		if written == 2 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the site's 404s were not written: %+v", top)
		}
	}
	app.clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)) // 09:00: the article goes live
	app.waitPublished(t)
	if resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(app.url+"/posts/election-night")); err != nil || resp.Status != http.StatusOK {
		t.Fatalf("the article after its time: %v, %v", resp, err)
	}

	owner := f.user("owner@demo.test")
	run, _, err := automations.New(app.store, app.eng).RunNow(context.Background(), owner, f.site.ID, autID)
	must(t, err)
	app.finishRun(t, owner, run.ID)

	signIn(t, ctx, app, "owner@demo.test")
	for _, c := range []struct{ lang, missing string }{
		{"tr", "Ziyaretçiler olmayan /posts/no-such-story adresini bir kez istedi."},
		{"en", "Visitors asked once for /posts/no-such-story, which does not exist."},
	} {
		switchLanguage(t, ctx, c.lang)
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules/runs/"+run.ID), chromedp.WaitVisible(chromedp.CSS("main h1"))))
		page := text(t, ctx, "main")
		wantContains(t, "the run's page", page, c.missing)
		if strings.Contains(page, "/posts/election-night") {
			t.Errorf("the run reports the article that is live now:\n%s", page)
		}
		shot(t, ctx, "broken-links-after-publish-"+c.lang)
	}
}
