package automations

import (
	"time"

	"studio/engine/model/automation"
)

// The site's kill switch as it reaches the automations (§5.3, §11.6 item
// 2). engine/settings.SetKillSwitch flips the switch; in the same
// transaction it writes what KillSwitchMoves says to the site's
// automations and their open runs, so that the moment the switch is on no
// agent run is open and no automation is active, and the moment it is off
// exactly the automations it paused are active again.

// RunKilledByKillSwitch is the error a run killed by the site's kill switch
// records (the reason the switch's pauses carry, §4.3 pausedReason).
const RunKilledByKillSwitch = string(automation.ReasonKillSwitch)

// KillSwitchMove is one automation as the site's kill switch leaves it.
type KillSwitchMove struct {
	// Was is the automation as read: the write is guarded on its rev and
	// open run, so a run begun or an automation changed meanwhile makes
	// the switch read again rather than leave a run open.
	Was Automation
	// Now is the automation as the switch leaves it (Rev not yet moved).
	Now Automation
	// KillRun: Was.OpenRunID is an open run (due, ready or running) that
	// the switch kills with error RunKilledByKillSwitch.
	KillRun bool
}

// KillSwitchMoves is what turning the site's kill switch on (on) or off
// does at now to the site's automations as. On: every open run is killed
// (automation.KillSwitchRun: whatever its automation's state, a person's
// run now of a paused one too), every active automation is paused with
// reason kill-switch (automation.KillSwitchPaused), and the window a
// person's Run now opened on an agent task it pauses is closed; nothing
// stays due.
// Off: exactly the automations paused with reason kill-switch are active
// again (automation.KillSwitchResumed), planned as Resume plans them: from
// now, so the occurrences missed while the site was paused do not run in a
// burst. Automations a person or an agent paused, auto-paused and broken
// ones stay as they are both ways. Only the automations that change are
// returned, in input order.
func KillSwitchMoves(as []Automation, on bool, now time.Time) []KillSwitchMove {
	now = now.UTC().Truncate(time.Millisecond)
	var out []KillSwitchMove
	for _, was := range as {
		next := was
		if was.Task != nil {
			task := *was.Task
			next.Task = &task
		}
		m := KillSwitchMove{Was: was}
		if on {
			st, paused := automation.KillSwitchPaused(was.AutomationState())
			next.setState(st)
			if was.OpenRunID != "" {
				_, m.KillRun = automation.KillSwitchRun(automation.RunRunning)
			}
			if !paused && !m.KillRun {
				continue
			}
			if paused && next.Task != nil && next.Task.ManualWindow != nil && now.Before(next.Task.ManualWindow.ClosesAt) {
				// The window a person's Run now opened closes with the
				// switch: resuming the site opens no window of before.
				next.Task.ManualWindow = nil
			}
			next.OpenRunID, next.DueAt = "", nil
		} else {
			st, resumed := automation.KillSwitchResumed(was.AutomationState())
			if !resumed {
				continue
			}
			next.setState(st)
			rc, err := was.Recurrence()
			switch {
			case err != nil:
				// A stored rule today's parser refuses: active, but looked
				// at no more until a person fixes it (as the tick does).
				next.HandledAt, next.DueAt = now, nil
			case next.Task != nil:
				planTask(&next, rc, next.Task.WindowMinutes, now)
			default:
				plan(&next, rc, now)
			}
		}
		m.Now = next
		out = append(out, m)
	}
	return out
}
