package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine/automations"
	"studio/engine/model/automation"
)

// settleAutomations ticks until the automations have nothing more to do
// at the clock's time (a run takes a step a tick).
func settleAutomations(f demoFixture) {
	f.t.Helper()
	for range 50 {
		rep, err := f.sched.RunDue(f.ctx, "manual")
		must(f.t, err)
		if rep.Automations.Claimed == 0 && rep.Automations.Steps == 0 {
			return
		}
	}
	f.t.Fatal("the automations never settle")
}

// TestCalendarOccurrenceRunNowInTheBrowser: the demo's two automations have run for a
// few days, with a downtime on 4 and 5 November, before the ticker starts
// on Friday 6 November at 09:00. The Agenda shows each past occurrence from
// its run (Succeeded, Skipped for the coalesced ones, the outcome apart) and
// links it to its run, in English and Turkish; the ⋯ menu's Run now (a
// plain form) starts a run, which the store holds (the run's own page is
// History's part).
func TestCalendarOccurrenceRunNowInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 4, 0, 0, 0, time.UTC), func(f demoFixture) { // Monday 07:00 in Istanbul
		for _, a := range []automations.Input{
			{Name: "Kırık bağlantı taraması", Builtin: automation.BuiltinBrokenLinks, Rule: "FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=0", Start: "2026-11-02T07:00"},
			{Name: "Eskimiş içerik taraması", Builtin: automation.BuiltinStaleContent, Rule: "FREQ=DAILY;BYHOUR=6;BYMINUTE=30", Start: "2026-11-02T06:30"},
		} {
			_, err := automations.New(f.store, f.eng).Create(f.ctx, f.user("owner@demo.test"), f.site.ID, a)
			must(t, err)
		}
		f.clock.Set(time.Date(2026, 11, 3, 3, 31, 0, 0, time.UTC)) // Tuesday 06:31: Monday's sweep and Tuesday's review
		settleAutomations(f)
		f.clock.Set(time.Date(2026, 11, 6, 3, 31, 0, 0, time.UTC)) // Friday 06:31, after two days down
		settleAutomations(f)
		f.clock.Set(time.Date(2026, 11, 6, 6, 0, 0, 0, time.UTC)) // Friday 09:00
	})
	f := app.demo(t)
	ctx := newBrowser(t)
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	switchLanguage(t, ctx, "en")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules?date=2026-11-02"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agenda"]`))))
	if n := countOf(t, ctx, `[data-testid^="item-occ:"][data-testid$=":2026-11-02T04:00:00.000Z"]`); n != 0 {
		t.Errorf("Monday's 07:00 sweep, at the instant the automation was created, is on the Agenda (%d)", n)
	}

	autos, err := f.store.Automations(f.ctx, f.site.ID)
	must(t, err)
	var review automations.Automation
	for _, a := range autos {
		if a.Job == "builtin:stale-content" {
			review = a
		}
	}
	if review.ID == "" {
		t.Fatal("no stale-content review in the demo")
	}
	row := func(utc string) string { return `[data-testid="item-occ:` + review.ID + `:` + utc + `"]` }
	tuesday, wednesday, friday := row("2026-11-03T03:30:00.000Z"), row("2026-11-04T03:30:00.000Z"), row("2026-11-06T03:30:00.000Z")
	wantContains(t, "Tuesday's review", text(t, ctx, tuesday), "Eskimiş içerik taraması", "Succeeded")
	wantContains(t, "Wednesday's review", text(t, ctx, wednesday), "Skipped")
	wantContains(t, "Friday's review", text(t, ctx, friday), "Succeeded")
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+"`"+tuesday+` a.what`+"`"+`).getAttribute("href")`))
	must(t, err)
	if want := "/studio/schedules/runs/"; len(href) <= len(want) || href[:len(want)] != want {
		t.Errorf("Tuesday's review links to %q", href)
	}
	shots(t, ctx, "calendar-occurrences-en")

	t.Log("Run now from Friday's ⋯ menu")
	before, err := f.store.Runs(f.ctx, automations.RunFilter{SiteID: f.site.ID, AutomationID: review.ID, Limit: 100})
	must(t, err)
	must(t, do(ctx, chromedp.Click(chromedp.CSS(friday+` details.menu summary`)),
		chromedp.WaitVisible(chromedp.CSS(friday+` [data-testid="menu-run-now"] button`))))
	wantContains(t, "Friday's menu", text(t, ctx, friday+` .menu-list`), "Run now", "Edit", "History")
	shot(t, ctx, "calendar-occurrence-menu-en")
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(friday+` [data-testid="menu-run-now"] button`)))
	after, err := f.store.Runs(f.ctx, automations.RunFilter{SiteID: f.site.ID, AutomationID: review.ID, Limit: 100})
	must(t, err)
	if len(after) != len(before)+1 || after[0].Trigger != automations.TriggerManual {
		t.Fatalf("runs after Run now: %d, before %d", len(after), len(before))
	}
	loc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	must(t, err)
	if loc != "/studio/schedules/runs/"+after[0].ID {
		t.Errorf("Run now answered %s", loc)
	}

	t.Log("the same Agenda in Turkish")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules?date=2026-11-02"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agenda"]`))))
	switchLanguage(t, ctx, "tr")
	wantContains(t, "Salı's review", text(t, ctx, tuesday), "Başarılı")
	wantContains(t, "Çarşamba's review", text(t, ctx, wednesday), "Atlandı")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="done-today"] summary`)))) // Friday's runs are done
	wantContains(t, "the manual run", waitText(t, ctx, "main", "“Şimdi çalıştır” ile başlatıldı"), "Başarılı")
	shot(t, ctx, "calendar-occurrences-today-tr")

	t.Log("the Month: a past occurrence's chip links to its run")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules?view=month&date=2026-11"),
		chromedp.WaitVisible(chromedp.CSS(`[role="grid"]`))))
	if n := countOf(t, ctx, `a.chip[href^="/studio/schedules/runs/"]`); n < 4 {
		t.Errorf("%d chips link to their runs, want at least 4", n)
	}
	shots(t, ctx, "calendar-occurrences-month-tr")
	shots(t, ctx, "calendar-occurrences-tr")
}
