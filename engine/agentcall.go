package engine

import (
	"context"

	"studio/engine/model/automation"
	"studio/engine/policy"
)

// Refusal codes of a tool call through an agent key (§10.3, §11.2, §12).
const (
	// CodeNotAnAgent: a tool was called without an agent key.
	CodeNotAnAgent = "not_an_agent"
	// CodeUnknownTool: the tool is not one of §12's (or §11.4's).
	CodeUnknownTool = "unknown_tool"
	// CodeModeRefused: the call's mode does not allow the tool at all (✗).
	CodeModeRefused = "mode_refused"
	// CodeScopeMissing: the key lacks a scope the tool needs (its Scope
	// argument names it), whatever the owner's role allows.
	CodeScopeMissing = "scope_missing"
	// CodeUnavailableInRun: the tool does not exist inside runs (§11.4
	// rule 2).
	CodeUnavailableInRun = "unavailable_in_run"
	// CodeOutsideRun and CodeTainted are engine/model/automation's: an
	// automation's key outside an open run (§11.2), a tainted run's call
	// of a tool it may not make (§11.4 rule 1).
	CodeOutsideRun = automation.CodeOutsideRun
	CodeTainted    = automation.CodeTainted
)

// AgentMayCall is the one gate of every MCP tool call (§12's table): may
// the agent u (u.Agent set) call tool, in its variant of class (empty: the
// tool's default), in a run that is tainted or not? It checks, in order:
// u is an agent; the tool exists; an automation's key outside an open run
// may call only the tools §11.2 lets it (begin_run, get_mode,
// pause_automation: ToolSpec.OutsideRun); the key's scopes (already
// narrowed to the owner's current role) cover the tool's, or the call is
// the automation's own key on its own automation (automationKey); and the
// mode × class × tainted cell of the table.
//
// It returns the cell: Allowed (the call runs), Waits or LowRiskInWindow
// (the write tools' use cases file the approval request or settle the
// auto window) and the level the scopes allow (LevelOwn: only the owner's
// own nodes or automations, which the use case checks). Every other cell
// is a refusal, an *Error with its code; nothing is written.
func AgentMayCall(u User, tool string, class policy.Class, tainted, automationKey bool) (policy.Verdict, policy.Level, error) {
	if u.Agent == nil {
		return policy.Refused, policy.LevelNone, &Error{Code: CodeNotAnAgent}
	}
	spec, ok := policy.Tool(tool)
	if !ok {
		return policy.Refused, policy.LevelNone, &Error{Code: CodeUnknownTool, Args: map[string]any{"Tool": tool}}
	}
	inRun := u.Agent.RunID != ""
	if u.Agent.AutomationID != "" && !inRun && !spec.OutsideRun && !(spec.AutomationKey && automationKey) {
		return policy.Refused, policy.LevelNone, &Error{Code: CodeOutsideRun}
	}
	level := spec.Authorize(u.held(), automationKey)
	if level == policy.LevelNone {
		if missing := spec.MissingScope(u.held()); missing != "" {
			return policy.Refused, level, &Error{Code: CodeScopeMissing, Args: map[string]any{"Tool": tool, "Scope": string(missing)}}
		}
		return policy.Refused, level, &Error{Code: CodeForbidden}
	}
	switch v := spec.Verdict(u.Agent.Mode, class, inRun, tainted); v {
	case policy.Allowed, policy.Waits, policy.LowRiskInWindow:
		return v, level, nil
	case policy.Tainted:
		return v, policy.LevelNone, &Error{Code: CodeTainted, Args: map[string]any{"Tool": tool}}
	case policy.UnavailableInRun:
		return v, policy.LevelNone, &Error{Code: CodeUnavailableInRun, Args: map[string]any{"Tool": tool}}
	default: // Refused, NotApplicable: the mode does not allow it
		return policy.Refused, policy.LevelNone, &Error{Code: CodeModeRefused, Args: map[string]any{"Tool": tool, "Mode": string(u.Agent.Mode)}}
	}
}

// ToolCall is one MCP tool call as its audit row records it.
type ToolCall struct {
	Tool string
	// Code is the refusal's code when the call was refused ("" when it
	// ran).
	Code string
}

// AuditToolCall writes the audit row of one tool call through an agent
// key (§11.5 counts a run's tool calls by these rows): action "mcp.tool",
// the key as actor, the run and the automation when the call has them,
// on the key's own site (u.SiteID): a key acts on no other, so a call that
// named another site leaves no row there. Reads are audited too.
func (e *Engine) AuditToolCall(ctx context.Context, u User, c ToolCall) error {
	if u.Agent == nil {
		return &Error{Code: CodeNotAnAgent}
	}
	details := map[string]any{"tool": c.Tool, "mode": string(u.Agent.Mode)}
	if u.Agent.AutomationID != "" {
		details["automation_id"] = u.Agent.AutomationID
	}
	if c.Code != "" {
		details["refused"] = c.Code
	}
	return e.store.AppendAudit(ctx, AuditEntry{Action: "mcp.tool", Actor: u.Actor(), SiteID: u.SiteID,
		RunID: u.Agent.RunID, Details: details, At: e.Now()})
}

// HeldScopes are the scopes u holds now: a key's or a token's narrowed to
// the owner's current role, or the role's (get_mode answers them).
func HeldScopes(u User) []policy.Scope { return u.held() }
