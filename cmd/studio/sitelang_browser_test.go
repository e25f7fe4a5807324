package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestSiteLanguageInTheBrowser (issue 11, item 5): the owner (who reads
// Turkish) finds the site's language on Site settings, set to the demo's
// Turkish; a language Studio does not speak (a tampered form) is refused
// with a sentence under the field and changes nothing; choosing English
// turns the public site English. Then the page in English.
func TestSiteLanguageInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	ctx := newBrowser(t)
	// The field is read in the page (waitJS), never through a node id
	// chromedp took before the form's answer replaced the document.
	fieldShows := func(lang string) {
		t.Helper()
		waitJS(t, ctx, `document.querySelector("#siteLang").value === "`+lang+`"`)
	}

	t.Log("the owner signs in and opens Site settings")
	must(t, do(ctx,
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
		chromedp.Navigate(app.url+"/studio/settings"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="site-lang-form"]`)),
	))
	wantContains(t, "the language field", text(t, ctx, `[data-testid="site-lang-form"]`), "Canlı sitenin dili",
		"Türkçe", "English", "Yazılmış sayfaların dili değişmez.")
	fieldShows("tr")
	shot(t, ctx, "settings-site-lang-tr-1440")

	t.Log("a tampered form asks for a language Studio does not speak")
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#siteLang option[value="en"]').value = "de"; true`))
	must(t, err)
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#siteLang"), "de"),
		chromedp.Click(chromedp.CSS(`[data-testid="site-lang-save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-lang"]`)),
	))
	wantContains(t, "the refusal", text(t, ctx, `[data-testid="error-lang"]`), "Studio bu dili henüz desteklemiyor.")
	fieldShows("tr") // the site's, after the refusal
	shot(t, ctx, "settings-site-lang-refused-tr-1440")
	must(t, do(ctx, chromedp.Navigate(app.url+"/"), chromedp.WaitVisible(chromedp.CSS(`html[lang="tr"]`))))
	wantContains(t, "the public site after the refusal", text(t, ctx, "body"), "Tüm makaleler")

	t.Log("English, chosen and saved")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/settings"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="site-lang-form"]`)),
		chromedp.SetValue(chromedp.CSS("#siteLang"), "en"),
		chromedp.Click(chromedp.CSS(`[data-testid="site-lang-save"]`)),
	))
	waitText(t, ctx, "#status", "Site dili kaydedildi.")
	fieldShows("en")
	must(t, do(ctx, chromedp.Navigate(app.url+"/"), chromedp.WaitVisible(chromedp.CSS(`html[lang="en"]`))))
	wantContains(t, "the public site in English", text(t, ctx, "body"), "All articles", "November 2026")
	shot(t, ctx, "site-home-en-1440")

	t.Log("the settings page in English")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/settings"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="site-lang-form"]`))))
	switchLanguage(t, ctx, "en")
	wantContains(t, "the language field in English", text(t, ctx, `[data-testid="site-lang-form"]`),
		"Language of the public site", "Pages already written keep theirs.")
	shots(t, ctx, "settings-site-lang-en")
}
