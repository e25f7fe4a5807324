// Package localtime resolves wall-clock times in IANA zones by the RFC's
// rules "D2": a wall-clock time that does not exist (a spring-forward gap)
// runs at the next valid time, shifted forward by the gap's length, and a
// wall-clock time that occurs twice (an autumn overlap) resolves to its first
// instant.
//
// It does not use time.Date for this, because time.Date's choice inside gaps
// and overlaps is unspecified and in practice differs between zones east and
// west of UTC. It never reads the clock.
package localtime

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	// Embedded tzdata, so a binary still works on a host without zoneinfo.
	_ "time/tzdata"
)

// Wall is a wall-clock time to the minute, without a zone.
type Wall struct {
	Year   int
	Month  time.Month
	Day    int
	Hour   int
	Minute int
}

// String returns the wall time as "2026-11-02T09:00", the form ParseWall reads.
func (w Wall) String() string { return w.Date() + "T" + w.Clock() }

// Date returns the date part, "2026-11-02", as an <input type=date> shows it.
func (w Wall) Date() string { return fmt.Sprintf("%04d-%02d-%02d", w.Year, int(w.Month), w.Day) }

// Clock returns the time of day, "09:00", as an <input type=time> shows it.
func (w Wall) Clock() string { return fmt.Sprintf("%02d:%02d", w.Hour, w.Minute) }

// WallOf returns the wall clock of t in loc. Seconds are dropped, not rounded,
// so the instant lies within the minute it names.
func WallOf(t time.Time, loc *time.Location) Wall {
	t = t.In(loc)
	y, m, d := t.Date()
	return Wall{y, m, d, t.Hour(), t.Minute()}
}

// Before reports whether w is earlier than o on the calendar.
func (w Wall) Before(o Wall) bool { return w.naive() < o.naive() }

// AddDays adds n calendar days, keeping the time of day. It is plain calendar
// arithmetic with no zone, so it never lands in or skips over a DST change.
func (w Wall) AddDays(n int) Wall {
	return WallOf(time.Date(w.Year, w.Month, w.Day+n, w.Hour, w.Minute, 0, 0, time.UTC), time.UTC)
}

// naive returns the Unix seconds of w read as if it were UTC.
func (w Wall) naive() int64 {
	return time.Date(w.Year, w.Month, w.Day, w.Hour, w.Minute, 0, 0, time.UTC).Unix()
}

// Adjustment says how Resolve had to bend a wall-clock time.
type Adjustment string

const (
	// Exact means the wall-clock time occurs exactly once.
	Exact Adjustment = ""
	// DSTGap means the wall-clock time does not exist; the result is shifted
	// forward by the gap's length.
	DSTGap Adjustment = "dst-gap"
	// Overlap means the wall-clock time occurs twice; the result is the first.
	Overlap Adjustment = "overlap"
)

// window bounds how far from the naive reading a matching instant or a
// relevant transition can be. UTC offsets in tzdata stay well below a day
// (the largest, old local mean times, are about 16 hours), so two days is safe.
const window = 48 * 3600

// Resolve returns the instant, in loc, at which wall-clock time w happens in
// loc, by rules D2, and how it had to be adjusted. It panics if loc is nil,
// as time.Date does.
//
// It walks the zone's periods of constant offset (via ZoneBounds) around w.
// An instant with wall clock w must be naive(w) - offset for the offset in
// force at that instant, so each period offers one candidate; periods are
// visited in time order, so the first match is the first occurrence.
func Resolve(w Wall, loc *time.Location) (time.Time, Adjustment) {
	naive := w.naive()
	var found []int64 // distinct instants whose wall clock is w, in time order
	gap, inGap := int64(0), false

	t := time.Unix(naive-window, 0).In(loc)
	for {
		_, off := t.Zone()
		_, end := t.ZoneBounds()
		// A candidate counts only if it really shows w: past the end of the
		// zone's table (2037 for most zones) Go's ZoneBounds can report
		// boundaries that do not contain t, so they are not trusted for this.
		if cand := naive - int64(off); WallOf(time.Unix(cand, 0), loc) == w &&
			(len(found) == 0 || found[len(found)-1] != cand) {
			found = append(found, cand)
		}
		if end.IsZero() || end.Unix() > naive+window {
			break
		}
		// The clock jumps at end from end+off to end+next. If w falls in
		// between, it does not exist in this jump and runs off the old offset:
		// the gap's end plus how far w is past the gap's start.
		_, next := end.Zone()
		if e := end.Unix(); !inGap && e+int64(off) <= naive && naive < e+int64(next) {
			gap, inGap = naive-int64(off), true
		}
		if end.After(t) {
			t = end
		} else {
			// In leap years after the table's end, Go reports an end at or
			// before t: step over it instead of looping on it.
			t = t.Add(time.Hour)
		}
	}
	switch {
	case len(found) == 1:
		return time.Unix(found[0], 0).In(loc), Exact
	case len(found) > 1:
		return time.Unix(found[0], 0).In(loc), Overlap
	case inGap:
		return time.Unix(gap, 0).In(loc), DSTGap
	}
	// Unreachable with consistent zone data; fall back to the old offset rule.
	_, off := time.Unix(naive-window, 0).In(loc).Zone()
	return time.Unix(naive-int64(off), 0).In(loc), DSTGap
}

// Recompute is the never-early rule (RFC §9.1): before a release with a
// wall-clock time runs, its instant is recomputed with the current tzdata. If
// the recomputed instant is later than stored, Recompute returns it and
// moved=true; otherwise it returns stored unchanged, so a tzdata change can
// delay a release but never run it earlier than promised.
func Recompute(stored time.Time, w Wall, loc *time.Location) (at time.Time, moved bool) {
	at, _ = Resolve(w, loc)
	if at.After(stored) {
		return at, true
	}
	return stored, false
}

// zoneName is the RFC's pattern for zone names. It keeps out "Local", bare
// offsets, area-less names and paths before time.LoadLocation sees them.
var zoneName = regexp.MustCompile(`^(?:UTC|[A-Z][A-Za-z_-]+(?:/[A-Za-z0-9_+-]+){1,2})$`)

// LoadZone validates an IANA zone name and loads it. Errors have Code
// CodeBadZone.
//
// Note that time.LoadLocation prefers the host's zoneinfo files to the
// embedded copy, so hosts with different tzdata may resolve differently;
// Recompute exists for exactly that kind of drift.
func LoadZone(name string) (*time.Location, error) {
	if !zoneName.MatchString(name) {
		return nil, &ParseError{Code: CodeBadZone, Input: name, Reason: "not an IANA zone name"}
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, &ParseError{Code: CodeBadZone, Input: name, Reason: "unknown zone"}
	}
	return loc, nil
}

// zones caches loaded zones by name: time.LoadLocation reads and parses
// tzdata on every call, and a calendar reads one zone per automation.
var zones sync.Map

// Zone is LoadZone, once per process for each name.
func Zone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := LoadZone(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}

// InstantLayout is the storage format for instants: UTC with milliseconds,
// always "Z".
const InstantLayout = "2006-01-02T15:04:05.000Z"

// FormatInstant formats t in InstantLayout. Sub-millisecond digits are
// truncated, not rounded, so the stored instant is never later than t.
func FormatInstant(t time.Time) string { return t.UTC().Format(InstantLayout) }

// ParseInstant parses an instant in InstantLayout and returns it in UTC. It
// also accepts, leniently, RFC 3339 with any offset or fraction.
func ParseInstant(s string) (time.Time, error) {
	if t, err := time.Parse(InstantLayout, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, &ParseError{Code: CodeBadInstant, Input: s, Reason: "want " + InstantLayout}
}

// City returns a zone name's last segment with underscores as spaces, for
// display: "America/Argentina/Buenos_Aires" gives "Buenos Aires".
func City(name string) string {
	return strings.ReplaceAll(name[strings.LastIndexByte(name, '/')+1:], "_", " ")
}

// OffsetLabel returns the UTC offset of loc at t for display: "UTC+3",
// "UTC+5:30", "UTC-3", or "UTC" for zero. Seconds appear only for the odd
// historical offset that has them.
func OffsetLabel(t time.Time, loc *time.Location) string {
	_, off := t.In(loc).Zone()
	if off == 0 {
		return "UTC"
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	h, m, s := off/3600, off/60%60, off%60
	switch {
	case s != 0:
		return fmt.Sprintf("UTC%s%d:%02d:%02d", sign, h, m, s)
	case m != 0:
		return fmt.Sprintf("UTC%s%d:%02d", sign, h, m)
	}
	return fmt.Sprintf("UTC%s%d", sign, h)
}
