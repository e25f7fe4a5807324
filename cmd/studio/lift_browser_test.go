package main

import (
	"net/http"
	"studio/engine"
	"studio/engine/gates"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestLiftEarlierInTheBrowser is issue 11's "Lift embargo can only remove
// from": the lift dialog offers "now" or "earlier, at this time"; a time
// that is not earlier is refused beside the field, and an earlier one makes
// the article visible at that time and not before. The dialog is shot in
// English and Turkish.
func TestLiftEarlierInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul; the embargo ends tomorrow 09:00.
	var article string
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		article = f.node("Welcome to the Gazette")
		d, err := f.nodes.Node(f.ctx, engine.Reader(f.site.ID), f.site.ID, article)
		must(t, err)
		_, err = f.gates.SetGates(f.ctx, f.user("editor@demo.test"), gates.GateInput{SiteID: f.site.ID, NodeID: article,
			ExpectedRev: d.Rev, From: gates.GateAt(time.Date(2026, 11, 3, 6, 0, 0, 0, time.UTC))})
		must(t, err)
	})
	ctx := newBrowser(t)
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	switchLanguage(t, ctx, "en")
	open := func() {
		t.Helper()
		must(t, do(ctx,
			chromedp.Navigate(app.url+"/studio/content/"+article),
			chromedp.Click(chromedp.CSS(`[data-testid="lift-open"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#lift-dialog`)),
		))
	}
	open()
	wantContains(t, "dialog", text(t, ctx, `#lift-dialog`), "It is embargoed until 3 November 2026, 09:00.",
		"When should it become visible?", "Now: lift the embargo", "Earlier than planned, at this time:")
	if v := text(t, ctx, `[data-testid="lift-when"]`); v == "" {
		t.Fatal("no choice of when")
	}
	shot(t, ctx, "lift-earlier-dialog-en")

	t.Log("a later time is refused beside the field; nothing changes")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="lift-earlier"]`)),
		chromedp.SetValue(chromedp.CSS("#lift-date"), "2026-11-04"),
		chromedp.SetValue(chromedp.CSS("#lift-time"), "09:00"),
		chromedp.SetValue(chromedp.CSS("#lift-reason"), "The announcement was moved up."),
	))
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="lift-submit"]`)))
	wantContains(t, "refused", text(t, ctx, `#lift-dialog`), "Choose a time before 3 November 2026, 09:00")
	shot(t, ctx, "lift-earlier-refused-en")

	t.Log("18:00 today: visible from then, not before")
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#lift-date"), "2026-11-02"),
		chromedp.SetValue(chromedp.CSS("#lift-time"), "18:00"),
	))
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="lift-submit"]`)))
	wantContains(t, "moved", text(t, ctx, "main"), "Embargo moved earlier", "Embargoed until 2 November 2026, 18:00.")

	t.Log("in Turkish")
	switchLanguage(t, ctx, "tr")
	open()
	wantContains(t, "Turkish dialog", text(t, ctx, `#lift-dialog`), "2 Kasım 2026 18:00 tarihine kadar ambargo altında",
		"İçerik ne zaman görünür olsun?", "Hemen: ambargoyu kaldır", "Planlanandan önce, şu zamanda:")
	shot(t, ctx, "lift-earlier-dialog-tr")
	app.clock.Set(time.Date(2026, 11, 2, 14, 59, 59, 999e6, time.UTC))
	if status, _ := publicGet(t, app.url+"/posts/welcome"); status != http.StatusNotFound {
		t.Errorf("before 18:00 the article answers %d, want 404", status)
	}
	app.clock.Set(time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC))
	if status, _ := publicGet(t, app.url+"/posts/welcome"); status != http.StatusOK {
		t.Errorf("at 18:00 the article answers %d, want 200", status)
	}
}
