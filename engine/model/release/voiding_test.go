package release

import "testing"

func TestEffectOf(t *testing.T) {
	t.Parallel()
	waiting, sched := []State{StateAwaitingApproval}, []State{StateScheduled}
	cases := []struct {
		name string
		f    ChangeFacts
		want ChangeEffect
	}{
		{"an approver's move keeps the approval", ChangeFacts{From: sched, To: StateScheduled},
			ChangeEffect{ClearOutcome: true}},
		{"an item change voids it", ChangeFacts{From: sched, To: StateScheduled, ItemsChanged: true},
			ChangeEffect{ClearApproval: true, ClearOutcome: true}},
		{"an item change with a new approval replaces it", ChangeFacts{From: []State{StateConflict}, To: StateScheduled, ItemsChanged: true, NewApproval: true},
			ChangeEffect{ClearOutcome: true}},
		{"a move that asks again voids it", ChangeFacts{From: sched, To: StateAwaitingApproval, NewRequest: true},
			ChangeEffect{ClearApproval: true, ClearOutcome: true}},
		{"unscheduled to a draft", ChangeFacts{From: sched, To: StateDraft},
			ChangeEffect{ClearApproval: true, ClearOutcome: true}},
		{"approved: the request is consumed, not closed", ChangeFacts{From: waiting, To: StateScheduled, NewApproval: true},
			ChangeEffect{ClearOutcome: true}},
		{"denied back to draft", ChangeFacts{From: waiting, To: StateDraft},
			ChangeEffect{ClearApproval: true, ClearOutcome: true, CloseRequest: RequestWithdrawn}},
		{"a waiting release moved files a new request", ChangeFacts{From: waiting, To: StateAwaitingApproval, NewRequest: true},
			ChangeEffect{ClearApproval: true, ClearOutcome: true, CloseRequest: RequestWithdrawn}},
		{"a waiting release moved with an agent's auto approval", ChangeFacts{From: waiting, To: StateScheduled, NewApproval: true, Moved: true},
			ChangeEffect{ClearOutcome: true, CloseRequest: RequestWithdrawn}},
		{"a waiting release re-pinned by an approver", ChangeFacts{From: waiting, To: StateScheduled, ItemsChanged: true, NewApproval: true},
			ChangeEffect{ClearOutcome: true, CloseRequest: RequestWithdrawn}},
		{"undecided at its time", ChangeFacts{From: waiting, To: StateExpired, NewOutcome: true},
			ChangeEffect{CloseRequest: RequestExpired}},
		{"canceled while waiting", ChangeFacts{From: waiting, To: StateCanceled, NewOutcome: true},
			ChangeEffect{CloseRequest: RequestWithdrawn}},
		{"published keeps the approval it ran on", ChangeFacts{From: []State{StateRunning}, To: StatePublished, NewOutcome: true},
			ChangeEffect{}},
		{"a claimed run put back keeps its outcome", ChangeFacts{From: []State{StateRunning}, To: StateMissed},
			ChangeEffect{}},
		{"a draft's items edited", ChangeFacts{From: []State{StateDraft}, To: StateDraft, ItemsChanged: true},
			ChangeEffect{ClearApproval: true, ClearOutcome: true}},
	}
	for _, c := range cases {
		if got := EffectOf(c.f); got != c.want {
			t.Errorf("%s: EffectOf(%+v) = %+v, want %+v", c.name, c.f, got, c.want)
		}
	}
}

// S6 as a property: over every pair of states and every combination of
// what a change brings, an item change either carries a new approval or
// clears the old one.
func TestEffectOfNoItemChangeKeepsAnOldApproval(t *testing.T) {
	t.Parallel()
	states := []State{StateDraft, StateAwaitingApproval, StateScheduled, StateRunning, StateConflict,
		StatePublished, StateMissed, StateExpired, StateFailed, StateCanceled}
	for _, from := range states {
		for _, to := range states {
			for bits := range 8 {
				f := ChangeFacts{From: []State{from}, To: to, ItemsChanged: true,
					NewApproval: bits&1 != 0, NewOutcome: bits&2 != 0, NewRequest: bits&4 != 0}
				e := EffectOf(f)
				if f.NewApproval == e.ClearApproval {
					t.Fatalf("%+v: %+v (a new approval xor a cleared one)", f, e)
				}
			}
		}
	}
}
