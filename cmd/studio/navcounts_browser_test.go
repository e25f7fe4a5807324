package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestApprovalsCountInTheBrowser: a request a contributor files shows as a
// count beside the Editor's Approvals entry without a reload (issue 39):
// the page asks again on its own (every half minute; here, at once, on the
// event it also listens for), in English and in Turkish.
func TestApprovalsCountInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	f := app.demo(t)
	ctx := newBrowser(t)
	signIn(t, ctx, app, "editor@demo.test")
	count := func() int {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#approvals-count [aria-hidden]') || {textContent: "0"}).textContent`))
		must(t, err)
		n, err := strconv.Atoi(strings.TrimSpace(s))
		must(t, err)
		return n
	}
	refreshed := func(want int) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.body.dispatchEvent(new Event("studio:counts"))`))
		must(t, err)
		for end := time.Now().Add(10 * time.Second); count() != want; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("the Approvals count is %d, want %d", count(), want)
			}
		}
	}
	for i, c := range []struct{ lang, page, says string }{
		{"en", "Ferry timetable", "request"},
		{"tr", "Transit strike", "istek kararınızı bekliyor"},
	} {
		switchLanguage(t, ctx, c.lang)
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="content-filters"]`))))
		// What waits now, from the engine: the page's own count may still
		// be on its way (the loader asks when the page has loaded), and a
		// count read before it answers would be the one before.
		before, err := app.eng.WaitingForDecision(context.Background(), f.user("editor@demo.test"), f.site.ID)
		must(t, err)
		f.schedule(f.user("contributor@demo.test"), f.page(c.page), "2026-11-05", "14:0"+strconv.Itoa(i))
		refreshed(before + 1)
		wantContains(t, "the count's words", text(t, ctx, `#approvals-count .sr-only`), strconv.Itoa(before+1), c.says)
		shot(t, ctx, "approvals-count-"+c.lang)
	}
}
