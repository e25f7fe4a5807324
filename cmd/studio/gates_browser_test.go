package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// publicGet fetches a public route over plain HTTP, as a visitor (no
// cookies), and returns its status and body.
func publicGet(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	must(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	must(t, err)
	return res.StatusCode, string(b)
}

// waitJS waits up to 10 s until the expression is true in the page.
func waitJS(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { try { return !!(`+expr+`) } catch (e) { return false } })()`))
		if err != nil && strings.Contains(err.Error(), "(-32000)") {
			continue // the page navigated while it was asked (a form's answer loading): ask the new one
		}
		must(t, err)
		if ok {
			return
		}
	}
	t.Fatalf("never true: %s", expr)
}

// submitAndWait runs the actions (the last of which submits a form) and
// waits for the page the form's answer loads.
func submitAndWait(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__before = true`))
	must(t, err)
	must(t, do(ctx, actions...))
	waitJS(t, ctx, `!window.__before && document.readyState === "complete"`)
}

// TestGatesInTheBrowser is issue 6's "done when" for writing gates: an
// editor embargoes an article until 09:00 and sets an expiry, both from the
// browser, and publishes it early; the public site does not show it before
// 09:00, shows it from 09:00 with no job running, and hides it again at the
// expiry. Then a live article's embargo is set and lifted (the alert
// dialog, with a reason). The Schedule card is shot in English and
// Turkish, light and dark, at 1440 and 390 px.
func TestGatesInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul.
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	f := app.demo(t)
	article := f.node("Election night live")
	ctx := newBrowser(t)
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	switchLanguage(t, ctx, "en")

	t.Log("the Schedule card of a draft: not live yet")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/content"),
		chromedp.Click(chromedp.Search(`//a[text()="Election night live"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="gates-card"]`)),
	))
	wantContains(t, "card", text(t, ctx, `[data-testid="gates-card"]`), "Schedule", "Not live yet.", "Visible from…",
		"Hide after…", "Times are in Istanbul (UTC+3) time.", "Preview")
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="gates-preview"]').getAttribute("href")`))
	must(t, err)
	if href != "/studio/content/"+article+"/preview" {
		t.Errorf("preview link %q", href)
	}

	t.Log("embargo until 09:00 and expire on Thursday 18:00, from the browser")
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#from-date"), "2026-11-02"),
		chromedp.SetValue(chromedp.CSS("#from-time"), "09:00"),
		chromedp.SetValue(chromedp.CSS("#until-date"), "2026-11-05"),
		chromedp.SetValue(chromedp.CSS("#until-time"), "18:00"),
		chromedp.Click(chromedp.CSS(`[data-testid="gates-save"]`)),
	))
	wantContains(t, "saved", waitText(t, ctx, `[data-testid="gate-state"]`, "Not live yet: the embargo"),
		"Not live yet: the embargo until 2 November 2026, 09:00 goes live with whatever publishes it.")
	wantContains(t, "flash", text(t, ctx, "main"), "Saved. The gates go live with the next publish.")
	shots(t, ctx, "gates-card-en")

	t.Log("publish it early, by an ordinary publish: the embargo rides along")
	_, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("select#node-status").value = "published"`))
	must(t, err)
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`form.editor button.primary[type=submit]`)))
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content")))
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`.publish-bar button[type=submit]`)))
	wantContains(t, "published", text(t, ctx, "main"), "Published. The site now shows the latest versions.")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content/"+article)))
	wantContains(t, "live card", waitText(t, ctx, `[data-testid="gate-state"]`, "Embargoed"),
		"Embargoed until 2 November 2026, 09:00.")
	site, err := app.eng.Site(f.ctx, f.site.ID)
	must(t, err)

	t.Log("before 09:00 the public site does not show it")
	app.clock.Set(time.Date(2026, 11, 2, 5, 59, 59, 999e6, time.UTC))
	if status, _ := publicGet(t, app.url+"/posts/election-night"); status != http.StatusNotFound {
		t.Errorf("before 09:00: /posts/election-night answers %d, want 404", status)
	}
	if _, home := publicGet(t, app.url+"/"); strings.Contains(home, "Election night live") {
		t.Errorf("before 09:00 the home page lists the embargoed article")
	}

	t.Log("at 09:00 it shows, with no job running")
	app.clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	status, body := publicGet(t, app.url+"/posts/election-night")
	if status != http.StatusOK || !strings.Contains(body, "Follow the results here") {
		t.Errorf("at 09:00: /posts/election-night answers %d", status)
	}
	if _, home := publicGet(t, app.url+"/"); !strings.Contains(home, "Election night live") {
		t.Errorf("at 09:00 the home page does not list the article")
	}
	after, err := app.eng.Site(f.ctx, f.site.ID)
	must(t, err)
	if after.PublishedSnapshotID != site.PublishedSnapshotID {
		t.Errorf("something was published at 09:00: the gate alone should open it")
	}

	t.Log("a live article: embargo it (published at once), then lift the embargo with a reason")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/content"),
		chromedp.Click(chromedp.Search(`//a[text()="Welcome to the Gazette"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="gates-card"]`)),
	))
	wantContains(t, "live open", text(t, ctx, `[data-testid="gates-card"]`), "Open: visible on the live site.", "Save and publish")
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#from-date"), "2026-11-03"),
		chromedp.SetValue(chromedp.CSS("#from-time"), "09:00"),
		chromedp.Click(chromedp.CSS(`[data-testid="gates-save"]`)),
	))
	waitText(t, ctx, `[data-testid="gate-state"]`, "Embargoed until 3 November 2026, 09:00.")
	if status, _ := publicGet(t, app.url+"/posts/welcome"); status != http.StatusNotFound {
		t.Errorf("the embargoed live article answers %d, want 404", status)
	}
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="lift-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#lift-dialog`)),
	))
	modal, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("lift-dialog").matches(":modal")`))
	must(t, err)
	if !modal {
		t.Errorf("the lift dialog did not open as a modal")
	}
	wantContains(t, "lift dialog", text(t, ctx, `#lift-dialog`), "Lift the embargo on “Welcome to the Gazette”?",
		"It is embargoed until 3 November 2026, 09:00.")
	shot(t, ctx, "gates-lift-dialog-en")
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#lift-reason"), "The announcement was moved up."),
		chromedp.Click(chromedp.CSS(`[data-testid="lift-submit"]`)),
	))
	waitText(t, ctx, `[data-testid="gate-state"]`, "Open: visible on the live site.")
	wantContains(t, "lifted", text(t, ctx, "main"), "Embargo lifted: it is visible on the live site now.")
	if status, _ := publicGet(t, app.url+"/posts/welcome"); status != http.StatusOK {
		t.Errorf("after the lift the article answers %d, want 200", status)
	}

	t.Log("in Turkish")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content/"+article), chromedp.WaitVisible(chromedp.CSS("main"))))
	switchLanguage(t, ctx, "tr")
	wantContains(t, "Turkish card", text(t, ctx, `[data-testid="gates-card"]`), "Zamanlama", "Açık: 5 Kasım 2026 18:00 tarihine kadar görünür.",
		"Şu tarihten itibaren görünür…", "Şu tarihten sonra gizle…", "Kaydet ve yayımla", "Temizle", "Önizle")
	shots(t, ctx, "gates-card-tr")

	t.Log("at the expiry it hides again, with no job running")
	app.clock.Set(time.Date(2026, 11, 5, 14, 59, 59, 999e6, time.UTC))
	if status, _ := publicGet(t, app.url+"/posts/election-night"); status != http.StatusOK {
		t.Errorf("just before its expiry: /posts/election-night answers %d, want 200", status)
	}
	app.clock.Set(time.Date(2026, 11, 5, 15, 0, 0, 0, time.UTC))
	if status, _ := publicGet(t, app.url+"/posts/election-night"); status != http.StatusNotFound {
		t.Errorf("at its expiry: /posts/election-night answers %d, want 404", status)
	}
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content/"+article)))
	wantContains(t, "expired card", text(t, ctx, `[data-testid="gate-state"]`), "5 Kasım 2026 18:00 tarihinde sona erdi.")
}
