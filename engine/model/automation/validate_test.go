package automation

import (
	"encoding/json"
	"strings"
	"testing"

	"studio/engine/policy"
)

func TestValidateJobBuiltin(t *testing.T) {
	for _, b := range Builtins {
		if err := ValidateJob(Job{Kind: JobBuiltin, Builtin: b}); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
	b := DefaultBudget
	tests := []struct {
		name  string
		job   Job
		code  string
		field string
	}{
		{"stale after 30 days", Job{Kind: JobBuiltin, Builtin: BuiltinStaleContent, StaleAfterDays: 30}, "", ""},
		{"stale after 1095 days", Job{Kind: JobBuiltin, Builtin: BuiltinStaleContent, StaleAfterDays: 1095}, "", ""},
		{"stale after 29 days", Job{Kind: JobBuiltin, Builtin: BuiltinStaleContent, StaleAfterDays: 29}, CodeStaleAfterDays, "job.staleAfterDays"},
		{"stale after 1096 days", Job{Kind: JobBuiltin, Builtin: BuiltinStaleContent, StaleAfterDays: 1096}, CodeStaleAfterDays, "job.staleAfterDays"},
		{"negative stale days", Job{Kind: JobBuiltin, Builtin: BuiltinStaleContent, StaleAfterDays: -1}, CodeStaleAfterDays, "job.staleAfterDays"},
		{"unknown builtin", Job{Kind: JobBuiltin, Builtin: "sitemap-ping"}, CodeUnknownBuiltin, "job.builtin"},
		{"empty builtin", Job{Kind: JobBuiltin}, CodeUnknownBuiltin, "job.builtin"},
		{"unknown kind", Job{Kind: "webhook", Builtin: BuiltinCleanup}, CodeUnknownJobKind, "job.kind"},
		{"no kind", Job{}, CodeUnknownJobKind, "job.kind"},
		{"builtin with key", Job{Kind: JobBuiltin, Builtin: BuiltinCleanup, KeyID: "key_1"}, CodeFieldNotAllowed, "job.keyId"},
		{"builtin with instructions", Job{Kind: JobBuiltin, Builtin: BuiltinCleanup, Instructions: "x"}, CodeFieldNotAllowed, "job.instructions"},
		{"builtin with skill", Job{Kind: JobBuiltin, Builtin: BuiltinCleanup, Skill: "x"}, CodeFieldNotAllowed, "job.skill"},
		{"builtin with mode cap", Job{Kind: JobBuiltin, Builtin: BuiltinCleanup, ModeCap: policy.ModePlan}, CodeFieldNotAllowed, "job.modeCap"},
		{"builtin with untrusted flag", Job{Kind: JobBuiltin, Builtin: BuiltinCleanup, ReadsUntrustedText: boolPtr(false)}, CodeFieldNotAllowed, "job.readsUntrustedText"},
		{"builtin with window", Job{Kind: JobBuiltin, Builtin: BuiltinCleanup, WindowMinutes: 30}, CodeFieldNotAllowed, "job.windowMinutes"},
		{"builtin with budget", Job{Kind: JobBuiltin, Builtin: BuiltinCleanup, Budget: &b}, CodeFieldNotAllowed, "job.budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkValidation(t, ValidateJob(tt.job), tt.code, tt.field) })
	}
}

func checkValidation(t *testing.T, err error, code, field string) {
	t.Helper()
	wantCode(t, err, code)
	if err != nil && err.(*Error).Field != field {
		t.Fatalf("field %q, want %q", err.(*Error).Field, field)
	}
}

func TestValidateJobAgentTask(t *testing.T) {
	with := func(f func(*Job)) Job {
		j := agentJob()
		f(&j)
		return j
	}
	withBudget := func(f func(*Budget)) Job {
		return with(func(j *Job) {
			b := *j.Budget
			f(&b)
			j.Budget = &b
		})
	}
	tests := []struct {
		name  string
		job   Job
		code  string
		field string
	}{
		{"valid", agentJob(), "", ""},
		{"untrusted false", with(func(j *Job) { j.ReadsUntrustedText = boolPtr(false) }), "", ""},
		{"with skill", with(func(j *Job) { j.Skill = "comment-triage" }), "", ""},
		{"every mode cap", with(func(j *Job) { j.ModeCap = policy.ModeAuto }), "", ""},
		{"plan", with(func(j *Job) { j.ModeCap = policy.ModePlan }), "", ""},
		{"manual", with(func(j *Job) { j.ModeCap = policy.ModeManual }), "", ""},
		{"2,000 characters", with(func(j *Job) { j.Instructions = strings.Repeat("ş", 2000) }), "", ""},
		{"tabs and CRLF", with(func(j *Job) { j.Instructions = "a\tb\r\nc" }), "", ""},
		{"RTL mark allowed", with(func(j *Job) { j.Instructions = "a\u200fb" }), "", ""},
		{"window 5", with(func(j *Job) { j.WindowMinutes = 5 }), "", ""},
		{"window 240", with(func(j *Job) { j.WindowMinutes = 240 }), "", ""},
		{"budget lows", withBudget(func(b *Budget) { *b = Budget{MaxToolCalls: 1, MaxWrites: 0, MaxApprovalRequests: 0, MaxMinutes: 1} }), "", ""},
		{"budget highs", withBudget(func(b *Budget) {
			*b = Budget{MaxToolCalls: 500, MaxWrites: 200, MaxApprovalRequests: 20, MaxMinutes: 240}
		}), "", ""},

		{"with builtin", with(func(j *Job) { j.Builtin = BuiltinCleanup }), CodeFieldNotAllowed, "job.builtin"},
		{"with stale days", with(func(j *Job) { j.StaleAfterDays = 60 }), CodeFieldNotAllowed, "job.staleAfterDays"},
		{"no key", with(func(j *Job) { j.KeyID = "" }), CodeMissingKeyID, "job.keyId"},
		{"blank key", with(func(j *Job) { j.KeyID = "  " }), CodeMissingKeyID, "job.keyId"},
		{"no instructions", with(func(j *Job) { j.Instructions = "" }), CodeBadInstructions, "job.instructions"},
		{"blank instructions", with(func(j *Job) { j.Instructions = " \n\t" }), CodeBadInstructions, "job.instructions"},
		{"2,001 characters", with(func(j *Job) { j.Instructions = strings.Repeat("a", 2001) }), CodeBadInstructions, "job.instructions"},
		{"bidi override", with(func(j *Job) { j.Instructions = "run \u202Edesrever" }), CodeBadInstructions, "job.instructions"},
		{"bidi isolate", with(func(j *Job) { j.Instructions = "a\u2066b" }), CodeBadInstructions, "job.instructions"},
		{"NUL", with(func(j *Job) { j.Instructions = "a\x00b" }), CodeBadInstructions, "job.instructions"},
		{"escape", with(func(j *Job) { j.Instructions = "a\x1b[31mb" }), CodeBadInstructions, "job.instructions"},
		{"C1 control", with(func(j *Job) { j.Instructions = "a\u0085b" }), CodeBadInstructions, "job.instructions"},
		{"invalid UTF-8", with(func(j *Job) { j.Instructions = "a\xffb" }), CodeBadInstructions, "job.instructions"},
		{"skill upper case", with(func(j *Job) { j.Skill = "Comment-Triage" }), CodeBadSkill, "job.skill"},
		{"skill with space", with(func(j *Job) { j.Skill = "comment triage" }), CodeBadSkill, "job.skill"},
		{"skill double hyphen", with(func(j *Job) { j.Skill = "a--b" }), CodeBadSkill, "job.skill"},
		{"skill leading hyphen", with(func(j *Job) { j.Skill = "-a" }), CodeBadSkill, "job.skill"},
		{"skill trailing hyphen", with(func(j *Job) { j.Skill = "a-" }), CodeBadSkill, "job.skill"},
		{"skill too long", with(func(j *Job) { j.Skill = strings.Repeat("a", 65) }), CodeBadSkill, "job.skill"},
		{"mode cap bypass", with(func(j *Job) { j.ModeCap = policy.ModeBypass }), CodeModeCapBypass, "job.modeCap"},
		{"no mode cap", with(func(j *Job) { j.ModeCap = "" }), CodeUnknownModeCap, "job.modeCap"},
		{"unknown mode cap", with(func(j *Job) { j.ModeCap = "Auto" }), CodeUnknownModeCap, "job.modeCap"},
		{"no untrusted flag", with(func(j *Job) { j.ReadsUntrustedText = nil }), CodeMissingUntrusted, "job.readsUntrustedText"},
		{"window 4", with(func(j *Job) { j.WindowMinutes = 4 }), CodeWindowMinutes, "job.windowMinutes"},
		{"window 241", with(func(j *Job) { j.WindowMinutes = 241 }), CodeWindowMinutes, "job.windowMinutes"},
		{"no window", with(func(j *Job) { j.WindowMinutes = 0 }), CodeWindowMinutes, "job.windowMinutes"},
		{"no budget", with(func(j *Job) { j.Budget = nil }), CodeMissingBudget, "job.budget"},
		{"tool calls 0", withBudget(func(b *Budget) { b.MaxToolCalls = 0 }), CodeBudgetOutOfRange, "job.budget.maxToolCalls"},
		{"tool calls 501", withBudget(func(b *Budget) { b.MaxToolCalls = 501 }), CodeBudgetOutOfRange, "job.budget.maxToolCalls"},
		{"writes -1", withBudget(func(b *Budget) { b.MaxWrites = -1 }), CodeBudgetOutOfRange, "job.budget.maxWrites"},
		{"writes 201", withBudget(func(b *Budget) { b.MaxWrites = 201 }), CodeBudgetOutOfRange, "job.budget.maxWrites"},
		{"approvals -1", withBudget(func(b *Budget) { b.MaxApprovalRequests = -1 }), CodeBudgetOutOfRange, "job.budget.maxApprovalRequests"},
		{"approvals 21", withBudget(func(b *Budget) { b.MaxApprovalRequests = 21 }), CodeBudgetOutOfRange, "job.budget.maxApprovalRequests"},
		{"minutes 0", withBudget(func(b *Budget) { b.MaxMinutes = 0 }), CodeBudgetOutOfRange, "job.budget.maxMinutes"},
		{"minutes 241", withBudget(func(b *Budget) { b.MaxMinutes = 241 }), CodeBudgetOutOfRange, "job.budget.maxMinutes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkValidation(t, ValidateJob(tt.job), tt.code, tt.field) })
	}
}

func TestDefaultBudgetIsValid(t *testing.T) {
	if err := ValidateBudget(DefaultBudget); err != nil {
		t.Fatal(err)
	}
	if DefaultBudget != (Budget{MaxToolCalls: 100, MaxWrites: 20, MaxApprovalRequests: 5, MaxMinutes: 15}) {
		t.Fatalf("DefaultBudget = %+v, §11.5 says 100/20/5/15", DefaultBudget)
	}
}

func TestValidateAutomation(t *testing.T) {
	valid := func() Automation {
		return Automation{SchemaVersion: 1, ID: "aut_ABCDEFGH", SiteID: "site_demo", Name: "Comment triage",
			Job: agentJob(), AutomationState: AutomationState{State: StateActive}, Owner: Owner{ID: "user_1"}}
	}
	with := func(f func(*Automation)) Automation {
		a := valid()
		f(&a)
		return a
	}
	tests := []struct {
		name  string
		a     Automation
		code  string
		field string
	}{
		{"valid", valid(), "", ""},
		{"auto-paused after three failures", with(func(a *Automation) {
			a.AutomationState = AutomationState{State: StateAutoPaused, PausedReason: ReasonFailures, ConsecutiveFailures: 3}
		}), "", ""},
		{"120 characters", with(func(a *Automation) { a.Name = strings.Repeat("ğ", 120) }), "", ""},
		{"empty name", with(func(a *Automation) { a.Name = "" }), CodeBadName, "name"},
		{"blank name", with(func(a *Automation) { a.Name = "   " }), CodeBadName, "name"},
		{"121 characters", with(func(a *Automation) { a.Name = strings.Repeat("a", 121) }), CodeBadName, "name"},
		{"name with newline", with(func(a *Automation) { a.Name = "a\nb" }), CodeBadName, "name"},
		{"name with tab", with(func(a *Automation) { a.Name = "a\tb" }), CodeBadName, "name"},
		{"name with bidi override", with(func(a *Automation) { a.Name = "a\u202Db" }), CodeBadName, "name"},
		{"bad job", with(func(a *Automation) { a.Job.WindowMinutes = 1 }), CodeWindowMinutes, "job.windowMinutes"},
		{"unknown state", with(func(a *Automation) { a.State = "running" }), CodeUnknownState, "state"},
		{"paused without reason", with(func(a *Automation) { a.State = StatePaused }), CodeBadPausedReason, "pausedReason"},
		{"active with reason", with(func(a *Automation) { a.PausedReason = ReasonBudget }), CodeBadPausedReason, "pausedReason"},
		{"broken for failures", with(func(a *Automation) { a.State, a.PausedReason = StateBroken, ReasonFailures }), CodeBadPausedReason, "pausedReason"},
		{"negative failures", with(func(a *Automation) { a.ConsecutiveFailures = -1 }), CodeNegativeFailures, "consecutiveFailures"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkValidation(t, ValidateAutomation(tt.a), tt.code, tt.field) })
	}
}

// The JSON shape follows §4.3: state, pausedReason and consecutiveFailures
// at the top level, a built-in job without agent fields, an agent task with
// readsUntrustedText and a budget whose zero limits are kept.
func TestAutomationJSON(t *testing.T) {
	a := Automation{SchemaVersion: 1, ID: "aut_ABCDEFGH", Name: "Sweep",
		Job:             Job{Kind: JobBuiltin, Builtin: BuiltinBrokenLinks},
		AutomationState: AutomationState{State: StatePaused, PausedReason: ReasonKillSwitch, ConsecutiveFailures: 1}}
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m["state"] != "paused" || m["pausedReason"] != "kill-switch" || m["consecutiveFailures"] != 1.0 {
		t.Fatalf("top-level state fields: %s", raw)
	}
	job := m["job"].(map[string]any)
	if len(job) != 2 || job["kind"] != "builtin" || job["builtin"] != "broken-links" {
		t.Fatalf("builtin job: %v", job)
	}

	j := agentJob()
	j.ReadsUntrustedText = boolPtr(false)
	j.Budget.MaxWrites = 0
	raw, err = json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"readsUntrustedText":false`, `"maxWrites":0`, `"kind":"agent-task"`, `"windowMinutes":30`, `"modeCap":"edits"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("%s lacks %s", raw, want)
		}
	}
	var back Job
	if err := json.Unmarshal(raw, &back); err != nil || ValidateJob(back) != nil || *back.ReadsUntrustedText {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}
