package releases_test

import (
	"context"
	"encoding/json"
	"testing"

	"studio/engine"
	"studio/engine/policy"
)

func agent(role policy.Role, mode policy.Mode, scopes ...policy.Scope) engine.User {
	return engine.User{ID: "user_1", Role: role, Scopes: scopes,
		Agent: &engine.AgentCall{KeyID: "key_1", KeyName: "Desk", Mode: mode}}
}

// TestAgentMayCallCases: the gate's refusals, each with its code, and the
// table's cells it lets through.
func TestAgentMayCallCases(t *testing.T) {
	t.Parallel()
	read := []policy.Scope{policy.SchedulesRead, policy.ContentRead}
	task := agent(policy.Editor, policy.ModeEdits, read...)
	task.Agent.AutomationID = "aut_1"
	inRun := agent(policy.Editor, policy.ModeEdits, read...)
	inRun.Agent.AutomationID, inRun.Agent.RunID = "aut_1", "run_1"
	person := agent(policy.Editor, policy.ModeEdits, read...)
	person.Agent = nil
	cases := []struct {
		name    string
		u       engine.User
		tool    string
		tainted bool
		own     bool // the automation's own key on its automation
		want    policy.Verdict
		code    string
	}{
		{"a read tool", agent(policy.Editor, policy.ModePlan, read...), "list_schedule", false, false, policy.Allowed, ""},
		{"content tools", agent(policy.Author, policy.ModeAuto, read...), "get_content", false, false, policy.Allowed, ""},
		{"get_mode needs no scope", agent(policy.Contributor, policy.ModePlan), "get_mode", false, false, policy.Allowed, ""},
		{"a person is no agent", person, "list_schedule", false, false, policy.Refused, engine.CodeNotAnAgent},
		{"unknown tool", agent(policy.Editor, policy.ModeEdits, read...), "drop_tables", false, false, policy.Refused, engine.CodeUnknownTool},
		{"scope missing", agent(policy.Editor, policy.ModeEdits, policy.SchedulesRead), "list_content", false, false, policy.Refused, engine.CodeScopeMissing},
		// A key that asks for more than its owner's role holds is narrowed.
		{"narrowed to the role", agent(policy.Contributor, policy.ModeEdits, policy.CommentsModerate), "label_comments", false, false, policy.Refused, engine.CodeScopeMissing},
		{"plan refuses advisory", agent(policy.Editor, policy.ModePlan, policy.SchedulesWrite), "propose_release", false, false, policy.Refused, engine.CodeModeRefused},
		{"manual waits on reduce", agent(policy.Editor, policy.ModeManual, policy.SchedulesWrite), "reschedule", false, false, policy.Waits, ""},
		{"outside its run", task, "list_schedule", false, false, policy.Refused, engine.CodeOutsideRun},
		{"get_mode outside its run", task, "get_mode", false, false, policy.Allowed, ""},
		{"begin_run outside its run", task, "begin_run", false, true, policy.Allowed, ""},
		{"inside its run", inRun, "list_schedule", false, false, policy.Allowed, ""},
		{"tainted reads", inRun, "list_runs", true, false, policy.Allowed, ""},
		{"tainted advisory", withScopes(inRun, policy.SchedulesWrite), "propose_release", true, false, policy.Tainted, engine.CodeTainted},
		{"not in runs", withScopes(inRun, policy.AssetRead), "fetch_asset_url", false, false, policy.UnavailableInRun, engine.CodeUnavailableInRun},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, level, err := engine.AgentMayCall(c.u, c.tool, "", c.tainted, c.own)
			if c.code != "" {
				wantRefusal(t, err, c.code, "")
				if level != policy.LevelNone {
					t.Fatalf("a refusal at level %s", level)
				}
				return
			}
			if err != nil || v != c.want || level == policy.LevelNone {
				t.Fatalf("%s %s: %v", v, level, err)
			}
		})
	}
}

func withScopes(u engine.User, s ...policy.Scope) engine.User {
	a := *u.Agent
	u.Agent, u.Scopes = &a, append(append([]policy.Scope(nil), u.Scopes...), s...)
	return u
}

// TestAgentMayCallFollowsTheTable: for every tool, mode, run and taint, the
// gate answers the table's cell (policy.ToolSpec.Verdict) when the key
// holds every scope, and refuses exactly the cells that do not run or wait.
func TestAgentMayCallFollowsTheTable(t *testing.T) {
	t.Parallel()
	for _, spec := range policy.Tools() {
		for _, mode := range policy.Modes {
			for _, run := range []bool{false, true} {
				for _, tainted := range []bool{false, true} {
					if tainted && !run {
						continue
					}
					u := agent(policy.Owner, mode, policy.RoleScopes(policy.Owner)...)
					if run {
						u.Agent.RunID = "run_1"
					}
					cell := spec.Verdict(mode, "", run, tainted)
					v, _, err := engine.AgentMayCall(u, spec.Name, "", tainted, false)
					runs := cell == policy.Allowed || cell == policy.Waits || cell == policy.LowRiskInWindow
					if spec.Authorize(policy.RoleScopes(policy.Owner), false) == policy.LevelNone {
						runs = false // the automation's key only (begin_run, end_run)
					}
					if runs != (err == nil) || runs && v != cell {
						t.Errorf("%s %s run=%v tainted=%v: %s %v, cell %s", spec.Name, mode, run, tainted, v, err, cell)
					}
				}
			}
		}
	}
}

// TestAuditToolCall: one audit row per call, the key as actor, the run and
// the automation, and no automation_id column (the daily write cap counts
// those: a read is no write).
func TestAuditToolCall(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	u := b.Editor
	u.Agent = &engine.AgentCall{KeyID: "key_1", KeyName: "Desk", Mode: policy.ModeEdits, AutomationID: "aut_1", RunID: "run_1"}
	ctx := context.Background()
	if err := b.Eng.AuditToolCall(ctx, u, engine.ToolCall{Tool: "list_runs"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Eng.AuditToolCall(ctx, u, engine.ToolCall{Tool: "get_run", Code: engine.CodeNotFound}); err != nil {
		t.Fatal(err)
	}
	if err := b.Eng.AuditToolCall(ctx, b.Editor, engine.ToolCall{Tool: "get_run"}); err == nil {
		t.Fatal("a person's call audited as a tool call")
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'mcp.tool' AND run_id = 'run_1' AND site_id = ?
		AND automation_id IS NULL AND json_extract(actor, '$.kind') = 'agent' AND json_extract(actor, '$.id') = 'key_1'
		AND json_extract(details, '$.automation_id') = 'aut_1'`, b.Site.ID); n != 2 {
		t.Fatalf("%d rows", n)
	}
	details := b.Text(t, `SELECT details FROM audit WHERE json_extract(details, '$.tool') = 'get_run'`)
	var d map[string]any
	json.Unmarshal([]byte(details), &d)
	if d["refused"] != engine.CodeNotFound || d["mode"] != "edits" {
		t.Fatalf("details %v", d)
	}
}
