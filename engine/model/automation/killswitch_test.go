package automation

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"
)

// statuses are every valid state and reason pair.
func statuses() []AutomationState {
	var out []AutomationState
	for _, s := range States {
		rs := ReasonsFor(s)
		if len(rs) == 0 {
			out = append(out, AutomationState{State: s})
		}
		for _, r := range rs {
			out = append(out, AutomationState{State: s, PausedReason: r})
		}
	}
	return out
}

func TestKillSwitchPerAutomation(t *testing.T) {
	for _, a := range statuses() {
		a.ConsecutiveFailures = 2
		t.Run(fmt.Sprintf("%s(%s)", a.State, a.PausedReason), func(t *testing.T) {
			p, changed := KillSwitchPaused(a)
			if changed != (a.State == StateActive) {
				t.Fatalf("pause changed = %v", changed)
			}
			if changed && p != (AutomationState{State: StatePaused, PausedReason: ReasonKillSwitch, ConsecutiveFailures: 2}) {
				t.Fatalf("paused to %+v", p)
			}
			if !changed && p != a {
				t.Fatalf("untouched became %+v", p)
			}
			r, changed := KillSwitchResumed(a)
			wantResume := a.State == StatePaused && a.PausedReason == ReasonKillSwitch
			if changed != wantResume {
				t.Fatalf("resume changed = %v", changed)
			}
			if changed && r != (AutomationState{State: StateActive, ConsecutiveFailures: 2}) {
				t.Fatalf("resumed to %+v", r)
			}
			if !changed && r != a {
				t.Fatalf("untouched became %+v", r)
			}
		})
	}
}

// randomAutomations is a site's automations while its kill switch is off:
// any state, but no pause with reason kill-switch, which exists only while
// the switch is on.
func randomAutomations(r *rand.Rand) []Automation {
	all := slices.DeleteFunc(statuses(), func(a AutomationState) bool { return a.PausedReason == ReasonKillSwitch })
	as := make([]Automation, r.Intn(40))
	for i := range as {
		st := all[r.Intn(len(all))]
		// Weight towards active: most of a site's automations are on.
		if r.Intn(2) == 0 {
			st = AutomationState{State: StateActive}
		}
		st.ConsecutiveFailures = r.Intn(4)
		as[i] = Automation{ID: fmt.Sprintf("aut_%08d", i), Name: "a", AutomationState: st}
	}
	return as
}

// Property: for random sets, turning the kill switch on then off returns
// every automation to its prior state, pauses exactly the active ones and
// resumes exactly those; the input is never modified.
func TestKillSwitchRoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	for range 1000 {
		before := randomAutomations(r)
		keep := slices.Clone(before)
		paused, pausedIDs := KillSwitchPause(before)
		var active []string
		for _, a := range before {
			if a.State == StateActive {
				active = append(active, a.ID)
			}
		}
		if !slices.Equal(pausedIDs, active) {
			t.Fatalf("paused %v, active were %v", pausedIDs, active)
		}
		for _, a := range paused {
			if a.State == StateActive {
				t.Fatalf("%s still active", a.ID)
			}
		}
		after, resumedIDs := KillSwitchResume(paused)
		if !slices.Equal(resumedIDs, pausedIDs) {
			t.Fatalf("resumed %v, paused %v", resumedIDs, pausedIDs)
		}
		if !reflect.DeepEqual(after, before) {
			t.Fatalf("round trip:\n%+v\n%+v", before, after)
		}
		if !reflect.DeepEqual(before, keep) {
			t.Fatal("input modified")
		}
		// Pausing twice changes nothing the second time.
		if again, ids := KillSwitchPause(paused); len(ids) != 0 || !reflect.DeepEqual(again, paused) {
			t.Fatalf("second pause changed %v", ids)
		}
	}
}

// While the site is paused, a person's (or the agent's) own pause replaces
// the kill switch's, so lifting the switch leaves that one paused; a person
// cannot lift one kill-switch pause alone.
func TestKillSwitchWithOwnPause(t *testing.T) {
	as := []Automation{
		{ID: "aut_a", AutomationState: AutomationState{State: StateActive}},
		{ID: "aut_b", AutomationState: AutomationState{State: StateActive}},
		{ID: "aut_c", AutomationState: AutomationState{State: StateActive}},
		{ID: "aut_d", AutomationState: AutomationState{State: StatePaused, PausedReason: ReasonAgent}},
		{ID: "aut_e", AutomationState: AutomationState{State: StateAutoPaused, PausedReason: ReasonFailures, ConsecutiveFailures: 3}},
	}
	paused, ids := KillSwitchPause(as)
	if !slices.Equal(ids, []string{"aut_a", "aut_b", "aut_c"}) {
		t.Fatalf("paused %v", ids)
	}
	var err error
	if paused[1].AutomationState, err = Change(paused[1].AutomationState, StatePaused, ReasonPerson, ActorPerson); err != nil {
		t.Fatal(err)
	}
	if paused[2].AutomationState, err = Change(paused[2].AutomationState, StatePaused, ReasonAgent, ActorAgent); err != nil {
		t.Fatal(err)
	}
	wantCode(t, CheckChange(paused[0].AutomationState, StateActive, "", ActorPerson), CodeSitePaused)
	after, ids := KillSwitchResume(paused)
	if !slices.Equal(ids, []string{"aut_a"}) {
		t.Fatalf("resumed %v", ids)
	}
	want := []AutomationState{
		{State: StateActive},
		{State: StatePaused, PausedReason: ReasonPerson},
		{State: StatePaused, PausedReason: ReasonAgent},
		as[3].AutomationState,
		as[4].AutomationState,
	}
	for i, a := range after {
		if a.AutomationState != want[i] {
			t.Errorf("%s: %+v, want %+v", a.ID, a.AutomationState, want[i])
		}
	}
}

func TestKillSwitchRun(t *testing.T) {
	for _, s := range RunStates {
		got, changed := KillSwitchRun(s)
		if changed != !s.Terminal() || (changed && got != RunKilled) || (!changed && got != s) {
			t.Errorf("KillSwitchRun(%s) = %s, %v", s, got, changed)
		}
	}
}
