package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/policy"
)

// The weekly digest's notice shows its numbers under its sentence, in the
// owner's language.
func TestWeeklyDigestNotice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newApp(t)
	owner := a.addUser(t, "owner@example.com", "Oya Owner", policy.Owner, "tr")
	au, err := a.aut.Create(ctx, owner, a.site.ID, automations.Input{Name: "Pazartesi özeti",
		Builtin: automation.BuiltinWeeklyDigest, Preset: "weekly", Start: "2026-11-03T07:10"})
	if err != nil {
		t.Fatal(err)
	}
	a.clock.Set(*au.NextRunAt)
	for range 3 {
		if _, err := a.sched.RunDue(ctx, "manual"); err != nil {
			t.Fatal(err)
		}
		a.clock.Advance(time.Minute)
	}
	page, err := a.aut.Runs(ctx, owner, a.site.ID, automations.RunsQuery{AutomationID: au.ID})
	if err != nil || len(page.Runs) != 1 {
		t.Fatalf("digest runs: %v %v", page.Runs, err)
	}
	run := page.Runs[0].ID
	c := a.signedIn(t, owner)
	// The notice opens the digest's run, whose page shows the same lines.
	c.check(t, scenario{Name: "Digest", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="notice-automation-digest"`, "“Pazartesi özeti” haftalık özeti hazır", `<ul class="details">`,
			`href="/studio/schedules/runs/` + run + `"`}})
	c.check(t, scenario{Name: "DigestRun", URL: "/studio/schedules/runs/" + run, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{`data-testid="run-digest"`, "Bu hafta sitede", "0 yayın paketi yayımlandı", "Başarılı"},
		NotExpectedContent: []string{`data-testid="findings"`, "digest."}})
}

// brokenLinkCheck is a weekly broken-link check that who creates.
func (a *testApp) brokenLinkCheck(t *testing.T, who engine.User) automations.Automation {
	t.Helper()
	au, err := a.aut.Create(context.Background(), who, a.site.ID, automations.Input{Name: "Link check",
		Builtin: automation.BuiltinBrokenLinks, Preset: "weekly", Start: "2026-11-02T07:10"})
	if err != nil {
		t.Fatal(err)
	}
	return au
}
