package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// TestContentInTheBrowser: the content list and the media editor as a
// newcomer meets them, in Turkish and English: a long title wraps, the
// row's checkbox sits beside its title, a live page coming down reads as
// an expiry; the media file saves from its editor with its preview, a new
// file and its alt text; a new article's address follows its title.
func TestContentInTheBrowser(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Uzunbaşlık", 20) // 200 characters, no break
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), func(f demoFixture) {
		editor := f.user("editor@demo.test")
		_, err := f.nodes.CreateNode(f.ctx, editor, f.site.ID, release.KindContentEntry,
			content.Body{Title: long, Slug: "uzun", Lang: "tr", Status: content.StatusDraft})
		must(t, err)
		// A live campaign page, taken down on 22 December; a draft scheduled.
		campaign, err := f.nodes.CreateNode(f.ctx, editor, f.site.ID, release.KindPage, content.Body{Title: "Yılbaşı kampanyası",
			Slug: "yilbasi-kampanyasi", Lang: "tr", Status: content.StatusPublished, Text: "İndirim."})
		must(t, err)
		_, err = f.nodes.Publish(f.ctx, editor, f.site.ID)
		must(t, err)
		down, err := f.eng.CreateDraft(f.ctx, editor, releases.DraftInput{SiteID: f.site.ID, Title: "Kampanya sona eriyor",
			RemoveIDs: []string{campaign.ID}})
		must(t, err)
		_, err = f.eng.ScheduleRelease(f.ctx, editor, f.site.ID, down.ID, down.Rev, "2026-12-22", "00:00")
		must(t, err)
		f.schedule(editor, f.node("Election night live"), "2026-11-03", "09:00")
		// The contributor asks to move a live article to a new address.
		welcome := f.node("Welcome to the Gazette")
		d, err := f.nodes.Node(f.ctx, engine.Reader(f.site.ID), f.site.ID, welcome)
		must(t, err)
		_, err = f.nodes.EditNode(f.ctx, editor, f.site.ID, welcome, d.Rev, content.Edit{Title: d.Body.Title,
			Slug: "welcome-to-the-gazette", Summary: d.Body.Summary, Text: d.Body.Text, Status: content.StatusPublished})
		must(t, err)
		f.schedule(f.user("contributor@demo.test"), welcome, "2026-11-02", "10:00")
	})
	ctx := newBrowser(t)
	must(t, do(ctx,
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"), // speaks Turkish
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))

	list := func(lang string) {
		t.Helper()
		must(t, do(ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(app.url+"/studio/content"),
			chromedp.WaitVisible(chromedp.CSS("table.list"))))
		width, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		must(t, err)
		if width > 1440 {
			t.Errorf("%s: the content list is %d px wide at 1440 px", lang, width)
		}
		// Every row's checkbox beside its title: on its first line, to its left.
		beside, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll("td.title-cell")].every(td => {
			const box = td.querySelector("input[type=checkbox]").getBoundingClientRect();
			const link = td.querySelector("a").getClientRects()[0];
			return box.right <= link.left && box.top < link.bottom && link.top < box.bottom;
		})`))
		must(t, err)
		if !beside {
			t.Errorf("%s: a row's checkbox is not beside its title", lang)
		}
		shots(t, ctx, "content-list-"+lang)
	}

	t.Log("the content list, in Turkish")
	list("tr")
	f := app.demo(t)
	wantContains(t, "campaign coming down", text(t, ctx, `[data-testid="live-`+f.node("Yılbaşı kampanyası")+`"]`),
		"Yayında · sona erme: 22 Aralık")
	wantContains(t, "scheduled draft", text(t, ctx, `[data-testid="status-`+f.node("Election night live")+`"]`),
		"Taslak", "Zamanlandı")

	t.Log("the approval page says the address changes")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/approvals"),
		chromedp.Click(chromedp.Search(`//a[text()="Welcome to the Gazette"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="address-change"]`))))
	wantContains(t, "address change", text(t, ctx, `[data-testid="address-change"]`),
		"Adres değişiyor: /posts/welcome yerine /posts/welcome-to-the-gazette")
	shots(t, ctx, "approval-address-tr")

	t.Log("the media editor: preview, alt text, a new file")
	cover := app.demo(t).node("Boğaz'da sonbahar")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content/"+cover),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="media-preview"] img`))))
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelector("[data-testid=media-preview] img").naturalWidth`))
	must(t, err)
	if loaded == 0 {
		t.Error("the preview image did not load")
	}
	shots(t, ctx, "media-editor-tr")
	newFile := filepath.Join(t.TempDir(), "gun-batimi.png")
	must(t, os.WriteFile(newFile, testPNG(t), 0o644))
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#alt"), "Boğaz'da gün batımı, iki yaka"),
		chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{newFile}),
		chromedp.Click(chromedp.CSS(`form.editor button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="media-preview"] img[src$="rev=2"]`)),
	))
	d, err := app.nodes.Node(t.Context(), engine.Reader(app.demo(t).site.ID), app.demo(t).site.ID, cover)
	must(t, err)
	if d.Rev != 2 || d.Body.Alt != "Boğaz'da gün batımı, iki yaka" || !bytes.Equal(d.Body.Data, testPNG(t)) || d.Body.Slug != "bogazda-sonbahar.png" {
		t.Errorf("saved: rev %d alt %q slug %q %d bytes", d.Rev, d.Body.Alt, d.Body.Slug, len(d.Body.Data))
	}

	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content/new?kind=asset"), chromedp.WaitVisible(chromedp.CSS("#file"))))
	shot(t, ctx, "media-new-tr")

	t.Log("a new article: the address follows the title, until the person types one")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content/new?kind=contentEntry"),
		chromedp.WaitVisible(chromedp.CSS("#title")),
		chromedp.SendKeys(chromedp.CSS("#title"), "Işıklı Çarşı'da Gün"),
	))
	slug, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#slug")))
	must(t, err)
	if slug != "isikli-carsida-gun" {
		t.Errorf("slug from the title: %q, want isikli-carsida-gun", slug)
	}
	lang, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#lang")))
	must(t, err)
	if lang != "tr" {
		t.Errorf("a new article's language: %q, want tr", lang)
	}
	must(t, do(ctx,
		chromedp.SendKeys(chromedp.CSS("#slug"), "-2"),
		chromedp.SendKeys(chromedp.CSS("#title"), " Boyu"),
	))
	if slug, _ = chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#slug"))); slug != "isikli-carsida-gun-2" {
		t.Errorf("after the person typed an address: %q, want isikli-carsida-gun-2", slug)
	}
	shot(t, ctx, "new-article-tr")

	t.Log("and in English")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content"),
		chromedp.Click(chromedp.CSS(`.user-menu > summary`)),
		chromedp.Click(chromedp.CSS(`form.lang button[value="en"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] table.list`))))
	list("en")
	wantContains(t, "scheduled and live cells", text(t, ctx, "table.list"), "Live · expires")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content/"+cover),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="media-preview"] img`))))
	wantContains(t, "media editor", text(t, ctx, "main"), "Alt text", "File name", "To replace the image")
	shots(t, ctx, "media-editor-en")
}

// testPNG is a small real PNG, unlike the demo's.
func testPNG(t *testing.T) []byte {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, 64, 40))
	for x := range 64 {
		for y := range 40 {
			m.SetNRGBA(x, y, color.NRGBA{R: uint8(200 + x/2), G: uint8(80 + y*3), B: 60, A: 255})
		}
	}
	var buf bytes.Buffer
	must(t, png.Encode(&buf, m))
	return buf.Bytes()
}
