package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestApprovalInTheBrowser: a Contributor's schedule waits for approval; an
// Editor reviews the pinned version with its diff and approves it; the
// ticker publishes it at its time.
func TestApprovalInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
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

	t.Log("the contributor asks for 10:00")
	login("contributor@demo.test")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/content"),
		chromedp.Click(chromedp.Search(`//a[text()="Election night live"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="schedule"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="schedule-form"]`)),
		chromedp.SetValue(chromedp.CSS("#date"), "2026-11-02"),
		chromedp.SetValue(chromedp.CSS("#time"), "10:00"),
		chromedp.Click(chromedp.CSS(`[data-testid="schedule-form"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.agenda li`)),
	))
	wantContains(t, "contributor's agenda", text(t, ctx, "main"), "Scheduled and sent for approval.", "Waiting for approval")
	must(t, do(ctx, chromedp.Click(chromedp.CSS(`.user-menu > summary`)), chromedp.Click(chromedp.Search(`//button[text()="Sign out"]`)), chromedp.WaitVisible(chromedp.CSS("#email"))))

	t.Log("the editor reviews and approves, in Turkish")
	login("editor@demo.test") // the demo editor speaks Turkish
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/approvals"),
		chromedp.Click(chromedp.Search(`//a[text()="Election night live"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="rendered-after"]`)),
	))
	wantContains(t, "review", text(t, ctx, "main"), "Onay bekliyor", "Chris Contributor onay istedi", "Henüz yayında değil",
		"Sabitlenmiş sürüm 2", "Onaydan sonra", "Follow the results here as soon as the polls close.", "Yayımlandı", "10:00 İstanbul", "Onaylarsanız tam olarak bu sürümler")
	shots(t, ctx, "approval-tr")
	must(t, do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="approve"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="release-when"]`)),
	))
	wantContains(t, "approved release", text(t, ctx, "main"), "Onaylandı. Zamanı gelince yayımlanacak.", "Zamanlandı")

	t.Log("at 10:00 the ticker publishes it")
	app.clock.Set(time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC))
	app.waitPublished(t)
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(app.url+"/posts/election-night"))
	must(t, err)
	if resp.Status != 200 {
		t.Fatalf("after its time: status %d", resp.Status)
	}
}
