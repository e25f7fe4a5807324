package recurrence

import (
	"math"
	"slices"
	"time"

	"studio/engine/localtime"
)

// Recurrence is a start wall-clock time in a zone plus an optional rule;
// without a rule (nil) it happens once, at Start.
//
// Expansion follows RFC 5545 for the subset, on the floating calendar: the
// rule picks wall-clock times from Start on (Start itself only if the rule
// matches it, as rrule-go and python-dateutil do); absent BYHOUR and
// BYMINUTE mean Start's hour and minute, an absent BYDAY with WEEKLY means
// Start's weekday, and MONTHLY without BYDAY or BYMONTHDAY means Start's day
// of the month. INTERVAL counts days, weeks (from Monday) or months from
// Start's own. In a MONTHLY rule each BYDAY entry adds days (BYDAY=3MO,TU is
// the third Monday and every Tuesday, as RFC 5545 says; rrule-go and
// python-dateutil intersect them instead), and BYDAY with BYMONTHDAY keeps
// the listed days that fall on those weekdays. Months without the day asked
// for (a 31st, a fifth Friday) are skipped.
//
// Each wall-clock time is then resolved in Zone by D2 (engine/localtime):
// a time in a spring-forward gap moves forward by the gap's length and is
// marked Adjusted = localtime.DSTGap (RFC 5545 §3.3.10 would drop it); a
// time that occurs twice happens once, at its first instant. When a moved
// time lands on an instant the rule has anyway (an hourly rule's 02:07 moved
// to 03:07), the two are one occurrence: the unmoved one is kept. COUNT
// counts occurrences as emitted, so after that merge; UNTIL is inclusive
// and compared with the resolved instant.
//
// Build one with New: the methods expect what it checks.
type Recurrence struct {
	Start localtime.Wall
	Zone  *time.Location
	Rule  *Rule // nil: once
}

// New checks and returns a recurrence: the start must be a real date and
// time, the zone present, the rule valid (Validate: at most 24 occurrences
// a day, at least an hour apart, §9.3), and the rule must have at least one
// occurrence from this start (ErrNeverOccurs: UNTIL before the start, or
// FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=31 from April).
func New(start localtime.Wall, zone *time.Location, rule *Rule) (Recurrence, error) {
	if zone == nil {
		return Recurrence{}, ErrMissingZone.with("", "")
	}
	if !validWall(start) {
		return Recurrence{}, ErrBadStart.with("", "")
	}
	rc := Recurrence{Start: start, Zone: zone}
	if rule == nil {
		return rc, nil
	}
	if err := rule.validate(); err != nil {
		return Recurrence{}, err
	}
	r := *rule // a copy, so the caller's later changes do not reach rc
	r.ByDay, r.ByMonthDay = slices.Clone(r.ByDay), slices.Clone(r.ByMonthDay)
	r.ByHour, r.ByMinute = slices.Clone(r.ByHour), slices.Clone(r.ByMinute)
	rc.Rule = &r
	if len(rc.Occurrences(1)) == 0 {
		return Recurrence{}, ErrNeverOccurs.with("", "")
	}
	return rc, nil
}

// Next returns the first occurrence strictly after after.
func (rc Recurrence) Next(after time.Time) (Occurrence, bool) {
	x := rc.expander()
	a := after.Unix() // occurrences are whole seconds: at > after ⇔ at > floor(after)
	s := x.stream(x.dayAt(a))
	for {
		it, ok := s.next()
		if !ok || it.at > x.until {
			return Occurrence{}, false
		}
		if it.at > a {
			if x.count > 0 && x.countBefore(it.at) >= x.count {
				return Occurrence{}, false
			}
			return it.occurrence(), true
		}
	}
}

// Between returns the occurrences with from <= At < to, in order.
func (rc Recurrence) Between(from, to time.Time) []Occurrence {
	x := rc.expander()
	lo, hi := ceilUnix(from), ceilUnix(to)
	var out []Occurrence
	if end := min(hi, x.until); end-lo > 7*86400 {
		// Long windows: size the result by counting whole days first (a
		// year of an hourly rule would otherwise copy itself a dozen
		// times), but not beyond COUNT or a sane size for an open window.
		n := x.cumDay(x.dayAt(end)+2) - x.cumDay(x.dayAt(lo)-1)
		if x.count > 0 {
			n = min(n, x.count)
		}
		out = make([]Occurrence, 0, max(0, min(n, 1<<16)))
	}
	rank := -1 // the index of the next occurrence, once COUNT needs it
	s := x.stream(x.dayAt(lo))
	for {
		it, ok := s.next()
		if !ok || it.at >= hi || it.at > x.until {
			return out
		}
		if it.at < lo {
			continue
		}
		if x.count > 0 {
			if rank < 0 {
				rank = x.countBefore(it.at)
			}
			if rank >= x.count {
				return out
			}
			rank++
		}
		out = append(out, it.occurrence())
	}
}

// Occurrences returns the first n occurrences (fewer if the rule ends).
func (rc Recurrence) Occurrences(n int) []Occurrence {
	x := rc.expander()
	var out []Occurrence
	s := x.stream(x.startDay)
	for len(out) < n && (x.count == 0 || len(out) < x.count) {
		it, ok := s.next()
		if !ok || it.at > x.until {
			break
		}
		out = append(out, it.occurrence())
	}
	return out
}

// Latest returns the last occurrence at or before atOrBefore. It does not
// step through the occurrences from the start: it counts them by whole
// periods (see cumDay) and finds the last one's period by bisection, so a
// year of downtime of an hourly rule costs a few dozen period counts.
func (rc Recurrence) Latest(atOrBefore time.Time) (Occurrence, bool) {
	x := rc.expander()
	t := min(atOrBefore.Unix(), x.until) // at <= atOrBefore ⇔ at <= floor(atOrBefore)
	n := x.countBefore(t + 1)
	if x.count > 0 {
		n = min(n, x.count)
	}
	if n == 0 {
		return Occurrence{}, false
	}
	// The answer resolved at or before t: on t's day, or (in an overlap
	// across midnight) the day after on the clock.
	return x.nth(n-1, x.dayAt(t)+1).occurrence(), true
}

// CountBetween returns how many occurrences have from <= At < to, as
// len(Between(from, to)) would, without listing them.
func (rc Recurrence) CountBetween(from, to time.Time) int {
	x := rc.expander()
	lo, hi := ceilUnix(from), ceilUnix(to)
	if x.until < math.MaxInt64 {
		hi = min(hi, x.until+1)
	}
	if lo >= hi {
		return 0
	}
	a, b := x.countBefore(lo), x.countBefore(hi)
	if x.count > 0 {
		a, b = min(a, x.count), min(b, x.count)
	}
	return b - a
}

func ceilUnix(t time.Time) int64 {
	if t.Nanosecond() > 0 {
		return t.Unix() + 1
	}
	return t.Unix()
}
