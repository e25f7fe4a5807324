package automation

import (
	"math/rand"
	"testing"
)

func TestAccountRunResult(t *testing.T) {
	active := func(n int) AutomationState { return AutomationState{State: StateActive, ConsecutiveFailures: n} }
	paused := AutomationState{State: StatePaused, PausedReason: ReasonPerson, ConsecutiveFailures: 2}
	tests := []struct {
		name   string
		in     AutomationState
		result RunResult
		want   AutomationState
		paused bool
	}{
		{"success resets", active(2), RunResult{State: RunSucceeded}, active(0), false},
		{"first failure", active(0), RunResult{State: RunFailed}, active(1), false},
		{"second failure", active(1), RunResult{State: RunFailed}, active(2), false},
		{"third failure pauses", active(2), RunResult{State: RunFailed},
			AutomationState{State: StateAutoPaused, PausedReason: ReasonFailures, ConsecutiveFailures: 3}, true},
		{"budget breach pauses at once", active(0), RunResult{State: RunBudgetExceeded},
			AutomationState{State: StateAutoPaused, PausedReason: ReasonBudget, ConsecutiveFailures: 1}, true},
		{"budget breach on the third failure says budget", active(2), RunResult{State: RunBudgetExceeded},
			AutomationState{State: StateAutoPaused, PausedReason: ReasonBudget, ConsecutiveFailures: 3}, true},
		{"anomaly kill pauses", active(0), RunResult{State: RunKilled, Anomaly: true},
			AutomationState{State: StateAutoPaused, PausedReason: ReasonBudget, ConsecutiveFailures: 1}, true},
		{"kill switch kill changes nothing", active(1), RunResult{State: RunKilled}, active(1), false},
		{"missed neither counts nor resets", active(2), RunResult{State: RunMissed}, active(2), false},
		{"skipped neither counts nor resets", active(2), RunResult{State: RunSkipped}, active(2), false},
		{"an open state changes nothing", active(1), RunResult{State: RunRunning}, active(1), false},
		{"a paused automation keeps its pause", paused, RunResult{State: RunFailed},
			AutomationState{State: StatePaused, PausedReason: ReasonPerson, ConsecutiveFailures: 3}, false},
		{"a paused automation is not auto-paused by a breach", paused, RunResult{State: RunBudgetExceeded},
			AutomationState{State: StatePaused, PausedReason: ReasonPerson, ConsecutiveFailures: 3}, false},
		{"kill-switch pause stays exact", AutomationState{State: StatePaused, PausedReason: ReasonKillSwitch}, RunResult{State: RunKilled},
			AutomationState{State: StatePaused, PausedReason: ReasonKillSwitch}, false},
		{"auto-paused counts on", AutomationState{State: StateAutoPaused, PausedReason: ReasonFailures, ConsecutiveFailures: 3}, RunResult{State: RunFailed},
			AutomationState{State: StateAutoPaused, PausedReason: ReasonFailures, ConsecutiveFailures: 4}, false},
		{"ended stays ended", AutomationState{State: StateEnded, ConsecutiveFailures: 2}, RunResult{State: RunFailed},
			AutomationState{State: StateEnded, ConsecutiveFailures: 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, paused := AccountRunResult(tt.in, tt.result)
			if got != tt.want || paused != tt.paused {
				t.Fatalf("got %+v, %v; want %+v, %v", got, paused, tt.want, tt.paused)
			}
			// Every pause is a move the table allows the system to make.
			if paused && !CanChange(tt.in, got.State, got.PausedReason, ActorSystem) {
				t.Fatalf("%+v → %+v is not in the table", tt.in, got)
			}
		})
	}
}

// Property: along random sequences of results from an active automation, it
// is auto-paused exactly at the first budget breach, anomaly kill or third
// failure in a row not broken by a success, and stays so.
func TestAccountRunResultSequences(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	results := []RunResult{{State: RunSucceeded}, {State: RunFailed}, {State: RunFailed}, {State: RunBudgetExceeded},
		{State: RunKilled}, {State: RunKilled, Anomaly: true}, {State: RunMissed}, {State: RunSkipped}}
	for range 2000 {
		a := AutomationState{State: StateActive}
		streak, stopped := 0, false
		for step := range 1 + r.Intn(12) {
			res := results[r.Intn(len(results))]
			next, paused := AccountRunResult(a, res)
			// The model.
			wantPause := false
			switch {
			case res.State == RunSucceeded:
				streak = 0
			case res.State == RunFailed:
				streak++
				wantPause = streak >= MaxConsecutiveFailures
			case res.State == RunBudgetExceeded, res.State == RunKilled && res.Anomaly:
				streak++
				wantPause = true
			}
			wantPause = wantPause && !stopped
			if paused != wantPause || next.ConsecutiveFailures != streak {
				t.Fatalf("step %d %+v from %+v: got %+v paused %v; want pause %v streak %d", step, res, a, next, paused, wantPause, streak)
			}
			stopped = stopped || paused
			if stopped != (next.State == StateAutoPaused) {
				t.Fatalf("step %d: state %s, stopped %v", step, next.State, stopped)
			}
			a = next
		}
	}
}
