package recurrence

import (
	"testing"
	"time"

	"github.com/teambition/rrule-go"

	"studio/engine/localtime"
)

// The hot paths of the scheduler, each next to the same operation on
// rrule-go so a ratio can be read from one run (go test -bench . -run ^$).
// Rules start on 1 January 2026 in Berlin; "now" is 2 November 2026, ten
// months in, as for an automation created early in the year. NearStart
// variants ask one day after the start, where rrule-go, which always
// iterates from DTSTART, is at its best.

const (
	benchHourly  = "FREQ=DAILY;BYHOUR=" + allHours + ";BYMINUTE=7"
	benchMonthly = "FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=7"
)

type benchCase struct {
	rc    Recurrence
	rr    *rrule.RRule
	start time.Time
	now   time.Time
}

func newBench(b *testing.B, rule, start string) benchCase {
	rc := mustNew(b, rule, start, "Europe/Berlin")
	at, _ := localtime.Resolve(rc.Start, rc.Zone)
	rr, err := rrule.NewRRule(rruleOption(*rc.Rule, at, true))
	if err != nil {
		b.Fatal(err)
	}
	now, _ := localtime.Resolve(mustWall(b, "2026-11-02T09:30"), rc.Zone)
	return benchCase{rc, rr, at, now}
}

func BenchmarkNextHourly(b *testing.B) {
	c := newBench(b, benchHourly, "2026-01-01T00:07")
	for b.Loop() {
		c.rc.Next(c.now)
	}
}

func BenchmarkRRuleGoNextHourly(b *testing.B) {
	c := newBench(b, benchHourly, "2026-01-01T00:07")
	for b.Loop() {
		c.rr.After(c.now, false)
	}
}

func BenchmarkNextHourlyNearStart(b *testing.B) {
	c := newBench(b, benchHourly, "2026-01-01T00:07")
	for b.Loop() {
		c.rc.Next(c.start.Add(24 * time.Hour))
	}
}

func BenchmarkRRuleGoNextHourlyNearStart(b *testing.B) {
	c := newBench(b, benchHourly, "2026-01-01T00:07")
	for b.Loop() {
		c.rr.After(c.start.Add(24*time.Hour), false)
	}
}

func BenchmarkNextMonthly2TU(b *testing.B) {
	c := newBench(b, benchMonthly, "2026-01-01T09:07")
	for b.Loop() {
		c.rc.Next(c.now)
	}
}

func BenchmarkRRuleGoNextMonthly2TU(b *testing.B) {
	c := newBench(b, benchMonthly, "2026-01-01T09:07")
	for b.Loop() {
		c.rr.After(c.now, false)
	}
}

func BenchmarkNextMonthly2TUNearStart(b *testing.B) {
	c := newBench(b, benchMonthly, "2026-01-01T09:07")
	for b.Loop() {
		c.rc.Next(c.start.Add(24 * time.Hour))
	}
}

func BenchmarkRRuleGoNextMonthly2TUNearStart(b *testing.B) {
	c := newBench(b, benchMonthly, "2026-01-01T09:07")
	for b.Loop() {
		c.rr.After(c.start.Add(24*time.Hour), false)
	}
}

// One year of an hourly rule: 8759 occurrences (the spring day has 23).
func BenchmarkYearHourly(b *testing.B) {
	c := newBench(b, benchHourly, "2026-01-01T00:07")
	end := c.start.AddDate(1, 0, 0)
	for b.Loop() {
		if n := len(c.rc.Between(c.start, end)); n != 8759 {
			b.Fatal(n)
		}
	}
}

func BenchmarkRRuleGoYearHourly(b *testing.B) {
	c := newBench(b, benchHourly, "2026-01-01T00:07")
	end := c.start.AddDate(1, 0, 0)
	for b.Loop() {
		c.rr.Between(c.start, end, false)
	}
}

// The latest due occurrence after a year of downtime: the question the
// scheduler asks when it comes back.
func BenchmarkLatestAfterYearHourly(b *testing.B) {
	c := newBench(b, benchHourly, "2026-01-01T00:07")
	now := c.start.AddDate(1, 0, 0).Add(-time.Minute)
	for b.Loop() {
		c.rc.Latest(now)
	}
}

func BenchmarkRRuleGoLatestAfterYearHourly(b *testing.B) {
	c := newBench(b, benchHourly, "2026-01-01T00:07")
	now := c.start.AddDate(1, 0, 0).Add(-time.Minute)
	for b.Loop() {
		c.rr.Before(now, true)
	}
}

// How many were missed in that year, for the coalesced skipped run.
func BenchmarkCountBetweenYearHourly(b *testing.B) {
	c := newBench(b, benchHourly, "2026-01-01T00:07")
	now := c.start.AddDate(1, 0, 0)
	for b.Loop() {
		c.rc.CountBetween(c.start, now)
	}
}
