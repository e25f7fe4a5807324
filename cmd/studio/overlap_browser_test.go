package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine"
	"studio/engine/releases"
)

// TestOverlapShownInTheBrowser: the Welcome article is scheduled alone at
// 09:00 and again in "Evening edition" at 10:00 — allowed (D15, §6.2) and
// flagged on both release pages, naming the other release and its time, and
// on the calendar (an Agenda badge, a Month chip's icon and words), in
// Turkish and English.
func TestOverlapShownInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)) // 08:00 in Istanbul
	demo := app.demo(t)
	ctx, eng, site := demo.ctx, app.eng, demo.site
	owner, editor := demo.user("owner@demo.test"), demo.user("editor@demo.test")
	welcome := demo.node("Welcome to the Gazette")
	d, err := demo.nodes.Node(ctx, engine.Reader(site.ID), site.ID, welcome)
	must(t, err)
	body := d.Body
	body.Text += "\n\nUpdated for 09:00."
	n, err := demo.nodes.SaveNode(ctx, owner, site.ID, d.ID, d.Rev, body)
	must(t, err)
	first, err := eng.ScheduleNode(ctx, owner, releases.ScheduleInput{SiteID: site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
		Date: "2026-11-02", Time: "09:00"})
	must(t, err)
	draft, err := eng.NewRelease(ctx, owner, site.ID, "Evening edition", []string{welcome})
	must(t, err)
	second, err := eng.ScheduleRelease(ctx, owner, site.ID, draft.ID, draft.Rev, "2026-11-02", "10:00")
	must(t, err)

	b := newBrowser(t)
	must(t, do(b,
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	for _, lang := range []struct {
		code, firstSays, secondSays, badge, hint, chip string
	}{
		{"tr", "“Evening edition” paketinde de var · 2 Kasım Pazartesi 10:00", "“Welcome to the Gazette” paketinde de var · 2 Kasım Pazartesi 09:00", "Örtüşme",
			"bekleyen başka bir pakette de var", "başka bir pakette de var"},
		{"en", "Also in “Evening edition” · Monday 2 November 10:00", "Also in “Welcome to the Gazette” · Monday 2 November 09:00", "Overlap",
			"also in another pending release", "also in another release"},
	} {
		must(t, app.identity.SetLanguage(ctx, editor, lang.code))
		must(t, do(b,
			chromedp.Navigate(app.url+"/studio/releases/"+first.ID),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="overlap-`+second.ID+`"]`)),
		))
		wantContains(t, lang.code+" first release", text(t, b, `[data-testid="overlap-`+second.ID+`"]`), lang.firstSays)
		shot(t, b, "overlap-release-"+lang.code)
		must(t, do(b,
			chromedp.Navigate(app.url+"/studio/releases/"+second.ID),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="overlap-`+first.ID+`"]`)),
		))
		wantContains(t, lang.code+" second release", text(t, b, `[data-testid="overlap-`+first.ID+`"]`), lang.secondSays)

		must(t, do(b,
			chromedp.Navigate(app.url+"/studio/schedules?date=2026-11-02"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="overlap"]`)),
		))
		badges, err := chromedp.Run(b, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="overlap"]')).map(e => e.closest('li').querySelector('.what').textContent + ' | ' + e.textContent)`))
		must(t, err)
		if len(badges) != 2 {
			t.Fatalf("%s agenda overlap badges %q, want both releases", lang.code, badges)
		}
		for _, s := range badges {
			wantContains(t, lang.code+" agenda badge", s, lang.badge, lang.hint)
		}
		shot(t, b, "overlap-agenda-"+lang.code)

		must(t, do(b,
			chromedp.Navigate(app.url+"/studio/schedules?view=month&date=2026-11"),
			chromedp.WaitVisible(chromedp.CSS(`#month-grid td[tabindex="0"]`)),
		))
		chips, err := chromedp.Run(b, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#month-grid a.chip')).filter(a => a.querySelector('use[href="#mi-overlap"]')).map(a => a.getAttribute('aria-label'))`))
		must(t, err)
		if len(chips) != 2 {
			t.Fatalf("%s month chips with the overlap icon: %q", lang.code, chips)
		}
		for _, s := range chips {
			wantContains(t, lang.code+" month chip", s, lang.chip)
		}
		shot(t, b, "overlap-month-"+lang.code)
	}
}
