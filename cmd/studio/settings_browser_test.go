package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestKillSwitchInTheBrowser: the owner opens Site settings and pauses
// schedules and automations through the confirmation dialog; a release that
// comes due meanwhile waits, and the Schedules page says why; resuming it
// (in English) publishes the release late. The viewer is in Berlin, the
// site in Istanbul.
func TestKillSwitchInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul.
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	ctx := newBrowser(t)
	_, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Berlin"})
	must(t, err)
	isTrue := func(js string) bool {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		must(t, err)
		return v
	}
	// nextTick waits for the ticker's next tick, after dropping the reports
	// of those already done.
	nextTick := func() {
		t.Helper()
		for len(app.ticks) > 0 {
			<-app.ticks
		}
	}
	awaitTick := func(what string) {
		t.Helper()
		select {
		case rep := <-app.ticks:
			if rep.Published != 0 {
				t.Fatalf("%s: the tick published %d", what, rep.Published)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no tick", what)
		}
	}

	t.Log("the owner (who reads Turkish) signs in and schedules an article for 09:00")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="tr"]`)),
		chromedp.Navigate(app.url+"/studio/content"),
		chromedp.Click(chromedp.Search(`//a[text()="Election night live"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="schedule"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="schedule-form"]`)),
		chromedp.SetValue(chromedp.CSS("#date"), "2026-11-02"),
		chromedp.SetValue(chromedp.CSS("#time"), "09:00"),
		chromedp.Click(chromedp.CSS(`[data-testid="schedule-form"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.agenda li`)),
	))

	t.Log("Site settings, from the site's menu")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="site-switch"] summary`)),
		chromedp.Click(chromedp.Search(`//*[@data-testid="site-switch"]//a[text()="Ayarlar"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="time-zone-form"]`)),
	))
	wantContains(t, "settings", text(t, ctx, "main"), "Site ayarları", "Saat dilimi", "Şu an: İstanbul (UTC+3).",
		"Tarayıcınızın saat dilimi Berlin (UTC+1):", "Zamanlayıcı", "Çalışıyor", "Acil durdurma",
		"Zamanlamalar ve otomasyonlar çalışıyor.", "Günlük otomasyon yazma sınırı", "Bugün kullanılan: 0 / 200")
	if n := text(t, ctx, `[data-testid="last-tick"]`); n == "" {
		t.Error("no last tick shown")
	}
	if !isTrue(`document.querySelectorAll('#zones option').length > 350 && !!document.querySelector('#zones option[value="Europe/Istanbul"]')`) {
		t.Error("the time zone list is missing")
	}
	shots(t, ctx, "settings-tr")

	t.Log("the pause dialog opens as a modal, and refuses an empty reason")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="pause-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pause-reason`)),
	))
	if !isTrue(`document.querySelector('#pause-dialog').matches(':modal') && location.search === ''`) {
		t.Fatal("the pause dialog is not a modal on the settings page")
	}
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="pause-submit"]`))))
	if !isTrue(`document.querySelector('#pause-dialog').open && document.querySelector('#pause-reason').validity.valueMissing`) {
		t.Fatal("the dialog sent a pause without a reason")
	}
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#pause-reason"), "Seçim sonuçları doğrulanıyor"),
		chromedp.Click(chromedp.CSS(`#pause-dialog input[name="confirm"]`)),
	))
	shot(t, ctx, "settings-pause-dialog-tr-1440")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="pause-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="resume-open"]`)),
	))
	wantContains(t, "paused settings", text(t, ctx, "main"), "Zamanlamalar ve otomasyonlar duraklatıldı.",
		"Duraklatan: Halil Owner", "Gerekçe: Seçim sonuçları doğrulanıyor", "08:00 İstanbul", "sizin saatinizle 06:00 (Berlin)")
	shots(t, ctx, "settings-paused-tr")

	// A minute past its time, not more: once resumed, a release more than two
	// minutes overdue would also be published by the request backstop,
	// racing the ticker this test watches.
	t.Log("09:00 comes: the release waits, and the Schedules page says why")
	nextTick()
	app.clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	awaitTick("at 09:00 while paused")
	nextTick()
	app.clock.Set(time.Date(2026, 11, 2, 6, 1, 0, 0, time.UTC))
	awaitTick("at 09:01 while paused")
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(app.url+"/posts/election-night"))
	must(t, err)
	if resp.Status != 404 {
		t.Fatalf("paused, at 09:01: status %d", resp.Status)
	}
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/schedules"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="paused-banner"]`)),
	))
	wantContains(t, "banner", text(t, ctx, `[data-testid="paused-banner"]`), "Zamanlamalar ve otomasyonlar duraklatıldı",
		"Duraklatan: Halil Owner", "Gerekçe: Seçim sonuçları doğrulanıyor", "Site ayarlarında sürdürün")
	wantContains(t, "agenda", text(t, ctx, "main"), "Election night live", "Bekletiliyor: duraklatıldı")
	shots(t, ctx, "schedules-paused-tr")

	t.Log("in English, resume: the release is published late")
	switchLanguage(t, ctx, "en")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="paused-banner-settings"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="resume-open"]`)),
	))
	wantContains(t, "English settings", text(t, ctx, "main"), "Site settings", "Schedules and automations are paused.",
		"Paused by Halil Owner", "Kill switch", "Daily automation write cap")
	shots(t, ctx, "settings-paused-en")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="resume-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#resume-reason`)),
		chromedp.SetValue(chromedp.CSS("#resume-reason"), "Results verified"),
		chromedp.Click(chromedp.CSS(`#resume-dialog input[name="confirm"]`)),
	))
	shot(t, ctx, "settings-resume-dialog-en-1440")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="resume-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="pause-open"]`)),
	))
	wantContains(t, "resumed", text(t, ctx, "main"), "Schedules and automations are running again.")
	app.waitPublished(t)
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules"), chromedp.WaitVisible(chromedp.CSS(`.agenda li`))))
	main := text(t, ctx, "main")
	wantContains(t, "agenda after resuming", main, "Election night live", "Published")
	if strings.Contains(main, "Schedules and automations are paused") {
		t.Error("the banner stayed after resuming")
	}
	resp, err = chromedp.Run(ctx, chromedp.NavigateResponse(app.url+"/posts/election-night"))
	must(t, err)
	if resp.Status != 200 {
		t.Fatalf("after resuming: status %d", resp.Status)
	}
}
