package policy_test

import (
	"slices"
	"strings"
	"testing"

	"studio/engine/policy"
)

// toolRow is one row of §12 (or one variant of a row), copied by hand from
// the RFC. cells are plan, manual, edits, auto, bypass in the RFC's words;
// tainted is the "Tainted run" cell for this variant.
type toolRow struct {
	name    string
	class   policy.Class
	cells   []string
	tainted string
}

// rfc12 is the §12 table:
//
//	Tool                                   Scopes                      Class                 plan manual edits auto                              bypass Tainted run
//	list_schedule, get_schedule            schedules:read              read                  ✓    ✓      ✓     ✓                                 ✓      ✓
//	list_releases, get_release             schedules:read              read                  ✓    ✓      ✓     ✓                                 ✓      ✓
//	list_automations, list_runs, get_run   schedules:read              read                  ✓    ✓      ✓     ✓                                 ✓      ✓
//	propose_release                        schedules:write (own)       advisory              ✗    ✓      ✓     ✓                                 ✓      ✗
//	schedule_release                       schedules:write (own); releases:publish (own) for auto publish
//	                                                                   publish               ✗    waits  waits low-risk in window ✓, else waits  ✓      ✗
//	reschedule                             schedules:write (own)       reduce (…)            ✗    waits  ✓     ✓                                 ✓      ✓
//	cancel_schedule                        schedules:write (own)       reduce … ; publish …  ✗    waits  ✓ / waits ✓ / waits                     ✓      reduce only
//	set_embargo                            schedules:write + content:write (own)
//	                                                                   reduce …; otherwise publish
//	                                                                                         ✗    waits  ✓     ✓                                 ✓      ✓ (reduce)
//	lift_embargo                           schedules:write (own)       person                ✗    waits  waits waits                             waits  ✗
//	schedule_unpublish                     schedules:write (own)       publish (never low-risk) ✗ waits  waits waits                             ✓      ✗
//	begin_run, end_run                     the automation's key        read (bookkeeping)    ✓    ✓      ✓     ✓                                 —      ✓
//	pause_automation                       the automation's key, or schedules:write on one's own automations
//	                                                                   read (stops work only) ✓   ✓      ✓     ✓                                 ✓      ✓
//
// Two-variant rows are split: cancel_schedule's "✓ / waits" is ✓ for reduce
// and waits for publish, its "reduce only" tainted cell ✓ for reduce and ✗
// for publish. set_embargo's cells are its reduce variant ("✓ (reduce)");
// the RFC gives no separate cells for its publish variant, so that row
// follows §10.3's publish row and a tainted run may not call it.
var rfc12 = []toolRow{
	{"list_schedule", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"get_schedule", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"list_releases", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"get_release", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"list_automations", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"list_runs", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"get_run", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"propose_release", "advisory", []string{"✗", "✓", "✓", "✓", "✓"}, "✗"},
	{"schedule_release", "publish", []string{"✗", "waits", "waits", "low-risk in window ✓, else waits", "✓"}, "✗"},
	{"reschedule", "reduce", []string{"✗", "waits", "✓", "✓", "✓"}, "✓"},
	{"cancel_schedule", "reduce", []string{"✗", "waits", "✓", "✓", "✓"}, "✓"},
	{"cancel_schedule", "publish", []string{"✗", "waits", "waits", "waits", "✓"}, "✗"},
	{"set_embargo", "reduce", []string{"✗", "waits", "✓", "✓", "✓"}, "✓"},
	{"set_embargo", "publish", []string{"✗", "waits", "waits", "low-risk inside the window: ✓; else waits", "✓"}, "✗"},
	{"lift_embargo", "person", []string{"✗", "waits", "waits", "waits", "waits"}, "✗"},
	{"schedule_unpublish", "publish", []string{"✗", "waits", "waits", "waits", "✓"}, "✗"},
	{"begin_run", "read", []string{"✓", "✓", "✓", "✓", "—"}, "✓"},
	{"end_run", "read", []string{"✓", "✓", "✓", "✓", "—"}, "✓"},
	{"pause_automation", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
}

// rfc11_4 are the tools §11.4 names, with the cells its rules give: reads
// (read class, ✓ everywhere and after taint), label_comments (advisory,
// callable after taint), fetch_asset_url (read, but not inside runs).
var rfc11_4 = []toolRow{
	{"get_mode", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"list_comments", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"get_comment_thread", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"broken_links", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"get_analytics", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"top_content", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"fetch_asset_url", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"label_comments", "advisory", []string{"✗", "✓", "✓", "✓", "✓"}, "✓"},
	// The content tools issue 13 adds so that an agent has something to
	// propose: read-class, with content:read.
	{"list_content", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"get_content", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	{"describe_site", "read", []string{"✓", "✓", "✓", "✓", "✓"}, "✓"},
	// save_draft: a working copy only, a proposal people read before a
	// release publishes it (advisory), never after taint.
	{"save_draft", "advisory", []string{"✗", "✓", "✓", "✓", "✓"}, "✗"},
}

var modes = []policy.Mode{"plan", "manual", "edits", "auto", "bypass"}

// TestToolTableEveryCell asserts every cell of §12 (and the §11.4 tools)
// outside runs, inside an untainted run and inside a tainted run.
func TestToolTableEveryCell(t *testing.T) {
	t.Parallel()
	for _, r := range append(slices.Clone(rfc12), rfc11_4...) {
		spec, ok := policy.Tool(r.name)
		if !ok {
			t.Errorf("no tool %s", r.name)
			continue
		}
		for i, m := range modes {
			t.Run(r.name+"/"+string(r.class)+"/"+string(m), func(t *testing.T) {
				want := rfcCell(t, r.cells[i])
				if got := spec.Verdict(m, r.class, false, false); got != want {
					t.Errorf("outside a run: %s, RFC says %s", got, r.cells[i])
				}
				// Inside a run: the same, except bypass never applies
				// (§10.7) and fetch_asset_url does not exist (§11.4 rule 2).
				wantRun := want
				if m == "bypass" {
					wantRun = policy.NotApplicable
				}
				if r.name == "fetch_asset_url" {
					wantRun = policy.UnavailableInRun
				}
				if got := spec.Verdict(m, r.class, true, false); got != wantRun {
					t.Errorf("in a run: %s, want %s", got, wantRun)
				}
				wantTainted := wantRun
				switch r.tainted {
				case "✓":
				case "✗":
					if wantRun != policy.NotApplicable && wantRun != policy.UnavailableInRun {
						wantTainted = policy.Tainted
					}
				default:
					t.Fatalf("tainted cell %q", r.tainted)
				}
				if got := spec.Verdict(m, r.class, true, true); got != wantTainted {
					t.Errorf("in a tainted run: %s, want %s", got, wantTainted)
				}
				// Taint without the run flag still counts as a run.
				if got := spec.Verdict(m, r.class, false, true); got != wantTainted {
					t.Errorf("tainted, run flag unset: %s, want %s", got, wantTainted)
				}
			})
		}
	}
}

// TestToolVariants: the classes of each tool, the default variant, and
// refusals of unknown variants and modes.
func TestToolVariants(t *testing.T) {
	t.Parallel()
	want := map[string][]policy.Class{}
	for _, r := range append(slices.Clone(rfc12), rfc11_4...) {
		want[r.name] = append(want[r.name], r.class)
	}
	tools := policy.Tools()
	if len(tools) != len(want) {
		t.Errorf("%d tools, want %d", len(tools), len(want))
	}
	for _, spec := range tools {
		if !slices.Equal(spec.Classes(), want[spec.Name]) {
			t.Errorf("%s classes %v, want %v", spec.Name, spec.Classes(), want[spec.Name])
		}
		def, _ := spec.Variant("")
		if def.Class != want[spec.Name][0] {
			t.Errorf("%s default variant %s", spec.Name, def.Class)
		}
		if got := spec.Verdict("auto", "person", false, false); !slices.Contains(want[spec.Name], "person") && got != policy.Refused {
			t.Errorf("%s: unknown variant gives %s", spec.Name, got)
		}
		if got := spec.Verdict("yolo", "", false, false); got != policy.Refused {
			t.Errorf("%s: unknown mode gives %s", spec.Name, got)
		}
	}
	// cancel_schedule defaults to reduce (the common case).
	cs, _ := policy.Tool("cancel_schedule")
	if got := cs.Verdict("edits", "", false, false); got != policy.Allowed {
		t.Errorf("cancel_schedule default in edits: %s", got)
	}
	if _, ok := policy.Tool("publish_now"); ok {
		t.Error("publish_now is not over MCP (§12)")
	}
	for _, name := range []string{"create_automation", "resume_automation", "delete_automation", "unschedule", "request_elevation"} {
		if _, ok := policy.Tool(name); ok {
			t.Errorf("%s is not in the table", name)
		}
	}
}

// TestScheduleToolsAreTheSeventeen: the §12 tools in the RFC's order.
func TestScheduleToolsAreTheSeventeen(t *testing.T) {
	t.Parallel()
	want := []string{
		"list_schedule", "get_schedule", "list_releases", "get_release", "list_automations", "list_runs", "get_run",
		"propose_release", "schedule_release", "reschedule", "cancel_schedule", "set_embargo", "lift_embargo",
		"schedule_unpublish", "begin_run", "end_run", "pause_automation",
	}
	if got := policy.ScheduleTools(); !slices.Equal(got, want) {
		t.Errorf("ScheduleTools = %v", got)
	}
}

// TestToolScopes: each tool's scope column, by hand.
func TestToolScopes(t *testing.T) {
	t.Parallel()
	type N = []policy.ScopeNeed
	read := N{{Scope: "schedules:read"}}
	writeOwn := N{{Scope: "schedules:write", Own: true}}
	for name, want := range map[string]struct {
		scopes, autoPublish N
		key, ownAutomations bool
	}{
		"list_schedule": {scopes: read}, "get_schedule": {scopes: read},
		"list_releases": {scopes: read}, "get_release": {scopes: read},
		"list_automations": {scopes: read}, "list_runs": {scopes: read}, "get_run": {scopes: read},
		"propose_release":    {scopes: writeOwn},
		"schedule_release":   {scopes: writeOwn, autoPublish: N{{Scope: "releases:publish", Own: true}}},
		"reschedule":         {scopes: writeOwn},
		"cancel_schedule":    {scopes: writeOwn},
		"set_embargo":        {scopes: N{{Scope: "schedules:write", Own: true}, {Scope: "content:write", Own: true}}},
		"lift_embargo":       {scopes: writeOwn},
		"schedule_unpublish": {scopes: writeOwn},
		"begin_run":          {key: true},
		"end_run":            {key: true},
		"pause_automation":   {scopes: N{{Scope: "schedules:write"}}, key: true, ownAutomations: true},
		"get_mode":           {},
		"list_comments":      {scopes: N{{Scope: "comments:read"}}},
		"get_comment_thread": {scopes: N{{Scope: "comments:read"}}},
		"broken_links":       {scopes: N{{Scope: "analytics:read"}}},
		"get_analytics":      {scopes: N{{Scope: "analytics:read"}}},
		"top_content":        {scopes: N{{Scope: "analytics:read"}}},
		"fetch_asset_url":    {scopes: N{{Scope: "asset:read"}}},
		"label_comments":     {scopes: N{{Scope: "comments:moderate"}}},
		"save_draft":         {scopes: N{{Scope: "content:write", Own: true}}},
	} {
		spec, ok := policy.Tool(name)
		if !ok {
			t.Errorf("no tool %s", name)
			continue
		}
		if !slices.Equal(spec.Scopes, want.scopes) || !slices.Equal(spec.AutoPublishScopes, want.autoPublish) ||
			spec.AutomationKey != want.key || spec.OwnAutomationsOnly != want.ownAutomations {
			t.Errorf("%s: scopes %v auto %v key %v own %v", name, spec.Scopes, spec.AutoPublishScopes, spec.AutomationKey, spec.OwnAutomationsOnly)
		}
	}
}

// TestToolFlags: which tools taint (§11.4 rule 1), exist in runs (rule 2),
// answer outside a run (§11.2), bind the release state (§10.4), void the
// approval and are re-evaluated in auto (§12 reschedule).
func TestToolFlags(t *testing.T) {
	t.Parallel()
	var taints, notInRuns, outside, binds, voids []string
	for _, spec := range policy.Tools() {
		if spec.Taints {
			taints = append(taints, spec.Name)
		}
		if !spec.InRuns {
			notInRuns = append(notInRuns, spec.Name)
		}
		if spec.OutsideRun {
			outside = append(outside, spec.Name)
		}
		for _, v := range spec.Variants {
			if v.BindsState {
				binds = append(binds, spec.Name+"/"+string(v.Class))
			}
		}
		if spec.VoidsApproval {
			voids = append(voids, spec.Name)
		}
		if spec.AutoReevaluatedAs != "" && (spec.Name != "reschedule" || spec.AutoReevaluatedAs != "schedule_release") {
			t.Errorf("%s re-evaluated as %q", spec.Name, spec.AutoReevaluatedAs)
		}
	}
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		{"Taints", taints, []string{"list_comments", "get_comment_thread", "broken_links", "get_analytics", "top_content", "fetch_asset_url"}},
		{"NotInRuns", notInRuns, []string{"fetch_asset_url"}},
		{"OutsideRun", outside, []string{"begin_run", "get_mode"}},
		{"BindsState", binds, []string{"schedule_release/publish", "cancel_schedule/publish", "lift_embargo/person", "schedule_unpublish/publish"}},
		{"VoidsApproval", voids, []string{"reschedule"}},
	} {
		slices.Sort(tc.got)
		slices.Sort(tc.want)
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// TestTaintRuleHoldsForEveryTool cross-checks the data against §11.4 rule
// 1 as a rule: after taint, only read-class tools, label_comments and
// reduce-class tools.
func TestTaintRuleHoldsForEveryTool(t *testing.T) {
	t.Parallel()
	for _, spec := range policy.Tools() {
		for _, v := range spec.Variants {
			want := v.Class == policy.ClassRead || v.Class == policy.ClassReduce || spec.Name == "label_comments"
			if v.Tainted != want {
				t.Errorf("%s/%s: tainted %v, rule 1 says %v", spec.Name, v.Class, v.Tainted, want)
			}
		}
	}
}

// TestToolCellsFollowTheClassTable cross-checks the tool rows against
// §10.3: every cell equals its class's cell except the ones the RFC marks
// in the row itself.
func TestToolCellsFollowTheClassTable(t *testing.T) {
	t.Parallel()
	deviations := map[string]policy.Verdict{
		"cancel_schedule/publish/auto":    policy.Waits, // "✓ / waits": canceling a removal is never low-risk
		"schedule_unpublish/publish/auto": policy.Waits, // "removes content: never low-risk"
		"begin_run/read/bypass":           policy.NotApplicable,
		"end_run/read/bypass":             policy.NotApplicable,
	}
	seen := 0
	for _, spec := range policy.Tools() {
		for _, v := range spec.Variants {
			for _, m := range policy.Modes {
				key := spec.Name + "/" + string(v.Class) + "/" + string(m)
				want := policy.Decide(v.Class, m)
				if d, ok := deviations[key]; ok {
					want = d
					seen++
				}
				if got := v.Modes[m]; got != want {
					t.Errorf("%s = %s, want %s", key, got, want)
				}
			}
		}
	}
	if seen != len(deviations) {
		t.Errorf("saw %d of %d deviations", seen, len(deviations))
	}
}

// TestToolAuthorize: who may call what, with narrowed key scopes.
func TestToolAuthorize(t *testing.T) {
	t.Parallel()
	editor := policy.Narrow([]policy.Scope{"schedules:read", "schedules:write", "releases:publish", "content:write"}, policy.Editor)
	author := policy.Narrow([]policy.Scope{"schedules:read", "schedules:write", "releases:publish", "site:publish", "content:write"}, policy.Author)
	contributor := policy.Narrow([]policy.Scope{"schedules:read", "schedules:write", "releases:publish", "content:write"}, policy.Contributor)
	reader := []policy.Scope{"schedules:read"}
	untrusted := policy.StripUntrusted([]policy.Scope{"schedules:read", "schedules:write", "comments:read", "comments:moderate", "content:write"})
	type L = policy.Level
	A, O, X := policy.LevelAny, policy.LevelOwn, policy.LevelNone
	for _, tc := range []struct {
		tool string
		held []policy.Scope
		key  bool
		want L
	}{
		{"list_releases", reader, false, A},
		{"list_releases", nil, false, X},
		{"propose_release", editor, false, A},
		{"propose_release", author, false, O},
		{"propose_release", contributor, false, O},
		{"propose_release", reader, false, X},
		{"schedule_release", author, false, O},
		{"set_embargo", editor, false, A},
		{"set_embargo", author, false, A.Min(O)},
		{"set_embargo", []policy.Scope{"schedules:write"}, false, X}, // content:write missing
		{"set_embargo", []policy.Scope{"schedules:write:own", "content:write"}, false, O},
		{"begin_run", editor, false, X},
		{"begin_run", nil, true, A},
		{"end_run", nil, true, A},
		{"pause_automation", nil, true, A},
		{"pause_automation", editor, false, O}, // one's own automations only
		{"pause_automation", author, false, X}, // schedules:write:own is not schedules:write
		{"get_mode", nil, false, A},
		{"label_comments", untrusted, false, A},
		{"list_comments", untrusted, false, A},
		{"propose_release", untrusted, false, X},
		{"fetch_asset_url", untrusted, false, X},
	} {
		spec, _ := policy.Tool(tc.tool)
		if got := spec.Authorize(tc.held, tc.key); got != tc.want {
			t.Errorf("%s.Authorize(%v, key=%v) = %q, want %q", tc.tool, tc.held, tc.key, got, tc.want)
		}
	}
	// Auto publish needs releases:publish (own) too.
	sr, _ := policy.Tool("schedule_release")
	for _, tc := range []struct {
		held []policy.Scope
		want L
	}{
		{editor, A},
		{author, O},
		{contributor, X},
		{[]policy.Scope{"schedules:write", "releases:publish:own"}, O},
		{[]policy.Scope{"releases:publish"}, X},
	} {
		if got := sr.AuthorizeAutoPublish(tc.held); got != tc.want {
			t.Errorf("schedule_release.AuthorizeAutoPublish(%v) = %q, want %q", tc.held, got, tc.want)
		}
	}
	pr, _ := policy.Tool("propose_release")
	if got := pr.AuthorizeAutoPublish(policy.Scopes); got != X {
		t.Errorf("propose_release has an auto publish: %q", got)
	}
}

// TestToolsAreCopies: callers cannot change the table.
func TestToolsAreCopies(t *testing.T) {
	t.Parallel()
	spec, _ := policy.Tool("lift_embargo")
	spec.Variants[0].Modes["auto"] = policy.Allowed
	spec.Scopes[0].Scope = "x:y"
	for _, s := range policy.Tools() {
		if s.Name == "lift_embargo" {
			s.Variants[0].Modes["bypass"] = policy.Allowed
		}
	}
	again, _ := policy.Tool("lift_embargo")
	if again.Verdict("auto", "", false, false) != policy.Waits || again.Verdict("bypass", "", false, false) != policy.Waits || again.Scopes[0].Scope != "schedules:write" {
		t.Error("the table changed through a returned spec")
	}
	// Read tools share one variant in the data; a change through one must
	// not reach another.
	a, _ := policy.Tool("list_runs")
	a.Variants[0].Modes["plan"] = policy.Refused
	if b, _ := policy.Tool("get_run"); b.Verdict("plan", "", false, false) != policy.Allowed {
		t.Error("read tools share a mutable row")
	}
}

// TestToolSectionAndNames: every tool names its section, and names are
// unique snake_case.
func TestToolSectionAndNames(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, spec := range policy.Tools() {
		if !slices.Contains([]string{"§12", "§11.4", "issue 13", "issue 38"}, spec.Section) {
			t.Errorf("%s: section %q", spec.Name, spec.Section)
		}
		if seen[spec.Name] || strings.ToLower(spec.Name) != spec.Name || strings.ContainsAny(spec.Name, " -") {
			t.Errorf("bad or repeated name %q", spec.Name)
		}
		seen[spec.Name] = true
	}
}
