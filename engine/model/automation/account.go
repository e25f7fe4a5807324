package automation

// MaxConsecutiveFailures is how many failed runs in a row auto-pause an
// automation (D11, §11.5).
const MaxConsecutiveFailures = 3

// RunResult is how a run ended, as its automation's accounting needs it.
type RunResult struct {
	State RunState
	// Anomaly is set when the run was killed by the anomaly rule (§11.4
	// rule 6: more than 50 reduce calls or 10 consecutive refusals), as
	// opposed to the kill switch or the automation's deletion.
	Anomaly bool
}

// AccountRunResult updates an automation after one of its runs ended and
// reports whether this result paused it (§5.3, §11.5):
//
//   - succeeded resets the failure count;
//   - failed adds one, and the third in a row moves an active automation to
//     auto-paused with reason failures;
//   - budget-exceeded, and a kill by the anomaly rule, add one and move an
//     active automation to auto-paused with reason budget at once.
//
// §11.5 says a budget breach "pauses the automation"; §5.3 lists "a budget
// exceeded" under active → auto-paused, and the state follows §5.3: the
// system paused it, and the owner is notified of auto-paused automations
// (§14). The anomaly rule's pause takes the same state and reason: its
// limits are run limits too, and the contract has no anomaly reason.
//
// missed and skipped runs neither count nor reset: the tick was down or the
// agent did not come, and pausing would not fix either. A kill by the kill
// switch or a deletion changes nothing. An automation that is not active
// (paused by a person, say) keeps its state; its count still moves, so the
// record stays true.
func AccountRunResult(a AutomationState, result RunResult) (next AutomationState, paused bool) {
	next = a
	pauseFor := PausedReason("")
	switch result.State {
	case RunSucceeded:
		next.ConsecutiveFailures = 0
	case RunFailed:
		next.ConsecutiveFailures++
		if next.ConsecutiveFailures >= MaxConsecutiveFailures {
			pauseFor = ReasonFailures
		}
	case RunBudgetExceeded:
		next.ConsecutiveFailures++
		pauseFor = ReasonBudget
	case RunKilled:
		if result.Anomaly {
			next.ConsecutiveFailures++
			pauseFor = ReasonBudget
		}
	}
	if pauseFor != "" && a.State == StateActive {
		next.State, next.PausedReason = StateAutoPaused, pauseFor
		return next, true
	}
	return next, false
}
