package recurrence

import "time"

// Go's ZoneBounds reports, past the end of the tzdata table (2037 for most
// zones), a made-up boundary at every year end where the offset does not
// change, and in leap years that boundary's end comes before the time asked
// about (Berlin, 2040-12-31 01:00 gives an end of 2040-12-31 01:00 for
// every time up to the next day), so a walk that steps to end stalls. These
// helpers walk only real changes of offset and step over such boundaries.

// maxBoundaries bounds the boundaries a helper steps over: a year has a few
// made-up ones and a stalled one takes a day of hour steps.
const maxBoundaries = 100

// nextChange returns the first instant after t at which loc's offset
// changes, with the offsets before and after it, or ok = false if there is
// none.
func nextChange(t time.Time) (at time.Time, before, after int, ok bool) {
	_, before = t.Zone()
	for range maxBoundaries {
		_, end := t.ZoneBounds()
		switch {
		case end.IsZero():
			return time.Time{}, before, before, false
		case !end.After(t):
			t = t.Add(time.Hour) // a stalled made-up boundary, which changes nothing
			continue
		}
		if _, after = end.Zone(); after != before {
			return end, before, after, true
		}
		t = end
	}
	return time.Time{}, before, before, false
}

// lastChange returns the latest instant at or before t at which loc's
// offset changed to t's, with the offset before it, or ok = false if there
// is none.
func lastChange(t time.Time) (at time.Time, before int, ok bool) {
	_, off := t.Zone()
	for range maxBoundaries {
		start, _ := t.ZoneBounds()
		if start.IsZero() || start.After(t) {
			return time.Time{}, off, false
		}
		if _, before = start.Add(-time.Second).Zone(); before != off {
			return start, before, true
		}
		t = start.Add(-time.Second)
	}
	return time.Time{}, off, false
}
