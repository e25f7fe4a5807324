package main

import (
	"slices"
	"strings"
	"studio/engine"
	"studio/engine/gates"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestReleasePagesInTheBrowser walks issue 10's newcomer bullets on the
// approval, schedule and release screens, in English and Turkish, with
// screenshots: the waiting requests soonest first, the Schedule form's
// preview of a time that has passed, a gate's "Save and publish" before the
// Now line, a stale move with "Load the latest", and a browser in UTC that
// reads its zone once.
func TestReleasePagesInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul.
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		// Asked first: pages for Thursday and next week; asked last: a page
		// for today 18:00, and a live article's expiry, which publishes
		// when approved.
		contributor := f.user("contributor@demo.test")
		f.schedule(contributor, f.page("Ferry timetable"), "2026-11-05", "14:00")
		f.schedule(contributor, f.page("Transit strike"), "2026-11-12", "07:30")
		f.schedule(contributor, f.page("Evening briefing"), "2026-11-02", "18:00")
		d, err := f.nodes.Node(f.ctx, engine.Reader(f.site.ID), f.site.ID, f.node("Welcome to the Gazette"))
		must(t, err)
		_, err = f.gates.SetGates(f.ctx, contributor, gates.GateInput{SiteID: f.site.ID, NodeID: d.ID, ExpectedRev: d.Rev,
			From: gates.KeepGate(), Until: gates.GateWall("2026-11-20", "18:00"), Apply: gates.GateApplyNow})
		must(t, err)
		f.schedule(f.user("editor@demo.test"), f.page("Books of the week"), "2026-11-03", "09:00")
	})
	f := app.demo(t)
	ctx := newBrowser(t)
	setLang := func(lang string) {
		t.Helper()
		switchLanguage(t, ctx, lang)
	}
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	setLang("en")

	t.Log("waiting for approval: soonest first, the expiry that publishes when approved on top")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/approvals"), chromedp.WaitVisible(chromedp.CSS(`[data-testid^="approval-"]`))))
	order := func(sel string) []string {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(`+"`"+sel+"`"+`)).map(e => e.innerText)`))
		must(t, err)
		return got
	}
	want := []string{"Welcome to the Gazette", "Evening briefing", "Ferry timetable", "Transit strike"}
	if got := order(`[data-testid^="approval-"] .what`); !slices.Equal(got, want) {
		t.Errorf("Approvals page lists %q, want %q", got, want)
	}
	wantContains(t, "approvals", text(t, ctx, "main"), "Publishes when approved", "Monday 2 November 18:00 Istanbul")
	shots(t, ctx, "pages-approvals-en")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="aside-waiting"]`))))
	if got := order(`[data-testid^="waiting-"] .what`); !slices.Equal(got, want) {
		t.Errorf("the Schedules aside lists %q, want %q", got, want)
	}
	setLang("tr")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/approvals"), chromedp.WaitVisible(chromedp.CSS(`[data-testid^="approval-"]`))))
	wantContains(t, "approvals tr", text(t, ctx, "main"), "Onaylandığında yayımlanır", "2 Kasım Pazartesi 18:00 İstanbul")
	shot(t, ctx, "pages-approvals-tr-1440")

	t.Log("the Schedule form: a time that has passed previews as its refusal only")
	article := f.node("Election night live")
	for _, lang := range []string{"en", "tr"} {
		setLang(lang)
		must(t, do(ctx,
			chromedp.Navigate(app.url+"/studio/content/"+article+"/schedule"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview"]`)),
			chromedp.SetValue(chromedp.CSS("#date"), "2026-11-02"),
			chromedp.SetValue(chromedp.CSS("#time"), "07:00"),
		))
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#time").dispatchEvent(new Event("change", {bubbles: true}))`))
		must(t, err)
		waitJS(t, ctx, `document.querySelector('[data-testid="preview-error"]')`)
		preview := text(t, ctx, "#preview")
		if lang == "en" {
			wantContains(t, "preview", preview, "This time has already passed. Choose a later one.")
		}
		if strings.Contains(preview, "Publishes on") || strings.Contains(preview, "Yayım zamanı") {
			t.Errorf("%s: the preview of a passed time still reads %q", lang, preview)
		}
		shot(t, ctx, "pages-schedule-passed-"+lang+"-1440")
		// Submitted anyway: the error under the time, and no sentence.
		submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="schedule-form"] button[type=submit]`)))
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="preview"], [data-testid="preview-error"]').length`)); err != nil || n != 0 {
			t.Errorf("%s: after the refused submit the preview shows %d sentences (%v)", lang, n, err)
		}
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="error-time"]').length`)); err != nil || n != 1 {
			t.Errorf("%s: the refused time has %d errors under it (%v), want 1", lang, n, err)
		}
		shot(t, ctx, "pages-schedule-refused-"+lang+"-1440")
	}

	t.Log("a gate's Save and publish shows before the Now line")
	setLang("en")
	app.clock.Set(time.Date(2026, 11, 2, 5, 12, 30, 0, time.UTC)) // 08:12:30
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/content/"+f.node("About")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="gates-card"]`)),
		chromedp.SetValue(chromedp.CSS("#until-date"), "2026-11-27"),
		chromedp.SetValue(chromedp.CSS("#until-time"), "18:00"),
	))
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="gates-save"]`)))
	wantContains(t, "gate published", text(t, ctx, "main"), "Published: the new gates are live.")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="now-rule"]`))))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.agenda-row, [data-testid="now-rule"]')).map(e => e.dataset.testid === "now-rule" ? "NOW" : e.querySelector(".what").innerText + " " + e.querySelector(".when").innerText)`))
	must(t, err)
	now := slices.Index(rows, "NOW")
	about := slices.IndexFunc(rows, func(s string) bool { return strings.HasPrefix(s, "About ") })
	if about < 0 || now < 0 || about > now || !strings.Contains(rows[about], "08:12") {
		t.Errorf("agenda rows %q: want About's Published row at 08:12, before the Now line", rows)
	}
	shot(t, ctx, "pages-agenda-gate-published-en-1440")

	t.Log("a stale move: the refusal offers Load the latest")
	books := f.node("Books of the week")
	held, err := f.nodes.Node(f.ctx, engine.Reader(f.site.ID), f.site.ID, books)
	must(t, err)
	releasePage := app.url + "/studio/releases/" + held.Held.ReleaseID
	for _, lang := range []string{"en", "tr"} {
		setLang(lang)
		must(t, do(ctx,
			chromedp.Navigate(releasePage),
			chromedp.WaitVisible(chromedp.CSS(`details.move`)),
			chromedp.Click(chromedp.CSS(`details.move summary`)),
			chromedp.SetValue(chromedp.CSS("#move-time"), "10:00"),
		))
		// Meanwhile someone else moves it.
		r, err := f.eng.Release(f.ctx, engine.Reader(f.site.ID), f.site.ID, held.Held.ReleaseID)
		must(t, err)
		_, err = f.eng.Move(f.ctx, f.user("owner@demo.test"), f.site.ID, r.ID, r.Rev, "2026-11-03", map[string]string{"en": "09:15", "tr": "09:30"}[lang])
		must(t, err)
		submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="move"]`)))
		waitJS(t, ctx, `document.querySelector('[data-testid="load-latest"]')`)
		if lang == "en" {
			wantContains(t, "stale", text(t, ctx, "main"), "This changed somewhere else meanwhile.", "Load the latest")
		} else {
			wantContains(t, "stale tr", text(t, ctx, "main"), "En güncelini yükle")
		}
		shot(t, ctx, "pages-stale-move-"+lang+"-1440")
		submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="load-latest"]`)))
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="alert"]').length`)); err != nil || n != 0 {
			t.Errorf("%s: the latest page still shows %d alerts (%v)", lang, n, err)
		}
	}
	shots(t, ctx, "pages-stale-latest-tr")

	t.Log("a browser in UTC reads its zone once")
	_, err = chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "UTC"})
	must(t, err)
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`.user-menu > summary`)), chromedp.Click(chromedp.Search(`//button[text()="Çıkış yap"]`)), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	for _, lang := range []string{"en", "tr"} {
		setLang(lang)
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/settings"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="zone-browser"]`))))
		zone := text(t, ctx, `[data-testid="zone-browser"]`)
		wantContains(t, "browser zone", zone, map[string]string{"en": "Your browser is set to UTC.", "tr": "Tarayıcınızın saat dilimi UTC."}[lang])
		if strings.Count(zone, "UTC") != 1 {
			t.Errorf("%s: %q names the zone more than once", lang, zone)
		}
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector('[data-testid="zone-browser"]').scrollIntoView(), true)`))
		must(t, err)
		shot(t, ctx, "pages-settings-utc-"+lang+"-1440")
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules?tz=viewer"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="tz-note"]`))))
		note := text(t, ctx, `[data-testid="tz-note"]`)
		wantContains(t, "tz note", note, map[string]string{"en": "Times are in your own time: UTC.", "tr": "Saatler sizin saatinize göredir: UTC."}[lang])
		if strings.Contains(note, "UTC (UTC)") {
			t.Errorf("%s: %q repeats the zone", lang, note)
		}
		shot(t, ctx, "pages-agenda-utc-"+lang+"-1440")
	}
}
