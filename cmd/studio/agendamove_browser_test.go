package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAgendaMoveToInTheBrowser: "Move to…" in an Agenda item's menu opens
// the dialog a drag opens on the Month, in place (RFC §15.6): Now → New,
// Move, and the Agenda comes back as it was with the release at its new
// day; Cancel of the dialog changes nothing. In Turkish and English.
func TestAgendaMoveToInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) { // 08:00 in Istanbul
		f.schedule(f.user("editor@demo.test"), f.node("Election night live"), "2026-11-04", "09:00")
	})
	f := app.demo(t)
	editor := f.user("editor@demo.test")
	rels, err := app.eng.Releases(context.Background(), editor, f.site.ID, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	must(t, err)
	id, node := "", f.node("Election night live")
	for _, r := range rels {
		if len(r.Items) == 1 && r.Items[0].NodeID == node && r.State == "scheduled" {
			id = r.ID
		}
	}
	if id == "" {
		t.Fatal("no release of Election night live")
	}
	ctx := newBrowser(t)
	signIn(t, ctx, app, "editor@demo.test")
	open := func() {
		t.Helper()
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/schedules"),
			chromedp.Click(chromedp.CSS(`[data-testid="menu-`+id+`"]`)),
			chromedp.Click(chromedp.CSS(`details[open] [data-testid="menu-move"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#agenda-move[open]`))))
		if loc := location(t, ctx); !strings.Contains(loc, "/studio/schedules") {
			t.Fatalf("Move to… left the Agenda for %s", loc)
		}
	}

	t.Log("Turkish: the dialog in place; Vazgeç keeps it")
	open()
	wantContains(t, "dialog", text(t, ctx, "#agenda-move"), "Başka bir güne taşı", "Election night live", "4 Kasım Çarşamba, 09:00",
		"onay yeni zamanda da geçerli kalır")
	shot(t, ctx, "agenda-move-dialog-tr")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`#agenda-move [data-close-dialog]`)), chromedp.WaitNotPresent(chromedp.CSS(`#agenda-move[open]`))))

	t.Log("Turkish: Move to the 6th; the Agenda says so")
	open()
	must(t, do(ctx, chromedp.SetValue(chromedp.CSS("#agenda-move-date"), "2026-11-06"),
		chromedp.Click(chromedp.CSS(`#agenda-move [data-testid="move-confirm"]`))))
	waitText(t, ctx, "#status", "Taşındı")
	if loc := location(t, ctx); !strings.Contains(loc, "/studio/schedules") {
		t.Fatalf("after Move: %s, want the Agenda", loc)
	}
	r, err := app.eng.Release(context.Background(), editor, f.site.ID, id)
	must(t, err)
	if r.ExecuteAt == nil || !r.ExecuteAt.Equal(time.Date(2026, 11, 6, 6, 0, 0, 0, time.UTC)) {
		t.Fatalf("the release is at %v, want 6 November 09:00 in Istanbul", r.ExecuteAt)
	}

	t.Log("English: the dialog names the new time")
	switchLanguage(t, ctx, "en")
	open()
	wantContains(t, "English dialog", text(t, ctx, "#agenda-move"), "Move to another day", "Friday 6 November, 09:00")
}
