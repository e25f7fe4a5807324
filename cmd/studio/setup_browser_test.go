package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"studio/engine/fakeclock"
	"studio/store"
)

// TestFirstRunSetupInTheBrowser: a newcomer opens the link serve printed
// on an empty database, finds their browser's zone suggested, switches the
// page to Turkish, is told in Turkish what is wrong with what they typed,
// sets the site up and lands in Studio as its Owner; the public site shows
// its empty home. Screenshots in English and Turkish.
func TestFirstRunSetupInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "studio.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	a := newApp(st, fakeclock.New(time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)), slog.New(slog.NewTextHandler(io.Discard, nil)), false)
	srv := httptest.NewServer(a.handler)
	t.Cleanup(srv.Close)
	token, err := a.setup.Offer(ctx)
	if err != nil || token == "" {
		t.Fatalf("offer: %q, %v", token, err)
	}
	b := newBrowser(t)
	_, err = chromedp.Call(b, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Istanbul"})
	must(t, err)

	t.Log("the link, in English: the browser's zone is suggested")
	must(t, do(b, chromedp.Navigate(srv.URL+"/studio/setup?token="+token),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] [data-testid="setup-form"]`))))
	waitJS(t, b, `document.querySelector("#timeZone").value === "Europe/Istanbul"`)
	shots(t, b, "setup-en")

	t.Log("Turkish, chosen on the page: the link is kept")
	switchLanguage(t, b, "tr")
	waitText(t, b, "h1", "Studio'yu kurun")
	shots(t, b, "setup-tr")

	t.Log("what the browser lets through but Studio refuses, told in Turkish; nothing is set up")
	fill := func(publicURL, password string) {
		t.Helper()
		submitAndWait(t, b,
			chromedp.SetValue(chromedp.CSS("#siteName"), "Kuzey Haber"),
			chromedp.SetValue(chromedp.CSS("#publicUrl"), publicURL),
			chromedp.SetValue(chromedp.CSS("#name"), "Zeynep Kaya"),
			chromedp.SetValue(chromedp.CSS("#email"), "zeynep@kuzeyhaber.example"),
			chromedp.SetValue(chromedp.CSS("#password"), password),
			chromedp.Click(chromedp.CSS(`[data-testid="setup-submit"]`)),
		)
	}
	fill("ftp://kuzeyhaber.example", "kısa")
	waitText(t, b, `[data-testid="error-publicUrl"]`, "Canlı sitenin adresini yalnızca http:// ya da https://")
	waitText(t, b, `[data-testid="error-password"]`, "En az 10 karakterlik bir parola seçin.")
	kept, err := chromedp.Run(b, chromedp.Value(chromedp.CSS("#siteName")))
	must(t, err)
	if pass, err := chromedp.Run(b, chromedp.Value(chromedp.CSS("#password"))); err != nil || kept != "Kuzey Haber" || pass != "" {
		t.Fatalf("the refused form kept the site name %q and the password %q (%v); want the name, never the password", kept, pass, err)
	}
	shotsAsIs(t, b, "setup-refused-tr")
	if installed, err := st.Installed(ctx); err != nil || installed {
		t.Fatalf("a refused setup set Studio up (%v)", err)
	}

	t.Log("set up: signed in as the Owner, in Turkish")
	fill("https://kuzeyhaber.example", "kestane kebap 1923")
	waitText(t, b, `[data-testid="user-name"]`, "Zeynep Kaya · Sahip")
	waitText(t, b, "#status", "Studio kuruldu. Hoş geldiniz!")
	shot(t, b, "setup-done-tr")

	t.Log("the public site's empty home")
	must(t, do(b, chromedp.Navigate(srv.URL+"/")))
	waitText(t, b, `[data-testid="nothing-published"]`, "Henüz yayımlanan bir şey yok.")
	shot(t, b, "setup-site-tr")

	t.Log("the link is spent")
	must(t, do(b, chromedp.Navigate(srv.URL+"/studio/setup?token="+token)))
	waitText(t, b, "h1", "Sayfa bulunamadı")
}
