package policy

import "time"

// Class is a call class (§10.3): what a call can do, which decides whether
// a mode lets it through.
type Class string

const (
	// ClassRead changes nothing.
	ClassRead Class = "read"
	// ClassAdvisory leaves notes or proposals people read before deciding.
	ClassAdvisory Class = "advisory"
	// ClassReduce is reversible; it can only make content less visible or
	// make work wait.
	ClassReduce Class = "reduce"
	// ClassPublish makes content public, or removes it, at a time.
	ClassPublish Class = "publish"
	// ClassPerson: a person decides, always.
	ClassPerson Class = "person"
)

// Classes lists the call classes in the RFC's order.
var Classes = []Class{ClassRead, ClassAdvisory, ClassReduce, ClassPublish, ClassPerson}

// Mode is a key's autonomy (RFC-0007, §10.7, §11.3).
type Mode string

const (
	ModePlan   Mode = "plan"
	ModeManual Mode = "manual"
	ModeEdits  Mode = "edits"
	ModeAuto   Mode = "auto"
	// ModeBypass is local only; it never applies to scheduled execution or
	// runs (§10.7).
	ModeBypass Mode = "bypass"
)

// Modes lists the modes from least to most autonomous.
var Modes = []Mode{ModePlan, ModeManual, ModeEdits, ModeAuto, ModeBypass}

// ParseMode returns the mode named s, or false.
func ParseMode(s string) (Mode, bool) {
	for _, m := range Modes {
		if string(m) == s {
			return m, true
		}
	}
	return "", false
}

func (m Mode) rank() int {
	for i, x := range Modes {
		if x == m {
			return i
		}
	}
	return -1
}

// AgentModeCap is the highest mode a role's agent keys act in (§10.2,
// §10.3, §11.8): auto for roles holding releases:publish on the whole site
// (auto approves low-risk releases without a person), edits otherwise.
func AgentModeCap(role Role) Mode {
	if Holds(role, ReleasesPublish) {
		return ModeAuto
	}
	return ModeEdits
}

// DefaultAgentScopes are an agent key's scopes when none are chosen, a
// person's key or an agent task's alike (§10.1): schedules:read and
// content:read in every mode (reading is what plan does); manual, edits
// and auto add schedules:write (proposals and schedules, which wait for a
// person as the mode says); edits and auto add content:write (drafts);
// auto adds releases:publish, without which auto could not approve
// anything. Each at the level role holds it, and only what role holds.
func DefaultAgentScopes(m Mode, role Role) []Scope {
	want := []Scope{ContentRead, SchedulesRead}
	if m.rank() >= ModeManual.rank() {
		want = append(want, SchedulesWrite)
	}
	if m.rank() >= ModeEdits.rank() {
		want = append(want, ContentWrite)
	}
	if m.rank() >= ModeAuto.rank() {
		want = append(want, ReleasesPublish)
	}
	return Narrow(want, role)
}

// RunMode is the effective mode inside an automation run (§11.2):
// min(the key's effective mode, the automation's modeCap), never bypass
// (§10.7: automation keys are remote keys), so bypass falls to auto. An
// unknown mode on either side fails closed to plan.
func RunMode(keyMode, modeCap Mode) Mode {
	if keyMode.rank() < 0 || modeCap.rank() < 0 {
		return ModePlan
	}
	m := keyMode
	if modeCap.rank() < m.rank() {
		m = modeCap
	}
	if m == ModeBypass {
		return ModeAuto
	}
	return m
}

// Verdict is what the server does with a call.
type Verdict string

const (
	// Allowed: the call runs.
	Allowed Verdict = "allowed"
	// Refused: the mode does not allow the call at all (✗).
	Refused Verdict = "refused"
	// Waits: the call files an approval request and a person decides.
	Waits Verdict = "waits"
	// LowRiskInWindow: publish in auto — allowed when the release passes
	// the low-risk check and runs inside the auto window (§10.7); otherwise
	// it waits. Resolve turns it into Allowed or Waits. Publish decisions of
	// this kind carry autoApprove: AutoApproveLowRiskRelease.
	LowRiskInWindow Verdict = "low-risk-in-window"
	// NotApplicable: the combination cannot occur (the RFC's "—": begin_run
	// and end_run in bypass; any call in a run under bypass). The server
	// refuses it should it ever be asked.
	NotApplicable Verdict = "not-applicable"
	// Tainted: the run is tainted and the tool is not one a tainted run may
	// call (§11.4 rule 1); the call answers tainted.
	Tainted Verdict = "tainted"
	// UnavailableInRun: the tool does not exist inside runs (§11.4 rule 2).
	UnavailableInRun Verdict = "unavailable-in-run"
)

// AutoApproveLowRiskRelease is the autoApprove value publish decisions carry
// in auto mode (§10.3).
const AutoApproveLowRiskRelease = "low-risk-release"

// Proceeds reports whether the call runs now (Allowed).
func (v Verdict) Proceeds() bool { return v == Allowed }

// Resolve settles a LowRiskInWindow verdict: Allowed when the release is
// low-risk and runs inside the auto window, Waits otherwise. Other verdicts
// are returned as they are.
func (v Verdict) Resolve(lowRiskInWindow bool) Verdict {
	if v != LowRiskInWindow {
		return v
	}
	if lowRiskInWindow {
		return Allowed
	}
	return Waits
}

// classModes is the §10.3 table, row by row, columns plan, manual, edits,
// auto, bypass (local).
var classModes = map[Class][5]Verdict{
	ClassRead:     {Allowed, Allowed, Allowed, Allowed, Allowed},
	ClassAdvisory: {Refused, Allowed, Allowed, Allowed, Allowed},
	ClassReduce:   {Refused, Waits, Allowed, Allowed, Allowed},
	ClassPublish:  {Refused, Waits, Waits, LowRiskInWindow, Allowed},
	ClassPerson:   {Refused, Waits, Waits, Waits, Waits},
}

// Decide returns the §10.3 verdict for a call of class in mode. An unknown
// class or mode is Refused (default deny).
func Decide(class Class, mode Mode) Verdict {
	row, ok := classModes[class]
	if !ok || mode.rank() < 0 {
		return Refused
	}
	return row[mode.rank()]
}

// DecideCall is Decide with a LowRiskInWindow verdict resolved by whether
// the release is low-risk and inside the auto window.
func DecideCall(class Class, mode Mode, lowRiskInWindow bool) Verdict {
	return Decide(class, mode).Resolve(lowRiskInWindow)
}

// AutoWindow is how long an auto-mode release may lie ahead of the call
// that schedules it without a person (D9).
const AutoWindow = 24 * time.Hour

// AutoWindowEnds is the end of the auto window for a release scheduled at
// now (D9, §10.7): now + 24 h, or the end of the key's elevation when auto
// comes from an elevation and that ends first. elevationEnds is nil when the
// key's auto mode is not an elevation. The result is stored as the
// release's windowEnds.
func AutoWindowEnds(now time.Time, elevationEnds *time.Time) time.Time {
	end := now.Add(AutoWindow)
	if elevationEnds != nil && elevationEnds.Before(end) {
		return *elevationEnds
	}
	return end
}

// AutoAllowed reports whether a release executing at executeAt may be
// scheduled without a person for a window ending at windowEnds (D9): it must
// run by the end of the window. The end itself counts as inside, matching
// the run-time re-check, which expires an auto release only when
// now > windowEnds (§10.6).
func AutoAllowed(executeAt, windowEnds time.Time) bool {
	return !executeAt.After(windowEnds)
}

// AutoWindowEnded reports the run-time re-check of an auto release (§10.6):
// when it runs at now after windowEnds it expires (auto_window_ended).
func AutoWindowEnded(now, windowEnds time.Time) bool {
	return now.After(windowEnds)
}
