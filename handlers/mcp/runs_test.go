package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/handlers/internal/apptest"
)

// runFixture is the app served with the services' own agent keys and an
// agent task whose key is real (minted by Create): secret is its bearer.
type runFixture struct {
	*apptest.MCPFixture
	app    *apptest.App
	task   automations.Automation
	secret string
}

// newRunTask creates an agent task as the Editor with budget (nil: the
// default) and modeCap, and serves /mcp with the real agent keys.
func newRunTask(t *testing.T, name string, modeCap policy.Mode, budget *automation.Budget) *runFixture {
	t.Helper()
	a := apptest.New(t)
	f := &runFixture{MCPFixture: &apptest.MCPFixture{App: a, Base: a.Serve(t, false)}, app: a}
	f.task, f.secret = f.addTask(t, name, modeCap, budget)
	return f
}

// addTask adds an agent task of the Editor's; its key gets scopes, or
// without them the defaults of modeCap.
func (f *runFixture) addTask(t *testing.T, name string, modeCap policy.Mode, budget *automation.Budget, scopes ...policy.Scope) (automations.Automation, string) {
	t.Helper()
	no := false
	task, err := f.app.Automations.Create(context.Background(), f.app.Editor, f.app.Site.ID, automations.Input{Name: name, Preset: "daily",
		Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Plan the day's releases.", ModeCap: modeCap,
			ReadsUntrustedText: &no, WindowMinutes: 30, Budget: budget, Scopes: scopes}})
	if err != nil {
		t.Fatal(err)
	}
	if task.NewKey == nil || task.NewKey.Secret == "" {
		t.Fatalf("no key minted for %+v", task)
	}
	return task, task.NewKey.Secret
}

// runNowWindow is a person's Run now: it opens the task's window.
func (f *runFixture) runNowWindow(t *testing.T, id string) {
	t.Helper()
	if _, _, err := f.app.Automations.RunNow(context.Background(), f.app.Editor, f.app.Site.ID, id); err != nil {
		t.Fatal(err)
	}
}

func (f *runFixture) automation(t *testing.T, id string) automations.Automation {
	t.Helper()
	got, err := f.app.Automations.Get(context.Background(), f.app.Editor, f.app.Site.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// taskPrint is an automation's stored row, its runs and its audit rows
// other than tool calls (not its runs' revs: a refused call inside a run
// is counted in its ledger).
func (f *runFixture) taskPrint(t *testing.T, id string) string {
	t.Helper()
	var p string
	if err := f.app.Store.DB().QueryRow(`SELECT (SELECT json_array(state, coalesce(paused_reason, ''), rev, coalesce(open_run_id, ''))
		FROM automations WHERE id = ?1) || (SELECT count(*) || '/' || coalesce(group_concat(state), '') FROM schedule_runs
		WHERE subject_id = ?1) || (SELECT count(*) FROM audit WHERE action != 'mcp.tool')`, id).Scan(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *runFixture) storedRun(t *testing.T, id string) automations.Run {
	t.Helper()
	r, err := f.app.Store.RunByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMCPRunLifecycle drives one agent run with the task's real key: outside
// the window only begin_run, get_mode and pause_automation answer anything
// but outside_run; a person's Run now opens the window, begin_run answers
// the envelope in min(key mode, modeCap), get_mode shows the run, reads work
// and are counted, end_run closes it with the summary as plain text, and the
// key is outside a run again. Every call's audit row inside the run carries
// its run_id.
func TestMCPRunLifecycle(t *testing.T) {
	t.Parallel()
	f := newRunTask(t, "Morning planner", policy.ModeEdits, nil)
	ctx := context.Background()
	// The cap lowered below the key's mode (minted at edits): runs work in
	// the lower of the two.
	plan := policy.ModePlan
	lowered, err := f.app.Automations.Update(ctx, f.app.Editor, f.app.Site.ID, f.task.ID,
		automations.Patch{Rev: f.task.Rev, Task: &automations.TaskPatch{ModeCap: &plan}})
	if err != nil {
		t.Fatal(err)
	}
	site := f.app.Site.ID
	s := f.Connect(t, f.secret)

	reads := map[string]map[string]any{
		"list_schedule": {"siteId": site, "from": "2026-11-01T00:00:00Z", "to": "2026-11-30T00:00:00Z"},
		"get_schedule":  {"siteId": site, "id": "rel_nope"}, "list_releases": {"siteId": site},
		"get_release": {"siteId": site, "releaseId": "rel_nope"}, "list_automations": {"siteId": site},
		"list_runs": {"siteId": site}, "get_run": {"siteId": site, "runId": "run_nope"},
		"list_content": {"siteId": site}, "get_content": {"siteId": site, "nodeId": f.app.Live.ID},
		"end_run": {"runId": "run_nope", "summary": "", "outcome": "nothing-to-do"},
	}
	// Early for its first window (daily at 09:00 Istanbul from 3
	// November): every refusal says when the window opens, in the site's
	// zone, and carries the instant (issue 36: not "your time is over").
	early := func(what string, out map[string]any, res *sdk.CallToolResult) {
		t.Helper()
		msg := apptest.ToolError(t, what, out, res, engine.CodeOutsideRun)
		details, _ := out["error"].(map[string]any)["details"].(map[string]any)
		if !strings.Contains(msg, "next run window opens") || !strings.Contains(msg, "09:00") || details["when"] != "2026-11-03T06:00:00Z" {
			t.Errorf("%s: %q %v", what, msg, details)
		}
	}
	for tool, args := range reads {
		out, res := apptest.CallTool(t, s, tool, args)
		early(tool+" outside a window", out, res)
	}
	out, res := apptest.CallTool(t, s, "begin_run", map[string]any{"automationId": f.task.ID})
	early("begin_run outside a window", out, res)
	out, res = apptest.CallTool(t, s, "get_mode", nil)
	if res.IsError || out["run"] != nil || out["mode"] != "plan" || out["automationId"] != f.task.ID {
		t.Fatalf("get_mode outside a run: %v", out)
	}

	f.runNowWindow(t, lowered.ID)
	opened := f.app.Engine.Now()
	// The window is open but no run has begun: the key is told to begin
	// it, not when a window opens.
	out, res = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": site})
	apptest.ToolError(t, "a read in an open window before begin_run", out, res, automations.CodeBeginRunFirst)
	out, res = apptest.CallTool(t, s, "begin_run", map[string]any{"automationId": f.task.ID})
	if res.IsError {
		t.Fatalf("begin_run in the window: %v", out)
	}
	runID, _ := out["runId"].(string)
	endsAt, _ := time.Parse(time.RFC3339Nano, out["endsAt"].(string))
	if runID == "" || out["mode"] != "plan" || out["instructions"] != "Plan the day's releases." ||
		!endsAt.Equal(opened.Add(time.Duration(automation.DefaultBudget.MaxMinutes)*time.Minute)) || out["tainted"] != false {
		t.Fatalf("envelope %v, want mode plan, endsAt %v", out, opened.Add(15*time.Minute))
	}
	if b := out["budget"].(map[string]any); b["maxToolCalls"] != float64(automation.DefaultBudget.MaxToolCalls) {
		t.Fatalf("envelope budget %v", b)
	}

	out, res = apptest.CallTool(t, s, "get_mode", nil)
	run, _ := out["run"].(map[string]any)
	if res.IsError || run == nil || run["runId"] != runID || run["tainted"] != false || out["mode"] != "plan" {
		t.Fatalf("get_mode in the run: %v", out)
	}
	if left := run["budgetLeft"].(map[string]any); left["toolCalls"] != float64(automation.DefaultBudget.MaxToolCalls) ||
		left["minutes"] != float64(15) {
		t.Fatalf("budgetLeft before the run's first counted call: %v", left)
	}
	if got, _ := time.Parse(time.RFC3339Nano, run["endsAt"].(string)); !got.Equal(endsAt) {
		t.Fatalf("get_mode endsAt %v, want %v", run["endsAt"], endsAt)
	}
	for _, tool := range []string{"list_releases", "list_automations", "list_content"} {
		if out, res = apptest.CallTool(t, s, tool, map[string]any{"siteId": site}); res.IsError {
			t.Fatalf("%s in the run: %v", tool, out)
		}
	}
	out, res = apptest.CallTool(t, s, "get_release", map[string]any{"siteId": site, "releaseId": "rel_nope"})
	apptest.ToolError(t, "a refused read in the run", out, res, engine.CodeNotFound)
	out, res = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": site, "limit": 0})
	apptest.ToolError(t, "bad input in the run", out, res, "bad_request")
	l := f.storedRun(t, runID).Ledger
	// get_mode, three reads, the not-found one and the bad one; begin_run
	// opened the run. Only the bad one is a refusal in a row: a not-found
	// id is an agent looking up, not being refused.
	if l.Usage.ToolCalls != 6 || l.ConsecutiveRefusals != 1 || l.Tainted() {
		t.Fatalf("ledger %+v, want 6 tool calls, 1 refusal in a row", l)
	}
	out, _ = apptest.CallTool(t, s, "get_mode", nil)
	if left := out["run"].(map[string]any)["budgetLeft"].(map[string]any); left["toolCalls"] != float64(automation.DefaultBudget.MaxToolCalls-6) {
		t.Fatalf("budgetLeft after 6 calls: %v", left)
	}

	summary := "<b>Nothing</b> to plan today.\nTwo releases already scheduled."
	out, res = apptest.CallTool(t, s, "end_run", map[string]any{"runId": runID, "summary": summary, "outcome": "nothing-to-do"})
	ended, _ := out["run"].(map[string]any)
	if res.IsError || ended == nil || ended["id"] != runID || ended["state"] != "succeeded" || ended["outcome"] != "nothing-to-do" ||
		ended["summary"] != summary {
		t.Fatalf("end_run: %v", out)
	}
	if r := f.storedRun(t, runID); r.State != "succeeded" || r.Summary != summary {
		t.Fatalf("stored run %+v", r)
	}
	out, res = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": site})
	apptest.ToolError(t, "a read after end_run", out, res, engine.CodeOutsideRun)
	out, res = apptest.CallTool(t, s, "end_run", map[string]any{"runId": runID, "summary": "again", "outcome": "did-work"})
	apptest.ToolError(t, "end_run twice", out, res, engine.CodeOutsideRun)
	if out, _ = apptest.CallTool(t, s, "get_mode", nil); out["run"] != nil {
		t.Fatalf("get_mode after end_run: %v", out)
	}

	// Audit: begin_run's row and every call inside the run carry its id;
	// the calls before and after carry none.
	rows, err := f.app.Store.DB().Query(`SELECT json_extract(details, '$.tool'), coalesce(run_id, ''),
		coalesce(json_extract(details, '$.refused'), '') FROM audit WHERE action = 'mcp.tool' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var inRun []string
	for rows.Next() {
		var tool, run, refused string
		if err := rows.Scan(&tool, &run, &refused); err != nil {
			t.Fatal(err)
		}
		if run != "" && run != runID {
			t.Fatalf("row of %s in run %s", tool, run)
		}
		if run != "" {
			inRun = append(inRun, tool)
		}
	}
	want := []string{"begin_run", "get_mode", "list_releases", "list_automations", "list_content", "get_release", "list_releases", "get_mode", "end_run"}
	if len(inRun) != len(want) {
		t.Fatalf("rows in the run %v, want %v", inRun, want)
	}
	for i := range want {
		if inRun[i] != want[i] {
			t.Fatalf("rows in the run %v, want %v", inRun, want)
		}
	}
}

// TestMCPBeginRunRace: two clients of the same key race begin_run for one
// window: one run, the other answers run_exists.
func TestMCPBeginRunRace(t *testing.T) {
	t.Parallel()
	f := newRunTask(t, "Morning planner", policy.ModeManual, nil)
	f.runNowWindow(t, f.task.ID)
	clients := []*sdk.ClientSession{f.Connect(t, f.secret), f.Connect(t, f.secret)}
	var wg sync.WaitGroup
	results := make([]*sdk.CallToolResult, len(clients))
	errs := make([]error, len(clients))
	start := make(chan struct{})
	for i, s := range clients {
		wg.Go(func() {
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			results[i], errs[i] = s.CallTool(ctx, &sdk.CallToolParams{Name: "begin_run",
				Arguments: map[string]any{"automationId": f.task.ID}})
		})
	}
	close(start)
	wg.Wait()
	won, lost := 0, 0
	for i, res := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		json.Unmarshal(raw, &out)
		if !res.IsError {
			won++
			continue
		}
		apptest.ToolError(t, "the losing begin_run", out, res, automations.CodeRunExists)
		lost++
	}
	if won != 1 || lost != 1 {
		t.Fatalf("%d runs began, %d refused; want one of each", won, lost)
	}
	var runs int
	if err := f.app.Store.DB().QueryRow(`SELECT count(*) FROM schedule_runs WHERE subject_id = ?`, f.task.ID).Scan(&runs); err != nil {
		t.Fatal(err)
	}
	if runs != 1 {
		t.Fatalf("%d runs stored, want 1", runs)
	}
}

// TestMCPRunBudgetOverrun: with maxToolCalls 3, the fourth call of the run
// is refused with the budget's code, the run ends budget-exceeded and the
// automation is auto-paused (budget); the key is outside a run after it.
func TestMCPRunBudgetOverrun(t *testing.T) {
	t.Parallel()
	budget := automation.DefaultBudget
	budget.MaxToolCalls = 3
	f := newRunTask(t, "Tight planner", policy.ModeManual, &budget)
	f.runNowWindow(t, f.task.ID)
	s := f.Connect(t, f.secret)
	out, res := apptest.CallTool(t, s, "begin_run", map[string]any{"automationId": f.task.ID})
	if res.IsError {
		t.Fatalf("begin_run: %v", out)
	}
	runID := out["runId"].(string)
	for i := range 3 {
		if out, res = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": f.app.Site.ID}); res.IsError {
			t.Fatalf("call %d within the budget: %v", i+1, out)
		}
	}
	out, res = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": f.app.Site.ID})
	apptest.ToolError(t, "the call over the budget", out, res, automation.CodeBudgetToolCalls)
	if r := f.storedRun(t, runID); r.State != string(automation.RunBudgetExceeded) || r.Ledger.Usage.ToolCalls != 3 {
		t.Fatalf("run after the overrun: %+v", r)
	}
	if a := f.automation(t, f.task.ID); a.State != automations.AutomationAutoPaused || a.PausedReason != string(automation.ReasonBudget) {
		t.Fatalf("automation after the overrun: %s %s", a.State, a.PausedReason)
	}
	out, res = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": f.app.Site.ID})
	apptest.ToolError(t, "a call after the run ended", out, res, engine.CodeOutsideRun)
}

// TestMCPPauseAutomationByKey: the automation's own key pauses it inside
// its run (the run is killed) and outside one; begin_run is refused while
// it is paused, and only a person's Resume makes it active again. A key of
// another automation without schedules:write can neither begin nor pause
// this one.
func TestMCPPauseAutomationByKey(t *testing.T) {
	t.Parallel()
	f := newRunTask(t, "Morning planner", policy.ModeManual, nil)
	other, otherSecret := f.addTask(t, "Evening planner", policy.ModeManual, nil, policy.SchedulesRead, policy.ContentRead)
	f.runNowWindow(t, f.task.ID)
	f.runNowWindow(t, other.ID)
	intruder := f.Connect(t, otherSecret)
	out, res := apptest.CallTool(t, intruder, "pause_automation", map[string]any{"automationId": f.task.ID, "reason": "mine now"})
	apptest.ToolError(t, "another automation's key outside its run", out, res, automations.CodeBeginRunFirst) // its own window is open: it has a run to begin
	if out, res = apptest.CallTool(t, intruder, "begin_run", map[string]any{"automationId": other.ID}); res.IsError {
		t.Fatalf("the other key's own begin_run: %v", out)
	}
	before := f.taskPrint(t, f.task.ID)
	out, res = apptest.CallTool(t, intruder, "begin_run", map[string]any{"automationId": f.task.ID})
	apptest.ToolError(t, "another automation's key begins this one", out, res, engine.CodeForbidden)
	out, res = apptest.CallTool(t, intruder, "pause_automation", map[string]any{"automationId": f.task.ID, "reason": "mine now"})
	apptest.ToolError(t, "another automation's key pauses this one", out, res, engine.CodeScopeMissing)
	if after := f.taskPrint(t, f.task.ID); after != before {
		t.Fatal("another automation's key changed something")
	}

	s := f.Connect(t, f.secret)
	out, res = apptest.CallTool(t, s, "begin_run", map[string]any{"automationId": f.task.ID})
	if res.IsError {
		t.Fatalf("begin_run: %v", out)
	}
	runID := out["runId"].(string)
	before = f.taskPrint(t, f.task.ID)
	out, res = apptest.CallTool(t, s, "pause_automation", map[string]any{"automationId": f.task.ID, "reason": "stop\u0007now"})
	if msg := apptest.ToolError(t, "a reason with a control", out, res, automations.CodeBadPauseReason); msg != "Keep the reason for pausing to plain text of at most 500 characters." {
		t.Fatalf("bad reason's sentence %q", msg)
	}
	if f.taskPrint(t, f.task.ID) != before {
		t.Fatal("a refused pause changed the automation")
	}
	out, res = apptest.CallTool(t, s, "pause_automation", map[string]any{"automationId": f.task.ID, "reason": "The calendar looks wrong; stopping."})
	paused, _ := out["automation"].(map[string]any)
	if res.IsError || paused == nil || paused["id"] != f.task.ID || paused["state"] != "paused" {
		t.Fatalf("pause_automation: %v", out)
	}
	if r := f.storedRun(t, runID); r.State != string(automation.RunKilled) {
		t.Fatalf("the run after its automation paused: %s", r.State)
	}
	a := f.automation(t, f.task.ID)
	if a.State != automations.AutomationPaused || a.PausedReason != string(automation.ReasonAgent) {
		t.Fatalf("automation after pause_automation: %s %s", a.State, a.PausedReason)
	}
	var reason string
	if err := f.app.Store.DB().QueryRow(`SELECT json_extract(details, '$.agentReason') FROM audit
		WHERE action = 'automation.pause' ORDER BY id DESC LIMIT 1`).Scan(&reason); err != nil || reason != "The calendar looks wrong; stopping." {
		t.Fatalf("pause audit reason %q, %v", reason, err)
	}
	out, res = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": f.app.Site.ID})
	apptest.ToolError(t, "a read after the pause", out, res, engine.CodeOutsideRun)
	// Outside a run the key still reaches pause_automation (§11.6): on a
	// paused automation it is refused by the state model, nothing changed.
	before = f.taskPrint(t, f.task.ID)
	out, res = apptest.CallTool(t, s, "pause_automation", map[string]any{"automationId": f.task.ID, "reason": ""})
	if !res.IsError {
		t.Fatalf("pausing a paused automation: %v", out)
	}
	if f.taskPrint(t, f.task.ID) != before {
		t.Fatal("a refused pause changed something")
	}
	// Resuming is a person's act; then a new window lets the key begin.
	f.app.Clock.Advance(time.Minute)
	if _, err := f.app.Automations.Resume(context.Background(), f.app.Editor, f.app.Site.ID, a.ID, a.Rev); err != nil {
		t.Fatal(err)
	}
	f.runNowWindow(t, f.task.ID)
	if out, res = apptest.CallTool(t, s, "begin_run", map[string]any{"automationId": f.task.ID}); res.IsError || out["runId"] == runID {
		t.Fatalf("begin_run after a person's Resume: %v", out)
	}
}

// TestMCPPlanRunRefusesWritesByItsMode (issue 36, hole 6): in a plan run
// whose budget allows no writes, a write tool is refused by its mode
// (mode_refused) before the budget is asked: the run stays open, nothing
// is spent but the call, and the automation stays active. Before, the
// budget answered first, ended the run budget-exceeded and paused it.
func TestMCPPlanRunRefusesWritesByItsMode(t *testing.T) {
	t.Parallel()
	budget := automation.DefaultBudget
	budget.MaxWrites, budget.MaxApprovalRequests = 0, 0
	a := apptest.New(t)
	f := &runFixture{MCPFixture: &apptest.MCPFixture{App: a, Base: a.Serve(t, false)}, app: a}
	// Its key holds the write scopes, so that only the mode refuses.
	task := a.AgentTask(t, "Read-only planner", policy.ModePlan, 30, &budget,
		policy.SchedulesRead, policy.SchedulesWrite, policy.ContentRead, policy.ContentWrite)
	f.task = task
	f.runNowWindow(t, f.task.ID)
	s := f.Connect(t, task.NewKey.Secret)
	out, res := apptest.CallTool(t, s, "begin_run", map[string]any{"automationId": f.task.ID})
	if res.IsError {
		t.Fatalf("begin_run: %v", out)
	}
	runID := out["runId"].(string)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"save_draft", map[string]any{"siteId": f.app.Site.ID, "title": "A plan's draft"}},
		{"propose_release", map[string]any{"siteId": f.app.Site.ID, "nodeIds": []string{f.app.Draft.ID}}},
	} {
		out, res = apptest.CallTool(t, s, c.tool, c.args)
		apptest.ToolError(t, c.tool+" in a plan run", out, res, engine.CodeModeRefused)
	}
	r := f.storedRun(t, runID)
	if r.State != string(automation.RunRunning) || r.Ledger.Usage.Writes != 0 || r.Ledger.Usage.ToolCalls != 2 {
		t.Fatalf("the run after two refused writes: %s %+v", r.State, r.Ledger.Usage)
	}
	if a := f.automation(t, f.task.ID); a.State != automations.AutomationActive {
		t.Fatalf("the automation after two refused writes: %s %s", a.State, a.PausedReason)
	}
	apptest.OkTool(t, s, "list_releases", map[string]any{"siteId": f.app.Site.ID})
}

// TestDeletingAnAutomationWithdrawsItsRequests (issue 36, hole 6; §11.8
// "Automation deleted: its waiting requests denied"): a request an agent
// task's run filed is denied when a person deletes the task, in the same
// act (the release back to draft, the denial audited with its reason); a
// person's own request on the same site keeps waiting.
func TestDeletingAnAutomationWithdrawsItsRequests(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	task := a.AgentTask(t, "Desk planner", policy.ModeManual, 30, nil, policy.SchedulesRead, policy.SchedulesWrite, policy.ContentRead)
	if _, _, err := a.Automations.RunNow(ctx, a.Editor, a.Site.ID, task.ID); err != nil {
		t.Fatal(err)
	}
	s := (&apptest.MCPFixture{Base: a.Serve(t, false)}).Connect(t, task.NewKey.Secret)
	apptest.OkTool(t, s, "begin_run", map[string]any{"automationId": task.ID})
	out := apptest.OkTool(t, s, "schedule_release", map[string]any{"siteId": a.Site.ID, "nodeIds": []string{a.Draft.ID},
		"when": map[string]any{"at": apptest.Start.Add(26 * time.Hour).Format(time.RFC3339)}})
	asked, _ := releaseIDOf(t, out)
	if out["status"] != "approval-pending" {
		t.Fatalf("the run's schedule_release: %v", out)
	}
	// A person's request on the same site, which the deletion leaves be.
	contributor := a.Contributor
	theirs, err := a.Releases.ScheduleNode(ctx, contributor, releases.ScheduleInput{SiteID: a.Site.ID, NodeID: a.OtherDraft(t).ID,
		ExpectedRev: 1, Date: "2026-11-05", Time: "09:00"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Automations.Get(ctx, a.Editor, a.Site.ID, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Automations.Delete(ctx, a.Editor, a.Site.ID, task.ID, got.Rev); err != nil {
		t.Fatal(err)
	}
	if r := a.Release(t, asked); r.State != release.StateDraft {
		t.Fatalf("the deleted task's request: release %s, want draft", r.State)
	}
	var reason string
	if err := a.Store.DB().QueryRow(`SELECT json_extract(details, '$.reason') FROM audit WHERE action = 'approval.deny'
		AND release_id = ?`, asked).Scan(&reason); err != nil || reason != "automation_deleted" {
		t.Fatalf("the denial's audit row: %q %v", reason, err)
	}
	if r := a.Release(t, theirs.ID); r.State != release.StateAwaitingApproval {
		t.Fatalf("a person's request on the site: %s, want still waiting", r.State)
	}
}
