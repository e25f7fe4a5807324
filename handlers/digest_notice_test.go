package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automation"
	"studio/engine/automations"
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
	c := a.signedIn(t, owner)
	c.check(t, scenario{Name: "Digest", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="notice-automation-digest"`, "“Pazartesi özeti” haftalık özeti hazır", `<ul class="details">`}})
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
