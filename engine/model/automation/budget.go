package automation

import "time"

// DefaultDailyWriteCap is the site's default cap on automation writes per
// UTC day (§11.5: daily_write_cap, about 2–3 % of D1 Free's daily writes).
const DefaultDailyWriteCap = 200

// CheckBudget decides whether a run that has used u may make call c within
// its budget b (§11.5, D11): another tool call must fit maxToolCalls, a
// write maxWrites and an approval request maxApprovalRequests. The refusal
// is an *Error with CodeBudgetToolCalls, CodeBudgetWrites or
// CodeBudgetApprovals, its Field naming the limit; it ends the run as
// budget-exceeded and pauses the automation (§11.5, AccountRunResult).
//
// Minutes are not counted here: the run ends at RunEndsAt, CheckRunOpen
// refuses calls after it, and a run still open then is closed as failed
// (not_ended, §11.2), not as budget-exceeded.
func CheckBudget(u Usage, b Budget, c Call) error {
	switch {
	case u.ToolCalls >= b.MaxToolCalls:
		return &Error{Code: CodeBudgetToolCalls, Field: "maxToolCalls", Tool: c.Tool}
	case c.Write && u.Writes >= b.MaxWrites:
		return &Error{Code: CodeBudgetWrites, Field: "maxWrites", Tool: c.Tool}
	case c.ApprovalRequest && u.ApprovalRequests >= b.MaxApprovalRequests:
		return &Error{Code: CodeBudgetApprovals, Field: "maxApprovalRequests", Tool: c.Tool}
	}
	return nil
}

// Left is what remains of a run's budget, as get_mode's run.budgetLeft
// shows it (§12).
type Left struct {
	ToolCalls        int `json:"toolCalls"`
	Writes           int `json:"writes"`
	ApprovalRequests int `json:"approvalRequests"`
	// Minutes is the time to endsAt in whole minutes, rounded up so that a
	// run with seconds left does not read as ended; 0 once it has ended.
	Minutes int `json:"minutes"`
}

// BudgetLeft returns what remains of budget b after usage u at now, for a
// run that ends at endsAt. No figure is negative.
func BudgetLeft(u Usage, b Budget, now, endsAt time.Time) Left {
	left := Left{
		ToolCalls:        max(b.MaxToolCalls-u.ToolCalls, 0),
		Writes:           max(b.MaxWrites-u.Writes, 0),
		ApprovalRequests: max(b.MaxApprovalRequests-u.ApprovalRequests, 0),
	}
	if d := endsAt.Sub(now); d > 0 {
		left.Minutes = int((d + time.Minute - 1) / time.Minute)
	}
	return left
}

// WithinDailyWriteCap reports whether one more automation write fits the
// site's daily cap when writesToday have been made since the start of the
// UTC day (§11.5). A cap of 0 allows none.
func WithinDailyWriteCap(writesToday, dailyCap int) bool {
	return writesToday < dailyCap
}

// CheckDailyWriteCap is WithinDailyWriteCap as a refusal: an *Error with
// CodeDailyWriteCap.
func CheckDailyWriteCap(writesToday, dailyCap int) error {
	if !WithinDailyWriteCap(writesToday, dailyCap) {
		return &Error{Code: CodeDailyWriteCap, Field: "dailyWriteCap"}
	}
	return nil
}

// ValidateDailyWriteCap refuses a negative cap with CodeBadDailyWriteCap.
// The RFC sets no upper bound.
func ValidateDailyWriteCap(dailyCap int) error {
	if dailyCap < 0 {
		return &Error{Code: CodeBadDailyWriteCap, Field: "dailyWriteCap"}
	}
	return nil
}

// UTCDay returns the UTC day that contains now, as [start, end): the daily
// write cap counts automation writes from start, midnight UTC, to now
// (§11.5).
func UTCDay(now time.Time) (start, end time.Time) {
	u := now.UTC()
	start = time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 0, 1)
}
