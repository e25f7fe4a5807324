package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"studio/engine/fakeclock"
	"studio/store"
)

// TestNewsroomFromAnEmptyFolderInTheBrowser is issue 15's "done when": on
// an empty data folder a newcomer sets the site up in Turkish, invites an
// Editor and a Contributor, who join by their links; the Contributor
// writes an article with an uploaded image (the cover, and in the text)
// and schedules it; the Editor approves it; at its time it is published
// with its image. The Owner also makes a second site from the switcher.
// Screenshots in Turkish and English.
func TestNewsroomFromAnEmptyFolderInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Monday 7 December 2026, 09:00 in Istanbul.
	clock := fakeclock.New(time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC))
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "studio.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	a := newApp(st, clock, slog.New(slog.NewTextHandler(io.Discard, nil)), false)
	app := newBrowserApp(a, st, clock)
	app.serve(t, a)
	token, err := a.setup.Offer(ctx)
	if err != nil || token == "" {
		t.Fatalf("offer: %q, %v", token, err)
	}
	b := newBrowser(t)
	_, err = chromedp.Call(b, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Istanbul"})
	must(t, err)
	signOut := func() {
		t.Helper()
		openUserMenu(t, b)
		submitAndWait(t, b, chromedp.Click(chromedp.CSS(`form[action="/studio/logout"] button`)))
	}
	signIn := func(email, password string) {
		t.Helper()
		must(t, do(b, chromedp.Navigate(app.url+"/studio/login")))
		submitAndWait(t, b, chromedp.SetValue(chromedp.CSS("#email"), email), chromedp.SetValue(chromedp.CSS("#password"), password),
			chromedp.Click(chromedp.CSS("form.stack button[type=submit]")))
	}

	t.Log("the newcomer sets the site up in Turkish")
	must(t, do(b, chromedp.Navigate(app.url+"/studio/setup?token="+token),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="setup-form"]`))))
	switchLanguage(t, b, "tr")
	waitJS(t, b, `document.querySelector("#timeZone").value === "Europe/Istanbul"`)
	submitAndWait(t, b,
		chromedp.SetValue(chromedp.CSS("#siteName"), "Kuzey Haber"),
		chromedp.SetValue(chromedp.CSS("#publicUrl"), "https://kuzeyhaber.example"),
		chromedp.SetValue(chromedp.CSS("#siteLang"), "tr"),
		chromedp.SetValue(chromedp.CSS("#name"), "Zeynep Kaya"),
		chromedp.SetValue(chromedp.CSS("#email"), "zeynep@kuzeyhaber.example"),
		chromedp.SetValue(chromedp.CSS("#password"), "kestane kebap 1923"),
		chromedp.Click(chromedp.CSS(`[data-testid="setup-submit"]`)))
	waitText(t, b, `[data-testid="user-name"]`, "Zeynep Kaya · Sahip")

	t.Log("she invites an Editor and a Contributor; each link shows once")
	invite := func(email, role string) string {
		t.Helper()
		must(t, do(b, chromedp.Navigate(app.url+"/studio/people"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="invite-form"]`))))
		submitAndWait(t, b, chromedp.SetValue(chromedp.CSS("#invite-email"), email), chromedp.SetValue(chromedp.CSS("#invite-role"), role),
			chromedp.Click(chromedp.CSS(`[data-testid="invite-submit"]`)))
		waitText(t, b, `[data-testid="invitation-link"] h2`, email+" için davet bağlantısı")
		link, err := chromedp.Run(b, chromedp.Value(chromedp.CSS(`[data-testid="link"]`)))
		must(t, err)
		if !strings.HasPrefix(link, app.url+"/studio/join?token=studio_inv_") {
			t.Fatalf("invitation link %q", link)
		}
		return link
	}
	editorLink := invite("elif@kuzeyhaber.example", "editor")
	contributorLink := invite("can@kuzeyhaber.example", "contributor")
	shot(t, b, "newsroom-invitation-tr")
	must(t, do(b, chromedp.Navigate(app.url+"/studio/people")))
	wantContains(t, "people", text(t, b, "main"), "Zeynep Kaya", "(siz)", "Açık davetler", "elif@kuzeyhaber.example", "Editör",
		"can@kuzeyhaber.example", "Katkıda bulunan")
	shots(t, b, "newsroom-people-tr")
	switchLanguage(t, b, "en")
	wantContains(t, "people in English", text(t, b, "main"), "Open invitations", "Contributor", "(you)")
	shots(t, b, "newsroom-people-en")
	switchLanguage(t, b, "tr")
	signOut()

	join := func(link, name, password, says string) {
		t.Helper()
		must(t, do(b, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`[data-testid="join-form"]`))))
		if lang, err := chromedp.Run(b, chromedp.Evaluate[string](`document.documentElement.lang`)); err != nil || lang != "tr" {
			switchLanguage(t, b, "tr")
		}
		waitText(t, b, "h1", "Kuzey Haber sitesine katılın")
		submitAndWait(t, b, chromedp.SetValue(chromedp.CSS("#name"), name), chromedp.SetValue(chromedp.CSS("#password"), password),
			chromedp.Click(chromedp.CSS(`[data-testid="join-submit"]`)))
		waitText(t, b, `[data-testid="user-name"]`, says)
		waitText(t, b, "#status", "Hoş geldiniz!")
	}
	t.Log("the Editor joins by her link")
	join(editorLink, "Elif Demir", "simit çay 2026 ekim", "Elif Demir · Editör")
	shot(t, b, "newsroom-joined-tr")
	signOut()
	t.Log("the Contributor joins by his")
	join(contributorLink, "Can Aydın", "lodos poyraz 2026", "Can Aydın · Katkıda bulunan")

	signOut()
	t.Log("the Owner sees her people, each with a role to change, a removal and a password reset")
	signIn("zeynep@kuzeyhaber.example", "kestane kebap 1923")
	must(t, do(b, chromedp.Navigate(app.url+"/studio/people"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="members"]`))))
	wantContains(t, "members", text(t, b, `[data-testid="members"]`), "Elif Demir", "Can Aydın", "Zeynep Kaya")
	if n, err := chromedp.Run(b, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="reset-password"]').length`)); err != nil || n != 2 {
		t.Fatalf("%d reset buttons (%v), want one for each member but herself", n, err)
	}
	waitText(t, b, `[data-testid="invitations-empty"]`, "Açık davet yok.")
	shot(t, b, "newsroom-members-tr")

	t.Log("she makes a second site from the switcher, and goes back to the first")
	must(t, do(b, chromedp.Click(chromedp.CSS(`[data-testid="site-switch"] summary`)),
		chromedp.Click(chromedp.CSS(`[data-testid="add-site"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-site-form"]`))))
	waitJS(t, b, `document.querySelector("#timeZone").value === "Europe/Istanbul"`)
	submitAndWait(t, b, chromedp.SetValue(chromedp.CSS("#siteName"), "Güney Haber"),
		chromedp.SetValue(chromedp.CSS("#publicUrl"), "https://guneyhaber.example"), chromedp.SetValue(chromedp.CSS("#siteLang"), "tr"),
		chromedp.Click(chromedp.CSS(`[data-testid="new-site-submit"]`)))
	waitText(t, b, "#status", "Site hazır. Sahibi sizsiniz.")
	waitText(t, b, `[data-testid="site-name"]`, "Güney Haber")
	waitJS(t, b, `/^\/studio\/s\/site_\w+\/schedules$/.test(location.pathname)`)
	must(t, do(b, chromedp.Click(chromedp.CSS(`[data-testid="site-switch"] summary`))))
	shot(t, b, "newsroom-sites-tr")
	submitAndWait(t, b, chromedp.Click(chromedp.Search(`//*[@data-testid="site-switch"]//a[text()="Kuzey Haber"]`)))
	waitText(t, b, `[data-testid="site-name"]`, "Kuzey Haber")
	signOut()
	signIn("can@kuzeyhaber.example", "lodos poyraz 2026")

	t.Log("the Contributor writes an article and uploads its image: the cover, and in the text")
	img := filepath.Join(t.TempDir(), "Sandık başında.png")
	must(t, os.WriteFile(img, testPNG(t), 0o644))
	must(t, do(b, chromedp.Navigate(app.url+"/studio/content/new?kind=content_entry"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload"]`)),
		chromedp.SendKeys(chromedp.CSS("#title"), "Kuzey'de seçim günü"),
		chromedp.SetValue(chromedp.CSS("#body"), "Sandıklar sabah sekizde açıldı.\n\n"),
		chromedp.SetUploadFiles(chromedp.CSS("#upload-file"), []string{img}),
		chromedp.SetValue(chromedp.CSS("#upload-alt"), "Sandık başında sıra bekleyen seçmenler"),
		chromedp.Click(chromedp.CSS("#upload-cover")),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-start"]`))))
	waitText(t, b, `[data-testid="upload-status"]`, "Yüklendi: görsel metne eklendi.")
	body, err := chromedp.Run(b, chromedp.Value(chromedp.CSS("#body")))
	must(t, err)
	slug, err := chromedp.Run(b, chromedp.Value(chromedp.CSS("#slug")))
	must(t, err)
	if !strings.Contains(body, "![Sandık başında sıra bekleyen seçmenler](/media/sandik-basinda.png)") || slug != "kuzeyde-secim-gunu" {
		t.Fatalf("after the upload: slug %q, text %q", slug, body)
	}
	waitJS(t, b, `document.querySelector("#cover").selectedOptions[0].textContent.includes("/media/sandik-basinda.png")`)
	must(t, do(b, chromedp.Click(chromedp.CSS(`[data-testid="body-preview"] summary`))))
	waitJS(t, b, `document.querySelector('#body-preview img[alt="Sandık başında sıra bekleyen seçmenler"]') !== null`)
	shot(t, b, "newsroom-editor-tr")
	submitAndWait(t, b, chromedp.SetValue(chromedp.CSS("#node-status"), "published"),
		chromedp.Click(chromedp.CSS(`form.editor .actions button[type=submit]`)))
	waitText(t, b, "#status", "Kaydedildi")

	t.Log("he schedules it for 10:00: it waits for approval")
	must(t, do(b, chromedp.Click(chromedp.CSS(`[data-testid="schedule"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="schedule-form"]`))))
	submitAndWait(t, b, chromedp.SetValue(chromedp.CSS("#date"), "2026-12-07"), chromedp.SetValue(chromedp.CSS("#time"), "10:00"),
		chromedp.Click(chromedp.CSS(`[data-testid="schedule-form"] button[type=submit]`)))
	wantContains(t, "the contributor's request", text(t, b, "main"), "onaya gönderildi")
	signOut()

	t.Log("the Editor reviews and approves it")
	signIn("elif@kuzeyhaber.example", "simit çay 2026 ekim")
	must(t, do(b, chromedp.Navigate(app.url+"/studio/approvals"),
		chromedp.Click(chromedp.Search(`//a[text()="Kuzey'de seçim günü"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="approve"]`))))
	wantContains(t, "review", text(t, b, "main"), "Can Aydın onay istedi", "10:00")
	shot(t, b, "newsroom-approval-tr")
	submitAndWait(t, b, chromedp.Click(chromedp.CSS(`[data-testid="approve"]`)))
	wantContains(t, "approved", text(t, b, "main"), "Onaylandı")

	t.Log("before 10:00 the public site has none of it; at 10:00 the ticker publishes the article with its image")
	public := func(path string) int64 {
		t.Helper()
		resp, err := chromedp.Run(b, chromedp.NavigateResponse(app.url+path))
		must(t, err)
		return resp.Status
	}
	if s, m := public("/posts/kuzeyde-secim-gunu"), public("/media/sandik-basinda.png"); s != 404 || m != 404 {
		t.Fatalf("before its time: the article %d, its image %d; want 404 both", s, m)
	}
	clock.Set(time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC))
	app.waitPublished(t)
	if s := public("/posts/kuzeyde-secim-gunu"); s != 200 {
		t.Fatalf("after its time: status %d", s)
	}
	waitJS(t, b, `document.querySelectorAll('img[src="/media/sandik-basinda.png"]').length === 2 && [...document.images].every(i => i.complete && i.naturalWidth > 0)`)
	wantContains(t, "the article", text(t, b, "main"), "Kuzey'de seçim günü", "Sandıklar sabah sekizde açıldı.")
	shots(t, b, "newsroom-published-tr")
}
