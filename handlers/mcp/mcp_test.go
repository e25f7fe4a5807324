package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

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
	"studio/handlers/internal/apptest"
	"studio/handlers/mcp"
)

// agentOf is u calling through a key of mode, with scopes.
func agentOf(u engine.User, keyID string, mode policy.Mode, scopes ...policy.Scope) engine.User {
	u.Scopes = scopes
	u.Agent = &engine.AgentCall{KeyID: keyID, KeyName: "Desk " + keyID, Mode: mode}
	return u
}

func newMCP(t *testing.T) *apptest.MCPFixture {
	t.Helper()
	a := apptest.New(t)
	f := &apptest.MCPFixture{App: a, Keys: apptest.FakeKeys{}}
	f.Rel = a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-03", "09:00")
	a.EmbargoLive(t)
	auto, err := a.Automations.Create(context.Background(), a.Editor, a.Site.ID, automations.Input{Name: "Link check",
		Builtin: automation.BuiltinBrokenLinks, Rule: "FREQ=DAILY;BYHOUR=9;BYMINUTE=7", Start: "2026-11-02T09:07"})
	if err != nil {
		t.Fatal(err)
	}
	f.Auto = auto
	f.Run = a.RunNow(t, a.Editor, auto)
	other, err := a.Engine.CreateSite(context.Background(), "Other Times", "Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	f.OtherID = other.ID
	read := []policy.Scope{policy.SchedulesRead, policy.ContentRead}
	f.Keys["sk_editor"] = agentOf(a.Editor, "key_editor", policy.ModeEdits, read...)
	f.Keys["sk_plan"] = agentOf(a.Editor, "key_plan", policy.ModePlan, read...)
	author := a.AddUser(t, "author@example.com", "Ayla Author", policy.Author, "en")
	// An Author's key asks for more than the role holds: narrowed on use.
	f.Keys["sk_author"] = agentOf(author, "key_author", policy.ModeEdits, policy.SchedulesRead, policy.ContentRead,
		policy.ReleasesPublish, policy.SiteSettings)
	f.Keys["sk_noscope"] = agentOf(a.Editor, "key_noscope", policy.ModeEdits, policy.SchedulesRead)
	f.Keys["sk_writer"] = agentOf(a.Editor, "key_writer", policy.ModeEdits, policy.SchedulesRead, policy.ContentRead,
		policy.SchedulesWrite, policy.ContentWrite)
	// An agent task whose window a person opened and whose run its key
	// began: sk_task is that key (the engine finds its open run on every
	// call), sk_idle a key of the same automation that began no run.
	no := false
	f.Task, err = a.Automations.Create(context.Background(), a.Editor, a.Site.ID, automations.Input{Name: "Morning planner",
		Preset: "daily", Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Plan the day.",
			ModeCap: policy.ModeManual, ReadsUntrustedText: &no, WindowMinutes: 30}})
	if err != nil {
		t.Fatal(err)
	}
	idle := agentOf(a.Editor, "key_idle", policy.ModeManual, read...)
	idle.Agent.AutomationID = f.Task.ID
	f.Keys["sk_idle"] = idle
	task := agentOf(a.Editor, f.Task.Task.KeyID, policy.ModeManual, read...)
	task.Agent.AutomationID = f.Task.ID
	f.Keys["sk_task"] = task
	if _, _, err := a.Automations.RunNow(context.Background(), a.Editor, a.Site.ID, f.Task.ID); err != nil {
		t.Fatal(err)
	}
	env, err := a.Automations.BeginRun(context.Background(), task, f.Task.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.TaskRun = env.RunID
	turkish := agentOf(a.Editor, "key_tr", policy.ModeEdits, read...)
	turkish.Lang = "tr"
	f.Keys["sk_tr"] = turkish
	f.Base = a.Serve(t, false, handlers.WithAgentKeys(f.Keys))
	return f
}

var readTools = []string{"list_schedule", "get_schedule", "list_releases", "get_release", "list_automations", "list_runs", "get_run",
	"get_mode", "list_content", "get_content", "describe_site"}

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
	s := f.Connect(t, "sk_editor")
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
	// Every tool has a title and its hints; what only reads says so, and
	// every write tool is no reader.
	for _, tl := range list.Tools {
		a := tl.Annotations
		if tl.Title == "" || a == nil || a.Title != tl.Title || a.DestructiveHint == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: title %q, annotations %+v", tl.Name, tl.Title, a)
			continue
		}
		reads := slices.Contains(readTools, tl.Name) || tl.Name == "broken_links"
		if a.ReadOnlyHint != reads || (reads && (*a.DestructiveHint || !a.IdempotentHint)) {
			t.Errorf("%s: readOnly %v destructive %v idempotent %v", tl.Name, a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint)
		}
	}
	// Times declare their format; a required array is never null.
	props := map[string]map[string]any{}
	for _, tl := range list.Tools {
		raw, _ := json.Marshal(tl.InputSchema)
		var sch struct {
			Properties map[string]any `json:"properties"`
		}
		json.Unmarshal(raw, &sch)
		for p, v := range sch.Properties {
			props[tl.Name+"."+p], _ = v.(map[string]any)
		}
	}
	for _, p := range []string{"list_schedule.from", "list_schedule.to", "set_embargo.from", "lift_embargo.from", "propose_release.at"} {
		if props[p]["format"] != "date-time" {
			t.Errorf("%s: %v, want format date-time", p, props[p])
		}
	}
	for _, p := range []string{"propose_release.nodeIds"} {
		if props[p]["type"] != "array" {
			t.Errorf("%s: %v, want type array (not null)", p, props[p])
		}
	}
	for name, req := range map[string][]string{
		"list_schedule": {"from", "to"}, "get_schedule": {"id"}, "list_releases": nil, "get_release": {"releaseId"},
		"list_automations": nil, "list_runs": nil, "get_run": {"runId"}, "get_mode": nil,
		"begin_run": {"automationId"}, "end_run": {"outcome", "runId", "summary"}, "pause_automation": {"automationId"},
		"list_content": nil, "get_content": {"nodeId"}, "describe_site": nil,
		"propose_release": {"nodeIds"}, "schedule_release": {"when"},
		"reschedule": {"expectedRev", "releaseId", "when"}, "cancel_schedule": {"expectedRev", "releaseId"},
		"set_embargo": {"expectedRev", "from", "nodeId"}, "lift_embargo": {"expectedRev", "nodeId", "reason"},
		"schedule_unpublish": {"at", "expectedRev", "nodeId"}, "save_draft": nil, "broken_links": nil,
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
	s := f.Connect(t, "sk_editor")
	site := f.Site.ID

	out, res := apptest.CallTool(t, s, "list_schedule", map[string]any{"siteId": site,
		"from": "2026-11-01T00:00:00Z", "to": "2026-12-01T00:00:00Z"})
	if res.IsError || out["timeZone"] != "Europe/Istanbul" {
		t.Fatalf("list_schedule: %v", out)
	}
	ids := map[string]bool{}
	for _, it := range out["items"].([]any) {
		ids[it.(map[string]any)["id"].(string)] = true
	}
	if !ids[f.Rel.ID] || !ids["gate:"+f.Live.ID+":from"] {
		t.Fatalf("list_schedule lacks the release or the gate: %v", ids)
	}
	hasOcc := false
	for id := range ids {
		hasOcc = hasOcc || strings.HasPrefix(id, "occ:"+f.Auto.ID+":")
	}
	if !hasOcc {
		t.Fatalf("list_schedule lacks the automation's occurrences: %v", ids)
	}

	for _, id := range []string{f.Rel.ID, "gate:" + f.Live.ID + ":from"} {
		out, res = apptest.CallTool(t, s, "get_schedule", map[string]any{"siteId": site, "id": id})
		if res.IsError || out["id"] != id {
			t.Fatalf("get_schedule %s: %v", id, out)
		}
	}
	for id := range ids {
		if strings.HasPrefix(id, "occ:") {
			out, res = apptest.CallTool(t, s, "get_schedule", map[string]any{"siteId": site, "id": id})
			if res.IsError || out["id"] != id || out["kind"] != "automation" {
				t.Fatalf("get_schedule %s: %v", id, out)
			}
			break
		}
	}
	for _, typ := range []string{"release", "gate", "automation"} {
		out, _ = apptest.CallTool(t, s, "list_schedule", map[string]any{"siteId": site, "types": []string{typ},
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
	out, _ = apptest.CallTool(t, s, "list_schedule", map[string]any{"siteId": site, "origin": "agent",
		"from": "2026-11-01T00:00:00Z", "to": "2026-12-01T00:00:00Z"})
	// The agent task's occurrences are the fixture's only agent items.
	if items := out["items"].([]any); len(items) == 0 {
		t.Fatal("origin agent lists nothing")
	} else {
		for _, it := range items {
			if it.(map[string]any)["target"] != f.Task.ID {
				t.Fatalf("origin agent lists %v", it)
			}
		}
	}

	out, res = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": site})
	states := map[string]any{}
	for _, r := range out["releases"].([]any) {
		states[r.(map[string]any)["id"].(string)] = r.(map[string]any)["state"]
	}
	// The scheduled release, and the embargo's one-item release, published.
	if res.IsError || len(states) != 2 || states[f.Rel.ID] != "scheduled" {
		t.Fatalf("list_releases: %v", out)
	}
	// Page by page, and by state.
	out, _ = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": site, "limit": 1})
	first, _ := out["releases"].([]any)
	cursor, _ := out["nextCursor"].(string)
	if len(first) != 1 || cursor == "" {
		t.Fatalf("list_releases, limit 1: %v", out)
	}
	out, _ = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": site, "limit": 1, "cursor": cursor})
	second, _ := out["releases"].([]any)
	if len(second) != 1 || out["nextCursor"] != nil || second[0].(map[string]any)["id"] == first[0].(map[string]any)["id"] {
		t.Fatalf("list_releases, page 2: %v", out)
	}
	out, _ = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": site, "state": "scheduled"})
	if rels := out["releases"].([]any); len(rels) != 1 || rels[0].(map[string]any)["id"] != f.Rel.ID {
		t.Fatalf("list_releases, scheduled: %v", out)
	}
	out, res = apptest.CallTool(t, s, "get_release", map[string]any{"siteId": site, "releaseId": f.Rel.ID})
	items, _ := out["items"].([]any)
	if res.IsError || out["id"] != f.Rel.ID || len(items) != 1 || items[0].(map[string]any)["title"] != "Election night live" {
		t.Fatalf("get_release: %v", out)
	}
	if _, ok := out["closureAdded"]; !ok {
		t.Fatalf("get_release is no ReleaseView: %v", out)
	}

	out, res = apptest.CallTool(t, s, "list_automations", map[string]any{"siteId": site})
	auts, _ := out["automations"].([]any)
	autIDs := map[any]bool{}
	for _, au := range auts {
		autIDs[au.(map[string]any)["id"]] = true
	}
	if res.IsError || len(auts) != 2 || !autIDs[f.Auto.ID] || !autIDs[f.Task.ID] {
		t.Fatalf("list_automations: %v", out)
	}
	raw, _ := json.Marshal(out)
	if strings.Contains(strings.ToLower(string(raw)), "secret") {
		t.Fatalf("list_automations names a secret: %s", raw)
	}

	out, res = apptest.CallTool(t, s, "list_runs", map[string]any{"siteId": site, "automationId": f.Auto.ID})
	runs, _ := out["runs"].([]any)
	if res.IsError || len(runs) != 1 || runs[0].(map[string]any)["id"] != f.Run.ID {
		t.Fatalf("list_runs: %v", out)
	}
	out, res = apptest.CallTool(t, s, "get_run", map[string]any{"siteId": site, "runId": f.Run.ID})
	if res.IsError || out["id"] != f.Run.ID || out["state"] != f.Run.State {
		t.Fatalf("get_run: %v", out)
	}

	// A run's trail: its audit rows (here the run's own tool calls, the
	// task's key being inside it), the snapshots they name, its approvals.
	task0 := f.Connect(t, "sk_task")
	apptest.CallTool(t, task0, "get_mode", nil)
	want := f.RunAuditIDs(t, f.TaskRun)
	out, res = apptest.CallTool(t, task0, "get_run", map[string]any{"siteId": site, "runId": f.TaskRun})
	if res.IsError || out["id"] != f.TaskRun || fmt.Sprint(out["auditRowIds"]) != fmt.Sprint(want) || len(want) == 0 ||
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
		out, _ = apptest.CallTool(t, s, "get_run", map[string]any{"siteId": site, "runId": pubRun})
		var snaps string
		if err := f.Store.DB().QueryRow(`SELECT coalesce(group_concat(DISTINCT json_extract(details, '$.snapshot')), '')
			FROM audit WHERE run_id = ?`, pubRun).Scan(&snaps); err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, s := range out["snapshots"].([]any) {
			got = append(got, s.(string))
		}
		if strings.Join(got, ",") != snaps || fmt.Sprint(out["auditRowIds"]) != fmt.Sprint(f.RunAuditIDs(t, pubRun)) {
			t.Fatalf("a publish run's trail: %v, snapshots %q", out, snaps)
		}
	}

	out, res = apptest.CallTool(t, s, "get_mode", nil)
	if res.IsError || out["mode"] != "edits" || out["keyId"] != "key_editor" || out["run"] != nil {
		t.Fatalf("get_mode: %v", out)
	}
	if got := out["scopes"].([]any); len(got) != 2 || !slices.Contains(got, any("schedules:read")) || !slices.Contains(got, any("content:read")) {
		t.Fatalf("get_mode scopes: %v", got)
	}
	task := f.Connect(t, "sk_task")
	out, _ = apptest.CallTool(t, task, "get_mode", nil)
	if run, _ := out["run"].(map[string]any); run == nil || run["runId"] != f.TaskRun || out["automationId"] != f.Task.ID {
		t.Fatalf("get_mode in a run: %v", out)
	}

	out, res = apptest.CallTool(t, s, "list_content", map[string]any{"siteId": site})
	nodes, _ := out["content"].([]any)
	if res.IsError || len(nodes) != 3 {
		t.Fatalf("list_content: %v", out)
	}
	out, res = apptest.CallTool(t, s, "get_content", map[string]any{"siteId": site, "nodeId": f.Live.ID})
	live, _ := out["live"].(map[string]any)
	if res.IsError || out["id"] != f.Live.ID || out["title"] != "Welcome to the Gazette" || out["rev"] == nil || live["rev"] == nil {
		t.Fatalf("get_content: %v", out)
	}
}

// TestMCPBadInput: bad input to every tool is a tool error with a code,
// and nothing changes (the audit rows of the calls aside).
func TestMCPBadInput(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	s := f.Connect(t, "sk_editor")
	site := f.Site.ID
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
		{"get_schedule", map[string]any{"siteId": site, "id": "gate:" + f.Page.ID + ":from"}, engine.CodeNotFound},
		{"get_schedule", map[string]any{"siteId": site, "id": "rel_nope"}, engine.CodeNotFound},
		{"get_schedule", map[string]any{"siteId": site}, mcp.CodeBadRequest},
		{"list_releases", map[string]any{"siteId": nil}, mcp.CodeBadRequest},
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
	w := f.Connect(t, "sk_writer")
	rel := f.Release(t, f.Rel.ID)
	liveRev, draftRev := f.NodeRev(t, f.Live.ID), f.NodeRev(t, f.Draft.ID)
	later := map[string]any{"at": "2026-11-05T09:00:00Z"}
	writes := []struct {
		tool string
		args map[string]any
		code string
	}{
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{}}, mcp.CodeBadRequest},
		{"propose_release", map[string]any{"siteId": site, "nodeIds": nil}, mcp.CodeBadRequest},
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{"ent_nope"}}, engine.CodeNotFound},
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{f.Draft.ID}, "note": strings.Repeat("n", 501)}, mcp.CodeBadRequest},
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{f.Draft.ID}, "note": "stop\x00"}, releases.CodeBadNote},
		{"propose_release", map[string]any{"siteId": site, "nodeIds": []string{f.Draft.ID}, "at": "2026-11-05T09:00:00Z", "localTime": "2026-11-05T12:00"}, releases.CodeBadWhen},
		{"schedule_release", map[string]any{"siteId": site, "nodeIds": []string{f.Draft.ID}, "when": "tomorrow"}, releases.CodeBadWhen},
		{"schedule_release", map[string]any{"siteId": site, "nodeIds": []string{f.Draft.ID}, "when": map[string]any{"at": "soon"}}, api.CodeBadInstant},
		{"schedule_release", map[string]any{"siteId": site, "nodeIds": []string{f.Draft.ID}, "releaseId": rel.ID, "when": later}, mcp.CodeBadRequest},
		{"schedule_release", map[string]any{"siteId": site, "releaseId": "rel_nope", "when": later}, engine.CodeNotFound},
		{"reschedule", map[string]any{"siteId": site, "releaseId": rel.ID, "expectedRev": rel.Rev, "when": "on-approval"}, releases.CodeMoveNeedsTime},
		{"reschedule", map[string]any{"siteId": site, "releaseId": rel.ID, "expectedRev": rel.Rev + 9, "when": later}, engine.CodeStale},
		{"cancel_schedule", map[string]any{"siteId": site, "releaseId": "rel_nope", "expectedRev": 1}, engine.CodeNotFound},
		{"set_embargo", map[string]any{"siteId": site, "nodeId": "ent_nope", "expectedRev": 1, "from": "2026-11-05T09:00:00Z"}, engine.CodeNotFound},
		{"set_embargo", map[string]any{"siteId": site, "nodeId": f.Page.ID, "expectedRev": f.NodeRev(t, f.Page.ID), "from": "2020-01-01T00:00:00Z"}, gates.CodeGateInPast},
		{"lift_embargo", map[string]any{"siteId": site, "nodeId": f.Live.ID, "expectedRev": liveRev, "reason": " "}, releases.CodeReason},
		{"lift_embargo", map[string]any{"siteId": site, "nodeId": f.Page.ID, "expectedRev": f.NodeRev(t, f.Page.ID), "reason": "Early."}, gates.CodeNotEmbargoed},
		{"schedule_unpublish", map[string]any{"siteId": site, "nodeId": f.Page.ID, "expectedRev": 1, "at": "soon"}, api.CodeBadInstant},
		{"schedule_unpublish", map[string]any{"siteId": site, "nodeId": f.Draft.ID, "expectedRev": draftRev, "at": "2026-11-05T09:00:00Z"}, releases.CodeNotLive},
		{"save_draft", map[string]any{"siteId": site, "nodeId": f.Draft.ID}, api.CodeBadRequest},
		{"save_draft", map[string]any{"siteId": site, "nodeId": f.Draft.ID, "expectedRev": draftRev}, api.CodeNothingToChange},
		{"save_draft", map[string]any{"siteId": site, "kind": "video", "title": "Clip"}, mcp.CodeBadRequest},
	}
	before := f.FingerprintBut(t)
	audits := f.AuditRows(t)
	for _, c := range cases {
		out, res := apptest.CallTool(t, s, c.tool, c.args)
		msg := apptest.ToolError(t, c.tool, out, res, c.code)
		if c.code != mcp.CodeBadRequest {
			continue
		}
		// The input's refusal names the argument: the one the call got
		// wrong, in the details and in the sentence.
		d, _ := out["error"].(map[string]any)["details"].(map[string]any)
		arg, _ := d["argument"].(string)
		if _, given := c.args[arg]; arg == "" || !strings.Contains(msg, arg) || (!given && !strings.Contains(d["reason"].(string), "missing")) {
			t.Errorf("%s %v: the refusal names no argument it got wrong: %q %v", c.tool, c.args, msg, d)
		}
	}
	for _, c := range writes {
		out, res := apptest.CallTool(t, w, c.tool, c.args)
		apptest.ToolError(t, c.tool, out, res, c.code)
	}
	if after := f.FingerprintBut(t); after != before {
		t.Fatalf("bad input changed something:\n%s\n%s", before, after)
	}
	if got := f.AuditRows(t) - audits; got != len(cases)+len(writes) {
		t.Fatalf("%d audit rows for %d refused calls", got, len(cases)+len(writes))
	}
}

// TestMCPAuthentication: no key, a wrong key, another scheme: 401 with
// WWW-Authenticate: Bearer, and nothing else said.
func TestMCPAuthentication(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for name, auth := range map[string]string{"no key": "", "wrong key": "Bearer sk_wrong", "basic": "Basic c2tfZWRpdG9y",
		"empty bearer": "Bearer "} {
		req, _ := http.NewRequest("POST", f.Base+"/mcp", strings.NewReader(body))
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
	if _, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: f.Base + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: apptest.Bearer{Secret: "sk_wrong"}}}, nil); err == nil {
		t.Fatal("a wrong key initialized")
	}
	if n := f.AuditRows(t); n != 0 {
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
		req, _ := http.NewRequest(method, f.Base+"/mcp", strings.NewReader(body))
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
	task := f.Connect(t, "sk_task")
	out, res := apptest.CallTool(t, task, "list_releases", map[string]any{"siteId": f.Site.ID})
	if res.IsError {
		t.Fatalf("the task's own site: %v", out)
	}
	for _, tl := range []string{"list_releases", "list_automations", "list_content"} {
		out, res = apptest.CallTool(t, task, tl, map[string]any{"siteId": f.OtherID})
		apptest.ToolError(t, tl+" on site B", out, res, engine.CodeForbidden)
	}
	idle := f.Connect(t, "sk_idle")
	for _, tl := range []string{"list_releases", "list_automations", "list_content"} {
		out, res = apptest.CallTool(t, idle, tl, map[string]any{"siteId": f.Site.ID})
		apptest.ToolError(t, tl+" outside a run", out, res, engine.CodeOutsideRun)
	}
	if out, res = apptest.CallTool(t, idle, "get_mode", nil); res.IsError || out["run"] != nil {
		t.Fatalf("get_mode outside a run: %v", out)
	}
	editor := f.Connect(t, "sk_editor")
	out, res = apptest.CallTool(t, editor, "list_content", map[string]any{"siteId": f.OtherID})
	apptest.ToolError(t, "a person's key on another site", out, res, engine.CodeForbidden)

	author := f.Connect(t, "sk_author")
	out, _ = apptest.CallTool(t, author, "get_mode", nil)
	var scopes []string
	for _, s := range out["scopes"].([]any) {
		scopes = append(scopes, s.(string))
	}
	// What an Author holds of what the key asked for: no site:settings,
	// releases:publish at the own level only.
	want := []string{}
	for _, s := range policy.Narrow(f.Keys["sk_author"].Scopes, policy.Author) {
		want = append(want, string(s))
	}
	if !slices.Equal(scopes, want) || slices.Contains(scopes, string(policy.SiteSettings)) ||
		slices.Contains(scopes, string(policy.ReleasesPublish)) {
		t.Fatalf("an Author's key holds %v, want %v", scopes, want)
	}
	out, _ = apptest.CallTool(t, author, "list_automations", map[string]any{"siteId": f.Site.ID})
	a0 := out["automations"].([]any)[0].(map[string]any)["abilities"].(map[string]any)
	if a0["edit"] != false || a0["runNow"] != false || a0["pause"] != false {
		t.Fatalf("an Author's key may change an automation: %v", a0)
	}
	out, _ = apptest.CallTool(t, author, "get_content", map[string]any{"siteId": f.Site.ID, "nodeId": f.Live.ID})
	if ab := out["abilities"].(map[string]any); ab["edit"] == true || ab["publish"] == true {
		t.Fatalf("an Author's key may change the editor's article: %v", ab)
	}

	noScope := f.Connect(t, "sk_noscope")
	out, res = apptest.CallTool(t, noScope, "list_content", map[string]any{"siteId": f.Site.ID})
	if msg := apptest.ToolError(t, "list_content without content:read", out, res, engine.CodeScopeMissing); !strings.Contains(msg, "content:read") {
		t.Fatalf("the refusal does not name the scope: %q", msg)
	}
	if d, _ := out["error"].(map[string]any)["details"].(map[string]any); d["scope"] != "content:read" || d["tool"] != "list_content" {
		t.Fatalf("the refusal's details: %v", out)
	}

	tr := f.Connect(t, "sk_tr")
	out, res = apptest.CallTool(t, tr, "get_release", map[string]any{"siteId": f.Site.ID, "releaseId": "rel_nope"})
	if msg := apptest.ToolError(t, "Turkish", out, res, engine.CodeNotFound); !strings.Contains(msg, "silinmiş") {
		t.Fatalf("a Turkish owner's refusal: %q", msg)
	}
}

// TestMCPAuditRows: every call, read or refused, writes one audit row with
// the key as actor, and the run (run_id) and automation (details) of an
// automation's key; none of them counts toward the daily write cap.
func TestMCPAuditRows(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	s := f.Connect(t, "sk_editor")
	apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": f.Site.ID})
	apptest.CallTool(t, s, "get_release", map[string]any{"siteId": f.Site.ID, "releaseId": "rel_nope"})
	task := f.Connect(t, "sk_task")
	apptest.CallTool(t, task, "get_mode", nil)
	rows, err := f.Store.DB().Query(`SELECT coalesce(site_id, ''), actor, coalesce(run_id, ''), details, automation_id IS NULL
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
	if r := got[0]; r.site != f.Site.ID || r.actor.Kind != "agent" || r.actor.ID != "key_editor" ||
		r.details["tool"] != "list_releases" || r.details["refused"] != nil || r.run != "" {
		t.Fatalf("list_releases row: %+v", r)
	}
	if r := got[1]; r.details["tool"] != "get_release" || r.details["refused"] != engine.CodeNotFound {
		t.Fatalf("refused row: %+v", r)
	}
	if r := got[2]; r.actor.ID != f.Task.Task.KeyID || r.run != f.TaskRun || r.details["automation_id"] != f.Task.ID || r.details["tool"] != "get_mode" {
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
	signedIn := f.SignedIn(t, f.Editor) // its cookie jar sends the session to f.base too (same host)
	token := f.TokenFor(t, f.Editor)
	before := f.Fingerprint(t)
	for _, rt := range rows {
		if rt.Scope != handlers.AgentKey {
			t.Errorf("%s %s: access %q", rt.Method, rt.Pattern, rt.Scope)
		}
		for name, send := range map[string]func(*http.Request) (*http.Response, error){
			"session": signedIn.HTTP.Do,
			"token": func(r *http.Request) (*http.Response, error) {
				r.Header.Set("Authorization", "Bearer "+token)
				return http.DefaultClient.Do(r)
			},
		} {
			req, _ := http.NewRequest(rt.Method, f.Base+rt.Pattern, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
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
	if after := f.Fingerprint(t); after != before {
		t.Fatalf("changed:\n%s\n%s", before, after)
	}
}

// out0 is the list under the one key of a tool's answer.
func out0(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any) []any {
	t.Helper()
	out, res := apptest.CallTool(t, s, tool, args)
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
