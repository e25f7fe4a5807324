package automation

import (
	"time"

	"studio/engine/recurrence"
)

// Run windows of agent tasks (§8.6, §11.2). A window is computed from the
// recurrence, never opened by the tick: begin_run is accepted whenever now
// is inside an occurrence's window, scheduler or not.
//
// The RFC writes the window as the closed interval [occurrence, occurrence +
// windowMinutes]. This package uses the half-open [opens, closes): a
// begin_run at exactly closes would get endsAt = closes, a run of no length
// that fails (not_ended) at once; "closed" then means now >= closes for the
// tick, as "a run still open at endsAt" does for a run; and when
// windowMinutes equals the rule's interval, the instant one window closes
// and the next opens belongs to the next occurrence only.

// Window returns the run window of the occurrence at occurrenceAt: it opens
// then and closes windowMinutes later. A person's "Run now" opens
// Window(now, windowMinutes) (§13).
func Window(occurrenceAt time.Time, windowMinutes int) RunWindow {
	return RunWindow{OpensAt: occurrenceAt, ClosesAt: occurrenceAt.Add(time.Duration(windowMinutes) * time.Minute)}
}

// Contains reports whether now is inside the window: OpensAt <= now < ClosesAt.
func (w RunWindow) Contains(now time.Time) bool {
	return !now.Before(w.OpensAt) && now.Before(w.ClosesAt)
}

// InWindow reports whether begin_run is accepted at now for the occurrence
// at occurrenceAt: occurrenceAt <= now < occurrenceAt + windowMinutes.
func InWindow(occurrenceAt time.Time, windowMinutes int, now time.Time) bool {
	return Window(occurrenceAt, windowMinutes).Contains(now)
}

// OpenWindow returns the occurrence of s whose window begin_run opens at
// now: the latest occurrence at or before now, when its window still
// contains now. Windows are all as long, so when the latest's window has
// closed every earlier one has too; when windows overlap (windowMinutes
// longer than the rule's interval) the latest occurrence is the one offered,
// and the earlier ones are left to DueWindows. Whether the occurrence
// already has a run is the store's question (one run per occurrence, §11.2).
func OpenWindow(s Schedule, windowMinutes int, now time.Time) (recurrence.Occurrence, bool) {
	occ, ok := s.Latest(now)
	if !ok || !InWindow(occ.At, windowMinutes, now) {
		return recurrence.Occurrence{}, false
	}
	return occ, true
}

// DueWindows tells the tick which agent-task window to close at now (§8.6):
// Run is the latest occurrence after lastHandled whose window has closed
// (closes <= now) — recorded as missed unless begin_run made it a run — and
// Coalesced counts the earlier closed windows since lastHandled: after
// downtime only the latest window is recorded as missed, the earlier ones as
// one skipped row with counts.coalesced, as for any recurring job (§5.3).
// Next is the first occurrence whose window has not closed yet; the tick
// next needs to look at Next.At + windowMinutes. lastHandled is as for
// DueOccurrences.
func DueWindows(s Schedule, windowMinutes int, lastHandled, now time.Time) Due {
	// A window closed by now opened at or before now - windowMinutes.
	return DueOccurrences(s, lastHandled, now.Add(-time.Duration(windowMinutes)*time.Minute))
}

// RunEndsAt is when a run that began at start ends: the window's end or
// start + maxMinutes, whichever comes first (§11.2, §11.5). A run still open
// then is closed as failed (not_ended).
func RunEndsAt(start, windowCloses time.Time, maxMinutes int) time.Time {
	end := start.Add(time.Duration(maxMinutes) * time.Minute)
	if windowCloses.Before(end) {
		return windowCloses
	}
	return end
}

// CheckRunOpen refuses a call at or after the run's end with CodeOutsideRun:
// outside an open run the automation's key works for nothing but begin_run,
// get_mode and pause_automation (§11.2, implementation note 16).
func CheckRunOpen(now, endsAt time.Time) error {
	if !now.Before(endsAt) {
		return &Error{Code: CodeOutsideRun}
	}
	return nil
}
