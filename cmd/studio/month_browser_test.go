package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// startMonthApp is startBrowserApp with a month of schedules on it: the demo
// site, and releases by the editor and the contributor around Monday 2
// November 2026 (08:00 in Istanbul), one of them published at 07:30.
func startMonthApp(t *testing.T) *browserApp {
	t.Helper()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 4, 0, 0, 0, time.UTC), func(f demoFixture) { // 07:00 in Istanbul
		editor, contributor := f.user("editor@demo.test"), f.user("contributor@demo.test")
		f.schedule(editor, f.page("Morning briefing"), "2026-11-02", "07:30")
		f.schedule(editor, f.node("Seçim gecesi canlı yayın"), "2026-11-02", "21:00")
		f.schedule(editor, f.node("Election night live"), "2026-11-04", "09:00")
		f.schedule(contributor, f.page("Reader letters"), "2026-11-05", "11:00")
		for i, title := range []string{"Budget explained", "Budget live", "Budget reactions", "Budget in charts"} {
			f.schedule(editor, f.page(title), "2026-11-12", fmt.Sprintf("%02d:00", 9+i))
		}
		f.schedule(editor, f.page("Weekend long read"), "2026-11-14", "08:00")
		f.schedule(editor, f.page("Year in review"), "2026-12-30", "10:00")
	})
	app.clock.Set(time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)) // 08:00: the briefing goes out
	app.waitPublished(t)
	return app
}

func location(t *testing.T, ctx context.Context) string {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	must(t, err)
	return loc
}

// focused is the grid cell (its date) or chip (its class) with the focus.
func focused(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function () {
		var a = document.activeElement;
		if (!a) return "";
		if (a.matches('td[role="gridcell"]')) return a.dataset.date;
		if (a.matches("a.chip")) return "chip:" + a.querySelector(".chip-title").textContent;
		return a.tagName + "." + a.className;
	})()`))
	must(t, err)
	return s
}

// waitFocus waits until the focus is on want: after a key that loads
// another month, until its grid is swapped in and the day focused. Ten
// seconds, as waitText waits: a CI run whose other runs had the machine's
// CPU waited five in vain for a month's grid.
func waitFocus(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	var got string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(40 * time.Millisecond) {
		if got = focused(t, ctx); got == want {
			return
		}
	}
	t.Fatalf("focus on %q, want %q", got, want)
}

// readableAt1280 checks the Month at 1280 px, a laptop's width: the bar on
// one line, and every chip's title shown whole, on at most two lines (the
// fixture's titles are at most 24 letters).
func readableAt1280(t *testing.T, ctx context.Context, month string) {
	t.Helper()
	must(t, do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(month),
		chromedp.WaitVisible(chromedp.CSS(`#month-grid td[tabindex="0"]`))))
	cut, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#month-grid .chip-title"))
		.filter(e => e.scrollHeight > e.clientHeight + 1 || e.clientWidth < 64)
		.map(e => e.textContent + " (" + e.clientWidth + " px wide)")`))
	must(t, err)
	if len(cut) > 0 {
		t.Errorf("titles cut at 1280 px: %q", cut)
	}
	n := countOf(t, ctx, "#month-grid .chip-title")
	if n < 8 {
		t.Errorf("%d chips at 1280 px, want the fixture's 8", n)
	}
	// On one line, every part of the bar overlaps every other vertically.
	oneLine, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () {
		var rs = Array.from(document.querySelectorAll(".bar > *")).map(e => e.getBoundingClientRect()).filter(r => r.height > 0);
		return rs.length > 3 && Math.max(...rs.map(r => r.top)) < Math.min(...rs.map(r => r.bottom));
	})()`))
	must(t, err)
	if !oneLine {
		t.Error("the bar takes two lines at 1280 px")
	}
	must(t, do(ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(month),
		chromedp.WaitVisible(chromedp.CSS(`#month-grid td[tabindex="0"]`))))
}

// coveredChips are the titles of the chips the element sel overlaps.
func coveredChips(t *testing.T, ctx context.Context, sel string) []string {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function () {
		var over = document.querySelector(`+"`"+sel+"`"+`).getBoundingClientRect();
		return Array.from(document.querySelectorAll("#month-grid .chip")).filter(function (c) {
			var r = c.getBoundingClientRect();
			return r.left < over.right && over.left < r.right && r.top < over.bottom && over.top < r.bottom;
		}).map(function (c) { return c.textContent.trim(); });
	})()`))
	must(t, err)
	return got
}

func press(t *testing.T, ctx context.Context, key string, mods ...chromedp.Modifier) {
	t.Helper()
	must(t, do(ctx, chromedp.KeyEvent(key, chromedp.KeyModifiers(mods...))))
}

// center is the middle of the first element sel matches, in CSS pixels.
func center(t *testing.T, ctx context.Context, sel string) (float64, float64) {
	t.Helper()
	xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(function () {
		var r = document.querySelector(`+"`"+sel+"`"+`).getBoundingClientRect();
		return [r.left + r.width / 2, r.top + r.height / 2];
	})()`))
	must(t, err)
	return xy[0], xy[1]
}

// dragTo drags from one point to another with the mouse, as a person does:
// press, a few moves, release.
func dragTo(t *testing.T, ctx context.Context, x0, y0, x1, y1 float64) {
	t.Helper()
	must(t, do(ctx, chromedp.DragAndDropXY(x0, y0, x1, y1, 8)))
}

// TestMonthInTheBrowser: the Month grid with the keyboard (one tab stop,
// arrows, Home/End, PageDown into the next month and back, Enter into a
// day's items and Escape out), drag → dialog → Move → toast → Undo, a
// phone's tap on a day, and screenshots in both languages, light and dark,
// at 1440 and 390 px.
func TestMonthInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startMonthApp(t)
	ctx := newBrowser(t)
	month := app.url + "/studio/schedules?view=month&date=2026-11"
	must(t, do(ctx,
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
		chromedp.Navigate(month),
		chromedp.WaitVisible(chromedp.CSS(`#month-grid td[tabindex="0"]`)),
	))
	wantContains(t, "Turkish grid", text(t, ctx, "#month-grid thead"), "Pzt", "Paz")
	wantContains(t, "legend", text(t, ctx, `[data-testid="month-legend"]`), "Zamanlandı", "Onay bekliyor", "Ambargo ya da sona erme")
	readableAt1280(t, ctx, month)
	shots(t, ctx, "month-tr")

	t.Log("keyboard: one tab stop, arrows, Home/End")
	must(t, do(ctx, chromedp.Focus(chromedp.CSS(`#month-grid td[tabindex="0"]`))))
	waitFocus(t, ctx, "2026-11-02") // today
	for _, k := range []struct{ key, want string }{
		{kb.ArrowRight, "2026-11-03"}, {kb.ArrowDown, "2026-11-10"}, {kb.ArrowLeft, "2026-11-09"}, {kb.ArrowUp, "2026-11-02"},
		{kb.End, "2026-11-08"}, {kb.Home, "2026-11-02"},
	} {
		press(t, ctx, k.key)
		waitFocus(t, ctx, k.want)
	}
	// The cell's name is what it shows, the day and its chips (WCAG 2.5.3);
	// its description counts them.
	name, desc := axNameOf(t, ctx, "document.activeElement")
	wantContains(t, "today's name", name, "2 Kasım Pazartesi", "Morning briefing", "Seçim gecesi canlı yayın")
	wantContains(t, "today's description", desc, "bugün, 2 öğe: 2 yayım")

	t.Log("Enter into the day's items, Escape back")
	press(t, ctx, kb.Enter)
	waitFocus(t, ctx, "chip:Morning briefing")
	press(t, ctx, kb.ArrowDown)
	waitFocus(t, ctx, "chip:Seçim gecesi canlı yayın")
	press(t, ctx, kb.Escape)
	waitFocus(t, ctx, "2026-11-02")
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#month-grid [tabindex="0"]').length`)); err != nil || n != 1 {
		t.Errorf("%d tab stops after Escape, want 1 (%v)", n, err)
	}

	t.Log("PageDown into December, back with PageUp; past the month's first week into October")
	press(t, ctx, kb.PageDown)
	waitFocus(t, ctx, "2026-12-02")
	wantContains(t, "December URL", location(t, ctx), "date=2026-12")
	press(t, ctx, kb.PageUp)
	waitFocus(t, ctx, "2026-11-02")
	press(t, ctx, kb.ArrowUp)
	waitFocus(t, ctx, "2026-10-26")
	press(t, ctx, kb.ArrowDown)
	waitFocus(t, ctx, "2026-11-02")
	press(t, ctx, kb.PageDown, chromedp.ModifierShift)
	waitFocus(t, ctx, "2027-11-02")
	press(t, ctx, kb.PageUp, chromedp.ModifierShift)
	waitFocus(t, ctx, "2026-11-02")

	t.Log("drag a release to another day: the dialog, then Move, then Undo")
	x0, y0 := center(t, ctx, `td[data-date="2026-11-04"] a.chip[data-drag]`)
	x1, y1 := center(t, ctx, `td[data-date="2026-11-06"]`)
	dragTo(t, ctx, x0, y0, x1, y1)
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`#month-move[open]`))))
	wantContains(t, "dialog", text(t, ctx, "#month-move"), "Başka bir güne taşı", "Election night live",
		"4 Kasım Çarşamba, 09:00", "6 Kasım Cuma, 09:00", "onay yeni zamanda da geçerli kalır")
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#month-move-date"))); v != "2026-11-06" {
		t.Errorf("the dialog's date is %q, want the day of the drop", v)
	}
	if loc := location(t, ctx); strings.Contains(loc, "/releases/") {
		t.Fatal("the drag followed the chip's link")
	}
	shot(t, ctx, "month-move-dialog-tr-1440")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="move-confirm"]`))))
	wantContains(t, "toast", waitText(t, ctx, `[data-testid="month-toast"]`, "taşındı"), "“Election night live” taşındı. Yeni zamanı: 6 Kasım 2026 09:00.")
	if got := text(t, ctx, `td[data-date="2026-11-06"]`); !strings.Contains(got, "Election night live") {
		t.Errorf("the 6th after the move: %q", got)
	}
	shot(t, ctx, "month-moved-toast-tr-1440")
	if covered := coveredChips(t, ctx, `[data-testid="month-toast"]`); len(covered) > 0 {
		t.Errorf("the toast covers the chips %q", covered)
	}
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="month-undo"]`))))
	waitText(t, ctx, `[data-testid="month-toast"]`, "Taşıma geri alındı")
	waitText(t, ctx, `td[data-date="2026-11-04"]`, "Election night live")
	if got := text(t, ctx, `td[data-date="2026-11-06"]`); strings.Contains(got, "Election night live") {
		t.Errorf("the 6th after Undo: %q", got)
	}

	t.Log("a stale move says so, with Load the latest")
	x0, y0 = center(t, ctx, `td[data-date="2026-11-04"] a.chip[data-drag]`)
	x1, y1 = center(t, ctx, `td[data-date="2026-11-05"]`)
	// Someone else's change meanwhile: the chip still holds the old rev.
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () {
		var c = document.querySelector('td[data-date="2026-11-04"] a.chip[data-drag]');
		c.dataset.rev = String(+c.dataset.rev - 1);
		return true;
	})()`))
	must(t, err)
	dragTo(t, ctx, x0, y0, x1, y1)
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`#month-move[open]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="move-confirm"]`))))
	wantContains(t, "stale", waitText(t, ctx, `#month-move [data-testid="month-problem"]`, "değişti"),
		"Bu zamanlama başka bir yerde değişti.", "En güncelini yükle")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`#month-move [data-month-latest]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#month-move[open]`))))

	t.Log("in English")
	switchLanguage(t, ctx, "en")
	must(t, do(ctx,
		chromedp.Navigate(month),
		chromedp.WaitVisible(chromedp.CSS(`#month-grid td[tabindex="0"]`)),
	))
	wantContains(t, "English grid", text(t, ctx, "#month-grid"), "+1 more")
	shots(t, ctx, "month-en")

	t.Log("a phone: dots, and a tap shows the day below the grid")
	must(t, do(ctx, chromedp.EmulateViewport(390, 900), chromedp.Navigate(month),
		chromedp.WaitVisible(chromedp.CSS(`#month-grid td[data-date="2026-11-12"] .dots`)),
		chromedp.Click(chromedp.CSS(`#month-grid td[data-date="2026-11-12"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#month-day-panel h3`)),
	))
	wantContains(t, "day panel", text(t, ctx, "#month-day-panel"), "Thursday 12 November", "Budget explained", "Budget in charts",
		"Open in the Agenda")
	shot(t, ctx, "month-day-panel-en-390")
	must(t, do(ctx, chromedp.EmulateViewport(1440, 900)))
}
