package mcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
	"studio/locales"
)

// TestKillSwitchStopsAnOpenAgentRunAtOnce is issue 36's hole 5 over real
// HTTP with the go-sdk client: an agent task's run is open and has written
// a draft; an Administrator pauses the site through the API; the run is
// killed at that moment (killed, error kill-switch, no tick needed), the
// task's next call (save_draft) is refused site_paused and writes nothing,
// a person's agent key is refused too (in its owner's language), get_mode
// says the site is paused. The Automations tab and the automation's page
// say the switch paused them, in English and Turkish. Resuming makes the
// switch's pauses active again and leaves a person's pause as it was.
func TestKillSwitchStopsAnOpenAgentRunAtOnce(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	f := &runFixture{MCPFixture: &apptest.MCPFixture{App: a, Base: a.Serve(t, false)}, app: a}
	ctx := context.Background()
	task := a.AgentTask(t, "Morning writer", policy.ModeEdits, 30, nil, policy.SchedulesRead, policy.ContentRead, policy.ContentWrite)
	check, err := a.Automations.Create(ctx, a.Editor, a.Site.ID, automations.Input{Name: "Link check",
		Builtin: automation.BuiltinBrokenLinks, Preset: "daily", Start: "2026-11-03T07:00"})
	if err != nil {
		t.Fatal(err)
	}
	held, err := a.Automations.Create(ctx, a.Editor, a.Site.ID, automations.Input{Name: "Stale review",
		Builtin: automation.BuiltinStaleContent, Preset: "daily", Start: "2026-11-03T08:00"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Automations.Pause(ctx, a.Editor, a.Site.ID, held.ID, held.Rev); err != nil {
		t.Fatal(err)
	}
	// A person's key of a Turkish Editor, minted on this site.
	tuna := a.AddUser(t, "tuna@example.com", "Tuna Editor", policy.Editor, "tr")
	_, personSecret, err := a.Agents.Mint(ctx, tuna, a.Site.ID, agents.KeyInput{Name: "Masa", Mode: policy.ModeEdits})
	if err != nil {
		t.Fatal(err)
	}
	person := f.Connect(t, personSecret)
	agent := f.Connect(t, task.NewKey.Secret)

	f.runNowWindow(t, task.ID)
	out, res := apptest.CallTool(t, agent, "begin_run", map[string]any{"automationId": task.ID})
	if res.IsError {
		t.Fatalf("begin_run: %v", out)
	}
	runID, _ := out["runId"].(string)
	apptest.OkTool(t, agent, "save_draft", map[string]any{"siteId": a.Site.ID, "title": "Morning note"})
	apptest.OkTool(t, person, "list_content", map[string]any{"siteId": a.Site.ID})
	if out := apptest.OkTool(t, person, "get_mode", nil); out["sitePaused"] != false {
		t.Fatalf("get_mode before the pause: %v", out)
	}

	admin := a.Admin(t)
	token := a.TokenFor(t, admin)
	settingsURL := "/api/sites/" + a.Site.ID + "/schedule-settings"
	status, body := apptest.APICall(t, a, "PUT", settingsURL, token, `{"rev": 0, "paused": true, "reason": "The feed is wrong"}`)
	if status != http.StatusOK || body["paused"] != true {
		t.Fatalf("pause: %d %v", status, body)
	}

	// At once, without a tick: the run is killed, the automations paused.
	if r := f.storedRun(t, runID); r.State != string(automation.RunKilled) || r.ErrorCode != "kill-switch" {
		t.Fatalf("run after the pause: %s (%s), want killed (kill-switch)", r.State, r.ErrorCode)
	}
	for _, c := range []struct {
		id, state, reason string
	}{{task.ID, "paused", "kill-switch"}, {check.ID, "paused", "kill-switch"}, {held.ID, "paused", "person"}} {
		if got := f.automation(t, c.id); got.State != c.state || got.PausedReason != c.reason || got.OpenRunID != "" {
			t.Fatalf("%s after the pause: %s (%s) open %q", c.id, got.State, got.PausedReason, got.OpenRunID)
		}
	}

	nodes, notes := nodeCount(a, t), auditNotToolRows(a, t)
	out, res = apptest.CallTool(t, agent, "save_draft", map[string]any{"siteId": a.Site.ID, "title": "Second note"})
	msg := apptest.ToolError(t, "the task's save_draft after the pause", out, res, engine.CodeSitePaused)
	if want := locales.T(locales.With(ctx, "en"), "error.site_paused"); msg != want {
		t.Fatalf("the task's refusal says %q, want %q", msg, want)
	}
	out, res = apptest.CallTool(t, agent, "list_releases", map[string]any{"siteId": a.Site.ID})
	apptest.ToolError(t, "the task's read after the pause", out, res, engine.CodeSitePaused)
	out, res = apptest.CallTool(t, agent, "begin_run", map[string]any{"automationId": task.ID})
	apptest.ToolError(t, "begin_run after the pause", out, res, engine.CodeSitePaused)
	out, res = apptest.CallTool(t, person, "save_draft", map[string]any{"siteId": a.Site.ID, "title": "Kişisel not"})
	msg = apptest.ToolError(t, "a person's key after the pause", out, res, engine.CodeSitePaused)
	if want := locales.T(locales.With(ctx, "tr"), "error.site_paused"); msg != want || !strings.Contains(msg, "duraklatıldı") {
		t.Fatalf("the person's key's refusal says %q, want %q", msg, want)
	}
	out, res = apptest.CallTool(t, person, "list_content", map[string]any{"siteId": a.Site.ID})
	apptest.ToolError(t, "a person's read after the pause", out, res, engine.CodeSitePaused)
	if out := apptest.OkTool(t, person, "get_mode", nil); out["sitePaused"] != true {
		t.Fatalf("get_mode while paused: %v", out)
	}
	if out := apptest.OkTool(t, agent, "get_mode", nil); out["sitePaused"] != true || out["run"] != nil {
		t.Fatalf("the task's get_mode while paused: %v", out)
	}
	if got, gotNotes := nodeCount(a, t), auditNotToolRows(a, t); got != nodes || gotNotes != notes {
		t.Fatalf("refused calls wrote: nodes %d → %d, audit rows other than tool calls %d → %d", nodes, got, notes, gotNotes)
	}

	// What the switch stopped, in both languages.
	for _, c := range []struct {
		u    engine.User
		lang string
	}{{a.Editor, "en"}, {tuna, "tr"}} {
		web := a.SignedIn(t, c.u)
		reason := locales.T(locales.With(ctx, c.lang), "automations.reason.kill-switch")
		tab := web.Get("/studio/schedules/automations")
		if tab.Status != http.StatusOK || strings.Count(tab.Body, reason) != 2 {
			t.Fatalf("%s Automations tab: %d, %q %d times, want twice", c.lang, tab.Status, reason, strings.Count(tab.Body, reason))
		}
		page := web.Get("/studio/schedules/automations/" + task.ID)
		if page.Status != http.StatusOK || !strings.Contains(page.Body, `data-testid="automation-status"`) || !strings.Contains(page.Body, reason) {
			t.Fatalf("%s automation page: %d, no %q", c.lang, page.Status, reason)
		}
		if page := web.Get("/studio/schedules/automations/" + held.ID); strings.Contains(page.Body, reason) {
			t.Fatalf("%s: a person's pause is shown as the switch's", c.lang)
		}
	}

	status, body = apptest.APICall(t, a, "PUT", settingsURL, token, `{"rev": 1, "paused": false, "reason": "Fixed"}`)
	if status != http.StatusOK || body["paused"] != false {
		t.Fatalf("resume: %d %v", status, body)
	}
	for _, c := range []struct {
		id, state, reason string
	}{{task.ID, "active", ""}, {check.ID, "active", ""}, {held.ID, "paused", "person"}} {
		if got := f.automation(t, c.id); got.State != c.state || got.PausedReason != c.reason {
			t.Fatalf("%s after resume: %s (%s), want %s (%s)", c.id, got.State, got.PausedReason, c.state, c.reason)
		}
	}
	apptest.OkTool(t, person, "list_content", map[string]any{"siteId": a.Site.ID})
	// The killed run's occurrence had its run: the task waits for its
	// next window.
	out, res = apptest.CallTool(t, agent, "list_releases", map[string]any{"siteId": a.Site.ID})
	apptest.ToolError(t, "the task outside a run after resume", out, res, engine.CodeOutsideRun)
}

// auditNotToolRows counts the audit rows other than tool calls (a refused
// call is audited as mcp.tool, and writes nothing else).
func auditNotToolRows(a *apptest.App, t *testing.T) int {
	t.Helper()
	var n int
	if err := a.Store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action != 'mcp.tool'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
