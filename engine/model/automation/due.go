package automation

import (
	"time"

	"studio/engine/recurrence"
)

// Schedule is what this package needs of an automation's recurrence;
// engine/recurrence's rules satisfy it. Every method must be cheap however
// far apart its arguments are: DueOccurrences after a year of downtime of an
// hourly rule calls each once.
type Schedule interface {
	// Next returns the first occurrence strictly after after.
	Next(after time.Time) (recurrence.Occurrence, bool)
	// Latest returns the last occurrence with At <= atOrBefore.
	Latest(atOrBefore time.Time) (recurrence.Occurrence, bool)
	// CountBetween counts the occurrences with from <= At < to.
	CountBetween(from, to time.Time) int
}

// Due is what a tick should do with a recurring job (§8.6, owner decision 2).
type Due struct {
	// Run is the occurrence to run: the latest one at or before now that is
	// after lastHandled. HasRun is false when there is none.
	Run    recurrence.Occurrence
	HasRun bool
	// Coalesced counts the occurrences after lastHandled and before Run:
	// missed, they are recorded as one skipped run with
	// counts.coalesced = Coalesced (§5.3), and none of them runs. Zero when
	// nothing was missed (record no skipped run then).
	Coalesced int
	// Next is the first occurrence after now: the automation's nextRunAt.
	// HasNext is false when the rule has ended (COUNT or UNTIL reached).
	Next    recurrence.Occurrence
	HasNext bool
}

// DueOccurrences tells the tick which occurrence of s to run at now.
// lastHandled is the occurrence already run or recorded; for an automation
// that has handled none, pass the time it was created (or resumed), so the
// occurrences before it are not counted as missed. A zero lastHandled counts
// every occurrence since the rule's start.
//
// Only the latest missed occurrence runs; the earlier ones become one
// skipped run (§5.3, §8.6). The cost is three Schedule calls whatever the
// downtime: nothing here loops once per occurrence.
func DueOccurrences(s Schedule, lastHandled, now time.Time) Due {
	var d Due
	if latest, ok := s.Latest(now); ok && latest.At.After(lastHandled) {
		d.Run, d.HasRun = latest, true
		// CountBetween's from is inclusive; the handled occurrence is not missed.
		d.Coalesced = s.CountBetween(lastHandled.Add(time.Nanosecond), latest.At)
	}
	d.Next, d.HasNext = s.Next(now)
	return d
}
