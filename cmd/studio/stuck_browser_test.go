package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine/fakeclock"
	"studio/engine/ids"
	"studio/engine/scheduler"
	"studio/store"
)

// TestStuckReleasesInTheBrowser shows issue 10 item 2's report on Studio's
// pages: a ticker died right after claiming "Election night live" at 09:00,
// and "Seçim gecesi canlı yayın", due at the same minute, waits behind it.
// At 09:01:10, before any ticker takes over, the Scheduler card says Late
// and lists both, and the notifications name them, in Turkish and English.
// No ticker runs here: one would take the dead run over at once.
func TestStuckReleasesInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nine := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC) // 09:00 in Istanbul
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "studio.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	clock := fakeclock.New(nine.Add(-time.Hour))
	a := newApp(st, clock, slog.New(slog.NewTextHandler(io.Discard, nil)), false)
	if seeded, err := seedDemo(ctx, a.releases, st); err != nil || !seeded {
		t.Fatalf("seed: %v %v", seeded, err)
	}
	f := (&browserApp{clock: clock, eng: a.releases, nodes: a.nodes, identity: a.identity}).demo(t)
	editor := f.user("editor@demo.test")
	f.schedule(editor, f.node("Election night live"), "2026-11-02", "09:00")
	f.schedule(editor, f.node("Seçim gecesi canlı yayın"), "2026-11-02", "09:00")
	clock.Set(nine)
	rows, err := st.DueReleases(ctx, nine, 10)
	must(t, err)
	dead := rows[0]
	ok, err := st.ClaimRelease(ctx, scheduler.Claim{RunID: ids.RunID(dead.ID, nine), SiteID: f.site.ID, ReleaseID: dead.ID,
		Rev: dead.Rev, State: dead.State, ExecuteAt: nine, Token: "lease_dead", LeaseUntil: nine.Add(45 * time.Second),
		Trigger: "node", Now: nine})
	if err != nil || !ok {
		t.Fatalf("the dead claim: %v %v", ok, err)
	}
	if rep, err := a.ticker.RunDue(ctx, "node"); err != nil || rep.Published != 0 {
		t.Fatalf("the tick beside the dead claim: %+v %v", rep, err)
	}
	clock.Set(nine.Add(70 * time.Second))
	srv := httptest.NewServer(a.handler)
	t.Cleanup(srv.Close)

	b := newBrowser(t)
	must(t, do(b,
		chromedp.Navigate(srv.URL+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="tr"]`)),
		chromedp.Navigate(srv.URL+"/studio/settings"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="stuck"]`)),
	))
	wantContains(t, "card (tr)", text(t, b, "main"), "Gecikmeli", "2 yayın paketinin zamanı geçti",
		"Election night live", "Seçim gecesi canlı yayın", "yayım zamanı:", "takıldı:")
	shots(t, b, "scheduler-card-stuck-tr")
	must(t, do(b, chromedp.Navigate(srv.URL+"/studio/notifications"), chromedp.WaitVisible(chromedp.CSS("main"))))
	wantContains(t, "notifications (tr)", text(t, b, "main"), "yayımlanırken takıldı", "için yayım zamanı geçti")
	shots(t, b, "notifications-stuck-tr")

	must(t, a.identity.SetLanguage(ctx, f.user("owner@demo.test"), "en"))
	must(t, do(b, chromedp.Navigate(srv.URL+"/studio/settings"), chromedp.WaitVisible(chromedp.CSS(`html[lang="en"]`))))
	wantContains(t, "card (en)", text(t, b, "main"), "Late", "2 releases are past their time", "due at", "stuck since")
	shots(t, b, "scheduler-card-stuck-en")
	must(t, do(b, chromedp.Navigate(srv.URL+"/studio/notifications"), chromedp.WaitVisible(chromedp.CSS("main"))))
	wantContains(t, "notifications (en)", text(t, b, "main"), "is stuck", "the scheduler has not taken it yet")
	shots(t, b, "notifications-stuck-en")

	// A tick takes both over; the release page says how late, as minutes and
	// seconds, and who published it, in the reader's language.
	if rep, err := a.ticker.RunDue(ctx, "node"); err != nil || rep.Published != 2 {
		t.Fatalf("the takeover tick: %+v %v", rep, err)
	}
	must(t, do(b, chromedp.Navigate(srv.URL+"/studio/releases/"+dead.ID), chromedp.WaitVisible(chromedp.CSS("main"))))
	wantContains(t, "release (en)", text(t, b, "main"), "1 min 10 s late", "Scheduler published it")
	shots(t, b, "release-late-en")
	must(t, a.identity.SetLanguage(ctx, f.user("owner@demo.test"), "tr"))
	must(t, do(b, chromedp.Navigate(srv.URL+"/studio/releases/"+dead.ID), chromedp.WaitVisible(chromedp.CSS(`html[lang="tr"]`))))
	wantContains(t, "release (tr)", text(t, b, "main"), "1 dk 10 sn gecikmeyle", "Zamanlayıcı yayımladı")
	shots(t, b, "release-late-tr")
}
