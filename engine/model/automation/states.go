package automation

// Move is one row of the automation table (§5.3): from a state carrying one
// of FromReasons, to a state recording one of Reasons, made by By. Empty
// reason lists mean "no reason" (active and ended carry none).
type Move struct {
	From        State
	FromReasons []PausedReason
	To          State
	Reasons     []PausedReason
	By          ActorKind
}

var (
	pauseReasons  = reasonsOf[StatePaused]
	autoReasons   = reasonsOf[StateAutoPaused]
	brokenReasons = reasonsOf[StateBroken]
	byPersonOrAgt = []PausedReason{ReasonPerson, ReasonAgent}
	killSwitch    = []PausedReason{ReasonKillSwitch}
)

// moves is §5.3's automation table, with who may make each move (D7,
// §11.6): the reason a pause records is the actor's, so a person's pause
// says person, the automation's own agent's says agent, and only the system
// (the kill switch, the tick, key and membership events) records the rest.
var moves = []Move{
	// active ⇄ paused: a person; its agent may pause; only a person resumes (D7).
	{From: StateActive, To: StatePaused, Reasons: []PausedReason{ReasonPerson}, By: ActorPerson},
	{From: StateActive, To: StatePaused, Reasons: []PausedReason{ReasonAgent}, By: ActorAgent},
	{From: StatePaused, FromReasons: byPersonOrAgt, To: StateActive, By: ActorPerson},
	// The site kill switch pauses every active automation and resuming the
	// site resumes exactly those (§5.3, §11.6 item 2). An Administrator flips
	// the switch; the system applies it, so a person cannot lift one
	// automation's kill-switch pause while the site stays paused.
	{From: StateActive, To: StatePaused, Reasons: killSwitch, By: ActorSystem},
	{From: StatePaused, FromReasons: killSwitch, To: StateActive, By: ActorSystem},
	// Not in §5.3: pausing an automation the kill switch paused records the
	// person's or agent's own pause, so lifting the switch leaves it paused.
	// Without this, "stopping must never wait" (§11.6 item 1) would be undone
	// by the next site resume.
	{From: StatePaused, FromReasons: killSwitch, To: StatePaused, Reasons: []PausedReason{ReasonPerson}, By: ActorPerson},
	{From: StatePaused, FromReasons: killSwitch, To: StatePaused, Reasons: []PausedReason{ReasonAgent}, By: ActorAgent},
	// active → auto-paused: three consecutive failures, a budget exceeded (§5.3, §11.5).
	{From: StateActive, To: StateAutoPaused, Reasons: autoReasons, By: ActorSystem},
	// Not in §5.3's list, but resuming is a person's act (§11.6 item 1,
	// §10.1 automations:manage "resume"): without it an auto-paused
	// automation could never run again.
	{From: StateAutoPaused, FromReasons: autoReasons, To: StateActive, By: ActorPerson},
	// active → broken: key revoked, owner removed, role no longer enough (§5.3, §11.8).
	{From: StateActive, To: StateBroken, Reasons: brokenReasons, By: ActorSystem},
	// Not in §5.3's list: §11.8 names the event, not the state it finds. A
	// paused automation whose key is revoked is broken too, or a later resume
	// would make an automation active on a dead key.
	{From: StatePaused, FromReasons: pauseReasons, To: StateBroken, Reasons: brokenReasons, By: ActorSystem},
	{From: StateAutoPaused, FromReasons: autoReasons, To: StateBroken, Reasons: brokenReasons, By: ActorSystem},
	// Not in §5.3's list: §11.8's take-over by an Administrator (a new key)
	// or a person's repair (a lower modeCap) makes it active again. The use
	// case must have fixed the cause first.
	{From: StateBroken, FromReasons: brokenReasons, To: StateActive, By: ActorPerson},
	// active → ended: COUNT or UNTIL reached (§5.3).
	{From: StateActive, To: StateEnded, By: ActorSystem},
}

// Moves returns a copy of the automation table.
func Moves() []Move {
	out := make([]Move, len(moves))
	for i, m := range moves {
		m.FromReasons = append([]PausedReason(nil), m.FromReasons...)
		m.Reasons = append([]PausedReason(nil), m.Reasons...)
		out[i] = m
	}
	return out
}

func has(rs []PausedReason, r PausedReason) bool {
	if len(rs) == 0 {
		return r == ""
	}
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// CanTransition reports whether §5.3 allows an automation to move from one
// state to another, for some reason and some actor.
func CanTransition(from, to State) bool {
	for _, m := range moves {
		if m.From == from && m.To == to {
			return true
		}
	}
	return false
}

// CanChange reports whether by may move an automation from its current
// state to `to`, recording reason. See CheckChange.
func CanChange(from AutomationState, to State, reason PausedReason, by ActorKind) bool {
	return CheckChange(from, to, reason, by) == nil
}

// CheckChange is CanChange with the refusal's code: CodeUnknownState for a
// state §4.3 does not name, CodeBadPausedReason when a state and its reason
// do not go together, CodeSitePaused when anyone but
// the system lifts a kill-switch pause, CodeResumeIsPersonsAct when an agent
// or the system resumes (D7), CodeNotYourMove when the move exists for
// another actor, and CodeTransitionRefused when §5.3 has no such move.
func CheckChange(from AutomationState, to State, reason PausedReason, by ActorKind) error {
	for _, s := range []State{from.State, to} {
		if _, known := reasonsOf[s]; !known {
			return &Error{Code: CodeUnknownState, Field: "state"}
		}
	}
	if !ValidStatus(from.State, from.PausedReason) || !ValidStatus(to, reason) {
		return &Error{Code: CodeBadPausedReason, Field: "pausedReason"}
	}
	exists := false
	for _, m := range moves {
		if m.From != from.State || !has(m.FromReasons, from.PausedReason) || m.To != to || !has(m.Reasons, reason) {
			continue
		}
		if m.By == by {
			return nil
		}
		exists = true
	}
	switch {
	case !exists:
		return &Error{Code: CodeTransitionRefused}
	case to == StateActive && from.PausedReason == ReasonKillSwitch:
		return &Error{Code: CodeSitePaused}
	case to == StateActive:
		return &Error{Code: CodeResumeIsPersonsAct}
	}
	return &Error{Code: CodeNotYourMove}
}

// Change applies a move CheckChange allows and returns the new state.
// Resuming an auto-paused automation starts its failure count afresh: the
// person has looked at the cause, and otherwise the next single failure
// would pause it again. Every other move keeps the count, so the kill
// switch's pause and resume give back exactly what they found.
func Change(from AutomationState, to State, reason PausedReason, by ActorKind) (AutomationState, error) {
	if err := CheckChange(from, to, reason, by); err != nil {
		return from, err
	}
	next := AutomationState{State: to, PausedReason: reason, ConsecutiveFailures: from.ConsecutiveFailures}
	if from.State == StateAutoPaused && to == StateActive {
		next.ConsecutiveFailures = 0
	}
	return next, nil
}

// RunNew stands for "no run row yet" as the from-state of a run's first move.
const RunNew RunState = ""

// RunMove is one row of the run table (§5.3): from a state (RunNew for the
// row's creation) to another, made by By.
type RunMove struct {
	From, To RunState
	By       ActorKind
}

// runMoves is §5.3's run table. Agents only begin and end their own run
// (§11.2); a person's "Run now" opens a run (§13); the tick, the server's
// budget and taint checks and the kill switch do the rest.
var runMoves = []RunMove{
	// Built-in jobs: due (claimed) → running → succeeded | failed | budget-exceeded | killed.
	{RunNew, RunDue, ActorSystem},
	{RunNew, RunDue, ActorPerson}, // "Run now" on a built-in (§13)
	{RunDue, RunRunning, ActorSystem},
	// A claimed run starts as running, not due (implementation note 2); and
	// begin_run inserts the run of an occurrence that has none (§11.2).
	{RunNew, RunRunning, ActorSystem},
	{RunNew, RunRunning, ActorAgent},
	// Agent tasks start at ready (window open) and become missed when the
	// window closes without begin_run (§5.3, §8.6).
	{RunNew, RunReady, ActorSystem},
	{RunNew, RunReady, ActorPerson}, // "Run now" on an agent task opens a window (§13)
	{RunReady, RunRunning, ActorAgent},
	{RunReady, RunMissed, ActorSystem},
	// The tick closes a window that passed with no row at all (§8.6).
	{RunNew, RunMissed, ActorSystem},
	// Older missed occurrences become one skipped row (§5.3).
	{RunNew, RunSkipped, ActorSystem},
	// end_run closes a run as succeeded (§11.2); built-ins and releases end by the tick.
	{RunRunning, RunSucceeded, ActorAgent},
	{RunRunning, RunSucceeded, ActorSystem},
	// A run still open at endsAt fails (not_ended, §11.2); errors (§8.8).
	{RunRunning, RunFailed, ActorSystem},
	{RunRunning, RunBudgetExceeded, ActorSystem},
	// Killed: an anomaly (§11.4 rule 6), the kill switch (§11.6 item 2), the
	// automation deleted (§11.8). A claimed or open run can be killed.
	{RunDue, RunKilled, ActorSystem},
	{RunReady, RunKilled, ActorSystem},
	{RunRunning, RunKilled, ActorSystem},
	// A release's run past the hour (§8.6, §8.8).
	{RunDue, RunMissed, ActorSystem},
	{RunRunning, RunMissed, ActorSystem},
}

// RunMoves returns a copy of the run table.
func RunMoves() []RunMove { return append([]RunMove(nil), runMoves...) }

// CanRunTransition reports whether §5.3 allows a run to move from one state
// to another (from RunNew: to be created in that state), by anyone.
func CanRunTransition(from, to RunState) bool {
	for _, m := range runMoves {
		if m.From == from && m.To == to {
			return true
		}
	}
	return false
}

// CanChangeRun reports whether by may move a run from one state to another.
func CanChangeRun(from, to RunState, by ActorKind) bool {
	for _, m := range runMoves {
		if m.From == from && m.To == to && m.By == by {
			return true
		}
	}
	return false
}

// CheckRunChange is CanChangeRun with CodeRunTransition as the refusal.
func CheckRunChange(from, to RunState, by ActorKind) error {
	if !CanChangeRun(from, to, by) {
		return &Error{Code: CodeRunTransition}
	}
	return nil
}

// Terminal reports whether a run in state s has ended: nothing moves it
// again. due, ready and running are open.
func (s RunState) Terminal() bool {
	switch s {
	case RunSucceeded, RunFailed, RunMissed, RunSkipped, RunBudgetExceeded, RunKilled:
		return true
	}
	return false
}

// Terminal reports whether an automation in state s can never run again.
func (s State) Terminal() bool { return s == StateEnded }
