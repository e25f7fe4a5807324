// Package automation models automations and their runs (RFC-0008 §4.3–4.4,
// §5.3, §8.6, §11): automation and run states with their transition tables
// and who may make each move, the due occurrences of a schedule with missed
// ones coalesced, agent tasks' run windows, the accounting of run results
// (three failures pause, a budget breach pauses at once), the site kill
// switch's exact pause and resume sets, the taint rule and budgets.
//
// It does no I/O and never reads the clock: every function that needs the
// time takes now. The schedule of an automation is reached through the small
// Schedule interface, which engine/recurrence's rules satisfy.
//
// An MCP call inside an agent run goes through the checks in this order:
// CheckRunOpen, CheckCall (taint and the run-only refusals), CheckBudget and
// CheckDailyWriteCap; after the call, AfterCall records it and Anomaly says
// whether the run must be killed. A CheckBudget refusal ends the run as
// budget-exceeded (§11.5); AccountRunResult then pauses the automation.
package automation

import (
	"time"

	"studio/engine/policy"
)

// State is an automation's state (§4.3, §5.3).
type State string

const (
	StateActive     State = "active"
	StatePaused     State = "paused"
	StateAutoPaused State = "auto-paused"
	StateBroken     State = "broken"
	StateEnded      State = "ended"
)

// States lists every automation state in the order of §4.3.
var States = []State{StateActive, StatePaused, StateAutoPaused, StateBroken, StateEnded}

// PausedReason says why an automation is paused, auto-paused or broken
// (§4.3 pausedReason). It is empty when the automation is active or ended.
type PausedReason string

const (
	ReasonPerson       PausedReason = "person"
	ReasonAgent        PausedReason = "agent"
	ReasonFailures     PausedReason = "failures"
	ReasonBudget       PausedReason = "budget"
	ReasonKillSwitch   PausedReason = "kill-switch"
	ReasonKeyRevoked   PausedReason = "key-revoked"
	ReasonOwnerRemoved PausedReason = "owner-removed"
	ReasonRoleChanged  PausedReason = "role-changed"
)

// PausedReasons lists every reason in the order of §4.3.
var PausedReasons = []PausedReason{ReasonPerson, ReasonAgent, ReasonFailures, ReasonBudget,
	ReasonKillSwitch, ReasonKeyRevoked, ReasonOwnerRemoved, ReasonRoleChanged}

// reasonsOf are the reasons each state may carry: who paused it (§11.6),
// why the system paused it (§5.3, §11.5) or why it broke (§11.8).
var reasonsOf = map[State][]PausedReason{
	StateActive:     nil,
	StatePaused:     {ReasonPerson, ReasonAgent, ReasonKillSwitch},
	StateAutoPaused: {ReasonFailures, ReasonBudget},
	StateBroken:     {ReasonKeyRevoked, ReasonOwnerRemoved, ReasonRoleChanged},
	StateEnded:      nil,
}

// ReasonsFor returns the paused reasons a state may carry (a copy); active
// and ended carry none.
func ReasonsFor(s State) []PausedReason { return append([]PausedReason(nil), reasonsOf[s]...) }

// ValidStatus reports whether reason goes with state: empty for active and
// ended, one of ReasonsFor(state) otherwise.
func ValidStatus(s State, reason PausedReason) bool {
	rs, known := reasonsOf[s]
	if !known {
		return false
	}
	if len(rs) == 0 {
		return reason == ""
	}
	for _, r := range rs {
		if r == reason {
			return true
		}
	}
	return false
}

// AutomationState is the part of an automation that runs and pauses change.
// Its JSON fields are the contract's top-level state, pausedReason and
// consecutiveFailures, so Automation embeds it.
type AutomationState struct {
	State               State        `json:"state"`
	PausedReason        PausedReason `json:"pausedReason,omitempty"`
	ConsecutiveFailures int          `json:"consecutiveFailures"`
}

// Owner is the person who owns an automation (§4.3): a user, never an agent.
type Owner struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// Recurrence is an automation's schedule as stored (§4.3): a wall-clock
// start, its zone and a rule of the D3 subset. engine/recurrence parses it.
type Recurrence struct {
	Start    string `json:"start"` // LocalDateTime, YYYY-MM-DDTHH:MM
	TimeZone string `json:"timeZone"`
	Rule     string `json:"rule,omitempty"`
	Preset   string `json:"preset"` // once|hourly|daily|weekdays|weekly|monthly|custom
}

// Automation is a recurring job (§4.3).
type Automation struct {
	SchemaVersion int        `json:"schemaVersion"`
	ID            string     `json:"id"`
	SiteID        string     `json:"siteId"`
	Name          string     `json:"name"`
	Job           Job        `json:"job"`
	Recurrence    Recurrence `json:"recurrence"`
	AutomationState
	Owner     Owner      `json:"owner"`
	NextRunAt *time.Time `json:"nextRunAt,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	Rev       int64      `json:"rev"`
}

// JobKind says whether a job is built in or an agent task (§4.3).
type JobKind string

const (
	JobBuiltin   JobKind = "builtin"
	JobAgentTask JobKind = "agent-task"
)

// Builtin names one of the five deterministic jobs (§11.1, owner decision 4).
type Builtin string

const (
	BuiltinBrokenLinks  Builtin = "broken-links"
	BuiltinStaleContent Builtin = "stale-content"
	BuiltinFeedCheck    Builtin = "feed-check"
	BuiltinWeeklyDigest Builtin = "weekly-digest"
	BuiltinCleanup      Builtin = "cleanup"
)

// Builtins lists the built-in jobs in the order of §11.1.
var Builtins = []Builtin{BuiltinBrokenLinks, BuiltinStaleContent, BuiltinFeedCheck, BuiltinWeeklyDigest, BuiltinCleanup}

// ModeCaps lists the modes an automation's cap may name (§4.3), from least
// to most autonomous; bypass exists only to be refused as a cap. The run's
// mode is policy.RunMode(key's mode, cap).
var ModeCaps = []policy.Mode{policy.ModePlan, policy.ModeManual, policy.ModeEdits, policy.ModeAuto}

// Job is what an automation does (§4.3): a built-in job or an agent task.
// The contract's oneOf is flattened; the fields of the other kind stay
// empty, and Validate refuses them when set.
type Job struct {
	Kind JobKind `json:"kind"`

	// Built-in jobs.
	Builtin        Builtin `json:"builtin,omitempty"`
	StaleAfterDays int     `json:"staleAfterDays,omitempty"` // 30..1095; 0 = the default, 365 (§11.1)

	// Agent tasks (§11.2).
	KeyID        string      `json:"keyId,omitempty"`
	Instructions string      `json:"instructions,omitempty"`
	Skill        string      `json:"skill,omitempty"`
	ModeCap      policy.Mode `json:"modeCap,omitempty"`
	// ReadsUntrustedText is a pointer because the contract requires it on
	// every agent task (a missing flag is invalid) and forbids it on
	// built-in jobs.
	ReadsUntrustedText *bool   `json:"readsUntrustedText,omitempty"`
	WindowMinutes      int     `json:"windowMinutes,omitempty"` // 5..240
	Budget             *Budget `json:"budget,omitempty"`
}

// Budget is an agent task's per-run limits (§4.3, §11.5, D11).
type Budget struct {
	MaxToolCalls        int `json:"maxToolCalls"`        // 1..500
	MaxWrites           int `json:"maxWrites"`           // 0..200
	MaxApprovalRequests int `json:"maxApprovalRequests"` // 0..20
	MaxMinutes          int `json:"maxMinutes"`          // 1..240
}

// DefaultBudget is §11.5's default per-run budget, which Studio offers when
// an agent task is created.
var DefaultBudget = Budget{MaxToolCalls: 100, MaxWrites: 20, MaxApprovalRequests: 5, MaxMinutes: 15}

// DefaultStaleAfterDays is stale-content's threshold when none is set (§11.1).
const DefaultStaleAfterDays = 365

// RunState is a ScheduleRun's state (§4.4, §5.3).
type RunState string

const (
	RunDue            RunState = "due"
	RunReady          RunState = "ready"
	RunRunning        RunState = "running"
	RunSucceeded      RunState = "succeeded"
	RunFailed         RunState = "failed"
	RunMissed         RunState = "missed"
	RunSkipped        RunState = "skipped"
	RunBudgetExceeded RunState = "budget-exceeded"
	RunKilled         RunState = "killed"
)

// RunStates lists every run state in the order of §4.4.
var RunStates = []RunState{RunDue, RunReady, RunRunning, RunSucceeded, RunFailed, RunMissed,
	RunSkipped, RunBudgetExceeded, RunKilled}

// Outcome is what a run achieved, kept apart from how it ended: "ran" is not
// "achieved" (§4.4, §11.7).
type Outcome string

const (
	OutcomeDidWork         Outcome = "did-work"
	OutcomeNothingToDo     Outcome = "nothing-to-do"
	OutcomeProposed        Outcome = "proposed"
	OutcomeWaitingApproval Outcome = "waiting-approval"
)

// Outcomes lists every outcome in the order of §4.4.
var Outcomes = []Outcome{OutcomeDidWork, OutcomeNothingToDo, OutcomeProposed, OutcomeWaitingApproval}

// CountCoalesced is the counts key of the skipped run that stands for the
// older missed occurrences of a recurring job (§5.3, §8.6).
const CountCoalesced = "coalesced"

// RunWindow is an agent-task run's window as the run records it (§4.4).
type RunWindow struct {
	OpensAt  time.Time `json:"opensAt"`
	ClosesAt time.Time `json:"closesAt"`
}

// Usage is what a run has spent of its budget (§4.4, §11.5).
type Usage struct {
	ToolCalls        int `json:"toolCalls"`
	Writes           int `json:"writes"`
	ApprovalRequests int `json:"approvalRequests"`
}

// Taint records the first call that tainted a run (§4.4, §11.4 rule 1).
type Taint struct {
	At   time.Time `json:"at"`
	Tool string    `json:"tool"`
}

// ActorKind is who makes a change: a person (in Studio or over REST), an
// agent (an automation's own key over MCP) or the system (the tick, the
// kill switch, key and membership events).
type ActorKind string

const (
	ActorPerson ActorKind = "person"
	ActorAgent  ActorKind = "agent"
	ActorSystem ActorKind = "system"
)

// ActorKinds lists every actor kind.
var ActorKinds = []ActorKind{ActorPerson, ActorAgent, ActorSystem}

// ParseState returns the automation State named by v, or an *Error with
// CodeUnknownState. Matching is exact.
func ParseState(v string) (State, error) {
	for _, s := range States {
		if string(s) == v {
			return s, nil
		}
	}
	return "", &Error{Code: CodeUnknownState}
}

// ParseRunState returns the RunState named by v, or an *Error with
// CodeUnknownRunState. Matching is exact.
func ParseRunState(v string) (RunState, error) {
	for _, s := range RunStates {
		if string(s) == v {
			return s, nil
		}
	}
	return "", &Error{Code: CodeUnknownRunState}
}

// ParseOutcome returns the Outcome named by v, or an *Error with
// CodeUnknownOutcome. Matching is exact.
func ParseOutcome(v string) (Outcome, error) {
	for _, o := range Outcomes {
		if string(o) == v {
			return o, nil
		}
	}
	return "", &Error{Code: CodeUnknownOutcome}
}
