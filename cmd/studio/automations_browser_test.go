package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/model/release"
)

// TestAutomationEditorInTurkishInTheBrowser is issue 12's walk through the Automations
// tab in Turkish: the demo owner opens Otomasyonlar, makes a weekly
// broken-link check with the recurrence editor (Özel, every week, the
// Pazartesi and Perşembe chips, 07:10), watches the next five runs follow
// the choices, saves it, finds it in the list with its Turkish sentence
// and runs it now from the ⋯ menu; once the run ends, Geçmiş lists it and
// its page reads the broken link it found. The tab (list and empty state)
// and the editor are shot in Turkish and English.
func TestAutomationEditorInTurkishInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul.
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		// A live article whose link leads nowhere: what the check finds.
		owner := f.user("owner@demo.test")
		_, err := f.nodes.CreateNode(f.ctx, owner, f.site.ID, release.KindContentEntry, content.Body{Title: "Metro hattı",
			Slug: "metro-hatti", Lang: "tr", Status: content.StatusPublished,
			Text: "Yeni [durak listesi](/duraklar-2027) yakında."})
		must(t, err)
		_, err = f.nodes.Publish(f.ctx, owner, f.site.ID)
		must(t, err)
	})
	ctx := newBrowser(t)
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		must(t, err)
		return v
	}

	t.Log("the owner signs in and switches to Turkish")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	switchLanguage(t, ctx, "tr")

	t.Log("Otomasyonlar: with none yet, the tab offers the five jobs")
	f := app.demo(t)
	aut := automations.New(app.store, app.eng)
	owner := f.user("owner@demo.test")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/schedules"),
		chromedp.Click(chromedp.CSS(`[data-testid="tab-automations"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="automations-empty"]`)),
	))
	wantContains(t, "empty state", text(t, ctx, "main"), "Henüz otomasyon yok", "Kırık bağlantılar", "Eskimiş içerik",
		"Akış denetimi", "Haftalık özet", "Temizlik", "Kur")
	shots(t, ctx, "automations-empty-tr")
	switchLanguage(t, ctx, "en")
	wantContains(t, "empty state in English", text(t, ctx, "main"), "No automations yet", "Broken links", "Set up")
	shots(t, ctx, "automations-empty-en")
	switchLanguage(t, ctx, "tr")

	t.Log("Yeni otomasyon…: Kırık bağlantılar, Özel, her hafta, Pazartesi and Perşembe, 07:10")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="new-automation"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="automation-form"]`)),
	))
	wantContains(t, "editor", text(t, ctx, "main"), "Yeni otomasyon", "Zamanlama", "Sonraki çalıştırmalar", "İstanbul (UTC+3)")
	shots(t, ctx, "automation-editor-tr")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="pick-broken-links"]`)),
		chromedp.SetValue(chromedp.CSS("#aut-name"), "Pazartesi ve perşembe bağlantıları"),
		chromedp.Click(chromedp.CSS(`[data-testid="preset-custom"]`)),
	))
	// The custom part shows once Özel is chosen (CSS alone).
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="aut-freq"]`))))
	// A select and a time field changed by script say so, as a person's
	// choice does, so htmx asks for the preview.
	eval(`(() => { const s = document.querySelector('[data-testid="aut-freq"]'); s.value = "weekly";
		s.dispatchEvent(new Event("change", {bubbles: true}));
		const tm = document.querySelector("#aut-time"); tm.value = "07:10";
		tm.dispatchEvent(new Event("change", {bubbles: true})); return "" })()`)
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="day-MO"]`))))
	if eval(`String(document.querySelector('[data-testid="day-MO"] input').checked)`) != "true" {
		must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="day-MO"]`))))
	}
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="day-TH"]`))))
	preview := waitText(t, ctx, `[data-testid="automation-preview"]`, "Her hafta pazartesi ve perşembe 07:10")
	// Made on Monday 2 November after 07:10: the start follows the rule,
	// so this Thursday is the first run (the suggested next Monday would
	// have skipped it).
	wantContains(t, "next runs", preview, "Sonraki çalıştırmalar", "5 Kasım 2026 Perşembe 07:10", "9 Kasım 2026 Pazartesi 07:10",
		"12 Kasım 2026 Perşembe 07:10", "16 Kasım 2026 Pazartesi 07:10", "19 Kasım 2026 Perşembe 07:10")
	if d := eval(`document.querySelector("#aut-date").value`); d != "2026-11-03" {
		t.Errorf("the start date is %s, want the first day the rule may run from now, 2026-11-03", d)
	}
	if n := eval(`String(document.querySelectorAll('[data-testid="next-runs"] li').length)`); n != "5" {
		t.Errorf("%s next runs, want 5", n)
	}
	shot(t, ctx, "automation-editor-custom-tr")

	t.Log("save: the row, with its Turkish sentence")
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="automation-save"]`)))
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="automations"]`))))
	id := strings.TrimPrefix(eval(`document.querySelector('tr[data-testid^="automation-aut_"]').dataset.testid`), "automation-")
	row := `[data-testid="automation-` + id + `"]`
	wantContains(t, "row", text(t, ctx, row), "Pazartesi ve perşembe bağlantıları", "Kırık bağlantılar",
		"Her hafta pazartesi ve perşembe 07:10", "5 Kasım 2026 07:10", "Henüz çalışmadı", "Açık")
	wantContains(t, "flash", text(t, ctx, "main"), "Otomasyon oluşturuldu.")

	t.Log("Şimdi çalıştır from the ⋯ menu posts Run now")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(row+` [data-testid="automation-menu"]`)),
		chromedp.WaitVisible(chromedp.CSS(row+` [data-testid="menu-run-now"]`))))
	wantContains(t, "menu", text(t, ctx, row+" .menu-list"), "Şimdi çalıştır", "Düzenle", "Geçmiş", "Çoğalt", "Sil…")
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(row+` [data-testid="menu-run-now"]`)))
	loc := eval(`location.pathname`)
	if !strings.HasPrefix(loc, "/studio/schedules/runs/run_") {
		t.Fatalf("Run now landed on %s, want the run's page", loc)
	}
	runID := strings.TrimPrefix(loc, "/studio/schedules/runs/")

	t.Log("the run ends; Geçmiş lists it, and its page reads the finding")
	app.finishRun(t, owner, runID)
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="tab-history"]`)))
	runRow := `[data-testid="run-` + runID + `"]`
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(runRow))))
	wantContains(t, "History row", text(t, ctx, runRow), "Pazartesi ve perşembe bağlantıları", "Şimdi çalıştır",
		"Başarılı", "İşlem yaptı", "1 kırık bağlantı")
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(runRow+` [data-testid="run-open"]`)))
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="findings"]`))))
	wantContains(t, "findings", text(t, ctx, `[data-testid="findings-new"]`),
		"/duraklar-2027 adresine bağlantı veriyor; bu adres canlı sitede yok.", "Yer: Metro hattı", "Düzenleyicide aç")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules/automations"),
		chromedp.WaitVisible(chromedp.CSS(row))))
	if href := eval(`document.querySelector('` + row + ` [data-testid="last-run"]')?.getAttribute("href") ?? ""`); href != loc {
		t.Errorf("last run links to %q, want %q", href, loc)
	}
	got, err := aut.Run(context.Background(), owner, f.site.ID, runID)
	must(t, err)
	if got.SubjectID != id || got.Trigger != automations.TriggerManual {
		t.Errorf("run %+v, want a manual run of %s", got, id)
	}
	shots(t, ctx, "automations-tr")

	t.Log("in English")
	switchLanguage(t, ctx, "en")
	wantContains(t, "English row", text(t, ctx, row), "Every week on Monday and Thursday at 07:10", "Broken links")
	shots(t, ctx, "automations-en")

	t.Log("Delete… asks first, in a dialog")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(row+` [data-testid="automation-menu"]`)),
		chromedp.Click(chromedp.CSS(row+` [data-testid="menu-delete"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#delete-`+id+` [data-testid="delete-submit"]`))))
	wantContains(t, "delete dialog", text(t, ctx, `#delete-`+id), "Delete “Pazartesi ve perşembe bağlantıları”?", "History")
	shot(t, ctx, "automation-delete-en")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`#delete-`+id+` [data-close-dialog]`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#delete-`+id))))

	t.Log("the On switch pauses and resumes in place (htmx swaps the row)")
	eval(`document.documentElement.dataset.samePage = "yes"; ""`)
	must(t, do(ctx, chromedp.Click(chromedp.CSS(row+` [data-testid="automation-switch"]`))))
	wantContains(t, "paused row", waitText(t, ctx, row+` [data-testid="automation-state"]`, "Paused"), "Paused")
	// htmx gives the swapped-in row its behaviour when it settles (20 ms
	// later, longer on a loaded machine): a click before that is the
	// form's own submit, a page load.
	waitHTMXSettled(t, ctx)
	must(t, do(ctx, chromedp.Click(chromedp.CSS(row+` [data-testid="automation-switch"]`))))
	waitJS(t, ctx, `document.querySelector('`+row+` [data-testid="automation-switch"]')?.getAttribute("aria-checked") === "true"`)
	if eval(`document.documentElement.dataset.samePage ?? ""`) != "yes" {
		t.Error("the switch reloaded the page")
	}
	a, err := aut.Get(context.Background(), owner, f.site.ID, id)
	must(t, err)
	if a.State != automations.AutomationActive || a.Rev < 3 {
		t.Errorf("after pause and resume: %s at rev %d", a.State, a.Rev)
	}
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules/automations/new?job=broken-links"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="automation-form"]`))))
	wantContains(t, "English editor", text(t, ctx, "main"), "New automation", "Next runs", "Every week on Monday at 07:10")
	shots(t, ctx, "automation-editor-en")
}
