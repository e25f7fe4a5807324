package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine/content"
	"studio/engine/model/release"
)

// TestPauseSaysWhatStillHappensInTheBrowser (issue 10, the kill switch as a newcomer
// meets it): pausing holds releases, not gates. The owner pauses from Site
// settings; the dialog says that embargo lifts and expiries still happen
// and lists the ones of the next 24 hours, each with a link to its Schedule
// card. Once a release's time has come, the Schedules page's banner lists
// the same with the held release, the Scheduler card says Paused (not
// "Running — published within about a minute"), the release shows "Held:
// paused" on the Agenda and the Month, and "Needs attention" lists it. In
// Turkish, then English.
func TestPauseSaysWhatStillHappensInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul.
	var lift, expiry string
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		editor := f.user("editor@demo.test")
		at := func(h int) *time.Time { v := time.Date(2026, 11, 2, 5+h, 0, 0, 0, time.UTC); return &v }
		gated := func(title, slug string, from, until *time.Time) string {
			n, err := f.nodes.CreateNode(f.ctx, editor, f.site.ID, release.KindPage, content.Body{Title: title, Slug: slug,
				Lang: "tr", Status: content.StatusPublished, Text: title + ".",
				Availability: &content.Availability{From: from, Until: until}})
			must(t, err)
			return n.ID
		}
		lift = gated("Seçim sonuçları sayfası", "secim-sonuclari", at(4), nil) // 12:00
		expiry = gated("Sandık saatleri", "sandik-saatleri", nil, at(9))       // 17:00
		gated("Haftaya açılacak sayfa", "haftaya", at(24*7), nil)              // next week: not listed
		_, err := f.nodes.Publish(f.ctx, editor, f.site.ID)
		must(t, err)
		f.schedule(editor, f.node("Election night live"), "2026-11-02", "09:00")
	})
	ctx := newBrowser(t)

	t.Log("the owner (who reads Turkish) opens the pause dialog")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="tr"]`)),
		chromedp.Navigate(app.url+"/studio/settings"),
		chromedp.Click(chromedp.CSS(`[data-testid="pause-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pause-reason`)),
	))
	dialog := text(t, ctx, "#pause-dialog")
	wantContains(t, "pause dialog", dialog, "Ambargolar ve sona ermeler yine zamanında gerçekleşir",
		"Seçim sonuçları sayfası", "Ambargo kalkar", "12:00", "Sandık saatleri", "Sona erer", "17:00",
		"yayın paketlerinin bekletileceğini")
	if strings.Contains(dialog, "Haftaya açılacak sayfa") || strings.Contains(dialog, "hiçbir şeyin yayımlanmayacağını") {
		t.Errorf("pause dialog: %q", dialog)
	}
	gateLinks := func(scope string) []string {
		t.Helper()
		hrefs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('`+scope+
			` [data-testid="gate-ahead-change"]')].map(a => a.getAttribute('href'))`))
		must(t, err)
		return hrefs
	}
	wantLinks := []string{"/studio/content/" + lift + "#gates-title", "/studio/content/" + expiry + "#gates-title"}
	if got := gateLinks("#pause-dialog"); strings.Join(got, " ") != strings.Join(wantLinks, " ") {
		t.Errorf("dialog links %q, want %q", got, wantLinks)
	}
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#pause-reason"), "Seçim sonuçları doğrulanıyor"),
		chromedp.Click(chromedp.CSS(`#pause-dialog input[name="confirm"]`)),
	))
	must(t, do(ctx, chromedp.EmulateViewport(1440, 1500)))
	shot(t, ctx, "pause-dialog-tr-1440")
	must(t, do(ctx, chromedp.EmulateViewport(1440, 900)))
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="pause-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="resume-open"]`)),
	))
	settings := text(t, ctx, "main")
	wantContains(t, "paused settings", settings, "Zamanlayıcı", "Duraklatıldı", "yayımlanmaz",
		"Ambargolar ve sona ermeler yine zamanında gerçekleşir", "Seçim sonuçları sayfası")
	if strings.Contains(settings, "Çalışıyor") || strings.Contains(settings, "en fazla bir dakika") {
		t.Errorf("paused, the Scheduler card still promises a publish: %q", settings)
	}

	t.Log("09:01: the release's time has come, and the pause holds it")
	app.clock.Set(time.Date(2026, 11, 2, 6, 1, 0, 0, time.UTC))
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/schedules"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="paused-banner"]`)),
	))
	banner := text(t, ctx, `[data-testid="paused-banner"]`)
	wantContains(t, "banner", banner, "Zamanlamalar ve otomasyonlar duraklatıldı", "Duraklatan: Halil Owner",
		"Ambargolar ve sona ermeler yine zamanında gerçekleşir", "Seçim sonuçları sayfası", "Sandık saatleri",
		"Duraklatma nedeniyle bekletilen yayın paketi: 1", "Election night live")
	if got := gateLinks(`[data-testid="paused-banner"]`); strings.Join(got, " ") != strings.Join(wantLinks, " ") {
		t.Errorf("banner links %q, want %q", got, wantLinks)
	}
	aside := text(t, ctx, `[data-testid="aside-health"]`)
	wantContains(t, "Scheduler card", aside, "Duraklatıldı", "Duraklatma nedeniyle bekletilen yayın paketi: 1")
	if strings.Contains(aside, "Çalışıyor") || strings.Contains(aside, "en fazla bir dakika") {
		t.Errorf("paused, the Scheduler card says %q", aside)
	}
	row := text(t, ctx, `.agenda-row:has(a[href^="/studio/releases/"]).look-alert`)
	wantContains(t, "held row", row, "Election night live", "Bekletiliyor: duraklatıldı")
	wantContains(t, "attention", text(t, ctx, `[data-testid="attention-banner"]`), "dikkat")
	shots(t, ctx, "pause-schedules-tr")

	t.Log("Needs attention lists the held release")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="attention-review"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#preset-attention[aria-current="page"]`)),
	))
	wantContains(t, "needs attention", waitText(t, ctx, `[data-testid="agenda"]`, "Election night live"),
		"Bekletiliyor: duraklatıldı")

	t.Log("the Month shows the held chip")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/schedules?view=month&date=2026-11"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="chip-held"]`)),
	))
	wantContains(t, "month chip", text(t, ctx, `a.chip:has([data-testid="chip-held"])`), "09:00", "Election night live",
		"Bekletiliyor: duraklatıldı")
	shots(t, ctx, "pause-month-tr")

	t.Log("in English")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`.user-menu > summary`)),
		chromedp.Click(chromedp.CSS(`.lang button[value="en"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="en"]`)),
		chromedp.Navigate(app.url+"/studio/schedules"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="paused-banner"]`)),
	))
	wantContains(t, "English banner", text(t, ctx, `[data-testid="paused-banner"]`),
		"Embargo lifts and expiries still happen at their times", "Embargo lifts", "Expires",
		"1 release is held by the pause", "Held: paused")
	wantContains(t, "English card", text(t, ctx, `[data-testid="aside-health"]`), "Paused", "are not published")
	wantContains(t, "English row", text(t, ctx, `.agenda-row.look-alert`), "Election night live", "Held: paused")
	shots(t, ctx, "pause-schedules-en")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/schedules?view=month&date=2026-11"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="chip-held"]`)),
	))
	wantContains(t, "English chip", text(t, ctx, `[data-testid="chip-held"]`), "Held: paused")
	shots(t, ctx, "pause-month-en")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/settings?confirm=resume#resume-dialog"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="resume-open"]`)),
	))
	shots(t, ctx, "pause-settings-en")

	t.Log("a gate's link opens its Schedule card")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/schedules"),
		chromedp.Click(chromedp.CSS(`[data-testid="paused-banner"] [data-testid="gate-ahead-change"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="gates-card"]`)),
	))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasSuffix(loc, wantLinks[0]) {
		t.Errorf("the link went to %s", loc)
	}
	wantContains(t, "Schedule card", text(t, ctx, `[data-testid="gates-card"]`), "12:00")
}
