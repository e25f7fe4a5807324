package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAgentKeysPageInTheBrowser: the demo editor mints an agent key on the Agents page
// in Turkish (choosing a mode ticks its scopes), sees the secret once on
// the key's own page, copies it, tests the connection to /mcp with it (in
// Turkish and, pasted later, in English; a wrong key is refused), no
// longer sees it after a reload, and revokes the key through the dialog
// (issues 13 and 38, §10.1, §11.6 item 4).
func TestAgentKeysPageInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	app.demo(t)
	ctx := newBrowser(t)
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
	))
	switchLanguage(t, ctx, "en")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="agents-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-agent-key-form"]`))))
	wantContains(t, "the page", text(t, ctx, "main"), "Agents", "There are no agent keys yet.", "Plan", "Manual", "Edits", "Auto")
	shots(t, ctx, "agents-empty-en")

	switchLanguage(t, ctx, "tr")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/agents"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-agent-key-form"]`))))
	wantContains(t, "the page in Turkish", text(t, ctx, "main"), "Yapay zekâ ajanları", "Yalnızca plan", "Elle onay",
		"Düzenleme", "Otomatik", "Anahtar oluştur")
	if strings.Contains(strings.ToLower(text(t, ctx, "main")), "bypass") {
		t.Error("the page names bypass")
	}
	shots(t, ctx, "agents-empty-tr")

	// Choosing plan unticks the writing scopes (agents.js); choosing
	// manual ticks schedules:write back.
	checked := func(scope string) bool {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="scope-`+scope+`"]').checked`))
		must(t, err)
		return v
	}
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="mode-plan"]`))))
	if checked("schedules:write") {
		t.Error("plan left schedules:write ticked")
	}
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="mode-manual"]`))))
	if writeChecked, contentWriteChecked := checked("schedules:write"), checked("content:write"); !writeChecked || contentWriteChecked {
		t.Errorf("manual: schedules:write %v, content:write %v; want true, false", writeChecked, contentWriteChecked)
	}
	must(t, do(ctx,
		chromedp.SetValue(chromedp.CSS("#agent-key-name"), "Haftalık planlayıcı"),
		chromedp.Click(chromedp.CSS(`[data-testid="create-agent-key"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-secret"]`)),
	))
	secret, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`[data-testid="secret"]`)))
	must(t, err)
	if !strings.HasPrefix(secret, "sta_") {
		t.Fatalf("secret = %q", secret)
	}
	wantContains(t, "the answer", text(t, ctx, "main"), "Yeni yapay zekâ ajanı anahtarınız: “Haftalık planlayıcı”",
		"Şimdi kopyalayın: yalnızca bu kez gösterilir.", "Elle onay", "Herkesin içeriğini zamanlamak",
		"Bir yapay zekâ ajanı bağlayın", app.url+"/mcp", "STUDIO_AGENT_KEY")
	keyPage, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	must(t, err)
	if !strings.HasPrefix(keyPage, "/studio/agents/agk_") {
		t.Fatalf("after making the key the page is at %q, not the key's own address", keyPage)
	}
	shot(t, ctx, "agents-secret-tr")

	t.Log("copy the secret, then test the connection with it, in Turkish")
	// The copy button's text goes to the Clipboard API; the test stands in
	// for the system clipboard, which a headless browser may not have.
	copied, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise(function (done) {
		navigator.clipboard.writeText = function (text) { done(text); return Promise.resolve(); };
		document.querySelector('[data-testid="copy-secret"]').click();
	})`, chromedp.EvalAwaitPromise))
	must(t, err)
	if copied != secret {
		t.Errorf("Copy put %q on the clipboard, want the secret", copied)
	}
	wantContains(t, "the copy button", text(t, ctx, `[data-testid="copy-secret"]`), "Kopyalandı")
	testConnection := func(want string) string {
		t.Helper()
		must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="test-connection"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="test-result"].ok, [data-testid="test-result"].error`))))
		got := text(t, ctx, `[data-testid="test-result"]`)
		wantContains(t, "Test connection", got, want)
		return got
	}
	got := testConnection("Bağlantı kuruldu: anahtar “")
	wantContains(t, "Test connection", got, "sitesinde Elle onay modunda çalışıyor ve ", " araç görüyor.")
	wantContains(t, "the answer shown", text(t, ctx, `[data-testid="test-answer"]`), `"mode": "manual"`, keyPage[len("/studio/agents/"):])
	shot(t, ctx, "agents-key-tested-tr")

	t.Log("open the page again: the secret is gone, a wrong key is refused")
	must(t, do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="test-connection-form"]`))))
	html, err := chromedp.Run(ctx, chromedp.OuterHTML("html"))
	must(t, err)
	if strings.Contains(html, secret) || strings.Contains(html, `data-testid="new-secret"`) {
		t.Fatal("the secret is shown again after a reload")
	}
	must(t, do(ctx, chromedp.SetValue(chromedp.CSS("#test-key"), "sta_wrong_key")))
	testConnection("Anahtar reddedildi")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/agents"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="agent-keys"]`))))
	shots(t, ctx, "agents-list-tr")

	t.Log("the key's page and Test connection in English, the secret pasted")
	switchLanguage(t, ctx, "en")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="agent-key-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="test-connection-form"]`)),
		chromedp.SetValue(chromedp.CSS("#test-key"), secret)))
	wantContains(t, "the key's page", text(t, ctx, "main"), "Agent key “Haftalık planlayıcı”", "Connect an agent", "MCP endpoint",
		"Client configuration (.mcp.json)", "Check from a terminal")
	got = testConnection("Connected: the key works on “")
	wantContains(t, "Test connection", got, "” in the Manual mode and sees ", " tools.")
	shots(t, ctx, "agents-key-en")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="guide-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agents-guide"]`))))
	wantContains(t, "the guide", text(t, ctx, "main"), "Connect in five minutes", "What each mode allows")
	shots(t, ctx, "agents-guide-en")
	switchLanguage(t, ctx, "tr")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/agents"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="agent-keys"]`))))

	t.Log("revoke through the dialog")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="revoke-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open] [data-testid="revoke-submit"]`)),
	))
	wantContains(t, "the dialog", text(t, ctx, "dialog[open]"), "“Haftalık planlayıcı” anahtarı geçersiz kılınsın mı?")
	shot(t, ctx, "agents-revoke-tr")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`dialog[open] [data-testid="revoke-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agent-key-revoked"]`)),
	))
	wantContains(t, "after revoking", text(t, ctx, "main"), "Yapay zekâ ajanı anahtarı geçersiz kılındı.", "tarihinde geçersiz kılındı")
	switchLanguage(t, ctx, "en")
	must(t, do(ctx, chromedp.Navigate(app.url+"/studio/agents"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agent-key-revoked"]`))))
	wantContains(t, "revoked in English", text(t, ctx, "main"), "Revoked on")
	shots(t, ctx, "agents-list-en")
}
