package studio_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"studio/engine/automations"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

// taskForm is the automation editor filled in for an agent task.
func taskForm(token string) map[string][]string {
	f := apptest.EditorForm(token, "MO")
	f.Set("name", "Morning planner")
	f.Set("job", "agent-task")
	f.Del("exclude")
	f.Set("instructions", "Look at today's calendar.\nPropose what is missing.")
	f.Set("modeCap", "edits")
	f["taskScope"] = []string{"schedules:read", "schedules:write", "content:read", "content:write"}
	f.Set("windowMinutes", "45")
	return f
}

// TestAgentTaskInStudio: a person creates an agent task in the automation
// editor (§4.3, §11.2): its own fields show beside the built-in jobs' (in
// both languages); saving it mints its key, whose secret the answer shows
// once and which opens /mcp as the task's key; bad input is refused beside
// its field and creates nothing, nor does a reader of visitor text that
// asks to write.
func TestAgentTaskInStudio(t *testing.T) {
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "Editor", URL: "/studio/schedules/automations/new?job=agent-task", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="pick-agent-task"`, `value="agent-task" checked`, `data-testid="task-instructions"`,
			`data-testid="task-mode-auto"`, `data-testid="task-scope-content:write"`, "Instructions for the agent"}})
	a.SetLang(t, a.Editor, "tr")
	c.Check(t, apptest.Scenario{Name: "Turkish", URL: "/studio/schedules/automations/new?job=agent-task", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Yapay zekâ ajanı görevi", "Yapay zekâ ajanı için talimatlar", "Süre (dakika)"}})
	a.SetLang(t, a.Editor, "en")

	count := func() int { return len(autList(a, t)) }
	for _, bad := range []struct {
		name, field string
		set         func(f map[string][]string)
	}{
		{"a window of 3 minutes", "windowMinutes", func(f map[string][]string) { f["windowMinutes"] = []string{"3"} }},
		{"no instructions", "instructions", func(f map[string][]string) { f["instructions"] = []string{" "} }},
		{"a reader of visitor text that writes", "readsUntrustedText", func(f map[string][]string) { f["readsUntrustedText"] = []string{"true"} }},
	} {
		f := taskForm(c.Token())
		bad.set(f)
		before := count()
		res := c.Post("/studio/schedules/automations", f)
		if res.Status < 400 || !strings.Contains(res.Body, `id="err-`) || count() != before {
			t.Errorf("%s: status %d, %d automations (was %d)", bad.name, res.Status, count(), before)
		}
	}

	res := c.Post("/studio/schedules/automations", taskForm(c.Token()))
	m := regexp.MustCompile(`value="(sta_[^"]+)"`).FindStringSubmatch(res.Body)
	if res.Status != http.StatusOK || m == nil || !strings.Contains(res.Body, `data-testid="new-secret"`) {
		t.Fatalf("saving an agent task: %d, no secret shown", res.Status)
	}
	list := autList(a, t)
	if len(list) != 1 || list[0].Task == nil || list[0].Task.ModeCap != policy.ModeEdits || list[0].Task.WindowMinutes != 45 ||
		!strings.HasPrefix(list[0].Task.Instructions, "Look at today's calendar.") {
		t.Fatalf("the task as saved: %+v", list)
	}
	out := apptest.OkTool(t, (&apptest.MCPFixture{Base: a.Serve(t, false)}).Connect(t, m[1]), "get_mode", nil)
	if out["automationId"] != list[0].ID || out["mode"] != "edits" {
		t.Fatalf("the task's key: %v", out)
	}
	if list := c.Get("/studio/schedules/automations"); !strings.Contains(list.Body, "Agent task") {
		t.Fatal("the list does not say it is an agent task")
	}
}

func autList(a *apptest.App, t *testing.T) []automations.Automation {
	t.Helper()
	list, err := a.Automations.List(context.Background(), a.Editor, a.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	return list
}
