package services_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/internal/enginetest"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/engine/scheduler"
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
	if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, body); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
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

// A weekly digest that ran is a notification for its owner, whose numbers
// the job rebuilds from the run (§14 automation-digest).
func TestWeeklyDigestIsTheOwnersNotification(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := enginetest.New(t)
	svc := services.Of(b.Eng, b.Store, b.Clock, nil)
	b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	b.Clock.Set(enginetest.Nine)
	if rep := b.Tick(t); rep.Published != 1 {
		t.Fatalf("publish: %+v", rep)
	}
	a, err := svc.Automations.Create(ctx, b.Owner, b.Site.ID, automations.Input{Name: "Monday digest",
		Builtin: automation.BuiltinWeeklyDigest, Preset: "weekly", Start: "2026-11-03T07:10"})
	if err != nil {
		t.Fatal(err)
	}
	b.Clock.Set(*a.NextRunAt)
	for range 3 {
		if _, err := svc.Scheduler.RunDue(ctx, "manual"); err != nil {
			t.Fatal(err)
		}
		b.Clock.Advance(time.Minute)
	}
	var digest *scheduler.Notification
	list, err := svc.Scheduler.Notifications(ctx, b.Owner, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range list {
		if n.Kind == scheduler.NoticeAutomationDigest {
			digest = &list[i]
		}
	}
	if digest == nil || digest.AutomationID != a.ID || digest.Title != "Monday digest" {
		t.Fatalf("notifications %+v, want the digest", list)
	}
	d, err := svc.Jobs.Digest(ctx, a.ID, digest.RunID)
	if err != nil || d.Releases.Published != 1 {
		t.Fatalf("digest %+v (%v), want the week's one published release", d, err)
	}
	others, err := svc.Scheduler.Notifications(ctx, b.Editor, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range others {
		if n.Kind == scheduler.NoticeAutomationDigest {
			t.Errorf("the editor, who does not own the digest, got it: %+v", n)
		}
	}
}

// The families as wired for an agent task: creating it mints its own key
// with the agent keys' use case; that key's secret authenticates as the
// automation's key, and inside the window Run now opens it begins the
// run, in the automation's mode cap. Revoking the key breaks the task.
func TestAgentTaskKeyIsTheAutomationsOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := enginetest.New(t)
	svc := services.Of(b.Eng, b.Store, b.Clock, nil)
	no := false
	a, err := svc.Automations.Create(ctx, b.Editor, b.Site.ID, automations.Input{Name: "Morning planner", Preset: "daily",
		Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Plan the day's releases.",
			ModeCap: policy.ModeManual, ReadsUntrustedText: &no, WindowMinutes: 30}})
	if err != nil {
		t.Fatal(err)
	}
	if a.NewKey == nil || !strings.HasPrefix(a.NewKey.Secret, agents.SecretPrefix) || a.Task.KeyID != a.NewKey.ID {
		t.Fatalf("created agent task's key %+v (task %+v), want a minted key", a.NewKey, a.Task)
	}
	keys, err := svc.Agents.Keys(ctx, b.Editor, b.Site.ID)
	if err != nil || len(keys) != 1 || keys[0].ID != a.NewKey.ID || keys[0].AutomationID != a.ID || keys[0].Name != "Morning planner" {
		t.Fatalf("the Editor's keys %+v, %v: want the task's own", keys, err)
	}
	agent, err := svc.Agents.Authenticate(ctx, a.NewKey.Secret)
	if err != nil || agent.Agent == nil || agent.Agent.AutomationID != a.ID || agent.ID != b.Editor.ID {
		t.Fatalf("authenticated as %+v, %v: want the Editor's agent for %s", agent, err, a.ID)
	}
	if _, _, err := svc.Automations.RunNow(ctx, b.Editor, b.Site.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	env, err := svc.Automations.BeginRun(ctx, agent, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if env.Mode != policy.ModeManual || env.RunID == "" {
		t.Fatalf("envelope %+v, want a manual-mode run", env)
	}
	if err := svc.Agents.Revoke(ctx, b.Editor, b.Site.ID, a.NewKey.ID); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Automations.Get(ctx, b.Editor, b.Site.ID, a.ID)
	if err != nil || got.State != automations.AutomationBroken || got.PausedReason != string(automation.ReasonKeyRevoked) {
		t.Fatalf("after revoking its key: %+v, %v; want broken, key-revoked", got, err)
	}
	if _, err := svc.Agents.Authenticate(ctx, a.NewKey.Secret); err == nil {
		t.Error("a revoked key still authenticates")
	}
}
