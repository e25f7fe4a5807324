package automation

import (
	"fmt"
	"testing"
)

type change struct {
	from       State
	fromReason PausedReason
	to         State
	reason     PausedReason
	by         ActorKind
}

func (c change) String() string {
	return fmt.Sprintf("%s(%s)→%s(%s) by %s", c.from, c.fromReason, c.to, c.reason, c.by)
}

// allowedChanges is §5.3's automation table (and the documented additions)
// written out move by move, independently of the moves table.
var allowedChanges = []change{
	// active ⇄ paused: a person; its agent may pause; only a person resumes (D7).
	{StateActive, "", StatePaused, ReasonPerson, ActorPerson},
	{StateActive, "", StatePaused, ReasonAgent, ActorAgent},
	{StatePaused, ReasonPerson, StateActive, "", ActorPerson},
	{StatePaused, ReasonAgent, StateActive, "", ActorPerson},
	// The kill switch (system) and its exact resume.
	{StateActive, "", StatePaused, ReasonKillSwitch, ActorSystem},
	{StatePaused, ReasonKillSwitch, StateActive, "", ActorSystem},
	// A person's or agent's own pause over the kill switch's.
	{StatePaused, ReasonKillSwitch, StatePaused, ReasonPerson, ActorPerson},
	{StatePaused, ReasonKillSwitch, StatePaused, ReasonAgent, ActorAgent},
	// active → auto-paused, and a person's resume.
	{StateActive, "", StateAutoPaused, ReasonFailures, ActorSystem},
	{StateActive, "", StateAutoPaused, ReasonBudget, ActorSystem},
	{StateAutoPaused, ReasonFailures, StateActive, "", ActorPerson},
	{StateAutoPaused, ReasonBudget, StateActive, "", ActorPerson},
	// → broken, from active, paused or auto-paused; a person's repair.
	{StateActive, "", StateBroken, ReasonKeyRevoked, ActorSystem},
	{StateActive, "", StateBroken, ReasonOwnerRemoved, ActorSystem},
	{StateActive, "", StateBroken, ReasonRoleChanged, ActorSystem},
	{StatePaused, ReasonPerson, StateBroken, ReasonKeyRevoked, ActorSystem},
	{StatePaused, ReasonPerson, StateBroken, ReasonOwnerRemoved, ActorSystem},
	{StatePaused, ReasonPerson, StateBroken, ReasonRoleChanged, ActorSystem},
	{StatePaused, ReasonAgent, StateBroken, ReasonKeyRevoked, ActorSystem},
	{StatePaused, ReasonAgent, StateBroken, ReasonOwnerRemoved, ActorSystem},
	{StatePaused, ReasonAgent, StateBroken, ReasonRoleChanged, ActorSystem},
	{StatePaused, ReasonKillSwitch, StateBroken, ReasonKeyRevoked, ActorSystem},
	{StatePaused, ReasonKillSwitch, StateBroken, ReasonOwnerRemoved, ActorSystem},
	{StatePaused, ReasonKillSwitch, StateBroken, ReasonRoleChanged, ActorSystem},
	{StateAutoPaused, ReasonFailures, StateBroken, ReasonKeyRevoked, ActorSystem},
	{StateAutoPaused, ReasonFailures, StateBroken, ReasonOwnerRemoved, ActorSystem},
	{StateAutoPaused, ReasonFailures, StateBroken, ReasonRoleChanged, ActorSystem},
	{StateAutoPaused, ReasonBudget, StateBroken, ReasonKeyRevoked, ActorSystem},
	{StateAutoPaused, ReasonBudget, StateBroken, ReasonOwnerRemoved, ActorSystem},
	{StateAutoPaused, ReasonBudget, StateBroken, ReasonRoleChanged, ActorSystem},
	{StateBroken, ReasonKeyRevoked, StateActive, "", ActorPerson},
	{StateBroken, ReasonOwnerRemoved, StateActive, "", ActorPerson},
	{StateBroken, ReasonRoleChanged, StateActive, "", ActorPerson},
	// active → ended: COUNT or UNTIL reached.
	{StateActive, "", StateEnded, "", ActorSystem},
}

func TestCanChangeAllowed(t *testing.T) {
	for _, c := range allowedChanges {
		t.Run(c.String(), func(t *testing.T) {
			from := AutomationState{State: c.from, PausedReason: c.fromReason}
			if err := CheckChange(from, c.to, c.reason, c.by); err != nil {
				t.Fatal(err)
			}
			if !CanTransition(c.from, c.to) {
				t.Fatal("CanTransition refuses")
			}
		})
	}
}

// Every other combination of state, reason, state, reason and actor is
// refused, including reasons that do not go with their state, unknown
// values and every move out of ended.
func TestCanChangeRefusesEverythingElse(t *testing.T) {
	ok := map[change]bool{}
	for _, c := range allowedChanges {
		ok[c] = true
	}
	states := append(append([]State(nil), States...), "held")
	reasons := append([]PausedReason{""}, PausedReasons...)
	reasons = append(reasons, "sleepy")
	actors := append(append([]ActorKind(nil), ActorKinds...), "robot")
	n := 0
	for _, from := range states {
		for _, fr := range reasons {
			for _, to := range states {
				for _, r := range reasons {
					for _, by := range actors {
						c := change{from, fr, to, r, by}
						got := CanChange(AutomationState{State: from, PausedReason: fr}, to, r, by)
						if got != ok[c] {
							t.Errorf("%s: CanChange = %v", c, got)
						}
						n++
					}
				}
			}
		}
	}
	if n != 6*10*6*10*4 {
		t.Fatalf("checked %d combinations", n)
	}
	for _, to := range States {
		if CanTransition(StateEnded, to) {
			t.Errorf("ended → %s allowed", to)
		}
	}
}

// CanTransition is the state-level projection of the table.
func TestCanTransitionPairs(t *testing.T) {
	want := map[[2]State]bool{}
	for _, c := range allowedChanges {
		want[[2]State{c.from, c.to}] = true
	}
	for _, from := range States {
		for _, to := range States {
			if CanTransition(from, to) != want[[2]State{from, to}] {
				t.Errorf("CanTransition(%s, %s) = %v", from, to, !want[[2]State{from, to}])
			}
		}
	}
}

func TestCheckChangeCodes(t *testing.T) {
	active := AutomationState{State: StateActive}
	tests := []struct {
		name   string
		from   AutomationState
		to     State
		reason PausedReason
		by     ActorKind
		want   string
	}{
		{"agent resumes its own pause (D7)", AutomationState{State: StatePaused, PausedReason: ReasonAgent}, StateActive, "", ActorAgent, CodeResumeIsPersonsAct},
		{"system resumes a person's pause", AutomationState{State: StatePaused, PausedReason: ReasonPerson}, StateActive, "", ActorSystem, CodeResumeIsPersonsAct},
		{"agent resumes auto-paused", AutomationState{State: StateAutoPaused, PausedReason: ReasonFailures}, StateActive, "", ActorAgent, CodeResumeIsPersonsAct},
		{"person lifts one kill-switch pause", AutomationState{State: StatePaused, PausedReason: ReasonKillSwitch}, StateActive, "", ActorPerson, CodeSitePaused},
		{"agent pauses as a person", active, StatePaused, ReasonPerson, ActorAgent, CodeNotYourMove},
		{"person claims the kill switch", active, StatePaused, ReasonKillSwitch, ActorPerson, CodeNotYourMove},
		{"person auto-pauses", active, StateAutoPaused, ReasonFailures, ActorPerson, CodeNotYourMove},
		{"person breaks it", active, StateBroken, ReasonKeyRevoked, ActorPerson, CodeNotYourMove},
		{"agent ends it", active, StateEnded, "", ActorAgent, CodeNotYourMove},
		{"paused without a reason", active, StatePaused, "", ActorPerson, CodeBadPausedReason},
		{"auto-paused by a person's reason", active, StateAutoPaused, ReasonPerson, ActorSystem, CodeBadPausedReason},
		{"active with a reason", AutomationState{State: StateActive, PausedReason: ReasonPerson}, StatePaused, ReasonPerson, ActorPerson, CodeBadPausedReason},
		{"unknown target", active, "held", "", ActorPerson, CodeUnknownState},
		{"unknown source", AutomationState{State: "held"}, StateActive, "", ActorPerson, CodeUnknownState},
		{"ended is final", AutomationState{State: StateEnded}, StateActive, "", ActorPerson, CodeTransitionRefused},
		{"pause twice", AutomationState{State: StatePaused, PausedReason: ReasonPerson}, StatePaused, ReasonAgent, ActorAgent, CodeTransitionRefused},
		{"paused → ended", AutomationState{State: StatePaused, PausedReason: ReasonPerson}, StateEnded, "", ActorSystem, CodeTransitionRefused},
		{"auto-paused → paused", AutomationState{State: StateAutoPaused, PausedReason: ReasonBudget}, StatePaused, ReasonPerson, ActorPerson, CodeTransitionRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, CheckChange(tt.from, tt.to, tt.reason, tt.by), tt.want)
		})
	}
}

func TestChange(t *testing.T) {
	t.Run("ResumeFromAutoPausedResetsFailures", func(t *testing.T) {
		got, err := Change(AutomationState{State: StateAutoPaused, PausedReason: ReasonFailures, ConsecutiveFailures: 3}, StateActive, "", ActorPerson)
		if err != nil || got != (AutomationState{State: StateActive}) {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("OtherMovesKeepFailures", func(t *testing.T) {
		got, err := Change(AutomationState{State: StateActive, ConsecutiveFailures: 2}, StatePaused, ReasonPerson, ActorPerson)
		if err != nil || got != (AutomationState{State: StatePaused, PausedReason: ReasonPerson, ConsecutiveFailures: 2}) {
			t.Fatalf("got %+v, %v", got, err)
		}
		got, err = Change(got, StateActive, "", ActorPerson)
		if err != nil || got != (AutomationState{State: StateActive, ConsecutiveFailures: 2}) {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("RefusalChangesNothing", func(t *testing.T) {
		from := AutomationState{State: StatePaused, PausedReason: ReasonAgent, ConsecutiveFailures: 1}
		got, err := Change(from, StateActive, "", ActorAgent)
		wantCode(t, err, CodeResumeIsPersonsAct)
		if got != from {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("MovesIsACopy", func(t *testing.T) {
		m := Moves()
		m[0].To = StateEnded
		m[2].FromReasons[0] = ReasonBudget
		if moves[0].To == StateEnded || moves[2].FromReasons[0] == ReasonBudget {
			t.Fatal("Moves exposes the table")
		}
	})
}

func TestValidStatus(t *testing.T) {
	for _, s := range States {
		for _, r := range append([]PausedReason{""}, PausedReasons...) {
			want := false
			switch s {
			case StateActive, StateEnded:
				want = r == ""
			case StatePaused:
				want = r == ReasonPerson || r == ReasonAgent || r == ReasonKillSwitch
			case StateAutoPaused:
				want = r == ReasonFailures || r == ReasonBudget
			case StateBroken:
				want = r == ReasonKeyRevoked || r == ReasonOwnerRemoved || r == ReasonRoleChanged
			}
			if ValidStatus(s, r) != want {
				t.Errorf("ValidStatus(%s, %q) = %v", s, r, !want)
			}
		}
	}
	if ValidStatus("held", "") {
		t.Error("unknown state valid")
	}
	// Every reason belongs to exactly one state.
	for _, r := range PausedReasons {
		n := 0
		for _, s := range States {
			if ValidStatus(s, r) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s belongs to %d states", r, n)
		}
	}
}

type runChange struct {
	from, to RunState
	by       ActorKind
}

// allowedRunChanges is §5.3's run table written out, independently of runMoves.
var allowedRunChanges = []runChange{
	{RunNew, RunDue, ActorSystem},
	{RunNew, RunDue, ActorPerson},
	{RunNew, RunRunning, ActorSystem},
	{RunNew, RunRunning, ActorAgent},
	{RunNew, RunReady, ActorSystem},
	{RunNew, RunReady, ActorPerson},
	{RunNew, RunMissed, ActorSystem},
	{RunNew, RunSkipped, ActorSystem},
	{RunDue, RunRunning, ActorSystem},
	{RunDue, RunKilled, ActorSystem},
	{RunDue, RunMissed, ActorSystem},
	{RunReady, RunRunning, ActorAgent},
	{RunReady, RunMissed, ActorSystem},
	{RunReady, RunKilled, ActorSystem},
	{RunRunning, RunSucceeded, ActorAgent},
	{RunRunning, RunSucceeded, ActorSystem},
	{RunRunning, RunFailed, ActorSystem},
	{RunRunning, RunBudgetExceeded, ActorSystem},
	{RunRunning, RunKilled, ActorSystem},
	{RunRunning, RunMissed, ActorSystem},
}

func TestRunChangeAllowed(t *testing.T) {
	for _, c := range allowedRunChanges {
		t.Run(fmt.Sprintf("%q→%s by %s", c.from, c.to, c.by), func(t *testing.T) {
			if err := CheckRunChange(c.from, c.to, c.by); err != nil {
				t.Fatal(err)
			}
			if !CanRunTransition(c.from, c.to) {
				t.Fatal("CanRunTransition refuses")
			}
		})
	}
}

func TestRunChangeRefusesEverythingElse(t *testing.T) {
	ok := map[runChange]bool{}
	pairs := map[[2]RunState]bool{}
	for _, c := range allowedRunChanges {
		ok[c] = true
		pairs[[2]RunState{c.from, c.to}] = true
	}
	states := append([]RunState{RunNew}, RunStates...)
	states = append(states, "paused")
	actors := append(append([]ActorKind(nil), ActorKinds...), "robot")
	for _, from := range states {
		for _, to := range states {
			if CanRunTransition(from, to) != pairs[[2]RunState{from, to}] {
				t.Errorf("CanRunTransition(%q, %q) = %v", from, to, !pairs[[2]RunState{from, to}])
			}
			for _, by := range actors {
				c := runChange{from, to, by}
				if CanChangeRun(from, to, by) != ok[c] {
					t.Errorf("CanChangeRun(%q, %q, %s) = %v", from, to, by, !ok[c])
				}
				if !ok[c] {
					wantCode(t, CheckRunChange(from, to, by), CodeRunTransition)
				}
			}
		}
	}
}

func TestTerminal(t *testing.T) {
	open := map[RunState]bool{RunDue: true, RunReady: true, RunRunning: true}
	for _, s := range RunStates {
		if s.Terminal() == open[s] {
			t.Errorf("%s: Terminal = %v", s, s.Terminal())
		}
		// Nothing leaves a terminal run.
		for _, to := range RunStates {
			if s.Terminal() && CanRunTransition(s, to) {
				t.Errorf("terminal %s → %s allowed", s, to)
			}
		}
	}
	for _, s := range States {
		if s.Terminal() != (s == StateEnded) {
			t.Errorf("%s: Terminal = %v", s, s.Terminal())
		}
	}
}

func TestParse(t *testing.T) {
	for _, s := range States {
		if got, err := ParseState(string(s)); err != nil || got != s {
			t.Errorf("ParseState(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range RunStates {
		if got, err := ParseRunState(string(s)); err != nil || got != s {
			t.Errorf("ParseRunState(%q) = %q, %v", s, got, err)
		}
	}
	for _, o := range Outcomes {
		if got, err := ParseOutcome(string(o)); err != nil || got != o {
			t.Errorf("ParseOutcome(%q) = %q, %v", o, got, err)
		}
	}
	for _, bad := range []string{"", "Active", "auto_paused", "paused ", "held"} {
		_, err := ParseState(bad)
		wantCode(t, err, CodeUnknownState)
	}
	for _, bad := range []string{"", "Running", "budget_exceeded", "done"} {
		_, err := ParseRunState(bad)
		wantCode(t, err, CodeUnknownRunState)
	}
	for _, bad := range []string{"", "did_work", "achieved"} {
		_, err := ParseOutcome(bad)
		wantCode(t, err, CodeUnknownOutcome)
	}
}

func TestRunMovesIsACopy(t *testing.T) {
	m := RunMoves()
	if len(m) != len(allowedRunChanges) {
		t.Fatalf("%d rows, %d written out", len(m), len(allowedRunChanges))
	}
	m[0].To = RunKilled
	if runMoves[0].To == RunKilled {
		t.Fatal("RunMoves exposes the table")
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		e    *Error
		want string
	}{
		{&Error{Code: CodeTainted}, "automation: tainted"},
		{&Error{Code: CodeBudgetOutOfRange, Field: "job.budget.maxWrites"}, "automation: budget_out_of_range (job.budget.maxWrites)"},
		{&Error{Code: CodeBudgetWrites, Field: "maxWrites", Tool: "save_draft"}, "automation: budget_writes (maxWrites) [save_draft]"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
}
