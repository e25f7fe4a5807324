package handlers_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"studio/engine/automations"
	"studio/engine/policy"
)

// taskForm is the automation editor filled in for an agent task.
func taskForm(token string) map[string][]string {
	f := editorForm(token, "MO")
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
	a := newApp(t)
	c := a.signedIn(t, a.editor)
	c.check(t, scenario{Name: "Editor", URL: "/studio/schedules/automations/new?job=agent-task", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="pick-agent-task"`, `value="agent-task" checked`, `data-testid="task-instructions"`,
			`data-testid="task-mode-auto"`, `data-testid="task-scope-content:write"`, "Instructions for the agent"}})
	a.setLang(t, a.editor, "tr")
	c.check(t, scenario{Name: "Turkish", URL: "/studio/schedules/automations/new?job=agent-task", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Yapay zekâ ajanı görevi", "Yapay zekâ ajanı için talimatlar", "Süre (dakika)"}})
	a.setLang(t, a.editor, "en")

	count := func() int { return len(a.autList(t)) }
	for _, bad := range []struct {
		name, field string
		set         func(f map[string][]string)
	}{
		{"a window of 3 minutes", "windowMinutes", func(f map[string][]string) { f["windowMinutes"] = []string{"3"} }},
		{"no instructions", "instructions", func(f map[string][]string) { f["instructions"] = []string{" "} }},
		{"a reader of visitor text that writes", "readsUntrustedText", func(f map[string][]string) { f["readsUntrustedText"] = []string{"true"} }},
	} {
		f := taskForm(c.token())
		bad.set(f)
		before := count()
		res := c.post("/studio/schedules/automations", f)
		if res.Status < 400 || !strings.Contains(res.Body, `id="err-`) || count() != before {
			t.Errorf("%s: status %d, %d automations (was %d)", bad.name, res.Status, count(), before)
		}
	}

	res := c.post("/studio/schedules/automations", taskForm(c.token()))
	m := regexp.MustCompile(`value="(sta_[^"]+)"`).FindStringSubmatch(res.Body)
	if res.Status != http.StatusOK || m == nil || !strings.Contains(res.Body, `data-testid="new-secret"`) {
		t.Fatalf("saving an agent task: %d, no secret shown", res.Status)
	}
	list := a.autList(t)
	if len(list) != 1 || list[0].Task == nil || list[0].Task.ModeCap != policy.ModeEdits || list[0].Task.WindowMinutes != 45 ||
		!strings.HasPrefix(list[0].Task.Instructions, "Look at today's calendar.") {
		t.Fatalf("the task as saved: %+v", list)
	}
	out := okTool(t, (&mcpFixture{base: a.serve(t, false)}).connect(t, m[1]), "get_mode", nil)
	if out["automationId"] != list[0].ID || out["mode"] != "edits" {
		t.Fatalf("the task's key: %v", out)
	}
	if list := c.get("/studio/schedules/automations"); !strings.Contains(list.Body, "Agent task") {
		t.Fatal("the list does not say it is an agent task")
	}
}

func (a *testApp) autList(t *testing.T) []automations.Automation {
	t.Helper()
	list, err := a.aut.List(context.Background(), a.editor, a.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	return list
}
