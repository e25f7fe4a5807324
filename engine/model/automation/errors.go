package automation

// Error codes returned in *Error. They are API values: keep them stable.
const (
	// Automations (§4.3).
	CodeBadName            = "bad_name"
	CodeUnknownJobKind     = "unknown_job_kind"
	CodeUnknownBuiltin     = "unknown_builtin"
	CodeStaleAfterDays     = "stale_after_days_out_of_range"
	CodeFieldNotAllowed    = "field_not_allowed" // a field of the other job kind
	CodeMissingKeyID       = "missing_key_id"
	CodeBadInstructions    = "bad_instructions"
	CodeBadSkill           = "bad_skill"
	CodeModeCapBypass      = "mode_cap_bypass"
	CodeUnknownModeCap     = "unknown_mode_cap"
	CodeMissingUntrusted   = "missing_untrusted_flag"
	CodeWindowMinutes      = "window_minutes_out_of_range"
	CodeMissingBudget      = "missing_budget"
	CodeBudgetOutOfRange   = "budget_out_of_range"
	CodeNegativeFailures   = "negative_failures"
	CodeBadPausedReason    = "bad_paused_reason" // a reason that does not go with the state
	CodeUnknownState       = "unknown_state"
	CodeUnknownRunState    = "unknown_run_state"
	CodeUnknownOutcome     = "unknown_outcome"
	CodeUntrustedScope     = "untrusted_write_scope" // §11.4 rule 3
	CodeBadDailyWriteCap   = "bad_daily_write_cap"
	CodeTransitionRefused  = "transition_refused" // §5.3 has no such move
	CodeResumeIsPersonsAct = "resume_people_only" // D7, §11.6 item 1
	CodeNotYourMove        = "actor_not_allowed"  // the move exists, for someone else
	CodeSitePaused         = "site_paused"        // only lifting the kill switch resumes its pauses
	CodeRunTransition      = "run_transition_refused"

	// Runs (§11.2, §11.4, §11.5, §10.7).
	CodeOutsideRun         = "outside_run" // the run's end has passed (§11.2)
	CodeTainted            = "tainted"     // §11.4 rule 1
	CodeNoEgress           = "no_egress"   // §11.4 rule 2
	CodeElevationInRun     = "run"         // §10.7: request_elevation inside a run
	CodeBudgetToolCalls    = "budget_tool_calls"
	CodeBudgetWrites       = "budget_writes"
	CodeBudgetApprovals    = "budget_approval_requests"
	CodeDailyWriteCap      = "daily_write_cap"
	CodeAnomalyReduceCalls = "anomaly_reduce_calls" // §11.4 rule 6
	CodeAnomalyRefusals    = "anomaly_refusals"     // §11.4 rule 6
)

// Error is a refusal with a stable code. Field names the offending field of
// an automation (for example "job.budget.maxWrites") or the budget limit
// that was reached; Tool names the refused tool. Either may be empty.
type Error struct {
	Code  string
	Field string
	Tool  string
}

func (e *Error) Error() string {
	s := "automation: " + e.Code
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	if e.Tool != "" {
		s += " [" + e.Tool + "]"
	}
	return s
}
