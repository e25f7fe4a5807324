package automation

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"studio/engine/policy"
)

// Limits of the contract (§4.3).
const (
	MaxNameLength         = 120
	MaxInstructionsLength = 2000
	MaxSkillLength        = 64
	MinWindowMinutes      = 5
	MaxWindowMinutes      = 240
	MinStaleAfterDays     = 30
	MaxStaleAfterDays     = 1095
)

// budgetLimits are §4.3's inclusive ranges, in the contract's field order.
var budgetLimits = []struct {
	field    string
	min, max int
	get      func(Budget) int
}{
	{"maxToolCalls", 1, 500, func(b Budget) int { return b.MaxToolCalls }},
	{"maxWrites", 0, 200, func(b Budget) int { return b.MaxWrites }},
	{"maxApprovalRequests", 0, 20, func(b Budget) int { return b.MaxApprovalRequests }},
	{"maxMinutes", 1, 240, func(b Budget) int { return b.MaxMinutes }},
}

// ValidateAutomation applies the rules of §4.3 that code must check: a
// one-line name of 1..120 characters, a valid job, a state with a reason
// that goes with it, and no negative failure count. The recurrence is
// engine/recurrence's to check; untrusted-input scopes are checked by
// CheckUntrustedScopes where the key's scopes are known. It returns an *Error.
func ValidateAutomation(a Automation) error {
	if !oneLine(a.Name, MaxNameLength) {
		return &Error{Code: CodeBadName, Field: "name"}
	}
	if err := ValidateJob(a.Job); err != nil {
		return err
	}
	if _, err := ParseState(string(a.State)); err != nil {
		return &Error{Code: CodeUnknownState, Field: "state"}
	}
	if !ValidStatus(a.State, a.PausedReason) {
		return &Error{Code: CodeBadPausedReason, Field: "pausedReason"}
	}
	if a.ConsecutiveFailures < 0 {
		return &Error{Code: CodeNegativeFailures, Field: "consecutiveFailures"}
	}
	return nil
}

// ValidateJob checks a job against §4.3: a known kind; for a built-in job a
// known builtin, staleAfterDays in 30..1095 when set and no agent-task
// fields; for an agent task a key, instructions of plain text (1..2,000
// characters, no controls but newlines and tabs, no bidi overrides), a slug
// skill when set, a modeCap that is not bypass, the readsUntrustedText flag,
// windowMinutes in 5..240 and a complete budget within its ranges, and no
// built-in fields. It returns an *Error naming the field.
func ValidateJob(j Job) error {
	switch j.Kind {
	case JobBuiltin:
		return validateBuiltin(j)
	case JobAgentTask:
		return validateAgentTask(j)
	}
	return &Error{Code: CodeUnknownJobKind, Field: "job.kind"}
}

func validateBuiltin(j Job) error {
	known := false
	for _, b := range Builtins {
		known = known || b == j.Builtin
	}
	if !known {
		return &Error{Code: CodeUnknownBuiltin, Field: "job.builtin"}
	}
	// 0 is "not set": the contract's field is optional.
	if j.StaleAfterDays != 0 && (j.StaleAfterDays < MinStaleAfterDays || j.StaleAfterDays > MaxStaleAfterDays) {
		return &Error{Code: CodeStaleAfterDays, Field: "job.staleAfterDays"}
	}
	// additionalProperties: false in the builtin variant.
	for _, f := range []struct {
		set   bool
		field string
	}{
		{j.KeyID != "", "job.keyId"},
		{j.Instructions != "", "job.instructions"},
		{j.Skill != "", "job.skill"},
		{j.ModeCap != "", "job.modeCap"},
		{j.ReadsUntrustedText != nil, "job.readsUntrustedText"},
		{j.WindowMinutes != 0, "job.windowMinutes"},
		{j.Budget != nil, "job.budget"},
	} {
		if f.set {
			return &Error{Code: CodeFieldNotAllowed, Field: f.field}
		}
	}
	return nil
}

func validateAgentTask(j Job) error {
	switch {
	case j.Builtin != "":
		return &Error{Code: CodeFieldNotAllowed, Field: "job.builtin"}
	case j.StaleAfterDays != 0:
		return &Error{Code: CodeFieldNotAllowed, Field: "job.staleAfterDays"}
	case strings.TrimSpace(j.KeyID) == "":
		return &Error{Code: CodeMissingKeyID, Field: "job.keyId"}
	case !plainText(j.Instructions, MaxInstructionsLength):
		return &Error{Code: CodeBadInstructions, Field: "job.instructions"}
	case j.Skill != "" && !slug(j.Skill):
		return &Error{Code: CodeBadSkill, Field: "job.skill"}
	case j.ModeCap == policy.ModeBypass:
		// "never bypass" (§4.3): bypass never applies to runs (§10.7).
		return &Error{Code: CodeModeCapBypass, Field: "job.modeCap"}
	case !slices.Contains(ModeCaps, j.ModeCap):
		return &Error{Code: CodeUnknownModeCap, Field: "job.modeCap"}
	case j.ReadsUntrustedText == nil:
		return &Error{Code: CodeMissingUntrusted, Field: "job.readsUntrustedText"}
	case j.WindowMinutes < MinWindowMinutes || j.WindowMinutes > MaxWindowMinutes:
		return &Error{Code: CodeWindowMinutes, Field: "job.windowMinutes"}
	case j.Budget == nil:
		return &Error{Code: CodeMissingBudget, Field: "job.budget"}
	}
	return ValidateBudget(*j.Budget)
}

// ValidateBudget checks each limit against its §4.3 range (maxToolCalls
// 1..500, maxWrites 0..200, maxApprovalRequests 0..20, maxMinutes 1..240)
// and returns an *Error with CodeBudgetOutOfRange naming the first field out
// of range. Whether a stored budget had every field is the contract
// validator's question: Go decodes a missing field as 0.
func ValidateBudget(b Budget) error {
	for _, l := range budgetLimits {
		if v := l.get(b); v < l.min || v > l.max {
			return &Error{Code: CodeBudgetOutOfRange, Field: "job.budget." + l.field}
		}
	}
	return nil
}

// isBidiControl reports the embedding, override and isolate controls that
// can make text read differently from what it says (U+202A–U+202E,
// U+2066–U+2069). The plain marks U+200E and U+200F stay allowed: right-to-
// left names need them and they reorder nothing.
func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// oneLine reports whether s is valid UTF-8 of 1..limit characters, not only
// spaces, without control characters (newlines included) or bidi controls.
func oneLine(s string, limit int) bool {
	return text(s, limit, func(r rune) bool { return false })
}

// PlainText reports whether s is plain text of 1..limit characters: line
// breaks and tabs the only controls, no bidi controls (a note, a reason).
func PlainText(s string, limit int) bool { return plainText(s, limit) }

// plainText is oneLine that also allows line breaks and tabs.
func plainText(s string, limit int) bool {
	return text(s, limit, func(r rune) bool { return r == '\n' || r == '\r' || r == '\t' })
}

func text(s string, limit int, allowedControl func(rune) bool) bool {
	if !utf8.ValidString(s) || strings.TrimSpace(s) == "" || utf8.RuneCountInString(s) > limit {
		return false
	}
	for _, r := range s {
		if isBidiControl(r) || (unicode.IsControl(r) && !allowedControl(r)) {
			return false
		}
	}
	return true
}

// slug reports whether s is lower-case letters and digits in groups joined
// by single hyphens, at most MaxSkillLength long (a skill's name, §4.3).
func slug(s string) bool {
	if s == "" || len(s) > MaxSkillLength || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
