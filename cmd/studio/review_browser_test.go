package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine/content"
	"studio/engine/model/release"
)

// TestReviewShowsImagesInTheBrowser: an article with an image not live yet,
// sent for approval by the contributor. The editor's review renders it as
// the public site will, the image shown and loaded, beside what is live;
// an editor's Preview of a text that shows the file shows it too; in
// Turkish and English.
func TestReviewShowsImagesInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) { // 08:00 in Istanbul
		contributor := f.user("contributor@demo.test")
		_, err := f.nodes.CreateAsset(f.ctx, contributor, f.site.ID, content.Body{Title: "District map", Slug: "district-map.png",
			Status: content.StatusDraft, Mime: "image/png", Data: testPNG(t), Alt: "Turnout by district"})
		must(t, err)
		n, err := f.nodes.CreateNode(f.ctx, contributor, f.site.ID, release.KindContentEntry, content.Body{Title: "Turnout map",
			Slug: "turnout-map", Lang: "en", Status: content.StatusPublished,
			Text: "Turnout was highest on the coast.\n\n![Turnout by district](/media/district-map.png)"})
		must(t, err)
		f.schedule(contributor, n.ID, "2026-11-02", "10:00")
	})
	ctx := newBrowser(t)
	signIn(t, ctx, app, "editor@demo.test")
	loaded := `(function () {
		var img = document.querySelector(SEL);
		return img && img.complete && img.naturalWidth > 0;
	})()`
	for _, c := range []struct{ lang, live, after string }{
		{"tr", "Şu an yayında", "Onaydan sonra"},
		{"en", "Live now", "After approval"},
	} {
		switchLanguage(t, ctx, c.lang)
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/approvals"),
			chromedp.Click(chromedp.Search(`//a[text()="Turnout map"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="rendered-after"] img`))))
		waitJS(t, ctx, strings.Replace(loaded, "SEL", `'[data-testid="rendered-after"] img'`, 1))
		waitJS(t, ctx, strings.Replace(loaded, "SEL", `'[data-testid="media-after"] img'`, 1))
		wantContains(t, "the review", text(t, ctx, "main"), c.live, c.after, "Turnout was highest on the coast.", "district-map.png")
		shot(t, ctx, "review-images-"+c.lang)

		// The article is held by its release: a new one shows the same file.
		must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content/new?kind=article"),
			chromedp.SetValue(chromedp.CSS("#body"), "The map:\n\n![Turnout by district](/media/district-map.png)"),
			chromedp.Click(chromedp.CSS(`[data-testid="body-preview"] summary`)),
			chromedp.WaitVisible(chromedp.CSS(`#body-preview img`))))
		waitJS(t, ctx, strings.Replace(loaded, "SEL", `'#body-preview img'`, 1))
	}
}
