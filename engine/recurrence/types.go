// Package recurrence is the RRULE subset of RFC-0008 D3 (§9.2–9.3, §9.5):
// parse, validate and format rules, presets, expansion in floating local
// time with each occurrence resolved by engine/localtime (D2: a time in a
// spring-forward gap moves forward and is marked dst-gap; a repeated time
// runs once, at its first instant), and sentences as data. No I/O, no clock.
package recurrence

import (
	"time"

	"studio/engine/localtime"
)

// Freq is a rule's frequency. Only these three exist in the subset.
type Freq string

const (
	Daily   Freq = "DAILY"
	Weekly  Freq = "WEEKLY"
	Monthly Freq = "MONTHLY"
)

// WeekdayNum is one BYDAY entry: a weekday and, with MONTHLY only, an
// ordinal (1..5 from the start of the month, -1..-5 from its end; 0 = every).
type WeekdayNum struct {
	N       int
	Weekday time.Weekday
}

// Rule is a parsed rule. Parse returns lists sorted (BYDAY from Monday)
// and without duplicates, and Until as an instant in UTC. An empty list is
// an absent part, which the recurrence's start fills in (see Recurrence).
type Rule struct {
	Freq       Freq
	Interval   int // 1..999; Parse sets 1 when INTERVAL is absent
	ByDay      []WeekdayNum
	ByMonthDay []int // 1..31 and -1
	ByHour     []int
	ByMinute   []int // at most four
	Count      int   // 0: unbounded (or Until)
	Until      *time.Time
}

// Occurrence is one planned time of a recurrence.
type Occurrence struct {
	At       time.Time            // the instant, in UTC
	Local    localtime.Wall       // the wall-clock time the rule meant
	Adjusted localtime.Adjustment // localtime.DSTGap when moved out of a gap
}
