package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/gates"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/handlers"
	"studio/handlers/api"
	"studio/handlers/api/schema"
	"studio/handlers/mcp"
)

// testKeys stands in for engine/agents' keys: each secret is a real user of
// the fixture calling through an agent key, with narrowed scopes.
type testKeys map[string]engine.User

func (k testKeys) Authenticate(_ context.Context, secret string) (engine.User, error) {
	u, ok := k[secret]
	if !ok {
		return engine.User{}, engine.ErrNotFound
	}
	return u, nil
}

// agentOf is u calling through a key of mode, with scopes.
func agentOf(u engine.User, keyID string, mode policy.Mode, scopes ...policy.Scope) engine.User {
	u.Scopes = scopes
	u.Agent = &engine.AgentCall{KeyID: keyID, KeyName: "Desk " + keyID, Mode: mode}
	return u
}

// mcpFixture is the app with a scheduled release, a gate, an automation
// with a run and content, served with /mcp.
type mcpFixture struct {
	*testApp
	base    string
	rel     release.Release
	auto    automations.Automation
	run     automations.Run
	task    automations.Automation // an agent task with its run open
	taskRun string
	otherID string // a second site
	keys    testKeys
}

func newMCP(t *testing.T) *mcpFixture {
	t.Helper()
	a := newApp(t)
	f := &mcpFixture{testApp: a, keys: testKeys{}}
	f.rel = a.scheduleAt(t, a.editor, a.draft, "2026-11-03", "09:00")
	a.embargoLive(t)
	auto, err := a.aut.Create(context.Background(), a.editor, a.site.ID, automations.Input{Name: "Link check",
		Builtin: automation.BuiltinBrokenLinks, Rule: "FREQ=DAILY;BYHOUR=9;BYMINUTE=7", Start: "2026-11-02T09:07"})
	if err != nil {
		t.Fatal(err)
	}
	f.auto = auto
	f.run = a.runNow(t, a.editor, auto)
	other, err := a.eng.CreateSite(context.Background(), "Other Times", "Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	f.otherID = other.ID
	read := []policy.Scope{policy.SchedulesRead, policy.ContentRead}
	f.keys["sk_editor"] = agentOf(a.editor, "key_editor", policy.ModeEdits, read...)
	f.keys["sk_plan"] = agentOf(a.editor, "key_plan", policy.ModePlan, read...)
	author := a.addUser(t, "author@example.com", "Ayla Author", policy.Author, "en")
	// An Author's key asks for more than the role holds: narrowed on use.
	f.keys["sk_author"] = agentOf(author, "key_author", policy.ModeEdits, policy.SchedulesRead, policy.ContentRead,
		policy.ReleasesPublish, policy.SiteSettings)
	f.keys["sk_noscope"] = agentOf(a.editor, "key_noscope", policy.ModeEdits, policy.SchedulesRead)
	f.keys["sk_writer"] = agentOf(a.editor, "key_writer", policy.ModeEdits, policy.SchedulesRead, policy.ContentRead,
		policy.SchedulesWrite, policy.ContentWrite)
	// An agent task whose window a person opened and whose run its key
	// began: sk_task is that key (the engine finds its open run on every
	// call), sk_idle a key of the same automation that began no run.
	no := false
	f.task, err = a.aut.Create(context.Background(), a.editor, a.site.ID, automations.Input{Name: "Morning planner",
		Preset: "daily", Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Plan the day.",
			ModeCap: policy.ModeManual, ReadsUntrustedText: &no, WindowMinutes: 30}})
	if err != nil {
		t.Fatal(err)
	}
	idle := agentOf(a.editor, "key_idle", policy.ModeManual, read...)
	idle.Agent.AutomationID = f.task.ID
	f.keys["sk_idle"] = idle
	task := agentOf(a.editor, f.task.Task.KeyID, policy.ModeManual, read...)
	task.Agent.AutomationID = f.task.ID
	f.keys["sk_task"] = task
	if _, _, err := a.aut.RunNow(context.Background(), a.editor, a.site.ID, f.task.ID); err != nil {
		t.Fatal(err)
	}
	env, err := a.aut.BeginRun(context.Background(), task, f.task.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.taskRun = env.RunID
	turkish := agentOf(a.editor, "key_tr", policy.ModeEdits, read...)
	turkish.Lang = "tr"
	f.keys["sk_tr"] = turkish
	f.base = a.serve(t, false, handlers.WithAgentKeys(f.keys))
	return f
}

// bearer adds the key's secret to every request.
type bearer struct {
	secret string
	header http.Header
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.secret != "" {
		r.Header.Set("Authorization", "Bearer "+b.secret)
	}
	for k, v := range b.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connect is the go-sdk client connected to /mcp with secret.
func (f *mcpFixture) connect(t *testing.T, secret string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: f.base + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{secret: secret}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// callTool calls name with args and decodes its structured answer.
func callTool(t *testing.T, s *sdk.ClientSession, name string, args map[string]any) (map[string]any, *sdk.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.Unmarshal(raw, &out)
	checkToolReleases(t, name, raw)
	return out, res
}

// compiledSchemas are release.schema.json's, compiled once for every MCP
// answer the tests read.
var compiledSchemas = sync.OnceValues(schema.Compiled)

// checkToolReleases validates every release in a tool's answer against
// RFC §4.2's schema, as checkReleases does for the API's: get_release's
// answer and propose_release's release are ReleaseViews (as the API's
// read and its new draft), every other release is checked where it sits.
func checkToolReleases(t *testing.T, tool string, raw []byte) {
	t.Helper()
	schemas, err := compiledSchemas()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := schema.Decode(raw)
	if err != nil {
		t.Fatalf("%s: answer is not JSON: %v", tool, err)
	}
	check := func(sch *jsonschema.Schema, v any) {
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: a release not in the §4.2 shape:\n%s\n%v", tool, excerpt(string(raw)), err)
		}
	}
	top, _ := doc.(map[string]any)
	switch {
	case top == nil || top["error"] != nil:
	case tool == "get_release":
		check(schemas.View, top)
		return
	case tool == "propose_release":
		check(schemas.View, top["release"])
		return
	}
	walkReleases(doc, false, func(v any) { check(schemas.Answer, v) })
}

// toolError asserts res is a tool error with code, and returns its message.
func toolError(t *testing.T, what string, out map[string]any, res *sdk.CallToolResult, code string) string {
	t.Helper()
	e, _ := out["error"].(map[string]any)
	if !res.IsError || e == nil || e["code"] != code {
		t.Fatalf("%s: want tool error %s, got isError=%v %v", what, code, res.IsError, out)
	}
	msg, _ := e["message"].(string)
	if msg == "" || strings.HasPrefix(msg, "error.") {
		t.Fatalf("%s: no sentence: %q", what, msg)
	}
	return msg
}

var readTools = []string{"list_schedule", "get_schedule", "list_releases", "get_release", "list_automations", "list_runs", "get_run",
	"get_mode", "list_content", "get_content"}

// runTools are an automation key's run tools (§12).
var runTools = []string{"begin_run", "end_run", "pause_automation"}

// writeTools are §12's write tools, save_draft and broken_links.
var writeTools = []string{"propose_release", "schedule_release", "reschedule", "cancel_schedule", "set_embargo",
	"lift_embargo", "schedule_unpublish", "save_draft", "broken_links"}

// TestMCPToolsList: initialize answers §12's instructions, and tools/list
// is exactly §12's tools and the content tools, each with an object schema from its
// Go type naming its required fields.
func TestMCPToolsList(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	s := f.connect(t, "sk_editor")
	if got := s.InitializeResult().Instructions; got != mcp.Instructions || !strings.Contains(got, "Studio publishes them") {
		t.Fatalf("instructions %q", got)
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	required := map[string][]string{}
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		raw, _ := json.Marshal(tl.InputSchema)
		var sch struct {
			Type       string         `json:"type"`
			Required   []string       `json:"required"`
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(raw, &sch); err != nil || sch.Type != "object" {
			t.Fatalf("%s: schema %s", tl.Name, raw)
		}
		slices.Sort(sch.Required)
		required[tl.Name] = sch.Required
	}
	slices.Sort(names)
	want := append(append(slices.Clone(readTools), runTools...), writeTools...)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for name, req := range map[string][]string{
		"list_schedule": {"from", "siteId", "to"}, "get_schedule": {"id", "siteId"}, "list_releases": {"siteId"}, "get_release": {"releaseId", "siteId"},
		"list_automations": {"siteId"}, "list_runs": {"siteId"}, "get_run": {"runId", "siteId"}, "get_mode": nil,
		"begin_run": {"automationId"}, "end_run": {"outcome", "runId", "summary"}, "pause_automation": {"automationId"},
		"list_content": {"siteId"}, "get_content": {"nodeId", "siteId"},
		"propose_release": {"nodeIds", "siteId"}, "schedule_release": {"siteId", "when"},
		"reschedule": {"expectedRev", "releaseId", "siteId", "when"}, "cancel_schedule": {"expectedRev", "releaseId", "siteId"},
		"set_embargo": {"expectedRev", "from", "nodeId", "siteId"}, "lift_embargo": {"expectedRev", "nodeId", "reason", "siteId"},
		"schedule_unpublish": {"at", "expectedRev", "nodeId", "siteId"}, "save_draft": {"siteId"}, "broken_links": {"siteId"},
	} {
		if !slices.Equal(required[name], req) {
			t.Errorf("%s requires %v, want %v", name, required[name], req)
		}
	}
}

// TestMCPReadTools: each tool's answer against the fixture, in the API's
// shapes.
func TestMCPReadTools(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	s := f.connect(t, "sk_editor")
	site := f.site.ID

	out, res := callTool(t, s, "list_schedule", map[string]any{"siteId": site,
		"from": "2026-11-01T00:00:00Z", "to": "2026-12-01T00:00:00Z"})
	if res.IsError || out["timeZone"] != "Europe/Istanbul" {
		t.Fatalf("list_schedule: %v", out)
	}
	ids := map[string]bool{}
	for _, it := range out["items"].([]any) {
		ids[it.(map[string]any)["id"].(string)] = true
	}
	if !ids[f.rel.ID] || !ids["gate:"+f.live.ID+":from"] {
		t.Fatalf("list_schedule lacks the release or the gate: %v", ids)
	}
	hasOcc := false
	for id := range ids {
		hasOcc = hasOcc || strings.HasPrefix(id, "occ:"+f.auto.ID+":")
	}
	if !hasOcc {
		t.Fatalf("list_schedule lacks the automation's occurrences: %v", ids)
	}

	for _, id := range []string{f.rel.ID, "gate:" + f.live.ID + ":from"} {
		out, res = callTool(t, s, "get_schedule", map[string]any{"siteId": site, "id": id})
		if res.IsError || out["id"] != id {
			t.Fatalf("get_schedule %s: %v", id, out)
		}
	}
	for id := range ids {
		if strings.HasPrefix(id, "occ:") {
			out, res = callTool(t, s, "get_schedule", map[string]any{"siteId": site, "id": id})
			if res.IsError || out["id"] != id || out["kind"] != "automation" {
				t.Fatalf("get_schedule %s: %v", id, out)
			}
			break
		}
	}
	for _, typ := range []string{"release", "gate", "automation"} {
		out, _ = callTool(t, s, "list_schedule", map[string]any{"siteId": site, "types": []string{typ},
			"from": "2026-11-01T00:00:00Z", "to": "2026-12-01T00:00:00Z"})
		items := out["items"].([]any)
		prefix := map[string]string{"release": "rel_", "gate": "gate:", "automation": "occ:"}[typ]
		for _, it := range items {
			if id := it.(map[string]any)["id"].(string); !strings.HasPrefix(id, prefix) {
				t.Fatalf("types [%s] lists %s", typ, id)
			}
		}
		if len(items) == 0 {
			t.Fatalf("types [%s] lists nothing", typ)
		}
	}
	out, _ = callTool(t, s, "list_schedule", map[string]any{"siteId": site, "origin": "agent",
		"from": "2026-11-01T00:00:00Z", "to": "2026-12-01T00:00:00Z"})
	// The agent task's occurrences are the fixture's only agent items.
	if items := out["items"].([]any); len(items) == 0 {
		t.Fatal("origin agent lists nothing")
	} else {
		for _, it := range items {
			if it.(map[string]any)["target"] != f.task.ID {
				t.Fatalf("origin agent lists %v", it)
			}
		}
	}

	out, res = callTool(t, s, "list_releases", map[string]any{"siteId": site})
	states := map[string]any{}
	for _, r := range out["releases"].([]any) {
		states[r.(map[string]any)["id"].(string)] = r.(map[string]any)["state"]
	}
	// The scheduled release, and the embargo's one-item release, published.
	if res.IsError || len(states) != 2 || states[f.rel.ID] != "scheduled" {
		t.Fatalf("list_releases: %v", out)
	}
	// Page by page, and by state.
	out, _ = callTool(t, s, "list_releases", map[string]any{"siteId": site, "limit": 1})
	first, _ := out["releases"].([]any)
	cursor, _ := out["nextCursor"].(string)
	if len(first) != 1 || cursor == "" {
		t.Fatalf("list_releases, limit 1: %v", out)
	}
	out, _ = callTool(t, s, "list_releases", map[string]any{"siteId": site, "limit": 1, "cursor": cursor})
	second, _ := out["releases"].([]any)
	if len(second) != 1 || out["nextCursor"] != nil || second[0].(map[string]any)["id"] == first[0].(map[string]any)["id"] {
		t.Fatalf("list_releases, page 2: %v", out)
	}
	out, _ = callTool(t, s, "list_releases", map[string]any{"siteId": site, "state": "scheduled"})
	if rels := out["releases"].([]any); len(rels) != 1 || rels[0].(map[string]any)["id"] != f.rel.ID {
		t.Fatalf("list_releases, scheduled: %v", out)
	}
	out, res = callTool(t, s, "get_release", map[string]any{"siteId": site, "releaseId": f.rel.ID})
	items, _ := out["items"].([]any)
	if res.IsError || out["id"] != f.rel.ID || len(items) != 1 || items[0].(map[string]any)["title"] != "Election night live" {
		t.Fatalf("get_release: %v", out)
	}
	if _, ok := out["closureAdded"]; !ok {
		t.Fatalf("get_release is no ReleaseView: %v", out)
	}

	out, res = callTool(t, s, "list_automations", map[string]any{"siteId": site})
	auts, _ := out["automations"].([]any)
	autIDs := map[any]bool{}
	for _, au := range auts {
		autIDs[au.(map[string]any)["id"]] = true
	}
	if res.IsError || len(auts) != 2 || !autIDs[f.auto.ID] || !autIDs[f.task.ID] {
		t.Fatalf("list_automations: %v", out)
	}
	raw, _ := json.Marshal(out)
	if strings.Contains(strings.ToLower(string(raw)), "secret") {
		t.Fatalf("list_automations names a secret: %s", raw)
	}

	out, res = callTool(t, s, "list_runs", map[string]any{"siteId": site, "automationId": f.auto.ID})
	runs, _ := out["runs"].([]any)
	if res.IsError || len(runs) != 1 || runs[0].(map[string]any)["id"] != f.run.ID {
		t.Fatalf("list_runs: %v", out)
	}
	out, res = callTool(t, s, "get_run", map[string]any{"siteId": site, "runId": f.run.ID})
	if res.IsError || out["id"] != f.run.ID || out["state"] != f.run.State {
		t.Fatalf("get_run: %v", out)
	}

	// A run's trail: its audit rows (here the run's own tool calls, the
	// task's key being inside it), the snapshots they name, its approvals.
	task0 := f.connect(t, "sk_task")
	callTool(t, task0, "get_mode", nil)
	want := f.runAuditIDs(t, f.taskRun)
	out, res = callTool(t, task0, "get_run", map[string]any{"siteId": site, "runId": f.taskRun})
	if res.IsError || out["id"] != f.taskRun || fmt.Sprint(out["auditRowIds"]) != fmt.Sprint(want) || len(want) == 0 ||
		out["approvals"] == nil || out["snapshots"] == nil {
		t.Fatalf("get_run's trail: %v, audit rows %v", out, want)
	}
	var pubRun string
	for _, r := range out0(t, s, "list_runs", map[string]any{"siteId": site}) {
		if sub := r.(map[string]any)["subject"].(map[string]any); sub["kind"] == "release" && r.(map[string]any)["state"] == "succeeded" {
			pubRun = r.(map[string]any)["id"].(string)
		}
	}
	if pubRun == "" {
		t.Fatal("no run of the embargo's published release")
	}
	{
		out, _ = callTool(t, s, "get_run", map[string]any{"siteId": site, "runId": pubRun})
		var snaps string
		if err := f.store.DB().QueryRow(`SELECT coalesce(group_concat(DISTINCT json_extract(details, '$.snapshot')), '')
			FROM audit WHERE run_id = ?`, pubRun).Scan(&snaps); err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, s := range out["snapshots"].([]any) {
			got = append(got, s.(string))
		}
		if strings.Join(got, ",") != snaps || fmt.Sprint(out["auditRowIds"]) != fmt.Sprint(f.runAuditIDs(t, pubRun)) {
			t.Fatalf("a publish run's trail: %v, snapshots %q", out, snaps)
		}
	}

	out, res = callTool(t, s, "get_mode", nil)
	if res.IsError || out["mode"] != "edits" || out["keyId"] != "key_editor" || out["run"] != nil {
		t.Fatalf("get_mode: %v", out)
	}
	if got := out["scopes"].([]any); len(got) != 2 || !slices.Contains(got, any("schedules:read")) || !slices.Contains(got, any("content:read")) {
		t.Fatalf("get_mode scopes: %v", got)
	}
	task := f.connect(t, "sk_task")
	out, _ = callTool(t, task, "get_mode", nil)
	if run, _ := out["run"].(map[string]any); run == nil || run["runId"] != f.taskRun || out["automationId"] != f.task.ID {
		t.Fatalf("get_mode in a run: %v", out)
	}

	out, res = callTool(t, s, "list_content", map[string]any{"siteId": site})
	nodes, _ := out["content"].([]any)
	if res.IsError || len(nodes) != 3 {
		t.Fatalf("list_content: %v", out)
	}
	out, res = callTool(t, s, "get_content", map[string]any{"siteId": site, "nodeId": f.live.ID})
	live, _ := out["live"].(map[string]any)
	if res.IsError || out["id"] != f.live.ID || out["title"] != "Welcome to the Gazette" || out["rev"] == nil || live["rev"] == nil {
		t.Fatalf("get_content: %v", out)
	}
}

// TestMCPBadInput: bad input to every tool is a tool error with a code,
// and nothing changes (the audit rows of the calls aside).
func TestMCPBadInput(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	s := f.connect(t, "sk_editor")
	site := f.site.ID
	cases := []struct {
		tool string
		args map[string]any
		code string
	}{
		{"list_schedule", map[string]any{"siteId": site, "from": "tomorrow", "to": "2026-12-01T00:00:00Z"}, mcp.CodeBadRequest},
		{"list_schedule", map[string]any{"siteId": site, "from": "2026-11-01T00:00:00Z", "to": "2027-11-01T00:00:00Z"}, "range_too_long"},
		{"list_schedule", map[string]any{"siteId": "site_nope", "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z"}, engine.CodeForbidden},
		{"list_schedule", map[string]any{"siteId": site, "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z", "states": []string{"sleeping"}}, mcp.CodeBadRequest},
		{"list_schedule", map[string]any{"siteId": site, "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z", "origin": "robot"}, mcp.CodeBadRequest},
		{"list_schedule", map[string]any{"siteId": site, "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z", "types": []string{"embargo"}}, mcp.CodeBadRequest},
		{"get_schedule", map[string]any{"siteId": site, "id": "occ:aut_nope:yesterday"}, engine.CodeNotFound},
		{"get_schedule", map[string]any{"siteId": site, "id": "gate:" + f.page.ID + ":from"}, engine.CodeNotFound},
		{"get_schedule", map[string]any{"siteId": site, "id": "rel_nope"}, engine.CodeNotFound},
		{"get_schedule", map[string]any{"siteId": site}, mcp.CodeBadRequest},
		{"list_releases", map[string]any{}, mcp.CodeBadRequest},
		{"list_releases", map[string]any{"siteId": site, "state": "asleep"}, mcp.CodeBadRequest},
		{"list_releases", map[string]any{"siteId": site, "limit": 51}, mcp.CodeBadRequest},
		{"list_releases", map[string]any{"siteId": site, "limit": 0.5}, mcp.CodeBadRequest},
		{"list_releases", map[string]any{"siteId": site, "cursor": "rel_nope"}, releases.CodeBadCursor},
		{"list_releases", map[string]any{"siteId": site, "sitId": "x"}, mcp.CodeBadRequest},
		{"get_release", map[string]any{"siteId": site, "releaseId": "rel_nope"}, engine.CodeNotFound},
		{"get_release", map[string]any{"siteId": site, "releaseId": 7}, mcp.CodeBadRequest},
		{"list_automations", map[string]any{"siteId": 1}, mcp.CodeBadRequest},
		{"list_runs", map[string]any{"siteId": site, "state": "sleeping"}, automation.CodeUnknownRunState},
		{"get_run", map[string]any{"siteId": site, "runId": "run_nope"}, engine.CodeNotFound},
		{"get_mode", map[string]any{"mode": "bypass"}, mcp.CodeBadRequest},
		{"list_content", map[string]any{"siteId": "site_nope"}, engine.CodeForbidden},
		{"get_content", map[string]any{"siteId": site, "nodeId": "node_nope"}, engine.CodeNotFound},
		{"get_content", map[string]any{"siteId": site}, mcp.CodeBadRequest},
	}
	// The write tools, through a key that may write: refused before
	// anything is written.
	w := f.connect(t, "sk_writer")
	rel := f.release(t, f.rel.ID)
	liveRev, draftRev := f.nodeRev(t, f.live.ID), f.nodeRev(t, f.draft.ID)
	later := map[string]any{"at": "2026-11-05T09:00:00Z"}
	writes := []struct {
		tool string
		args map[string]any
		code string
	}{
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{}}, mcp.CodeBadRequest},
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{"ent_nope"}}, engine.CodeNotFound},
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{f.draft.ID}, "note": strings.Repeat("n", 501)}, mcp.CodeBadRequest},
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{f.draft.ID}, "note": "stop\x00"}, releases.CodeBadNote},
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{f.draft.ID}, "at": "2026-11-05T09:00:00Z", "localTime": "2026-11-05T12:00"}, releases.CodeBadWhen},
		{"schedule_release", map[string]any{"siteId": site, "nodeIds": []string{f.draft.ID}, "when": "tomorrow"}, releases.CodeBadWhen},
		{"schedule_release", map[string]any{"siteId": site, "nodeIds": []string{f.draft.ID}, "when": map[string]any{"at": "soon"}}, api.CodeBadInstant},
		{"schedule_release", map[string]any{"siteId": site, "nodeIds": []string{f.draft.ID}, "releaseId": rel.ID, "when": later}, mcp.CodeBadRequest},
		{"schedule_release", map[string]any{"siteId": site, "releaseId": "rel_nope", "when": later}, engine.CodeNotFound},
		{"reschedule", map[string]any{"siteId": site, "releaseId": rel.ID, "expectedRev": rel.Rev, "when": "on-approval"}, releases.CodeMoveNeedsTime},
		{"reschedule", map[string]any{"siteId": site, "releaseId": rel.ID, "expectedRev": rel.Rev + 9, "when": later}, engine.CodeStale},
		{"cancel_schedule", map[string]any{"siteId": site, "releaseId": "rel_nope", "expectedRev": 1}, engine.CodeNotFound},
		{"set_embargo", map[string]any{"siteId": site, "nodeId": "ent_nope", "expectedRev": 1, "from": "2026-11-05T09:00:00Z"}, engine.CodeNotFound},
		{"set_embargo", map[string]any{"siteId": site, "nodeId": f.page.ID, "expectedRev": f.nodeRev(t, f.page.ID), "from": "2020-01-01T00:00:00Z"}, gates.CodeGateInPast},
		{"lift_embargo", map[string]any{"siteId": site, "nodeId": f.live.ID, "expectedRev": liveRev, "reason": " "}, releases.CodeReason},
		{"lift_embargo", map[string]any{"siteId": site, "nodeId": f.page.ID, "expectedRev": f.nodeRev(t, f.page.ID), "reason": "Early."}, gates.CodeNotEmbargoed},
		{"schedule_unpublish", map[string]any{"siteId": site, "nodeId": f.page.ID, "expectedRev": 1, "at": "soon"}, api.CodeBadInstant},
		{"schedule_unpublish", map[string]any{"siteId": site, "nodeId": f.draft.ID, "expectedRev": draftRev, "at": "2026-11-05T09:00:00Z"}, releases.CodeNotLive},
		{"save_draft", map[string]any{"siteId": site, "nodeId": f.draft.ID}, api.CodeBadRequest},
		{"save_draft", map[string]any{"siteId": site, "nodeId": f.draft.ID, "expectedRev": draftRev}, api.CodeNothingToChange},
		{"save_draft", map[string]any{"siteId": site, "kind": "video", "title": "Clip"}, mcp.CodeBadRequest},
	}
	before := f.fingerprintBut(t)
	audits := f.auditRows(t)
	for _, c := range cases {
		out, res := callTool(t, s, c.tool, c.args)
		toolError(t, c.tool, out, res, c.code)
	}
	for _, c := range writes {
		out, res := callTool(t, w, c.tool, c.args)
		toolError(t, c.tool, out, res, c.code)
	}
	if after := f.fingerprintBut(t); after != before {
		t.Fatalf("bad input changed something:\n%s\n%s", before, after)
	}
	if got := f.auditRows(t) - audits; got != len(cases)+len(writes) {
		t.Fatalf("%d audit rows for %d refused calls", got, len(cases)+len(writes))
	}
}

// fingerprintBut is the fingerprint without the audit count.
func (f *mcpFixture) fingerprintBut(t *testing.T) string {
	t.Helper()
	var others int
	if err := f.store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action != 'mcp.tool'`).Scan(&others); err != nil {
		t.Fatal(err)
	}
	audit := regexp.MustCompile(`\d+ audit`)
	return audit.ReplaceAllString(f.fingerprint(t)+" | "+f.autFingerprint(t), "") + fmt.Sprintf(" %d other audit rows", others)
}

func (f *mcpFixture) auditRows(t *testing.T) int {
	t.Helper()
	var n int
	if err := f.store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action = 'mcp.tool'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMCPAuthentication: no key, a wrong key, another scheme: 401 with
// WWW-Authenticate: Bearer, and nothing else said.
func TestMCPAuthentication(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for name, auth := range map[string]string{"no key": "", "wrong key": "Bearer sk_wrong", "basic": "Basic c2tfZWRpdG9y",
		"empty bearer": "Bearer "} {
		req, _ := http.NewRequest("POST", f.base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") ||
			resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("%s: %d %q", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	// The go-sdk client with a wrong key cannot even initialize.
	c := sdk.NewClient(&sdk.Implementation{Name: "x", Version: "1"}, nil)
	if _, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: f.base + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{secret: "sk_wrong"}}}, nil); err == nil {
		t.Fatal("a wrong key initialized")
	}
	if n := f.auditRows(t); n != 0 {
		t.Fatalf("%d audit rows without a key", n)
	}
}

// TestMCPOriginAndHost: a request a browser says another origin sent is
// refused, valid key or not; so is a Host that is not the loopback one a
// loopback listener answers (DNS rebinding).
func TestMCPOriginAndHost(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	send := func(method string, h map[string]string, host string) int {
		req, _ := http.NewRequest(method, f.base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer sk_editor")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := send("POST", nil, ""); got != http.StatusOK {
		t.Fatalf("an agent's request: %d", got)
	}
	for name, h := range map[string]map[string]string{
		"foreign Origin":        {"Origin": "https://evil.example"},
		"Sec-Fetch-Site":        {"Sec-Fetch-Site": "cross-site"},
		"foreign Origin on GET": {"Origin": "https://evil.example"},
	} {
		method := "POST"
		if strings.HasSuffix(name, "GET") {
			method = "GET"
		}
		if got := send(method, h, ""); got != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, got)
		}
	}
	if got := send("POST", nil, "evil.example"); got != http.StatusForbidden {
		t.Errorf("a rebinding Host: %d, want 403", got)
	}
}

// TestMCPSitesAndRoles: an automation's key reads its own site only, and
// outside a run only get_mode (outside_run); a key
// whose owner is an Author reads what an Author may (its extra scopes
// narrowed away); a key without content:read gets forbidden on content; a
// Turkish owner reads refusals in Turkish.
func TestMCPSitesAndRoles(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	task := f.connect(t, "sk_task")
	out, res := callTool(t, task, "list_releases", map[string]any{"siteId": f.site.ID})
	if res.IsError {
		t.Fatalf("the task's own site: %v", out)
	}
	for _, tl := range []string{"list_releases", "list_automations", "list_content"} {
		out, res = callTool(t, task, tl, map[string]any{"siteId": f.otherID})
		toolError(t, tl+" on site B", out, res, engine.CodeForbidden)
	}
	idle := f.connect(t, "sk_idle")
	for _, tl := range []string{"list_releases", "list_automations", "list_content"} {
		out, res = callTool(t, idle, tl, map[string]any{"siteId": f.site.ID})
		toolError(t, tl+" outside a run", out, res, engine.CodeOutsideRun)
	}
	if out, res = callTool(t, idle, "get_mode", nil); res.IsError || out["run"] != nil {
		t.Fatalf("get_mode outside a run: %v", out)
	}
	editor := f.connect(t, "sk_editor")
	out, res = callTool(t, editor, "list_content", map[string]any{"siteId": f.otherID})
	toolError(t, "a person's key on another site", out, res, engine.CodeForbidden)

	author := f.connect(t, "sk_author")
	out, _ = callTool(t, author, "get_mode", nil)
	var scopes []string
	for _, s := range out["scopes"].([]any) {
		scopes = append(scopes, s.(string))
	}
	// What an Author holds of what the key asked for: no site:settings,
	// releases:publish at the own level only.
	want := []string{}
	for _, s := range policy.Narrow(f.keys["sk_author"].Scopes, policy.Author) {
		want = append(want, string(s))
	}
	if !slices.Equal(scopes, want) || slices.Contains(scopes, string(policy.SiteSettings)) ||
		slices.Contains(scopes, string(policy.ReleasesPublish)) {
		t.Fatalf("an Author's key holds %v, want %v", scopes, want)
	}
	out, _ = callTool(t, author, "list_automations", map[string]any{"siteId": f.site.ID})
	a0 := out["automations"].([]any)[0].(map[string]any)["abilities"].(map[string]any)
	if a0["edit"] != false || a0["runNow"] != false || a0["pause"] != false {
		t.Fatalf("an Author's key may change an automation: %v", a0)
	}
	out, _ = callTool(t, author, "get_content", map[string]any{"siteId": f.site.ID, "nodeId": f.live.ID})
	if ab := out["abilities"].(map[string]any); ab["edit"] == true || ab["publish"] == true {
		t.Fatalf("an Author's key may change the editor's article: %v", ab)
	}

	noScope := f.connect(t, "sk_noscope")
	out, res = callTool(t, noScope, "list_content", map[string]any{"siteId": f.site.ID})
	toolError(t, "list_content without content:read", out, res, engine.CodeForbidden)

	tr := f.connect(t, "sk_tr")
	out, res = callTool(t, tr, "get_release", map[string]any{"siteId": f.site.ID, "releaseId": "rel_nope"})
	if msg := toolError(t, "Turkish", out, res, engine.CodeNotFound); !strings.Contains(msg, "silinmiş") {
		t.Fatalf("a Turkish owner's refusal: %q", msg)
	}
}

// TestMCPAuditRows: every call, read or refused, writes one audit row with
// the key as actor, and the run (run_id) and automation (details) of an
// automation's key; none of them counts toward the daily write cap.
func TestMCPAuditRows(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	s := f.connect(t, "sk_editor")
	callTool(t, s, "list_releases", map[string]any{"siteId": f.site.ID})
	callTool(t, s, "get_release", map[string]any{"siteId": f.site.ID, "releaseId": "rel_nope"})
	task := f.connect(t, "sk_task")
	callTool(t, task, "get_mode", nil)
	rows, err := f.store.DB().Query(`SELECT coalesce(site_id, ''), actor, coalesce(run_id, ''), details, automation_id IS NULL
		FROM audit WHERE action = 'mcp.tool' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type row struct {
		site, run string
		actor     release.Actor
		details   map[string]any
	}
	var got []row
	for rows.Next() {
		var r row
		var actor, details string
		var noCap bool
		if err := rows.Scan(&r.site, &actor, &r.run, &details, &noCap); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal([]byte(actor), &r.actor)
		json.Unmarshal([]byte(details), &r.details)
		if !noCap {
			t.Fatalf("a read counts toward the daily write cap: %+v", r)
		}
		got = append(got, r)
	}
	if len(got) != 3 {
		t.Fatalf("%d rows: %+v", len(got), got)
	}
	if r := got[0]; r.site != f.site.ID || r.actor.Kind != "agent" || r.actor.ID != "key_editor" ||
		r.details["tool"] != "list_releases" || r.details["refused"] != nil || r.run != "" {
		t.Fatalf("list_releases row: %+v", r)
	}
	if r := got[1]; r.details["tool"] != "get_release" || r.details["refused"] != engine.CodeNotFound {
		t.Fatalf("refused row: %+v", r)
	}
	if r := got[2]; r.actor.ID != f.task.Task.KeyID || r.run != f.taskRun || r.details["automation_id"] != f.task.ID || r.details["tool"] != "get_mode" {
		t.Fatalf("run row: %+v", r)
	}
}

// TestMCPRouteTable walks every row of the MCP table: each takes an agent
// key, and neither a person's Studio session nor a person's access token
// opens it (401), nothing changed.
func TestMCPRouteTable(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	rows := handlers.MCPRoutes(nil)
	if len(rows) == 0 {
		t.Fatal("no MCP routes")
	}
	signedIn := f.signedIn(t, f.editor) // its cookie jar sends the session to f.base too (same host)
	token := f.tokenFor(t, f.editor)
	before := f.fingerprint(t)
	for _, rt := range rows {
		if rt.Scope != handlers.AgentKey {
			t.Errorf("%s %s: access %q", rt.Method, rt.Pattern, rt.Scope)
		}
		for name, send := range map[string]func(*http.Request) (*http.Response, error){
			"session": signedIn.hc.Do,
			"token": func(r *http.Request) (*http.Response, error) {
				r.Header.Set("Authorization", "Bearer "+token)
				return http.DefaultClient.Do(r)
			},
		} {
			req, _ := http.NewRequest(rt.Method, f.base+rt.Pattern, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := send(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s %s with a person's %s: %d", rt.Method, rt.Pattern, name, resp.StatusCode)
			}
		}
	}
	if after := f.fingerprint(t); after != before {
		t.Fatalf("changed:\n%s\n%s", before, after)
	}
}

// out0 is the list under the one key of a tool's answer.
func out0(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any) []any {
	t.Helper()
	out, res := callTool(t, s, tool, args)
	if res.IsError {
		t.Fatalf("%s: %v", tool, out)
	}
	for _, v := range out {
		if l, ok := v.([]any); ok {
			return l
		}
	}
	return nil
}

// runAuditIDs are the ids of a run's audit rows, oldest first, as JSON
// numbers print.
func (f *mcpFixture) runAuditIDs(t *testing.T, runID string) []any {
	t.Helper()
	rows, err := f.store.DB().Query(`SELECT id FROM audit WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []any{}
	for rows.Next() {
		var id float64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}
