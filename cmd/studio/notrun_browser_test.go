package main

import (
	"testing"
	"time"

	"studio/engine/automations"

	"github.com/chromedp/chromedp"
)

// TestNotRunInTheBrowser: a day later, a paused daily review's 06:30 has
// passed with no run behind it: the Agenda says "Not run", never "Done"
// (the Month grid is shot); in English and Turkish.
func TestNotRunInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul; then Tuesday 08:00.
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		owner := f.user("owner@demo.test")
		a, err := automations.New(f.store, f.eng).CreateAutomation(f.ctx, owner, f.site.ID, "Eskimiş içerik taraması",
			"builtin:stale-content", "FREQ=DAILY;BYHOUR=6;BYMINUTE=30", "2026-11-03T06:30")
		must(t, err)
		// Paused, so the ticker runs nothing at 06:30.
		_, err = automations.New(f.store, f.eng).Pause(f.ctx, owner, f.site.ID, a.ID, a.Rev)
		must(t, err)
	})
	app.clock.Set(time.Date(2026, 11, 3, 5, 0, 0, 0, time.UTC))
	ctx := newBrowser(t)
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	switchLanguage(t, ctx, "en")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules?date=2026-11-03"),
		chromedp.WaitVisible(chromedp.CSS(`.badge[data-state="not_run"]`))))
	wantContains(t, "agenda", text(t, ctx, `.badge[data-state="not_run"]`), "Not run")
	shots(t, ctx, "notrun-agenda-en")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules?view=month&date=2026-11"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="month-grid"]`))))
	shots(t, ctx, "notrun-month-en")
	switchLanguage(t, ctx, "tr")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules?date=2026-11-03"),
		chromedp.WaitVisible(chromedp.CSS(`.badge[data-state="not_run"]`))))
	wantContains(t, "Turkish agenda", text(t, ctx, `.badge[data-state="not_run"]`), "Çalışmadı")
	shots(t, ctx, "notrun-agenda-tr")
}
