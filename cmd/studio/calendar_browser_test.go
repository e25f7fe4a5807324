package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// startAgendaApp is the demo site with a fortnight of schedules, at 09:00
// on Monday 2 November 2026 in Istanbul: two releases published this
// morning, one missed, one to come tonight, a contributor's request
// waiting for approval tomorrow, and one in the next fortnight. The morning
// runs by hand before the ticker starts, so the ticker finds nothing due.
func startAgendaApp(t *testing.T) *browserApp {
	t.Helper()
	return startBrowserApp(t, time.Date(2026, 11, 2, 4, 0, 0, 0, time.UTC), func(f demoFixture) { // 07:00 in Istanbul
		editor, contributor := f.user("editor@demo.test"), f.user("contributor@demo.test")
		f.schedule(editor, f.page("Morning briefing"), "2026-11-02", "07:10")
		f.schedule(editor, f.page("Traffic update"), "2026-11-02", "07:20")
		f.schedule(editor, f.page("Market open"), "2026-11-02", "07:40")
		f.schedule(editor, f.node("Seçim gecesi canlı yayın"), "2026-11-02", "21:00")
		f.schedule(contributor, f.page("Reader letters"), "2026-11-03", "11:00")
		f.schedule(editor, f.node("Election night live"), "2026-11-04", "09:00")
		f.schedule(editor, f.page("Weekend long read"), "2026-11-21", "08:00")
		f.clock.Set(time.Date(2026, 11, 2, 4, 30, 0, 0, time.UTC)) // 07:30: two go live
		_, err := f.sched.RunDue(f.ctx, "manual")
		must(t, err)
		f.clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)) // 09:00: Market open is 80 minutes late, missed
		_, err = f.sched.RunDue(f.ctx, "manual")
		must(t, err)
	})
}

// agendaURL is the page's URL, path and query.
func agendaURL(t *testing.T, ctx context.Context) string {
	t.Helper()
	u, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + location.search`))
	must(t, err)
	return u
}

// waitLocation waits until the page's URL contains want (htmx pushes it).
func waitLocation(t *testing.T, ctx context.Context, want string) string {
	t.Helper()
	var got string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if got = agendaURL(t, ctx); strings.Contains(got, want) {
			return got
		}
	}
	t.Fatalf("the URL never had %q (last %q)", want, got)
	return ""
}

// countOf is how many elements match sel.
func countOf(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+"`"+sel+"`"+`).length`))
	must(t, err)
	return n
}

func keys(t *testing.T, ctx context.Context, keys ...string) {
	t.Helper()
	for _, k := range keys {
		must(t, do(ctx, chromedp.KeyEvent(k)))
	}
}

// TestAgendaInTheBrowser: the Schedules page's Agenda with the mouse and the
// keyboard, its filters through the URL and the back button, an approval
// decided inline, in English and Turkish; screenshots at both widths, light
// and dark.
func TestAgendaInTheBrowser(t *testing.T) {
	t.Parallel()
	url := startAgendaApp(t).url
	ctx := newBrowser(t)
	must(t, do(ctx,
		chromedp.Navigate(url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
		chromedp.Click(chromedp.CSS(`.user-menu > summary`)),
		chromedp.Click(chromedp.CSS(`.lang button[value="en"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="en"]`)),
		chromedp.Navigate(url+"/studio/schedules"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agenda"]`)),
	))

	t.Log("the Agenda: today folded, the Now rule, the banner, the aside")
	main := text(t, ctx, "main")
	wantContains(t, "agenda", main, "Schedules", "2–15 November 2026", "Today · Monday 2 November", "2 done today", "Now · 09:00",
		"Market open", "Missed", "Seçim gecesi canlı yayın", "Tomorrow · Tuesday 3 November", "Reader letters",
		"Waiting for approval", "1 schedule needs attention", "Times are in Istanbul (UTC+3) time.", "Scheduler", "Running")
	if strings.Contains(main, "Morning briefing") {
		t.Errorf("today's finished items are not folded")
	}
	shots(t, ctx, "calendar-agenda-en")

	t.Log("filters through the URL, and back")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`#preset-waiting`))))
	waitLocation(t, ctx, "preset=waiting")
	waitText(t, ctx, `#calendar`, "Reader letters")
	if n := countOf(t, ctx, `#calendar .agenda-row`); n != 1 {
		t.Errorf("%d rows waiting for approval, want 1", n)
	}
	if got := text(t, ctx, `#preset-waiting`); got != "✓ Waiting for approval" && got != "Waiting for approval" {
		t.Errorf("current view %q", got)
	}
	keys(t, ctx, "f") // opens the filters
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`#f-kind-release`)), chromedp.Click(chromedp.CSS(`#f-kind-release`))))
	waitLocation(t, ctx, "kind=release")
	waitText(t, ctx, `#calendar`, "Nothing in this period matches the filters.")
	open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("filters").open && document.getElementById("f-kind-release").checked`))
	must(t, err)
	if !open {
		t.Errorf("the filters closed, or lost the tick, after the swap")
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	must(t, err)
	saveScreenshot(t, "calendar-filters-en-1440.png", png)
	must(t, do(ctx, chromedp.NavigateBack()))
	waitLocation(t, ctx, "preset=waiting")
	waitText(t, ctx, `#calendar`, "Reader letters")
	must(t, do(ctx, chromedp.NavigateBack()))
	waitText(t, ctx, `#calendar`, "Market open")
	if got := agendaURL(t, ctx); strings.Contains(got, "preset") {
		t.Errorf("back twice: %s", got)
	}

	t.Log("keyboard: j / k by period, m / a by view, g t, ?")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`h1`)))) // focus out of any field
	keys(t, ctx, "j")
	waitText(t, ctx, `#period-title`, "16–29 November 2026")
	waitText(t, ctx, `#calendar`, "Weekend long read")
	waitLocation(t, ctx, "date=2026-11-16")
	keys(t, ctx, "k")
	waitText(t, ctx, `#period-title`, "2–15 November 2026")
	keys(t, ctx, "m")
	waitLocation(t, ctx, "view=month")
	waitText(t, ctx, `#period-title`, "November 2026")
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="month-grid"]`))))
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`h1`))))
	keys(t, ctx, "a")
	waitText(t, ctx, `#calendar`, "Now · 09:00")
	if got := agendaURL(t, ctx); strings.Contains(got, "view=month") {
		t.Errorf("a: still the month, %s", got)
	}
	keys(t, ctx, "j", "g", "t")
	waitText(t, ctx, `#period-title`, "2–15 November 2026")
	keys(t, ctx, "?")
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`#shortcuts-dialog`))))
	wantContains(t, "shortcuts", text(t, ctx, `#shortcuts-dialog`), "Keyboard shortcuts", "Next period", "Go to date")
	keys(t, ctx, "j") // the dialog is open: nothing moves
	keys(t, ctx, "\x1b")
	time.Sleep(100 * time.Millisecond)
	if got := text(t, ctx, `#period-title`); got != "2–15 November 2026" {
		t.Errorf("a shortcut acted under the dialog: %s", got)
	}
	// Typing in a field is typing, not a shortcut.
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`#goto-date`))))
	keys(t, ctx, "j")
	time.Sleep(100 * time.Millisecond)
	if got := text(t, ctx, `#period-title`); got != "2–15 November 2026" {
		t.Errorf("j in the date field moved the period: %s", got)
	}

	t.Log("approve inline from the Agenda")
	before := agendaURL(t, ctx)
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`#calendar [data-testid^="row-approve-"]`))))
	waitText(t, ctx, `#status`, "Approved. It will be published at its time.")
	badge, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#calendar .agenda-row")]
		.find(li => li.innerText.includes("Reader letters"))?.querySelector(".badge")?.innerText ?? ""`))
	must(t, err)
	if badge != "Scheduled" {
		t.Errorf("Reader letters after approval: badge %q", badge)
	}
	if n := countOf(t, ctx, `#calendar [data-testid^="row-approve-"]`); n != 0 {
		t.Errorf("%d approve buttons left on the Agenda", n)
	}
	wantContains(t, "aside", text(t, ctx, `#calendar-aside`), "Nothing is waiting for approval.")
	if after := agendaURL(t, ctx); after != before {
		t.Errorf("an inline approval changed the URL: %s → %s", before, after)
	}

	t.Log("in Turkish")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`.user-menu > summary`)),
		chromedp.Click(chromedp.CSS(`.lang button[value="tr"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="tr"]`)),
	))
	wantContains(t, "Turkish agenda", text(t, ctx, "main"), "Zamanlamalar", "2–15 Kasım 2026", "Bugün · 2 Kasım Pazartesi",
		"Bugün 2 zamanlama tamamlandı", "Şimdi · 09:00", "Kaçırıldı", "Yarın · 3 Kasım Salı", "Zamanlandı",
		"1 zamanlama dikkat gerektiriyor", "Saatler İstanbul saatine (UTC+3) göredir.", "Onay bekleyenler", "Zamanlayıcı")
	shots(t, ctx, "calendar-agenda-tr")
	// A phone with an item's menu open.
	must(t, do(ctx, chromedp.EmulateViewport(390, 900), chromedp.Navigate(url+"/studio/schedules"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agenda"]`))))
	// The menu of tonight's article: Move to…, Publish now…, Unschedule, Compare.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll("#calendar .agenda-row")]
		.find(li => li.innerText.includes("Seçim gecesi")).querySelector("details.menu summary").click() ?? true`))
	must(t, err)
	wantContains(t, "menu", text(t, ctx, `#calendar details.menu[open]`), "Taşı…", "Şimdi yayımla…", "Zamanlamayı kaldır", "Karşılaştır")
	must(t, do(ctx, chromedp.ScrollIntoView(chromedp.CSS(`#calendar details.menu[open]`))))
	png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	must(t, err)
	saveScreenshot(t, "calendar-agenda-menu-tr-390.png", png)
}
