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
	"studio/store"
)

// TestStalledBannerInTheBrowser shows §8.7's alert on the Schedules page:
// the scheduler beat at 07:00, promising 07:05, and then stopped; at
// 07:07:30, with a release due later today, the rule says stalled and the
// page says so, in Turkish and English. No ticker runs, and the backstop
// has just looked (at 07:06:59.999, when nothing was overdue yet), so the
// pages' requests do not tick for it either.
func TestStalledBannerInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seven := time.Date(2026, 11, 2, 4, 0, 0, 0, time.UTC) // 07:00 in Istanbul
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "studio.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	clock := fakeclock.New(seven)
	a := newApp(st, clock, slog.New(slog.NewTextHandler(io.Discard, nil)), false)
	if seeded, err := seedDemo(ctx, a.releases, st); err != nil || !seeded {
		t.Fatalf("seed: %v %v", seeded, err)
	}
	f := (&browserApp{clock: clock, eng: a.releases, nodes: a.nodes, identity: a.identity}).demo(t)
	f.schedule(f.user("editor@demo.test"), f.node("Election night live"), "2026-11-02", "18:00")
	if due, err := st.DueReleases(ctx, seven.Add(10*time.Minute), 1); err != nil || len(due) != 0 {
		t.Fatalf("the demo has work due before 07:10: %v %v", due, err)
	}
	rep, err := a.ticker.RunDue(ctx, "node")
	must(t, err)
	if promise := seven.Add(5 * time.Minute); !rep.At.Equal(seven) {
		t.Fatalf("tick at %v", rep.At)
	} else if hb, err := a.ticker.Heartbeat(ctx); err != nil || !hb.NextWakeAt.Equal(promise) {
		t.Fatalf("heartbeat %+v %v, want the promise %v", hb, err, promise)
	}
	// The backstop looks within the grace and leaves it alone.
	clock.Set(seven.Add(7*time.Minute - time.Millisecond))
	if ran, err := a.ticker.Backstop(ctx); err != nil || ran {
		t.Fatalf("backstop within the grace: ran %v %v", ran, err)
	}
	clock.Set(seven.Add(7*time.Minute + 30*time.Second))
	if stalled, err := a.ticker.Stalled(ctx); err != nil || !stalled {
		t.Fatalf("stalled at 07:07:30: %v %v", stalled, err)
	}
	srv := httptest.NewServer(a.handler)
	t.Cleanup(func() { srv.Close(); a.ticker.Stop() })

	b := newBrowser(t)
	must(t, do(b,
		chromedp.Navigate(srv.URL+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "owner@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="tr"]`)),
		chromedp.Navigate(srv.URL+"/studio/schedules"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="stalled-banner"]`)),
	))
	wantContains(t, "banner (tr)", text(t, b, `[data-testid="stalled-banner"]`), "Zamanlanmış işler çalışmıyor",
		"Son çalışma: 2 Kasım Pazartesi 07:00 İstanbul", "zamanında yayımlanmaz", "zamanlayıcı durumu")
	shots(t, b, "schedules-stalled-tr")

	must(t, a.identity.SetLanguage(ctx, f.user("owner@demo.test"), "en"))
	must(t, do(b, chromedp.Navigate(srv.URL+"/studio/schedules"), chromedp.WaitVisible(chromedp.CSS(`html[lang="en"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="stalled-banner"]`))))
	wantContains(t, "banner (en)", text(t, b, `[data-testid="stalled-banner"]`), "Scheduled work is not running",
		"Last tick: Monday 2 November 07:00 Istanbul", "not published at their times", "Scheduler status")
	shots(t, b, "schedules-stalled-en")

	// A tick: the rule says running again, and the banner goes.
	_, err = a.ticker.RunDue(ctx, "manual")
	must(t, err)
	must(t, do(b, chromedp.Navigate(srv.URL+"/studio/schedules"), chromedp.WaitVisible(chromedp.CSS("main"))))
	n, err := chromedp.Run(b, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="stalled-banner"]').length`))
	must(t, err)
	if n != 0 {
		t.Fatalf("%d stalled banners after a tick", n)
	}
}
