package automations_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/internal/enginetest"
	"studio/engine/model/automation"
	"studio/engine/policy"
)

// beginTask creates the task, opens its window with a person's Run now and
// begins its run as its key.
func (b *testBundle) beginTask(t *testing.T, in automations.Input) (automations.Automation, engine.User, string) {
	t.Helper()
	ctx := context.Background()
	a, key := b.task(t, in)
	if _, _, err := b.auto.RunNow(ctx, b.Editor, b.Site.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	env, err := b.auto.BeginRun(ctx, key, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a, key, env.RunID
}

// TestStartCallOutsideAndInsideRun: outside a run an automation's key
// reaches only begin_run, get_mode and its own pause, in its mode capped by
// the modeCap; inside, the call carries the run's id and mode, and End
// counts it.
func TestStartCallOutsideAndInsideRun(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key := b.task(t, taskInput())
	for _, tool := range []string{"list_releases", "get_content", "end_run"} {
		c, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: tool})
		enginetest.WantRefusal(t, err, automations.CodeOutsideRun, "")
		if c.Run != nil || c.User.Agent.RunID != "" || c.End(ctx, automations.CallResult{Refused: true}) != nil {
			t.Fatalf("%s outside a run: %+v", tool, c)
		}
	}
	c, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "get_mode"})
	if err != nil || c.Run != nil || c.User.Agent.Mode != policy.ModeManual {
		t.Fatalf("get_mode outside a run: %+v, %v; want the modeCap's manual", c, err)
	}
	for _, tool := range []string{"begin_run", "pause_automation"} {
		if _, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: tool, AutomationKey: true}); err != nil {
			t.Fatalf("%s of its own automation outside a run: %v", tool, err)
		}
	}
	if _, _, err := b.auto.RunNow(ctx, b.Editor, b.Site.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	env, err := b.auto.BeginRun(ctx, key, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	c, err = b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "list_releases"})
	if err != nil || c.User.Agent.RunID != env.RunID || c.User.Agent.Mode != env.Mode || c.Run == nil ||
		c.Run.BudgetLeft.ToolCalls != automation.DefaultBudget.MaxToolCalls || !c.Run.EndsAt.Equal(env.EndsAt) {
		t.Fatalf("a call in the run: %+v, %v", c, err)
	}
	if key.Agent.RunID != "" {
		t.Fatal("StartCall changed its caller's agent")
	}
	if err := c.End(ctx, automations.CallResult{}); err != nil {
		t.Fatal(err)
	}
	if n := b.Count(t, `SELECT json_extract(ledger, '$.Usage.toolCalls') FROM schedule_runs WHERE id = ?`, env.RunID); n != 1 {
		t.Fatalf("%d tool calls counted, want 1", n)
	}
	// A key of no automation: the gate alone, no run.
	plain := b.Editor
	plain.Agent = &engine.AgentCall{KeyID: "key_desk", Mode: policy.ModeEdits}
	if c, err := b.auto.StartCall(ctx, plain, automations.CallRequest{Tool: "list_releases"}); err != nil || c.Run != nil {
		t.Fatalf("a person's key: %+v, %v", c, err)
	}
}

// TestStartCallStripsUntrusted: an automation that reads untrusted text
// loses content:write, schedules:write and releases:publish on every call,
// even through a key that holds them (§11.4 rule 3).
func TestStartCallStripsUntrusted(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	yes := true
	in := taskInput()
	in.Task.ReadsUntrustedText = &yes
	a, key := b.task(t, in)
	key.Scopes = []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite, policy.ContentWrite, policy.ReleasesPublish}
	c, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "get_mode"})
	if err != nil {
		t.Fatal(err)
	}
	if got := engine.HeldScopes(c.User); len(got) != 1 || got[0] != policy.SchedulesRead {
		t.Fatalf("%s's call holds %v, want schedules:read only", a.Name, got)
	}
	if len(key.Scopes) != 4 {
		t.Fatal("StartCall changed its caller's scopes")
	}
}

// TestNotFoundIsNoRefusal (issue 36, hole 6): ids that are not found do
// not count toward §11.4's ten refusals in a row, whatever their number,
// and do not reset a count of real refusals either; they count as calls.
func TestNotFoundIsNoRefusal(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	_, key, runID := b.beginTask(t, taskInput())
	call := func(res automations.CallResult) error {
		c, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "get_release"})
		if err != nil {
			t.Fatal(err)
		}
		return c.End(ctx, res)
	}
	notFound := automations.CallResult{Refused: true, NotFound: true}
	for i := range 2 * automation.MaxConsecutiveRefusals {
		if err := call(notFound); err != nil {
			t.Fatalf("not-found call %d: %v", i+1, err)
		}
	}
	for range automation.MaxConsecutiveRefusals - 1 {
		if err := call(automations.CallResult{Refused: true}); err != nil {
			t.Fatal(err)
		}
		if err := call(notFound); err != nil {
			t.Fatal(err)
		}
	}
	if st := b.Text(t, `SELECT state FROM schedule_runs WHERE id = ?`, runID); st != string(automation.RunRunning) {
		t.Fatalf("run %s after not-found ids and nine refusals, want running", st)
	}
	enginetest.WantRefusal(t, call(automations.CallResult{Refused: true}), automation.CodeAnomalyRefusals, "")
}

// TestStartCallAnomalyAndTaint: ten refusals in a row kill the run and pause
// the automation; a tainting read taints the run, and the next call is
// gated as tainted (a proposal is refused).
func TestStartCallAnomalyAndTaint(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key, runID := b.beginTask(t, taskInput())
	for i := range automation.MaxConsecutiveRefusals {
		c, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "get_release"})
		if err != nil {
			t.Fatal(err)
		}
		err = c.End(ctx, automations.CallResult{Refused: true})
		if i < automation.MaxConsecutiveRefusals-1 && err != nil {
			t.Fatalf("refusal %d: %v", i+1, err)
		}
		if i == automation.MaxConsecutiveRefusals-1 {
			enginetest.WantRefusal(t, err, automation.CodeAnomalyRefusals, "")
		}
	}
	if st := b.Text(t, `SELECT state FROM schedule_runs WHERE id = ?`, runID); st != string(automation.RunKilled) {
		t.Fatalf("run %s after ten refusals, want killed", st)
	}
	if got, _ := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID); got.State != automations.AutomationAutoPaused {
		t.Fatalf("automation %s after the anomaly, want auto-paused", got.State)
	}

	// A writer that reads comments anyway (not declared untrusted, so it
	// keeps schedules:write): the read taints its run.
	in := taskInput()
	in.Name = "Comment triage"
	in.Task.Scopes = []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite, policy.CommentsRead}
	_, key2, _ := b.beginTask(t, in)
	c, err := b.auto.StartCall(ctx, key2, automations.CallRequest{Tool: "list_comments"})
	if err != nil || c.Run.Tainted {
		t.Fatalf("the first read of comments: %+v, %v", c, err)
	}
	if err := c.End(ctx, automations.CallResult{}); err != nil {
		t.Fatal(err)
	}
	c, err = b.auto.StartCall(ctx, key2, automations.CallRequest{Tool: "propose_release", Class: policy.ClassAdvisory})
	enginetest.WantRefusal(t, err, engine.CodeTainted, "")
	if c.Run == nil || !c.Run.Tainted {
		t.Fatalf("the run after reading comments: %+v", c.Run)
	}
}

// TestStartCallBudget: the call the budget has no room for is refused
// before it runs, ends the run budget-exceeded and pauses the automation.
func TestStartCallBudget(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	in := taskInput()
	budget := automation.DefaultBudget
	budget.MaxToolCalls, budget.MaxWrites = 2, 0
	in.Task.Budget = &budget
	a, key, runID := b.beginTask(t, in)
	// A pause is never stopped by the budget.
	if _, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "pause_automation", AutomationKey: true, MayWrite: true}); err != nil {
		t.Fatalf("pause_automation with no writes left: %v", err)
	}
	_, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "list_releases", MayWrite: true})
	enginetest.WantRefusal(t, err, automation.CodeBudgetWrites, "maxWrites")
	if st := b.Text(t, `SELECT state FROM schedule_runs WHERE id = ?`, runID); st != string(automation.RunBudgetExceeded) {
		t.Fatalf("run %s, want budget-exceeded", st)
	}
	if got, _ := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID); got.State != automations.AutomationAutoPaused ||
		got.PausedReason != string(automation.ReasonBudget) {
		t.Fatalf("automation %s %s, want auto-paused budget", got.State, got.PausedReason)
	}
}

// TestStartCallDailyWriteCap: once the site's automations have made
// dailyWriteCap writes today (audit rows carrying an automation), the next
// write of any run is refused, ends the run budget-exceeded and pauses its
// automation; a read still goes through until then.
func TestStartCallDailyWriteCap(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key, runID := b.beginTask(t, taskInput())
	now := b.Clock.Now().UTC().Format(time.RFC3339Nano)
	b.Exec(t, `INSERT INTO schedule_settings (site_id, paused, daily_write_cap, rev, updated_at, updated_by)
		VALUES (?, 0, 1, 1, ?, '{}')`, b.Site.ID, now)
	if _, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "propose_release", MayWrite: true}); err != nil {
		t.Fatalf("the first write under a cap of 1: %v", err)
	}
	b.Exec(t, `INSERT INTO audit (at, site_id, action, actor, automation_id, details) VALUES (?, ?, 'release.create', '{}', ?, '{}')`,
		now, b.Site.ID, a.ID)
	if _, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "list_releases"}); err != nil {
		t.Fatalf("a read at the cap: %v", err)
	}
	_, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "propose_release", MayWrite: true})
	enginetest.WantRefusal(t, err, automation.CodeDailyWriteCap, "dailyWriteCap")
	if st := b.Text(t, `SELECT state FROM schedule_runs WHERE id = ?`, runID); st != string(automation.RunBudgetExceeded) {
		t.Fatalf("run %s, want budget-exceeded", st)
	}
	if got, _ := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID); got.State != automations.AutomationAutoPaused {
		t.Fatalf("automation %s, want auto-paused", got.State)
	}
}

// TestStartCallAfterDemotion: the owner's demotion shows on the key's
// next call (§11.8): once the role no longer allows the task's modeCap,
// the automation is broken (role-changed), its run killed, and the call
// refused; a role that still fits changes nothing.
func TestStartCallAfterDemotion(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	in := taskInput()
	in.Task.ModeCap = policy.ModeAuto
	a, key, runID := b.beginTask(t, in)
	key.Agent.Mode = policy.ModeAuto
	if _, err := b.auto.StartCall(ctx, key, automations.CallRequest{Tool: "list_releases"}); err != nil {
		t.Fatalf("an Editor's auto task: %v", err)
	}
	demoted := key
	demoted.Role = policy.Author // Authenticate caps the key's mode by the role: edits
	demoted.Agent = &engine.AgentCall{KeyID: key.Agent.KeyID, Mode: policy.ModeEdits, AutomationID: a.ID}
	_, err := b.auto.StartCall(ctx, demoted, automations.CallRequest{Tool: "list_releases"})
	enginetest.WantRefusal(t, err, automations.CodeRoleChanged, "")
	got, _ := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID)
	if got.State != automations.AutomationBroken || got.PausedReason != string(automation.ReasonRoleChanged) {
		t.Fatalf("automation %s %s after the demotion, want broken role-changed", got.State, got.PausedReason)
	}
	if st := b.Text(t, `SELECT state FROM schedule_runs WHERE id = ?`, runID); st != string(automation.RunKilled) {
		t.Fatalf("run %s, want killed", st)
	}
}

// TestPauseByAgent: the automation's own key pauses it (its run killed);
// a key holding schedules:write pauses its owner's automations only; a
// reason that is not plain text of at most 500 characters changes nothing.
func TestPauseByAgent(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key, runID := b.beginTask(t, taskInput())
	b.RefuseChange(t, automations.CodeBadPauseReason, "reason", func() error {
		_, err := b.auto.PauseByAgent(ctx, key, a.ID, strings.Repeat("x", automations.MaxPauseReasonLength+1))
		return err
	})
	b.RefuseChange(t, automations.CodeBadPauseReason, "reason", func() error {
		_, err := b.auto.PauseByAgent(ctx, key, a.ID, "stop\x00now")
		return err
	})
	got, err := b.auto.PauseByAgent(ctx, key, a.ID, "Stopping: the drafts look wrong.")
	if err != nil || got.State != automations.AutomationPaused || got.PausedReason != string(automation.ReasonAgent) {
		t.Fatalf("paused by its key: %+v, %v", got, err)
	}
	if st := b.Text(t, `SELECT state FROM schedule_runs WHERE id = ?`, runID); st != string(automation.RunKilled) {
		t.Fatalf("run %s after the pause, want killed", st)
	}

	in := taskInput()
	in.Name = "Evening triage"
	other, _ := b.task(t, in)
	author := b.AddUser(t, "Ayla Author", policy.Author)
	authorKey := author
	authorKey.Agent = &engine.AgentCall{KeyID: "key_author", Mode: policy.ModeEdits}
	b.RefuseChange(t, engine.CodeForbidden, "", func() error {
		_, err := b.auto.PauseByAgent(ctx, authorKey, other.ID, "not mine")
		return err
	})
	readOnly := b.Editor
	readOnly.Scopes = []policy.Scope{policy.SchedulesRead}
	readOnly.Agent = &engine.AgentCall{KeyID: "key_read", Mode: policy.ModeEdits}
	b.RefuseChange(t, engine.CodeForbidden, "", func() error {
		_, err := b.auto.PauseByAgent(ctx, readOnly, other.ID, "")
		return err
	})
	desk := b.Editor
	desk.Scopes = []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite}
	desk.Agent = &engine.AgentCall{KeyID: "key_desk", Mode: policy.ModePlan}
	if got, err := b.auto.PauseByAgent(ctx, desk, other.ID, ""); err != nil || got.PausedReason != string(automation.ReasonAgent) {
		t.Fatalf("its owner's key with schedules:write: %+v, %v", got, err)
	}
}

// TestTakeOver: an Administrator takes over an agent task broken by its
// owner's demotion (§11.8): it is theirs, active again with a new key
// (whose secret is in the answer only) and the owner's run gone; nobody
// below Administrator may, and a stale rev changes nothing.
func TestTakeOver(t *testing.T) {
	b, m := setupTasks(t)
	ctx := context.Background()
	in := taskInput()
	in.Task.ModeCap = policy.ModeAuto
	a, key, _ := b.beginTask(t, in)
	demoted := key
	demoted.Role = policy.Author
	demoted.Agent = &engine.AgentCall{KeyID: key.Agent.KeyID, Mode: policy.ModeEdits, AutomationID: a.ID}
	b.auto.StartCall(ctx, demoted, automations.CallRequest{Tool: "list_releases"})
	broken, _ := b.auto.Get(ctx, b.Admin, b.Site.ID, a.ID)
	if broken.State != automations.AutomationBroken {
		t.Fatalf("not broken: %s", broken.State)
	}
	if automations.AbilitiesFor(b.Editor, broken, false).TakeOver || !automations.AbilitiesFor(b.Admin, broken, false).TakeOver {
		t.Fatal("TakeOver's ability: Administrators only")
	}
	b.RefuseChange(t, engine.CodeForbidden, "", func() error {
		_, err := b.auto.TakeOver(ctx, b.Editor, b.Site.ID, a.ID, broken.Rev)
		return err
	})
	b.RefuseChange(t, engine.CodeStale, "rev", func() error {
		_, err := b.auto.TakeOver(ctx, b.Admin, b.Site.ID, a.ID, broken.Rev-1)
		return err
	})
	mints := len(m.mint)
	got, err := b.auto.TakeOver(ctx, b.Admin, b.Site.ID, a.ID, broken.Rev)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != automations.AutomationActive || got.Owner.ID != b.Admin.ID || got.NewKey == nil || got.NewKey.Secret == "" ||
		got.Task.KeyID != got.NewKey.ID || got.Task.KeyID == a.Task.KeyID || len(m.mint) != mints+1 {
		t.Fatalf("taken over: %+v (task %+v)", got, got.Task)
	}
	again, _ := b.auto.Get(ctx, b.Admin, b.Site.ID, a.ID)
	if again.Owner.ID != b.Admin.ID || again.Task.KeyID != got.NewKey.ID || again.State != automations.AutomationActive {
		t.Fatalf("as stored: owner %s key %s state %s", again.Owner.ID, again.Task.KeyID, again.State)
	}
}
