package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine/releases"
)

// TestCancelAsksInTheBrowser: on a release's page Cancel and Unschedule
// never act on one click (issue 39): each opens a dialog that names what
// follows; Keep it changes nothing; the dialog's own button does it, and
// an Unschedule's page offers Undo, which puts the release back at its
// time. The Move to… form folds with its own Close. In English, then
// Turkish.
func TestCancelAsksInTheBrowser(t *testing.T) {
	t.Parallel()
	var ids []string
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		editor := f.user("editor@demo.test")
		for _, title := range []string{"Ferry timetable", "Transit strike"} {
			d, err := f.nodes.Node(f.ctx, editor, f.site.ID, f.page(title))
			must(t, err)
			rel, err := f.eng.ScheduleNode(f.ctx, editor, releases.ScheduleInput{SiteID: f.site.ID, NodeID: d.ID, ExpectedRev: d.Rev,
				Date: "2026-11-05", Time: "14:00"})
			must(t, err)
			ids = append(ids, rel.ID)
		}
	})
	ctx := newBrowser(t)
	signIn(t, ctx, app, "editor@demo.test")
	state := func() string {
		t.Helper()
		return text(t, ctx, `.page-head .badge`)
	}
	for i, c := range []struct {
		lang, question, effects, keep, undo, canceled, state, undoCancel, uncanceled string
	}{
		{"en", "Cancel “Ferry timetable”?", "It ends without publishing anything. Undo is offered for a few seconds", "Keep it",
			"Undo schedules it again for 5 November 2026, 14:00.", "Canceled. Nothing will be published.", "Canceled",
			"Canceled. Undo puts it back as it was.", "Cancel undone: the release is back as it was."},
		{"tr", "“Transit strike” iptal edilsin mi?", "Hiçbir şey yayımlanmadan sona erer. Birkaç saniye boyunca geri alabilirsiniz", "Vazgeç",
			"Geri al, onu yeniden 5 Kasım 2026 14:00 için zamanlar.", "İptal edildi", "İptal edildi",
			"İptal edildi. Geri al, onu eski hâline döndürür.", "İptal geri alındı: yayın paketi eski hâline döndü."},
	} {
		switchLanguage(t, ctx, c.lang)
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/releases/"+ids[i]), chromedp.WaitVisible(chromedp.CSS(`[data-testid="cancel-open"]`))))
		before := state()

		t.Log(c.lang + ": Move to… folds with its own Close")
		must(t, do(ctx, chromedp.Click(chromedp.CSS(`details.move summary`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="move-close"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="move-close"]`)), chromedp.WaitNotPresent(chromedp.CSS(`details.move[open]`))))

		t.Log(c.lang + ": Cancel asks, and Keep it keeps")
		must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="cancel-open"]`)),
			chromedp.WaitVisible(chromedp.CSS(`dialog[open] [data-testid="cancel"]`))))
		wantContains(t, "the dialog", text(t, ctx, "dialog[open]"), c.question, c.effects, c.keep)
		shot(t, ctx, "cancel-dialog-"+c.lang)
		must(t, do(ctx, chromedp.Click(chromedp.CSS(`dialog[open] [data-testid="cancel-keep"]`)),
			chromedp.WaitNotPresent(chromedp.CSS(`dialog[open]`))))
		if got := state(); got != before {
			t.Fatalf("Keep it changed the release: %q, was %q", got, before)
		}

		t.Log(c.lang + ": Unschedule asks too, and can be undone")
		must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="unschedule-open"]`)),
			chromedp.WaitVisible(chromedp.CSS(`dialog[open] [data-testid="unschedule"]`)),
			chromedp.Click(chromedp.CSS(`dialog[open] [data-testid="unschedule"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="undo-unschedule"]`))))
		wantContains(t, "the Undo", text(t, ctx, `[data-testid="undo-toast"]`), c.undo)
		shot(t, ctx, "unschedule-undo-"+c.lang)
		must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="undo-unschedule"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="unschedule-open"]`)))) // only a scheduled release has it
		if got := state(); got != before {
			t.Fatalf("after Undo the release is %q, was %q", got, before)
		}

		t.Log(c.lang + ": the dialog's own button cancels, and the Cancel can be undone")
		cancel := func() {
			t.Helper()
			must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="cancel-open"]`)),
				chromedp.WaitVisible(chromedp.CSS(`dialog[open] [data-testid="cancel"]`)),
				chromedp.Click(chromedp.CSS(`dialog[open] [data-testid="cancel"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="release-outcome"]`))))
			wantContains(t, "after canceling", text(t, ctx, "main"), c.canceled)
			if got := state(); got != c.state {
				t.Fatalf("after canceling the release is %q, want %q", got, c.state)
			}
		}
		cancel()
		wantContains(t, "the Cancel's Undo", text(t, ctx, `[data-testid="undo-toast"]`), c.undoCancel)
		must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="undo-cancel"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="cancel-open"]`))))
		if got := state(); got != before {
			t.Fatalf("after undoing the Cancel the release is %q, was %q", got, before)
		}
		wantContains(t, "after the Undo", text(t, ctx, "main"), c.uncanceled)
		cancel()
		shots(t, ctx, "canceled-"+c.lang)
	}
}
