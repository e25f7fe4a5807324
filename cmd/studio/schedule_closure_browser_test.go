package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine"
	"studio/engine/content"
)

// TestScheduleClosureInTheBrowser is issue 11's "Schedule… skips the
// dependency closure": the article uses a new image that is not live, so
// the Schedule form shows, before confirming, that the image is published
// with it, and the release it makes carries the image, marked as added
// because the article uses it; in English and Turkish.
func TestScheduleClosureInTheBrowser(t *testing.T) {
	t.Parallel()
	// Monday 2 November 2026, 08:00 in Istanbul.
	var image string
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		editor := f.user("editor@demo.test")
		img, err := f.nodes.CreateAsset(f.ctx, editor, f.site.ID, content.Body{Title: "Harbour at dawn", Slug: "harbour-dawn.png",
			Lang: "en", Status: content.StatusDraft, Mime: "image/png", Data: testPNG(t), Alt: "Cranes"})
		must(t, err)
		image = img.ID
		d, err := f.nodes.Node(f.ctx, engine.Reader(f.site.ID), f.site.ID, f.node("Election night live"))
		must(t, err)
		body := d.Body
		body.Refs = append(body.Refs, img.ID)
		_, err = f.nodes.SaveNode(f.ctx, editor, f.site.ID, d.ID, d.Rev, body)
		must(t, err)
	})
	article := app.demo(t).node("Election night live")
	ctx := newBrowser(t)
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	switchLanguage(t, ctx, "en")

	t.Log("the form shows the image that goes with the article")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/content/"+article+"/schedule"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="schedule-closure"]`)),
	))
	wantContains(t, "closure", text(t, ctx, `[data-testid="schedule-closure"]`), "Also published with it",
		"“Election night live” uses these and they are not on the live site yet",
		"Harbour at dawn", "Media file", "Added because “Election night live” uses it")
	shots(t, ctx, "schedule-closure-en")

	t.Log("in Turkish")
	switchLanguage(t, ctx, "tr")
	wantContains(t, "Turkish closure", text(t, ctx, `[data-testid="schedule-closure"]`), "Bununla birlikte yayımlananlar",
		"henüz canlı sitede değil", "Harbour at dawn", "“Election night live” kullandığı için eklendi")
	shots(t, ctx, "schedule-closure-tr")

	t.Log("scheduled: the release carries the image, marked as added")
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#date"), "2026-11-02"),
		chromedp.SetValue(chromedp.CSS("#time"), "09:00"),
	))
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="schedule-form"] button[type=submit]`)))
	must(t, do(ctx, chromedp.Click(chromedp.Search(`//a[text()="Election night live"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="item-`+image+`"]`))))
	wantContains(t, "release item", text(t, ctx, `[data-testid="item-`+image+`"]`), "Harbour at dawn",
		"“Election night live” kullandığı için eklendi")
	shots(t, ctx, "schedule-closure-release-tr")

	t.Log("at its time both go live")
	app.clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	app.waitPublished(t)
	if status, _ := publicGet(t, app.url+"/media/harbour-dawn.png"); status != 200 {
		t.Errorf("the image answers %d after the release, want 200", status)
	}
}
