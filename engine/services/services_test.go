package services_test

import (
	"context"
	"testing"
	"time"

	"studio/engine/automation"
	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/internal/enginetest"
	"studio/engine/services"
)

// The families as wired: a broken-link check created through the use case
// runs at its time on the scheduler's tick, through the real job body, and
// its run and findings read back as the screens will read them.
func TestAutomationRunsThroughTheWiredJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := enginetest.New(t)
	svc := services.Of(b.Eng, b.Store, b.Clock, nil)

	d := b.Node(t, b.Article.ID)
	body := d.Body
	body.Status, body.Text = content.StatusPublished, "Results. See [last year's](/posts/election-2025)."
	if _, err := b.Eng.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Eng.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	a, err := svc.Automations.Create(ctx, b.Owner, b.Site.ID, automations.Input{Name: "Broken links",
		Builtin: automation.BuiltinBrokenLinks, Preset: "daily", Start: "2026-11-03T07:10"})
	if err != nil {
		t.Fatal(err)
	}
	if a.NextRunAt == nil || !a.NextRunAt.Equal(time.Date(2026, 11, 3, 4, 10, 0, 0, time.UTC)) {
		t.Fatalf("next run %v, want 3 November 07:10 Istanbul", a.NextRunAt)
	}
	b.Clock.Set(*a.NextRunAt)
	var run automations.Run
	for tick := 0; tick < 10 && run.EndedAt == nil; tick++ {
		if _, err := svc.Scheduler.RunDue(ctx, "manual"); err != nil {
			t.Fatal(err)
		}
		page, err := svc.Automations.Runs(ctx, b.Owner, b.Site.ID, automations.RunsQuery{AutomationID: a.ID})
		if err != nil || len(page.Runs) != 1 {
			t.Fatalf("runs %+v, %v", page.Runs, err)
		}
		run = page.Runs[0]
		b.Clock.Advance(time.Minute)
	}
	if run.State != string(automation.RunSucceeded) || run.Outcome != string(automation.OutcomeDidWork) {
		t.Fatalf("run %+v, want succeeded with work done", run)
	}
	f, err := svc.Jobs.RunFindings(ctx, a.ID, run.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.New) != 1 || f.New[0].NodeID != b.Article.ID || f.New[0].Target != "/posts/election-2025" {
		t.Fatalf("findings %+v, want the article's link to /posts/election-2025", f.New)
	}
}
