package studio_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

// The weekly digest's notice shows its numbers under its sentence, in the
// owner's language.
func TestWeeklyDigestNotice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "tr")
	au, err := a.Automations.Create(ctx, owner, a.Site.ID, automations.Input{Name: "Pazartesi özeti",
		Builtin: automation.BuiltinWeeklyDigest, Preset: "weekly", Start: "2026-11-03T07:10"})
	if err != nil {
		t.Fatal(err)
	}
	a.Clock.Set(*au.NextRunAt)
	for range 3 {
		if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
			t.Fatal(err)
		}
		a.Clock.Advance(time.Minute)
	}
	page, err := a.Automations.Runs(ctx, owner, a.Site.ID, automations.RunsQuery{AutomationID: au.ID})
	if err != nil || len(page.Runs) != 1 {
		t.Fatalf("digest runs: %v %v", page.Runs, err)
	}
	run := page.Runs[0].ID
	c := a.SignedIn(t, owner)
	// The notice opens the digest's run, whose page shows the same lines.
	c.Check(t, apptest.Scenario{Name: "Digest", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="notice-automation-digest"`, "“Pazartesi özeti” haftalık özeti hazır", `<ul class="details">`,
			`href="/studio/schedules/runs/` + run + `"`}})
	c.Check(t, apptest.Scenario{Name: "DigestRun", URL: "/studio/schedules/runs/" + run, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{`data-testid="run-digest"`, "Bu hafta sitede", "0 yayın paketi yayımlandı", "Başarılı"},
		NotExpectedContent: []string{`data-testid="findings"`, "digest."}})
}
