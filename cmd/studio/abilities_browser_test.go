package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAuthorsAndTokenScopesInTheBrowser: the content list and the editor
// name who created each node, and the Access tokens page lets a person
// choose a new token's scopes within their role, in English and Turkish
// (issue 11, §10.1–10.2).
func TestAuthorsAndTokenScopesInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	f := app.demo(t)
	ctx := newBrowser(t)
	login := func(email string) {
		t.Helper()
		must(t, do(ctx,
			chromedp.Navigate(app.url+"/studio/login"),
			chromedp.SetValue(chromedp.CSS("#email"), email),
			chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
			chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
		))
	}

	t.Log("the content list names each node's author")
	login("editor@demo.test")
	switchLanguage(t, ctx, "en")
	welcome := f.node("Welcome to the Gazette")
	about := f.node("Hakkımızda")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content"), chromedp.WaitVisible(chromedp.CSS("table.list"))))
	wantContains(t, "content list", text(t, ctx, "table.list thead"), "Author")
	wantContains(t, "welcome's author", text(t, ctx, `[data-testid="author-`+welcome+`"]`), "Chris Contributor")
	wantContains(t, "about's author", text(t, ctx, `[data-testid="author-`+about+`"]`), "Halil Owner")
	shots(t, ctx, "authors-content-en")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content/"+welcome),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="node-author"]`))))
	wantContains(t, "editor", text(t, ctx, `[data-testid="node-author"]`), "Created by Chris Contributor")
	shots(t, ctx, "authors-editor-en")
	switchLanguage(t, ctx, "tr")
	wantContains(t, "editor in Turkish", text(t, ctx, `[data-testid="node-author"]`), "Oluşturan: Chris Contributor")
	shots(t, ctx, "authors-editor-tr")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/content"), chromedp.WaitVisible(chromedp.CSS("table.list"))))
	wantContains(t, "content list in Turkish", text(t, ctx, "table.list thead"), "Yazar")
	shots(t, ctx, "authors-content-tr")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`.user-menu > summary`)), chromedp.Click(chromedp.Search(`//button[text()="Çıkış yap"]`)), chromedp.WaitVisible(chromedp.CSS("#email"))))

	t.Log("the contributor makes a read-only token")
	login("contributor@demo.test")
	switchLanguage(t, ctx, "en")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/tokens"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-scopes-form"]`))))
	form := text(t, ctx, `[data-testid="token-scopes-form"]`)
	wantContains(t, "scopes form", form, "What it may do", "Schedule only your own content", "schedules:write:own")
	if strings.Contains(form, "Schedule anyone's content") {
		t.Errorf("a Contributor is offered schedules:write: %s", form)
	}
	shots(t, ctx, "token-scopes-en")
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#token-name"), "reader"),
		chromedp.Click(chromedp.CSS(`[data-testid="scope-schedules:write:own"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="scope-content:write"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="create-token"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-secret"]`)),
	))
	row := text(t, ctx, `[data-testid="token-scopes"]`)
	wantContains(t, "the token's scopes", row, "See the calendar and releases", "Read pages and articles")
	if strings.Contains(row, "Schedule only your own content") || strings.Contains(row, "Edit any page") {
		t.Errorf("the token holds what was unticked: %s", row)
	}
	shot(t, ctx, "token-made-en")
	switchLanguage(t, ctx, "tr")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/tokens"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-scopes-form"]`))))
	wantContains(t, "scopes form in Turkish", text(t, ctx, `[data-testid="token-scopes-form"]`), "Neler yapabilir",
		"Yalnızca kendi içeriğini zamanlama")
	wantContains(t, "the token in Turkish", text(t, ctx, `[data-testid="token-scopes"]`), "Takvimi ve yayın paketlerini görme")
	shots(t, ctx, "token-scopes-tr")
}
