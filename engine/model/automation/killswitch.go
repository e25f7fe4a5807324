package automation

// The site's kill switch (§5.3, §11.6 item 2): turning it on pauses every
// active automation with reason kill-switch and kills open runs; turning it
// off resumes exactly the automations it paused. An automation a person or
// its agent paused, an auto-paused or broken one, stays as it is both ways:
// the reason on the row is the whole memory of who paused what, so nothing
// else needs storing. The moves are the system's rows of the table in
// states.go, applied through Change.

// KillSwitchPaused returns a after the kill switch is turned on, and whether
// it changed: only an active automation is paused.
func KillSwitchPaused(a AutomationState) (AutomationState, bool) {
	if a.State != StateActive {
		return a, false
	}
	next, err := Change(a, StatePaused, ReasonKillSwitch, ActorSystem)
	return next, err == nil
}

// KillSwitchResumed returns a after the kill switch is turned off, and
// whether it changed: only an automation paused with reason kill-switch is
// resumed, with its failure count untouched.
func KillSwitchResumed(a AutomationState) (AutomationState, bool) {
	if a.State != StatePaused || a.PausedReason != ReasonKillSwitch {
		return a, false
	}
	next, err := Change(a, StateActive, "", ActorSystem)
	return next, err == nil
}

// KillSwitchPause applies KillSwitchPaused to every automation of a site. It
// returns the automations as they become (the input is not modified) and
// the ids of those that changed, in input order.
func KillSwitchPause(as []Automation) (next []Automation, changed []string) {
	return applyAll(as, KillSwitchPaused)
}

// KillSwitchResume applies KillSwitchResumed to every automation of a site,
// as KillSwitchPause does.
func KillSwitchResume(as []Automation) (next []Automation, changed []string) {
	return applyAll(as, KillSwitchResumed)
}

func applyAll(as []Automation, f func(AutomationState) (AutomationState, bool)) ([]Automation, []string) {
	next := make([]Automation, len(as))
	var changed []string
	for i, a := range as {
		st, ok := f(a.AutomationState)
		a.AutomationState = st
		next[i] = a
		if ok {
			changed = append(changed, a.ID)
		}
	}
	return next, changed
}

// KillSwitchRun returns the state of a run when the kill switch is turned
// on, and whether it changed: an open run (due, ready or running) is killed
// (§11.6 item 2); an ended run stays as it is.
func KillSwitchRun(s RunState) (RunState, bool) {
	if CanChangeRun(s, RunKilled, ActorSystem) {
		return RunKilled, true
	}
	return s, false
}
