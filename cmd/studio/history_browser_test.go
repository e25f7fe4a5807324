package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/handlers/studio"
)

// rowCount is how many runs History lists on the page.
func rowCount(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("tr.run-row").length`))
	must(t, err)
	return n
}

// TestRunFindingsInTurkishInTheBrowser: the demo owner, who reads Turkish, finds a
// broken-link check's run in History, opens it, reads its findings and
// marks one "Sorun değil", which hides it; History's filters swap the list
// in place and keep the URL. History and the run's page are shot in both
// languages.
func TestRunFindingsInTurkishInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul.
	var autID string
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		owner := f.user("owner@demo.test")
		_, err := f.nodes.CreateNode(f.ctx, owner, f.site.ID, release.KindContentEntry, content.Body{Title: "Ulaşım grevi",
			Slug: "ulasim-grevi", Lang: "tr", Status: content.StatusPublished,
			Text: "Güncel [sefer saatleri](/posts/sefer-saatleri) ve [grev haritası](/grev-haritasi) burada."})
		must(t, err)
		_, err = f.nodes.Publish(f.ctx, owner, f.site.ID)
		must(t, err)
		a, err := automations.New(f.store, f.eng).Create(f.ctx, owner, f.site.ID, automations.Input{Name: "Kırık bağlantı taraması",
			Builtin: automation.BuiltinBrokenLinks, Preset: "weekly", Start: "2026-11-09T07:00"})
		must(t, err)
		autID = a.ID
		// Earlier checks, enough for History's second page, run by the
		// ticker's own RunDue before its loop starts.
		stale, err := automations.New(f.store, f.eng).Create(f.ctx, owner, f.site.ID, automations.Input{Name: "Eskimiş içerik taraması",
			Builtin: automation.BuiltinStaleContent, Preset: "daily", Start: "2026-11-03T06:30"})
		must(t, err)
		for range studio.HistoryPageSize {
			r, _, err := automations.New(f.store, f.eng).RunNow(f.ctx, owner, f.site.ID, stale.ID)
			must(t, err)
			for open := true; open; {
				f.clock.Advance(time.Second)
				_, err := f.sched.RunDue(f.ctx, "manual")
				must(t, err)
				got, err := automations.New(f.store, f.eng).Run(f.ctx, owner, f.site.ID, r.ID)
				must(t, err)
				open = got.Open()
			}
		}
	})
	f := app.demo(t)
	aut := automations.New(app.store, app.eng)
	run, _, err := aut.RunNow(context.Background(), f.user("owner@demo.test"), f.site.ID, autID)
	must(t, err)
	app.finishRun(t, f.user("owner@demo.test"), run.ID)
	ctx := newBrowser(t)

	t.Log("the owner opens History")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="tr"]`)),
		chromedp.Navigate(app.url+"/studio/schedules"),
		chromedp.Click(chromedp.CSS(`[data-testid="tab-history"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="run-`+run.ID+`"]`)),
	))
	row := text(t, ctx, `[data-testid="run-`+run.ID+`"]`)
	wantContains(t, "History row", row, "Bugün · 08:00", "Kırık bağlantı taraması", "Şimdi çalıştır", "Başarılı", "İşlem yaptı",
		"Zamanında", "2 kırık bağlantı", "Ayrıntılar")
	shots(t, ctx, "history-tr")

	t.Log("Load more appends the older runs in place")
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__stay = true`))
	must(t, err)
	if n := rowCount(t, ctx); n != studio.HistoryPageSize {
		t.Errorf("History's first page: %d rows, want %d", n, studio.HistoryPageSize)
	}
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="load-more"]`))))
	waitJS(t, ctx, `document.querySelectorAll("tr.run-row").length === `+strconv.Itoa(studio.HistoryPageSize+1)+
		` && !document.querySelector('[data-testid="load-more"]') && window.__stay === true`)
	wantContains(t, "the oldest run", text(t, ctx, `#runs-body tr:last-child`), "Eskimiş içerik taraması", "Yapacak iş yoktu")

	t.Log("a filter swaps the list and keeps the URL")
	choose := func(filter, value string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.querySelector('[data-testid="filter-`+filter+`"]');
			s.value = "`+value+`"; s.dispatchEvent(new Event("change", {bubbles: true})); return true })()`))
		must(t, err)
	}
	choose("automation", autID)
	waitJS(t, ctx, `document.querySelectorAll("tr.run-row").length === 1 && location.search.includes("automation=`+autID+`") && window.__stay === true`)
	choose("state", "failed")
	waitText(t, ctx, "#runs", "Bu filtrelere uyan çalıştırma yok.")
	waitJS(t, ctx, `location.search.includes("state=failed") && location.search.includes("automation=`+autID+`")`)
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="clear-filters"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="run-`+run.ID+`"]`))))

	t.Log("the run's page and its findings")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="run-`+run.ID+`"] [data-testid="run-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="findings"]`))))
	wantContains(t, "run facts", text(t, ctx, `[data-testid="run-facts"]`), "Kırık bağlantı taraması", "Başarılı", "İşlem yaptı",
		"Şimdi çalıştır", "2 kırık bağlantı")
	findings := text(t, ctx, `[data-testid="findings-new"]`)
	wantContains(t, "findings", findings, "/posts/sefer-saatleri adresine bağlantı veriyor; bu adres canlı sitede yok.",
		"/grev-haritasi adresine bağlantı veriyor", "Yer: Ulaşım grevi", "Düzenleyicide aç", "Sorun değil")
	shots(t, ctx, "run-tr")

	t.Log("Sorun değil hides the first one")
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="findings-new"] li:first-child [data-testid="not-a-problem"]`)))
	waitText(t, ctx, "#status", "“Sorun değil” olarak işaretlendi.")
	left := text(t, ctx, `[data-testid="findings"]`)
	wantContains(t, "after Sorun değil", left, "Gizlenen 1 bulguyu göster")
	if n := strings.Count(left, "Sorun değil"); n != 1 {
		t.Errorf("after Sorun değil: %d findings left with the button, want 1 (%q)", n, left)
	}
	if strings.Contains(left, "/posts/sefer-saatleri") == strings.Contains(left, "/grev-haritasi") {
		t.Errorf("after Sorun değil, want exactly one of the two findings: %q", left)
	}

	t.Log("in English")
	switchLanguage(t, ctx, "en")
	wantContains(t, "English run page", text(t, ctx, "main"), "Run of “Kırık bağlantı taraması”", "Succeeded", "Did work",
		"Show 1 hidden finding", "Check again")
	shots(t, ctx, "run-en")

	t.Log("Check again: the new run's page says it started and follows it to its end without a reload")
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="check-again"] button`)))
	wantContains(t, "started", text(t, ctx, "#status"), "Run started.")
	wantContains(t, "running", text(t, ctx, `[data-testid="run-live"]`), "Running…", "This run is still going.", "Reload")
	again, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname.split("/").pop()`))
	must(t, err)
	if again == run.ID || !strings.HasPrefix(again, "run_") {
		t.Fatalf("Check again answered %q", again)
	}
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__stay = true`))
	must(t, err)
	app.finishRun(t, f.user("owner@demo.test"), again)
	waitText(t, ctx, `[data-testid="run-live"] [data-testid="run-state"]`, "Succeeded")
	waitJS(t, ctx, `window.__stay === true && !document.querySelector("[data-open]")`)
	wantContains(t, "ended", text(t, ctx, `[data-testid="run-live"]`), "Did work", "Still there", "Show 1 hidden finding")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules/history"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="run-`+run.ID+`"]`))))
	wantContains(t, "English History row", text(t, ctx, `[data-testid="run-`+run.ID+`"]`), "Today · 08:00", "Run now",
		"Succeeded", "Did work", "On time", "2 broken links")
	shots(t, ctx, "history-en")
}
