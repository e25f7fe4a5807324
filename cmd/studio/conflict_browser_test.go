package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/releases"
)

// TestConflictResolvedByRepinningInTheBrowser: an edit of a live article is
// scheduled for 09:00; before then someone rolls back the publish it was
// based on, so at 09:00 the release is held as a conflict. After that,
// someone edits the article again. The editor opens the release, sees the
// pinned base, the version live now and the pinned target side by side
// (Re-base is not possible: the article was edited since), re-pins it for
// 09:30 — which is her approval. The article is locked again; she edits it
// with "Edit and re-approve", and at 09:30 that version is live.
func TestConflictResolvedByRepinningInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)) // 08:00 in Istanbul
	demo := app.demo(t)
	ctx, eng, site := demo.ctx, app.eng, demo.site
	owner, editor := demo.user("owner@demo.test"), demo.user("editor@demo.test")
	must(t, app.identity.SetLanguage(ctx, editor, "en"))
	welcome := demo.node("Welcome to the Gazette")
	edit := func(text string) content.Node {
		t.Helper()
		d, err := demo.nodes.Node(ctx, engine.Reader(site.ID), site.ID, welcome)
		must(t, err)
		body := d.Body
		body.Text = text
		n, err := demo.nodes.SaveNode(ctx, owner, site.ID, d.ID, d.Rev, body)
		must(t, err)
		return n
	}
	schedule := func(n content.Node, clock string) string {
		t.Helper()
		r, err := eng.ScheduleNode(ctx, owner, releases.ScheduleInput{SiteID: site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
			Date: "2026-11-02", Time: clock})
		must(t, err)
		return r.ID
	}

	t.Log("08:30: a correction goes live; an update is scheduled for 09:00 on top of it")
	first := schedule(edit("This is the first article of the Demo Gazette.\n\nCorrected at 08:30."), "08:30")
	app.clock.Set(time.Date(2026, 11, 2, 5, 30, 0, 0, time.UTC))
	app.waitPublished(t)
	second := schedule(edit("This is the first article of the Demo Gazette.\n\nCorrected at 08:30.\n\nUpdated for 09:00."), "09:00")

	t.Log("08:45: the owner undoes the correction; 09:00: the update is held as a conflict")
	plan, err := eng.PlanUndo(ctx, owner, site.ID, first)
	must(t, err)
	_, err = eng.Undo(ctx, owner, site.ID, first, plan.Site.Rev)
	must(t, err)
	app.clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	app.waitHeld(t)
	edit("This is the first article of the Demo Gazette.\n\nUpdated for 09:00.\n\nTurnout: 84%.") // free again, edited

	t.Log("the editor compares and re-pins")
	b := newBrowser(t)
	must(t, do(b,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
		chromedp.Navigate(app.url+"/studio/releases/"+second),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="three-way"]`)),
	))
	wantContains(t, "conflict view", text(t, b, "main"), "Conflict", "What changed since it was pinned",
		"Pinned base · version 2", "Live now · version 1", "Pinned version 3", "Updated for 09:00.",
		"Re-base is not possible: “Welcome to the Gazette” was edited after the conflict",
		"Re-pin takes the current working copy: version 4.", "choosing one is your approval")
	wantContains(t, "base → live", text(t, b, `[data-testid="diff-to-live"]`), "- Corrected at 08:30.")
	wantContains(t, "base → target", text(t, b, `[data-testid="diff-to-target"]`), "+ Updated for 09:00.")
	rebaseDisabled, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.querySelector('[data-testid="rebase"]').disabled`))
	must(t, err)
	if !rebaseDisabled {
		t.Error("Re-base is enabled although the article was edited since")
	}
	shots(t, b, "conflict-en")
	must(t, app.identity.SetLanguage(ctx, editor, "tr"))
	must(t, do(b, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="three-way"]`))))
	wantContains(t, "Turkish conflict view", text(t, b, "main"), "Çakışma", "Sabitlenmiş taban · sürüm 2",
		"Şu an yayında · sürüm 1", "Yeniden sabitle", "Tabanı güncelle")
	shots(t, b, "conflict-tr")
	must(t, app.identity.SetLanguage(ctx, editor, "en"))

	must(t, do(b,
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="resolve-form"]`)),
		chromedp.SetValue(chromedp.CSS("#resolve-date"), "2026-11-02"),
		chromedp.SetValue(chromedp.CSS("#resolve-time"), "09:30"),
		chromedp.Focus(chromedp.CSS(`[data-testid="repin"]`)),
		chromedp.KeyEvent("\r"), // the keyboard path
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="release-when"]`)),
	))
	page := waitText(t, b, "main", "Re-pinned and approved.")
	wantContains(t, "re-pinned release", page, "Scheduled", "09:30", "Elif Editor re-pinned it")

	t.Log("the article is locked again; she edits it and re-approves in one act")
	must(t, do(b,
		chromedp.Navigate(app.url+"/studio/content/"+welcome),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="held"]`)),
	))
	wantContains(t, "locked editor", text(t, b, "main"), "Locked: publishes on 2 November 2026, 09:30.",
		"Unschedule and edit", "Edit and re-approve")
	must(t, do(b,
		chromedp.Focus(chromedp.CSS(`[data-testid="edit-scheduled-open"]`)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="save-scheduled"]`)),
	))
	wantContains(t, "edit path", text(t, b, "main"), "records your approval again", "Save and re-approve")
	shots(t, b, "edit-reapprove-en")
	body, err := chromedp.Run(b, chromedp.Value(chromedp.CSS("#body")))
	must(t, err)
	must(t, do(b,
		chromedp.SetValue(chromedp.CSS("#body"), body+"\n\nPolls closed at 17:00."),
		chromedp.Click(chromedp.CSS(`[data-testid="save-scheduled"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="held"]`)),
	))
	waitText(t, b, "main", "Saved and pinned. Your approval is recorded again.")

	t.Log("09:30: the current version is live")
	app.clock.Set(time.Date(2026, 11, 2, 6, 30, 0, 0, time.UTC))
	app.waitPublished(t)
	must(t, do(b, chromedp.Navigate(app.url+"/posts/welcome"), chromedp.WaitVisible(chromedp.CSS("main"))))
	wantContains(t, "public article", text(t, b, "main"), "Updated for 09:00.", "Turnout: 84%.", "Polls closed at 17:00.")
}
