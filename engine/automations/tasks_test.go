package automations_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/internal/enginetest"
	"studio/engine/model/automation"
	"studio/engine/policy"
)

// fakeMinter mints keys in memory, as engine/agents would: the secret is
// its answer only.
type fakeMinter struct {
	mu   sync.Mutex
	n    int
	mint []string // automation ids, in order
	fail error
}

func (f *fakeMinter) MintForAutomation(_ context.Context, _ engine.User, _, automationID, _ string, _ policy.Mode, _ []policy.Scope) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return "", "", f.fail
	}
	f.n++
	f.mint = append(f.mint, automationID)
	return fmt.Sprintf("key_%d", f.n), fmt.Sprintf("sk_secret_%d_%s", f.n, automationID), nil
}

func yes() *bool { v := true; return &v }
func no() *bool  { v := false; return &v }

// taskInput is a daily agent task at 09:00 (site time) with a 30-minute
// window and the default budget (15 minutes).
func taskInput() automations.Input {
	return automations.Input{Name: "Morning triage", Preset: "daily", Start: "2026-11-02T09:00",
		Task: &automations.TaskInput{Instructions: "Look at yesterday's drafts.\nPropose one.", ModeCap: policy.ModeManual,
			ReadsUntrustedText: no(), WindowMinutes: 30}}
}

func setupTasks(t *testing.T) (*testBundle, *fakeMinter) {
	b := setup(t)
	m := &fakeMinter{}
	b.auto.SetKeyMinter(m)
	return b, m
}

// agentOf is the call of a's own key (edits mode, as the key was minted).
func agentOf(u engine.User, a automations.Automation, keyID string) engine.User {
	u.Agent = &engine.AgentCall{KeyID: keyID, KeyName: a.Name, Mode: policy.ModeEdits, AutomationID: a.ID}
	return u
}

func (b *testBundle) task(t *testing.T, in automations.Input) (automations.Automation, engine.User) {
	t.Helper()
	a, err := b.auto.Create(context.Background(), b.Editor, b.Site.ID, in)
	if err != nil {
		t.Fatalf("create task: %v", err)
	}
	if a.NewKey == nil {
		t.Fatal("no key in Create's answer")
	}
	return a, agentOf(b.Editor, a, a.NewKey.ID)
}

// at sets the clock to a wall-clock time on 2 November 2026 in Istanbul.
func (b *testBundle) at(clock string) time.Time {
	loc, _ := time.LoadLocation("Europe/Istanbul")
	var h, m int
	fmt.Sscanf(clock, "%d:%d", &h, &m)
	t := time.Date(2026, 11, 2, h, m, 0, 0, loc)
	b.Clock.Set(t)
	return t
}

// TestTaskCreateMintsItsOwnKeyOnce: saving an agent task mints one key for
// it; the secret is in Create's answer and nowhere else.
func TestTaskCreateMintsItsOwnKeyOnce(t *testing.T) {
	b, m := setupTasks(t)
	ctx := context.Background()
	a, _ := b.task(t, taskInput())
	if len(m.mint) != 1 || m.mint[0] != a.ID {
		t.Fatalf("minted for %v, want one key for %s", m.mint, a.ID)
	}
	if a.Task == nil || a.Task.KeyID != a.NewKey.ID || a.Task.ModeCap != policy.ModeManual || a.Task.WindowMinutes != 30 ||
		a.Task.Budget != automation.DefaultBudget {
		t.Fatalf("task = %+v", a.Task)
	}
	got, err := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.NewKey != nil || got.Task == nil || got.Task.KeyID != a.NewKey.ID || got.Task.Instructions != a.Task.Instructions {
		t.Fatalf("read back: key %+v task %+v", got.NewKey, got.Task)
	}
	if n := b.Count(t, `SELECT (SELECT count(*) FROM automations WHERE instr(COALESCE(task, ''), ?) > 0)
		+ (SELECT count(*) FROM audit WHERE instr(COALESCE(details, ''), ?) > 0)`, a.NewKey.Secret, a.NewKey.Secret); n != 0 {
		t.Fatalf("the secret is stored in %d rows", n)
	}
	// Defaults: modeCap edits, a 30-minute window, the §11.5 budget.
	in := taskInput()
	in.Name, in.Task.ModeCap, in.Task.WindowMinutes = "Defaults", "", 0
	d, _ := b.task(t, in)
	if d.Task.ModeCap != policy.ModeEdits || d.Task.WindowMinutes != automations.DefaultWindowMinutes {
		t.Fatalf("defaults = %+v", d.Task)
	}
	// Without scopes, the key gets its modeCap's defaults within the
	// owner's role, as a person's key does: an edits task drafts and
	// proposes; one that reads visitor text never holds a write scope.
	for _, c := range []struct {
		mode      policy.Mode
		untrusted bool
		want      []policy.Scope
	}{
		{policy.ModePlan, false, []policy.Scope{policy.ContentRead, policy.SchedulesRead}},
		{policy.ModeManual, false, []policy.Scope{policy.ContentRead, policy.SchedulesRead, policy.SchedulesWrite}},
		{policy.ModeEdits, false, []policy.Scope{policy.ContentRead, policy.ContentWrite, policy.SchedulesRead, policy.SchedulesWrite}},
		{policy.ModeEdits, true, []policy.Scope{policy.ContentRead, policy.SchedulesRead}},
	} {
		in := taskInput()
		in.Name, in.Task.ModeCap, in.Task.ReadsUntrustedText = "Scopes "+string(c.mode), c.mode, &c.untrusted
		a, _ := b.task(t, in)
		if !slices.Equal(a.Task.Scopes, c.want) {
			t.Errorf("%s task (visitor text %v): scopes %v, want %v", c.mode, c.untrusted, a.Task.Scopes, c.want)
		}
	}
}

// TestTaskCreateRefusesOneCodePerRule: each rule of an agent task has its
// code and field, and a refusal mints no key and changes nothing.
func TestTaskCreateRefusesOneCodePerRule(t *testing.T) {
	b, m := setupTasks(t)
	ctx := context.Background()
	before := b.Dump(t)
	with := func(f func(*automations.TaskInput)) automations.Input {
		in := taskInput()
		f(in.Task)
		return in
	}
	for _, c := range []struct {
		name        string
		u           engine.User
		in          automations.Input
		code, field string
	}{
		{"Author", b.Author, taskInput(), engine.CodeForbidden, ""},
		{"no untrusted flag", b.Editor, with(func(t *automations.TaskInput) { t.ReadsUntrustedText = nil }), automation.CodeMissingUntrusted, "job.readsUntrustedText"},
		{"bypass", b.Editor, with(func(t *automations.TaskInput) { t.ModeCap = policy.ModeBypass }), automation.CodeModeCapBypass, "job.modeCap"},
		{"unknown mode", b.Editor, with(func(t *automations.TaskInput) { t.ModeCap = "yolo" }), automation.CodeUnknownModeCap, "job.modeCap"},
		{"short window", b.Editor, with(func(t *automations.TaskInput) { t.WindowMinutes = 4 }), automation.CodeWindowMinutes, "job.windowMinutes"},
		{"long window", b.Editor, with(func(t *automations.TaskInput) { t.WindowMinutes = 241 }), automation.CodeWindowMinutes, "job.windowMinutes"},
		{"budget", b.Editor, with(func(t *automations.TaskInput) {
			t.Budget = &automation.Budget{MaxToolCalls: 501, MaxWrites: 1, MaxApprovalRequests: 1, MaxMinutes: 5}
		}), automation.CodeBudgetOutOfRange, "job.budget.maxToolCalls"},
		{"no instructions", b.Editor, with(func(t *automations.TaskInput) { t.Instructions = "  " }), automation.CodeBadInstructions, "job.instructions"},
		{"long instructions", b.Editor, with(func(t *automations.TaskInput) { t.Instructions = strings.Repeat("a", 2001) }), automation.CodeBadInstructions, "job.instructions"},
		{"bidi instructions", b.Editor, with(func(t *automations.TaskInput) { t.Instructions = "ok \u202e evil" }), automation.CodeBadInstructions, "job.instructions"},
		{"untrusted with content:write", b.Editor, with(func(t *automations.TaskInput) {
			t.ReadsUntrustedText = yes()
			t.Scopes = []policy.Scope{policy.SchedulesRead, policy.ContentWrite}
		}), automation.CodeUntrustedScope, "content:write"},
		{"untrusted with asset:read", b.Editor, with(func(t *automations.TaskInput) {
			t.ReadsUntrustedText = yes()
			t.Scopes = []policy.Scope{policy.AssetRead}
		}), automation.CodeUntrustedScope, "asset:read"},
		{"unknown scope", b.Editor, with(func(t *automations.TaskInput) { t.Scopes = []policy.Scope{"content:everything"} }), automations.CodeUnknownScope, "scopes"},
		{"automations:manage", b.Editor, with(func(t *automations.TaskInput) { t.Scopes = []policy.Scope{policy.AutomationsManage} }), automations.CodeUnknownScope, "scopes"},
		{"builtin too", b.Editor, func() automations.Input { in := taskInput(); in.Builtin = automation.BuiltinCleanup; return in }(), automation.CodeFieldNotAllowed, "job.builtin"},
		{"bad rule", b.Editor, func() automations.Input { in := taskInput(); in.Preset, in.Rule = "custom", "FREQ=MINUTELY"; return in }(), automations.CodeBadRule, "rule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := b.auto.Create(ctx, c.u, b.Site.ID, c.in)
			wantRefusal(t, err, c.code, c.field)
		})
	}
	if len(m.mint) != 0 {
		t.Fatalf("refusals minted keys for %v", m.mint)
	}
	if after := b.Dump(t); after != before {
		t.Fatal("a refused agent task changed the database")
	}
	// Without agent keys wired, no agent task.
	b.auto.SetKeyMinter(nil)
	_, err := b.auto.Create(ctx, b.Editor, b.Site.ID, taskInput())
	wantRefusal(t, err, automations.CodeKeysUnavailable, "")
	if after := b.Dump(t); after != before {
		t.Fatal("a refused agent task changed the database")
	}
}

// TestBeginRunOnlyInsideAWindowAndOnlyByItsKey walks one occurrence:
// before its window outside_run, another automation's key refused, inside
// the envelope with min(key, cap) and endsAt = min(window end, start +
// maxMinutes), a second begin refused, end_run closes it.
func TestBeginRunOnlyInsideAWindowAndOnlyByItsKey(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key := b.task(t, taskInput())
	other, otherKey := b.task(t, func() automations.Input { in := taskInput(); in.Name = "Other"; return in }())
	_ = other

	before := b.Dump(t)
	b.at("08:59")
	_, err := b.auto.BeginRun(ctx, key, a.ID)
	wantRefusal(t, err, automations.CodeOutsideRun, "")
	b.at("09:05")
	_, err = b.auto.BeginRun(ctx, otherKey, a.ID)
	wantRefusal(t, err, automations.CodeNotAutomationKey, "")
	_, err = b.auto.BeginRun(ctx, b.Editor, a.ID) // a person is no key
	wantRefusal(t, err, automations.CodeNotAutomationKey, "")
	if b.Dump(t) != before {
		t.Fatal("a refused begin_run changed the database")
	}

	now := b.at("09:20")
	env, err := b.auto.BeginRun(ctx, key, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if env.Mode != policy.ModeManual { // min(edits key, manual cap)
		t.Errorf("mode = %s, want manual", env.Mode)
	}
	sameInstant(t, "endsAt (the window's end before start + 15 min)", env.EndsAt, now.Add(10*time.Minute))
	if env.Instructions != a.Task.Instructions || env.Budget != automation.DefaultBudget || len(env.Tools) == 0 || len(env.Rules) == 0 {
		t.Errorf("envelope = %+v", env)
	}
	if env.Site.ID != a.SiteID || env.Site.Name == "" {
		t.Errorf("the envelope's site = %+v, want %s", env.Site, a.SiteID)
	}
	// The envelope lists exactly the tools Studio serves that the gate lets
	// this run call in some variant.
	inRun := key
	agent := *key.Agent
	agent.RunID, agent.Mode = env.RunID, env.Mode
	inRun.Agent = &agent
	for _, spec := range policy.Tools() {
		callable := false
		for _, c := range spec.Classes() {
			if _, _, err := engine.AgentMayCall(inRun, spec.Name, c, false, spec.AutomationKey); err == nil {
				callable = true
			}
		}
		if listed := slices.Contains(env.Tools, spec.Name); listed != (callable && !spec.NotServed) {
			t.Errorf("%s: listed %v, but served %v and callable %v", spec.Name, listed, !spec.NotServed, callable)
		}
	}
	_, err = b.auto.BeginRun(ctx, key, a.ID)
	wantRefusal(t, err, automations.CodeRunExists, "")

	r, ok, err := b.auto.OpenRun(ctx, key)
	if err != nil || !ok || r.ID != env.RunID || r.Mode != string(policy.ModeManual) {
		t.Fatalf("open run = %+v %v %v", r, ok, err)
	}
	if _, ok, _ := b.auto.OpenRun(ctx, otherKey); ok {
		t.Fatal("another automation's key sees this run")
	}

	before = b.Dump(t)
	_, err = b.auto.EndRun(ctx, key, env.RunID, strings.Repeat("x", 2001), automation.OutcomeDidWork)
	wantRefusal(t, err, automations.CodeBadSummary, "summary")
	_, err = b.auto.EndRun(ctx, key, env.RunID, "ok", "great")
	wantRefusal(t, err, automation.CodeUnknownOutcome, "outcome")
	_, err = b.auto.EndRun(ctx, otherKey, env.RunID, "ok", automation.OutcomeDidWork)
	wantRefusal(t, err, automations.CodeBeginRunFirst, "runId") // its own window is open
	if b.Dump(t) != before {
		t.Fatal("a refused end_run changed the database")
	}
	ended, err := b.auto.EndRun(ctx, key, env.RunID, "Proposed one draft.", automation.OutcomeProposed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.auto.Run(ctx, b.Editor, b.Site.ID, ended.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != string(automation.RunSucceeded) || got.Outcome != string(automation.OutcomeProposed) || got.Summary != "Proposed one draft." {
		t.Fatalf("ended run = %+v", got)
	}
	if _, ok, _ := b.auto.OpenRun(ctx, key); ok {
		t.Fatal("the ended run is still open")
	}
	// The occurrence had its run: no second one, even after it ended.
	_, err = b.auto.BeginRun(ctx, key, a.ID)
	wantRefusal(t, err, automations.CodeRunExists, "")
	// At the window's end (half-open [09:00, 09:30)) the next occurrence's
	// window is not open yet.
	b.at("09:30")
	_, err = b.auto.BeginRun(ctx, key, a.ID)
	wantRefusal(t, err, automations.CodeOutsideRun, "")
}

// TestBeginRunRaceOneRunPerOccurrence: many begin_runs for one occurrence
// at once make exactly one run.
func TestBeginRunRaceOneRunPerOccurrence(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key := b.task(t, taskInput())
	b.at("09:01")
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = b.auto.BeginRun(ctx, key, a.ID) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
			continue
		}
		wantRefusal(t, err, automations.CodeRunExists, "")
	}
	if won != 1 {
		t.Fatalf("%d begin_runs won, want 1", won)
	}
	if c := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id = ?`, a.ID); c != 1 {
		t.Fatalf("%d runs, want 1", c)
	}
}

// TestRecordCallBudgetEndsRunAndPauses: the call past a budget ends the run
// budget-exceeded and auto-pauses the automation.
func TestRecordCallBudgetEndsRunAndPauses(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	in := taskInput()
	in.Task.Budget = &automation.Budget{MaxToolCalls: 3, MaxWrites: 1, MaxApprovalRequests: 1, MaxMinutes: 15}
	a, key := b.task(t, in)
	b.at("09:01")
	env, err := b.auto.BeginRun(ctx, key, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.auto.RecordCall(ctx, env.RunID, automation.Call{Tool: "save_draft", Class: "advisory", Write: true}); err != nil {
		t.Fatal(err)
	}
	if err := b.auto.RecordCall(ctx, env.RunID, automation.Call{Tool: "list_schedule", Class: "read"}); err != nil {
		t.Fatal(err)
	}
	r, _, _ := b.auto.OpenRun(ctx, key)
	if r.Ledger.Usage.ToolCalls != 2 || r.Ledger.Usage.Writes != 1 {
		t.Fatalf("ledger = %+v", r.Ledger)
	}
	err = b.auto.RecordCall(ctx, env.RunID, automation.Call{Tool: "save_draft", Class: "advisory", Write: true})
	wantRefusal(t, err, automation.CodeBudgetWrites, "maxWrites")
	got, _ := b.auto.Run(ctx, b.Editor, b.Site.ID, env.RunID)
	if got.State != string(automation.RunBudgetExceeded) || got.ErrorCode != automation.CodeBudgetWrites {
		t.Fatalf("run = %s %s", got.State, got.ErrorCode)
	}
	au, _ := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID)
	if au.State != automations.AutomationAutoPaused || au.PausedReason != string(automation.ReasonBudget) || au.OpenRunID != "" {
		t.Fatalf("automation = %s %s open %q", au.State, au.PausedReason, au.OpenRunID)
	}
	err = b.auto.RecordCall(ctx, env.RunID, automation.Call{Tool: "list_schedule", Class: "read"})
	wantRefusal(t, err, automations.CodeOutsideRun, "")
}

// TestRecordCallAnomalyKillsAndPauses: ten refusals in a row kill the run
// and pause the automation; taint is recorded from the first tainting call.
func TestRecordCallAnomalyKillsAndPauses(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key := b.task(t, taskInput())
	b.at("09:01")
	env, err := b.auto.BeginRun(ctx, key, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.auto.RecordCall(ctx, env.RunID, automation.Call{Tool: "broken_links", Class: "read"}); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := b.auto.OpenRun(ctx, key); !r.Ledger.Tainted() || r.Ledger.Taint.Tool != "broken_links" {
		t.Fatalf("ledger after broken_links = %+v", r.Ledger)
	}
	for i := range 9 {
		if err := b.auto.RecordCall(ctx, env.RunID, automation.Call{Tool: "save_draft", Class: "advisory", Refused: true}); err != nil {
			t.Fatalf("refusal %d: %v", i+1, err)
		}
	}
	err = b.auto.RecordCall(ctx, env.RunID, automation.Call{Tool: "save_draft", Class: "advisory", Refused: true})
	wantRefusal(t, err, automation.CodeAnomalyRefusals, "")
	got, _ := b.auto.Run(ctx, b.Editor, b.Site.ID, env.RunID)
	if got.State != string(automation.RunKilled) || !got.Ledger.Tainted() || got.Ledger.ConsecutiveRefusals != 10 {
		t.Fatalf("run = %s %+v", got.State, got.Ledger)
	}
	au, _ := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID)
	if au.State != automations.AutomationAutoPaused || au.OpenRunID != "" {
		t.Fatalf("automation = %s %s", au.State, au.PausedReason)
	}
}

// TestRunNowOpensAWindow: Run now on an agent task opens a window now for
// begin_run (trigger manual); outside the schedule's windows it is the
// only way in.
func TestRunNowOpensAWindow(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key := b.task(t, taskInput())
	now := b.at("13:00")
	_, err := b.auto.BeginRun(ctx, key, a.ID)
	wantRefusal(t, err, automations.CodeOutsideRun, "")
	cur, _ := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID)
	if !automations.AbilitiesFor(b.Editor, cur, false).RunNow {
		t.Fatal("Run now is not offered on an agent task")
	}
	w, _, err := b.auto.RunNow(ctx, b.Editor, b.Site.ID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameInstant(t, "window end", *w.EndsAt, now.Add(30*time.Minute))
	b.at("13:10")
	env, err := b.auto.BeginRun(ctx, key, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if env.RunID != w.ID {
		t.Fatalf("run %s, Run now said %s", env.RunID, w.ID)
	}
	r, _ := b.auto.Run(ctx, b.Editor, b.Site.ID, env.RunID)
	if r.Trigger != automations.TriggerManual {
		t.Fatalf("trigger = %s", r.Trigger)
	}
	// Run now again while the agent's run is open answers that run.
	again, started, err := b.auto.RunNow(ctx, b.Editor, b.Site.ID, a.ID)
	if err != nil || started || again.ID != env.RunID {
		t.Fatalf("run now during the agent's run: %+v started=%v %v", again, started, err)
	}
}

// TestBeginRunRefusedUnderKillSwitchAndOff: the site's kill switch and
// --automations=off open no window.
func TestBeginRunRefusedUnderKillSwitchAndOff(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key := b.task(t, taskInput())
	b.at("09:01")
	b.auto.SetAutomationsOff(true)
	_, err := b.auto.BeginRun(ctx, key, a.ID)
	wantRefusal(t, err, automations.CodeAutomationsOff, "")
	b.auto.SetAutomationsOff(false)
	b.Pause(t, b.Owner, "incident")
	_, err = b.auto.BeginRun(ctx, key, a.ID)
	wantRefusal(t, err, engine.CodeSitePaused, "")
}

func wantRefusal(tb testing.TB, err error, code, field string) *engine.Error {
	tb.Helper()
	return enginetest.WantRefusal(tb, err, code, field)
}

func sameInstant(tb testing.TB, what string, got, want time.Time) {
	tb.Helper()
	enginetest.SameInstant(tb, what, got, want)
}

// TestTaskUpdate: an agent task's fields change with the rev; turning on
// readsUntrustedText with a write scope is refused and changes nothing; a
// built-in job takes no task fields.
func TestTaskUpdate(t *testing.T) {
	b, m := setupTasks(t)
	ctx := context.Background()
	in := taskInput()
	in.Task.Scopes = []policy.Scope{policy.SchedulesRead, policy.ContentWrite}
	a, _ := b.task(t, in)
	window, cap := 60, policy.ModePlan
	got, err := b.auto.Update(ctx, b.Editor, b.Site.ID, a.ID, automations.Patch{Rev: a.Rev,
		Task: &automations.TaskPatch{WindowMinutes: &window, ModeCap: &cap}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = b.auto.Get(ctx, b.Editor, b.Site.ID, got.ID)
	if got.Task.WindowMinutes != 60 || got.Task.ModeCap != policy.ModePlan || got.Task.KeyID != a.NewKey.ID || len(m.mint) != 1 {
		t.Fatalf("after update: %+v (minted %d)", got.Task, len(m.mint))
	}
	builtin := b.create(t, weekly())
	before := b.Dump(t)
	for _, c := range []struct {
		p           automations.TaskPatch
		code, field string
	}{
		{automations.TaskPatch{ReadsUntrustedText: yes()}, automation.CodeUntrustedScope, "content:write"},
		{automations.TaskPatch{WindowMinutes: new(0)}, automation.CodeWindowMinutes, "job.windowMinutes"},
		{automations.TaskPatch{ModeCap: new(policy.ModeBypass)}, automation.CodeModeCapBypass, "job.modeCap"},
		{automations.TaskPatch{Instructions: new("")}, automation.CodeBadInstructions, "job.instructions"},
	} {
		_, err := b.auto.Update(ctx, b.Editor, b.Site.ID, a.ID, automations.Patch{Rev: got.Rev, Task: &c.p})
		wantRefusal(t, err, c.code, c.field)
	}
	_, err = b.auto.Update(ctx, b.Editor, b.Site.ID, builtin.ID, automations.Patch{Rev: builtin.Rev,
		Task: &automations.TaskPatch{WindowMinutes: &window}})
	wantRefusal(t, err, automations.CodeNotAgentTask, "job")
	if b.Dump(t) != before {
		t.Fatal("a refused update changed the database")
	}
}
