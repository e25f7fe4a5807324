package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestSmallScreensInTheBrowser: on a 390 px phone the article editor (a
// new article and one that is scheduled) scrolls only down, never
// sideways, and the bar folds its navigation under Menu; in Turkish and
// English.
func TestSmallScreensInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	ctx := newBrowser(t)
	signIn(t, ctx, app, "editor@demo.test")
	f := app.demo(t)
	pages := []string{"/studio/content/new?kind=article", "/studio/content/" + f.node("Election night live"), "/studio/schedules"}
	must(t, do(ctx, chromedp.EmulateViewport(390, 844)))
	for _, lang := range []string{"tr", "en"} {
		must(t, do(ctx, chromedp.Navigate(app.url+pages[0]), chromedp.WaitVisible(chromedp.CSS("main"))))
		switchLanguage(t, ctx, lang)
		for _, p := range pages {
			must(t, do(ctx, chromedp.Navigate(app.url+p), chromedp.WaitVisible(chromedp.CSS("main h1"))))
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function () {
				var w = document.documentElement.clientWidth;
				if (document.documentElement.scrollWidth <= w) return [];
				return Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > w + 1)
					.slice(0, 5).map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + "." + e.className);
			})()`))
			must(t, err)
			if len(wide) > 0 {
				t.Errorf("%s in %s at 390 px scrolls sideways; wider than the screen: %q", p, lang, wide)
			}
		}
		if countOf(t, ctx, "#studio-nav a") == 0 {
			t.Fatal("no navigation")
		}
		must(t, do(ctx, chromedp.WaitNotVisible(chromedp.CSS("#studio-nav")),
			chromedp.Click(chromedp.CSS(`[data-menu-toggle]`)),
			chromedp.WaitVisible(chromedp.CSS(`#studio-nav a[href="/studio/content"]`))))
		shot(t, ctx, "menu-open-"+lang+"-390")
		must(t, do(ctx, chromedp.Click(chromedp.CSS(`#studio-nav a[href="/studio/content"]`)),
			chromedp.WaitVisible(chromedp.CSS("table.list"))))
	}
}
