package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"studio/handlers/internal/apptest"
)

// guideTask is the agent task's JSON in docs/agents.md: the test creates
// the task the guide tells a newcomer to create, as it is written there.
var guideTask = regexp.MustCompile("(?s)```json\n(\\{[^`]*\"agent-task\"[^`]*\\})\n```")

// TestMCPFirstCallsOfTheGuide is an engineer following docs/agents.md: an
// Editor creates the guide's agent task with the API from a signed-in
// session (no job.scopes), opens its window with Run now, and its key,
// over the go-sdk client, learns its site from get_mode and begin_run,
// then drafts an article and proposes it without naming the site: each
// call succeeds on the first try, and the envelope lists only tools the
// server has.
func TestMCPFirstCallsOfTheGuide(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	m := guideTask.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/agents.md shows no agent task's JSON")
	}
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	status, created := c.JSON(http.MethodPost, "/api/sites/"+a.Site.ID+"/automations", string(m[1]), map[string]string{"X-CSRF-Token": c.Token()})
	var task struct {
		ID  string `json:"id"`
		Key struct {
			Secret string `json:"secret"`
		} `json:"key"`
		Job struct {
			Scopes []string `json:"scopes"`
		} `json:"job"`
	}
	if err := json.Unmarshal([]byte(mustJSON(t, created)), &task); err != nil || status != http.StatusCreated || task.Key.Secret == "" {
		t.Fatalf("create the guide's task: %d %v %v", status, err, created)
	}
	if !slices.Contains(task.Job.Scopes, "schedules:write") || !slices.Contains(task.Job.Scopes, "content:write") {
		t.Fatalf("the guide's edits task got the scopes %v: it could not draft and propose", task.Job.Scopes)
	}
	if _, _, err := a.Automations.RunNow(context.Background(), a.Editor, a.Site.ID, task.ID); err != nil {
		t.Fatal(err)
	}

	f := &apptest.MCPFixture{Base: a.Serve(t, false)}
	s := f.Connect(t, task.Key.Secret)
	mode := apptest.OkTool(t, s, "get_mode", nil)
	site, _ := mode["site"].(map[string]any)
	if site["id"] != a.Site.ID || site["name"] != a.Site.Name || site["timeZone"] != a.Site.TimeZone || mode["automationId"] != task.ID {
		t.Fatalf("get_mode does not name the key's site and automation: %v", mode)
	}
	env := apptest.OkTool(t, s, "begin_run", map[string]any{"automationId": task.ID})
	if site, _ := env["site"].(map[string]any); site["id"] != a.Site.ID || site["name"] != a.Site.Name {
		t.Fatalf("the envelope does not name the site: %v", env)
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, tl := range list.Tools {
		served[tl.Name] = true
	}
	var tools []string
	for _, tl := range env["tools"].([]any) {
		tools = append(tools, tl.(string))
		if !served[tl.(string)] {
			t.Errorf("the envelope lists %s, which the server does not have", tl)
		}
	}
	for _, want := range []string{"save_draft", "propose_release", "list_content", "end_run"} {
		if !slices.Contains(tools, want) {
			t.Errorf("the envelope of an edits task lacks %s: %v", want, tools)
		}
	}
	if slices.Contains(tools, "broken_links") {
		t.Errorf("the envelope lists broken_links, which the key's scopes do not allow: %v", tools)
	}

	draft := apptest.OkTool(t, s, "save_draft", map[string]any{"title": "Council budget: what changes", "body": "The council voted."})
	n, _ := draft["node"].(map[string]any)
	node, _ := n["id"].(string)
	if node == "" {
		t.Fatalf("save_draft: %v", draft)
	}
	proposed := apptest.OkTool(t, s, "propose_release", map[string]any{"nodeIds": []string{node}, "note": "For tomorrow morning."})
	if r, _ := proposed["release"].(map[string]any); r == nil || r["siteId"] != a.Site.ID {
		t.Fatalf("propose_release: %v", proposed)
	}
	// Named, the key's own site answers as when it is left out.
	named := apptest.OkTool(t, s, "list_releases", map[string]any{"siteId": a.Site.ID})
	omitted := apptest.OkTool(t, s, "list_releases", nil)
	if x, y := mustJSON(t, named), mustJSON(t, omitted); x != y {
		t.Fatalf("list_releases without siteId:\n%s\nwith the key's siteId:\n%s", y, x)
	}
	apptest.OkTool(t, s, "end_run", map[string]any{"runId": env["runId"], "summary": "Drafted and proposed one article.", "outcome": "proposed"})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAgentsGuideNamesEveryTool: docs/agents.md, written for a newsroom,
// describes every tool the server lists and speaks no internal references
// (the RFC's section signs, issue numbers).
func TestAgentsGuideNamesEveryTool(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(doc)
	if m := regexp.MustCompile(`§\s*\d|\bissue \d+|\bRFC\b`).FindString(guide); m != "" {
		t.Errorf("docs/agents.md refers to %q, which its readers do not have", m)
	}
	f := newMCP(t)
	list, err := f.Connect(t, "sk_editor").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if !strings.Contains(guide, "`"+tl.Name+"`") {
			t.Errorf("docs/agents.md does not describe %s", tl.Name)
		}
	}
}
