package automation

import (
	"slices"
	"sort"
	"testing"
	"time"
)

var classes = []string{"read", "advisory", "reduce", "publish", "person", ""}

func TestTaintingTools(t *testing.T) {
	want := []string{"list_comments", "get_comment_thread", "broken_links", "get_analytics", "top_content", "fetch_asset_url"}
	sort.Strings(want)
	if got := TaintingTools(); !slices.Equal(got, want) {
		t.Fatalf("TaintingTools = %v", got)
	}
	for _, tool := range want {
		if !Taints(tool) {
			t.Errorf("%s does not taint", tool)
		}
	}
	for _, tool := range []string{"get_release", "label_comments", "propose_release", "list_runs", "get_entry", "List_Comments", ""} {
		if Taints(tool) {
			t.Errorf("%s taints", tool)
		}
	}
}

func TestCheckCall(t *testing.T) {
	clean := RunLedger{}
	tainted := RunLedger{Taint: &Taint{At: at("2026-11-02T09:08:00Z"), Tool: ToolListComments}}
	tests := []struct {
		name  string
		run   RunLedger
		tool  string
		class string
		want  string
	}{
		{"untainted may propose", clean, "propose_release", "advisory", ""},
		{"untainted may publish (policy decides)", clean, "schedule_release", "publish", ""},
		{"untainted may read a tainting tool", clean, ToolListComments, "read", ""},
		{"tainted may read", tainted, "get_release", "read", ""},
		{"tainted may read more untrusted text", tainted, ToolGetCommentThread, "read", ""},
		{"tainted may label comments", tainted, ToolLabelComments, "advisory", ""},
		{"tainted may reduce", tainted, "cancel_schedule", "reduce", ""},
		{"tainted may pause itself", tainted, "pause_automation", "read", ""},
		{"tainted may not propose", tainted, "propose_release", "advisory", CodeTainted},
		{"tainted may not publish", tainted, "schedule_release", "publish", CodeTainted},
		{"tainted may not ask a person", tainted, "lift_embargo", "person", CodeTainted},
		{"tainted refuses an unknown class", tainted, "mystery", "", CodeTainted},
		{"no egress", clean, ToolFetchAssetURL, "read", CodeNoEgress},
		{"no egress when tainted", tainted, ToolFetchAssetURL, "read", CodeNoEgress},
		{"no elevation in runs", clean, ToolRequestElevation, "read", CodeElevationInRun},
		{"50th reduce call goes through", RunLedger{ReduceCalls: 49}, "hide_comment", "reduce", ""},
		{"51st reduce call is the anomaly", RunLedger{ReduceCalls: 50}, "hide_comment", "reduce", CodeAnomalyReduceCalls},
		{"reads after 50 reduce calls", RunLedger{ReduceCalls: 50}, "get_release", "read", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckCall(tt.run, tt.tool, tt.class)
			wantCode(t, err, tt.want)
			if err != nil && err.(*Error).Tool != tt.tool {
				t.Fatalf("tool %q", err.(*Error).Tool)
			}
		})
	}
}

// Exhaustively: a tainted run may make a call exactly when it is read or
// reduce class, or label_comments, and not fetch_asset_url or
// request_elevation (§11.4 rules 1–2, S12).
func TestCheckCallTaintedMatrix(t *testing.T) {
	tainted := RunLedger{Taint: &Taint{Tool: ToolBrokenLinks}}
	tools := []string{"get_release", ToolLabelComments, "propose_release", "schedule_release", "set_embargo",
		ToolFetchAssetURL, ToolRequestElevation, ToolListComments, "hide_comment"}
	for _, tool := range tools {
		for _, class := range classes {
			want := (class == "read" || class == "reduce" || tool == ToolLabelComments) &&
				tool != ToolFetchAssetURL && tool != ToolRequestElevation
			if got := CheckCall(tainted, tool, class) == nil; got != want {
				t.Errorf("%s (%q): allowed %v, want %v", tool, class, got, want)
			}
			// Untainted, only the run-wide refusals apply.
			want = tool != ToolFetchAssetURL && tool != ToolRequestElevation
			if got := CheckCall(RunLedger{}, tool, class) == nil; got != want {
				t.Errorf("untainted %s (%q): allowed %v, want %v", tool, class, got, want)
			}
		}
	}
}

func TestAfterCall(t *testing.T) {
	t0 := at("2026-11-02T09:08:00Z")
	t.Run("FirstTaintIsRecorded", func(t *testing.T) {
		r := AfterCall(RunLedger{}, Call{Tool: "get_release", Class: "read"}, t0)
		if r.Tainted() {
			t.Fatal("a plain read tainted the run")
		}
		r = AfterCall(r, Call{Tool: ToolTopContent, Class: "read"}, t0.Add(time.Minute))
		r = AfterCall(r, Call{Tool: ToolListComments, Class: "read"}, t0.Add(2*time.Minute))
		if r.Taint == nil || *r.Taint != (Taint{At: t0.Add(time.Minute), Tool: ToolTopContent}) {
			t.Fatalf("taint %+v", r.Taint)
		}
		if r.Usage.ToolCalls != 3 {
			t.Fatalf("usage %+v", r.Usage)
		}
		wantCode(t, CheckCall(r, "propose_release", "advisory"), CodeTainted)
	})
	t.Run("EveryTaintingToolTaints", func(t *testing.T) {
		for _, tool := range TaintingTools() {
			if r := AfterCall(RunLedger{}, Call{Tool: tool, Class: "read"}, t0); r.Taint == nil || r.Taint.Tool != tool {
				t.Errorf("%s: %+v", tool, r.Taint)
			}
		}
	})
	t.Run("ARefusedCallDoesNotTaint", func(t *testing.T) {
		r := AfterCall(RunLedger{}, Call{Tool: ToolListComments, Class: "read", Refused: true}, t0)
		if r.Tainted() || r.ConsecutiveRefusals != 1 || r.Usage.ToolCalls != 1 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("Counts", func(t *testing.T) {
		r := RunLedger{ConsecutiveRefusals: 4}
		r = AfterCall(r, Call{Tool: "save_draft", Class: "reduce", Write: true}, t0)
		r = AfterCall(r, Call{Tool: "schedule_release", Class: "publish", ApprovalRequest: true}, t0)
		r = AfterCall(r, Call{Tool: "set_embargo", Class: "reduce", Write: true, Refused: true}, t0)
		want := RunLedger{Usage: Usage{ToolCalls: 3, Writes: 1, ApprovalRequests: 1}, ReduceCalls: 1, ConsecutiveRefusals: 1}
		if r.Taint != nil || r.Usage != want.Usage || r.ReduceCalls != want.ReduceCalls || r.ConsecutiveRefusals != want.ConsecutiveRefusals {
			t.Fatalf("%+v, want %+v", r, want)
		}
	})
	t.Run("InputUnchanged", func(t *testing.T) {
		in := RunLedger{}
		_ = AfterCall(in, Call{Tool: ToolListComments, Class: "read"}, t0)
		if in.Tainted() || in.Usage.ToolCalls != 0 {
			t.Fatal("AfterCall modified its input")
		}
	})
}

func TestAnomaly(t *testing.T) {
	tests := []struct {
		name string
		run  RunLedger
		want string
	}{
		{"quiet", RunLedger{}, ""},
		{"50 reduce calls", RunLedger{ReduceCalls: 50}, ""},
		{"51 reduce calls", RunLedger{ReduceCalls: 51}, CodeAnomalyReduceCalls},
		{"9 refusals in a row", RunLedger{ConsecutiveRefusals: 9}, ""},
		{"10 refusals in a row", RunLedger{ConsecutiveRefusals: 10}, CodeAnomalyRefusals},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantCode(t, Anomaly(tt.run), tt.want) })
	}
	t.Run("RefusalsBrokenByASuccess", func(t *testing.T) {
		r := RunLedger{}
		t0 := at("2026-11-02T09:08:00Z")
		for range 9 {
			r = AfterCall(r, Call{Tool: "propose_release", Refused: true}, t0)
		}
		r = AfterCall(r, Call{Tool: "get_release", Class: "read"}, t0)
		for range 9 {
			r = AfterCall(r, Call{Tool: "propose_release", Refused: true}, t0)
		}
		if Anomaly(r) != nil {
			t.Fatal("9 + 9 refusals with a success between killed the run")
		}
		r = AfterCall(r, Call{Tool: "propose_release", Refused: true}, t0)
		wantCode(t, Anomaly(r), CodeAnomalyRefusals)
	})
}

func TestUntrustedScopes(t *testing.T) {
	forbidden := []string{"content:write", "content:write:own", "site:publish", "site:publish:own",
		"schedules:write", "schedules:write:own", "releases:publish", "releases:publish:own",
		"asset:read", "asset:write", "asset:upload"}
	allowed := []string{"content:read", "schedules:read", "comments:read", "comments:moderate", "analytics:read",
		"site:settings", "content:writer", "assets:read"}
	for _, s := range forbidden {
		if !ForbiddenForUntrusted(s) {
			t.Errorf("%s allowed", s)
		}
	}
	for _, s := range allowed {
		if ForbiddenForUntrusted(s) {
			t.Errorf("%s forbidden", s)
		}
	}
	err := CheckUntrustedScopes(true, []string{"content:read", "comments:moderate", "schedules:write:own"})
	wantCode(t, err, CodeUntrustedScope)
	if err.(*Error).Field != "schedules:write:own" {
		t.Fatalf("field %q", err.(*Error).Field)
	}
	if err := CheckUntrustedScopes(true, []string{"content:read", "comments:moderate"}); err != nil {
		t.Fatal(err)
	}
	if err := CheckUntrustedScopes(false, forbidden); err != nil {
		t.Fatal("a writer automation refused its write scopes")
	}
	in := append(slices.Clone(forbidden), allowed...)
	got := UntrustedEffectiveScopes(true, in)
	if !slices.Equal(got, allowed) {
		t.Fatalf("stripped to %v", got)
	}
	if got := UntrustedEffectiveScopes(false, in); !slices.Equal(got, in) {
		t.Fatalf("writer stripped to %v", got)
	}
	if len(in) != len(forbidden)+len(allowed) || in[0] != "content:write" {
		t.Fatal("input modified")
	}
}
