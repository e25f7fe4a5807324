package release

import (
	"errors"
	"testing"
)

// allowed is §5.2's table written out pair by pair (plus scheduled → draft,
// §6.2, and the manual runs out of missed and expired, §8.6, §10.6),
// independently of the transitions map.
var allowed = []struct{ from, to State }{
	{StateDraft, StateScheduled},
	{StateDraft, StateAwaitingApproval},
	{StateAwaitingApproval, StateScheduled},
	{StateAwaitingApproval, StateDraft},
	{StateScheduled, StateScheduled},
	{StateScheduled, StateAwaitingApproval},
	{StateScheduled, StateRunning},
	{StateScheduled, StateDraft},
	{StateRunning, StatePublished},
	{StateRunning, StateConflict},
	{StateRunning, StateMissed},
	{StateScheduled, StateMissed},
	{StateScheduled, StateExpired},
	{StateAwaitingApproval, StateExpired},
	{StateRunning, StateFailed},
	{StateRunning, StateExpired},   // the run's approval gate (§6.3 step 2, §10.6)
	{StateRunning, StateScheduled}, // a person's run let go of (Publish now)
	{StateDraft, StateCanceled},
	{StateAwaitingApproval, StateCanceled},
	{StateScheduled, StateCanceled},
	{StateRunning, StateCanceled},
	// A person's "Publish now" (§8.6, §10.6, §13): the only ways out of a
	// terminal state.
	{StateMissed, StateRunning},
	{StateExpired, StateRunning},
	// A waiting release moved or re-pinned by someone who may not approve
	// it: a new request (§6.2, §10.4).
	{StateAwaitingApproval, StateAwaitingApproval},
	// A conflict re-pinned or re-based (§5.2, §6.4).
	{StateConflict, StateScheduled},
	{StateConflict, StateAwaitingApproval},
	{StateConflict, StateCanceled},
}

// manualRuns are the pairs out of terminal states: a person's Publish now.
var manualRuns = map[[2]State]bool{
	{StateMissed, StateRunning}:  true,
	{StateExpired, StateRunning}: true,
	// Not runs, but a person's way out of a terminal state too: a conflict
	// re-pinned or re-based (§6.4).
	{StateConflict, StateScheduled}:        true,
	{StateConflict, StateAwaitingApproval}: true,
	{StateConflict, StateCanceled}:         true, // §6.4 "or cancel"
}

func TestCanTransitionAllowed(t *testing.T) {
	for _, p := range allowed {
		t.Run(string(p.from)+"→"+string(p.to), func(t *testing.T) {
			if !CanTransition(p.from, p.to) {
				t.Fatal("refused")
			}
		})
	}
}

// Every pair of States × States not listed above is refused, including every
// move out of a terminal state.
func TestCanTransitionRefusesEverythingElse(t *testing.T) {
	ok := map[[2]State]bool{}
	for _, p := range allowed {
		ok[[2]State{p.from, p.to}] = true
	}
	for _, from := range States {
		for _, to := range States {
			if !ok[[2]State{from, to}] && CanTransition(from, to) {
				t.Errorf("%s → %s allowed", from, to)
			}
		}
	}
	if CanTransition("held", StateDraft) || CanTransition(StateDraft, "held") {
		t.Error("unknown state allowed")
	}
}

func TestTerminalAndHolds(t *testing.T) {
	tests := []struct {
		s               State
		terminal, holds bool
	}{
		{StateDraft, false, false},
		{StateAwaitingApproval, false, true},
		{StateScheduled, false, true},
		{StateRunning, false, true},
		{StatePublished, true, false},
		{StateConflict, true, false},
		{StateMissed, true, false},
		{StateExpired, true, false},
		{StateFailed, true, false},
		{StateCanceled, true, false},
	}
	if len(tests) != len(States) {
		t.Fatalf("table covers %d states, States has %d", len(tests), len(States))
	}
	for _, tt := range tests {
		if tt.s.Terminal() != tt.terminal || tt.s.Holds() != tt.holds {
			t.Errorf("%s: Terminal %v Holds %v, want %v %v", tt.s, tt.s.Terminal(), tt.s.Holds(), tt.terminal, tt.holds)
		}
		// A terminal state has no way out but a person's manual run; a
		// non-terminal one can always be canceled.
		for _, to := range States {
			if tt.terminal && CanTransition(tt.s, to) && !manualRuns[[2]State{tt.s, to}] {
				t.Errorf("terminal %s → %s allowed", tt.s, to)
			}
		}
		if !tt.terminal && !CanTransition(tt.s, StateCanceled) {
			t.Errorf("non-terminal %s cannot be canceled", tt.s)
		}
	}
}

// §8.5: a running release cannot be canceled by a person (409); §6.4: a
// conflict can.
func TestCanCancel(t *testing.T) {
	want := map[State]bool{StateDraft: true, StateAwaitingApproval: true, StateScheduled: true, StateConflict: true}
	for _, s := range States {
		if CanCancel(s) != want[s] {
			t.Errorf("CanCancel(%s) = %v, want %v", s, CanCancel(s), want[s])
		}
	}
}

func TestParseState(t *testing.T) {
	for _, s := range States {
		got, err := ParseState(string(s))
		if err != nil || got != s {
			t.Errorf("ParseState(%q) = %q, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "held", "Draft", "scheduled ", "awaiting-approval"} {
		_, err := ParseState(bad)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeUnknownState {
			t.Errorf("ParseState(%q) error = %v, want %s", bad, err, CodeUnknownState)
		}
	}
}

// Each new pair is a person's manual run, §8.6 (missed: "Publish now") and
// §10.6 (expired: "Approve and publish now"); it leads to running only.
func TestManualRunOutOfMissed(t *testing.T) {
	if !CanTransition(StateMissed, StateRunning) {
		t.Fatal("missed → running refused")
	}
	for _, to := range States {
		if to != StateRunning && CanTransition(StateMissed, to) {
			t.Errorf("missed → %s allowed", to)
		}
	}
}

func TestManualRunOutOfExpired(t *testing.T) {
	if !CanTransition(StateExpired, StateRunning) {
		t.Fatal("expired → running refused")
	}
	for _, to := range States {
		if to != StateRunning && CanTransition(StateExpired, to) {
			t.Errorf("expired → %s allowed", to)
		}
	}
}

// §13: publish-now is for missed, expired and scheduled releases only.
func TestCanPublishNow(t *testing.T) {
	want := map[State]bool{StateMissed: true, StateExpired: true, StateScheduled: true}
	for _, s := range States {
		if CanPublishNow(s) != want[s] {
			t.Errorf("CanPublishNow(%s) = %v, want %v", s, CanPublishNow(s), want[s])
		}
	}
	if CanPublishNow("held") {
		t.Error("unknown state may publish now")
	}
}
