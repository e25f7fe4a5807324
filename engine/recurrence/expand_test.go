package recurrence

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine/localtime"
)

// show prints an occurrence on its zone's clock, with the offset, and the
// rule's own wall-clock time when it was moved out of a gap.
func show(o Occurrence, loc *time.Location) string {
	s := o.At.In(loc).Format("2006-01-02T15:04-07:00")
	if o.Adjusted != "" {
		s += " " + string(o.Adjusted) + " from " + o.Local.Clock()
	}
	return s
}

func showAll(os []Occurrence, loc *time.Location) []string {
	out := []string{}
	for _, o := range os {
		out = append(out, show(o, loc))
	}
	return out
}

func TestExpand(t *testing.T) {
	for _, c := range []struct {
		name, rule, start, zone string
		want                    []string // the first occurrences, as many as listed
	}{
		{"daily", "FREQ=DAILY", "2026-11-01T09:00", "Europe/Istanbul",
			[]string{"2026-11-01T09:00+03:00", "2026-11-02T09:00+03:00", "2026-11-03T09:00+03:00"}},
		{"weekdays from a Friday", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=7", "2026-11-06T09:07", "Europe/Istanbul",
			[]string{"2026-11-06T09:07+03:00", "2026-11-09T09:07+03:00", "2026-11-10T09:07+03:00", "2026-11-11T09:07+03:00", "2026-11-12T09:07+03:00", "2026-11-13T09:07+03:00", "2026-11-16T09:07+03:00"}},
		{"weekdays across New York's spring change", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "2026-03-06T09:07", "America/New_York",
			[]string{"2026-03-06T09:07-05:00", "2026-03-09T09:07-04:00"}},
		{"a start the rule does not match is not an occurrence", "FREQ=WEEKLY;BYDAY=MO", "2026-11-04T09:00", "Europe/Istanbul",
			[]string{"2026-11-09T09:00+03:00", "2026-11-16T09:00+03:00"}},
		{"a start's earlier times that day are skipped", "FREQ=DAILY;BYHOUR=8,12,16;BYMINUTE=0", "2026-11-02T12:00", "Europe/Istanbul",
			[]string{"2026-11-02T12:00+03:00", "2026-11-02T16:00+03:00", "2026-11-03T08:00+03:00"}},
		{"every 2 weeks on Tuesday and Thursday across Sydney's autumn change", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;BYHOUR=10;BYMINUTE=0", "2026-03-30T10:00", "Australia/Sydney",
			[]string{"2026-03-31T10:00+11:00", "2026-04-02T10:00+11:00", "2026-04-14T10:00+10:00", "2026-04-16T10:00+10:00", "2026-04-28T10:00+10:00"}},
		{"weeks count from the start's Monday", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU", "2026-11-08T09:00", "Europe/Istanbul",
			[]string{"2026-11-08T09:00+03:00", "2026-11-16T09:00+03:00", "2026-11-22T09:00+03:00", "2026-11-30T09:00+03:00"}},
		{"every 3 days, Mondays only", "FREQ=DAILY;INTERVAL=3;BYDAY=MO", "2026-11-02T09:00", "Europe/Istanbul",
			[]string{"2026-11-02T09:00+03:00", "2026-11-23T09:00+03:00", "2026-12-14T09:00+03:00"}},

		{"Berlin gap: 02:30 runs at 03:30", "FREQ=DAILY;BYHOUR=2;BYMINUTE=30", "2026-03-28T02:30", "Europe/Berlin",
			[]string{"2026-03-28T02:30+01:00", "2026-03-29T03:30+02:00 dst-gap from 02:30", "2026-03-30T02:30+02:00"}},
		{"Berlin overlap: 02:30 runs once, at the first", "FREQ=DAILY;BYHOUR=2;BYMINUTE=30", "2026-10-24T02:30", "Europe/Berlin",
			[]string{"2026-10-24T02:30+02:00", "2026-10-25T02:30+02:00", "2026-10-26T02:30+01:00"}},
		{"New York gap: moved forward, not back as time.Date does", "FREQ=DAILY", "2026-03-07T02:30", "America/New_York",
			[]string{"2026-03-07T02:30-05:00", "2026-03-08T03:30-04:00 dst-gap from 02:30", "2026-03-09T02:30-04:00"}},
		{"New York overlap", "FREQ=DAILY", "2026-10-31T01:30", "America/New_York",
			[]string{"2026-10-31T01:30-04:00", "2026-11-01T01:30-04:00", "2026-11-02T01:30-05:00"}},
		{"Sydney gap", "FREQ=DAILY", "2026-10-03T02:30", "Australia/Sydney",
			[]string{"2026-10-03T02:30+10:00", "2026-10-04T03:30+11:00 dst-gap from 02:30", "2026-10-05T02:30+11:00"}},
		{"Sydney overlap", "FREQ=DAILY", "2026-04-04T02:30", "Australia/Sydney",
			[]string{"2026-04-04T02:30+11:00", "2026-04-05T02:30+11:00", "2026-04-06T02:30+10:00"}},
		{"Lord Howe's half-hour gap", "FREQ=DAILY", "2026-10-03T02:15", "Australia/Lord_Howe",
			[]string{"2026-10-03T02:15+10:30", "2026-10-04T02:45+11:00 dst-gap from 02:15", "2026-10-05T02:15+11:00"}},
		{"Lord Howe's half-hour overlap", "FREQ=DAILY", "2026-04-04T01:45", "Australia/Lord_Howe",
			[]string{"2026-04-04T01:45+11:00", "2026-04-05T01:45+11:00", "2026-04-06T01:45+10:30"}},
		{"Apia skipped 30 December 2011: its 09:00 merges with the 31st's", "FREQ=DAILY", "2011-12-28T09:00", "Pacific/Apia",
			[]string{"2011-12-28T09:00-10:00", "2011-12-29T09:00-10:00", "2011-12-31T09:00+14:00", "2012-01-01T09:00+14:00"}},
		{"Apia: Friday 30 December 2011 moves to Saturday the 31st", "FREQ=WEEKLY;BYDAY=FR", "2011-12-23T09:00", "Pacific/Apia",
			[]string{"2011-12-23T09:00-10:00", "2011-12-31T09:00+14:00 dst-gap from 09:00", "2012-01-06T09:00+14:00"}},
		{"Apia: every other day, the 30th's moves onto the 31st, which the rule skips", "FREQ=DAILY;INTERVAL=2", "2011-12-28T09:00", "Pacific/Apia",
			[]string{"2011-12-28T09:00-10:00", "2011-12-31T09:00+14:00 dst-gap from 09:00", "2012-01-01T09:00+14:00", "2012-01-03T09:00+14:00"}},
		{"Apia: the 30th's midnight merges with the 31st's", "FREQ=DAILY", "2011-12-29T00:00", "Pacific/Apia",
			[]string{"2011-12-29T00:00-10:00", "2011-12-31T00:00+14:00", "2012-01-01T00:00+14:00"}},
		{"once in a gap", "", "2026-03-29T02:30", "Europe/Berlin",
			[]string{"2026-03-29T03:30+02:00 dst-gap from 02:30"}},
		{"once", "", "2026-11-02T09:00", "Europe/Istanbul",
			[]string{"2026-11-02T09:00+03:00"}},

		{"the 31st skips short months", "FREQ=MONTHLY;BYMONTHDAY=31", "2026-01-31T09:00", "Europe/Istanbul",
			[]string{"2026-01-31T09:00+03:00", "2026-03-31T09:00+03:00", "2026-05-31T09:00+03:00", "2026-07-31T09:00+03:00", "2026-08-31T09:00+03:00", "2026-10-31T09:00+03:00", "2026-12-31T09:00+03:00", "2027-01-31T09:00+03:00"}},
		{"monthly from the 31st by default", "FREQ=MONTHLY", "2026-08-31T09:00", "Europe/Istanbul",
			[]string{"2026-08-31T09:00+03:00", "2026-10-31T09:00+03:00", "2026-12-31T09:00+03:00"}},
		{"the last day of the month", "FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=18;BYMINUTE=0", "2027-12-01T18:00", "Europe/Berlin",
			[]string{"2027-12-31T18:00+01:00", "2028-01-31T18:00+01:00", "2028-02-29T18:00+01:00", "2028-03-31T18:00+02:00", "2028-04-30T18:00+02:00"}},
		{"the 1st and the last day", "FREQ=MONTHLY;BYMONTHDAY=1,-1", "2026-02-01T09:00", "Europe/Istanbul",
			[]string{"2026-02-01T09:00+03:00", "2026-02-28T09:00+03:00", "2026-03-01T09:00+03:00", "2026-03-31T09:00+03:00"}},
		{"the second Tuesday", "FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=7", "2026-11-01T09:07", "Europe/Istanbul",
			[]string{"2026-11-10T09:07+03:00", "2026-12-08T09:07+03:00", "2027-01-12T09:07+03:00", "2027-02-09T09:07+03:00", "2027-03-09T09:07+03:00"}},
		{"the last Friday", "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0", "2026-11-01T17:00", "America/New_York",
			[]string{"2026-11-27T17:00-05:00", "2026-12-25T17:00-05:00", "2027-01-29T17:00-05:00", "2027-02-26T17:00-05:00"}},
		{"the fifth Friday skips months with four", "FREQ=MONTHLY;BYDAY=5FR;BYHOUR=12;BYMINUTE=0", "2026-01-01T12:00", "Europe/Berlin",
			[]string{"2026-01-30T12:00+01:00", "2026-05-29T12:00+02:00", "2026-07-31T12:00+02:00", "2026-10-30T12:00+01:00", "2027-01-29T12:00+01:00"}},
		{"RFC 5545 expands each BYDAY entry: the third Monday and every Tuesday", "FREQ=MONTHLY;BYDAY=3MO,TU", "2026-11-01T09:00", "Europe/Istanbul",
			[]string{"2026-11-03T09:00+03:00", "2026-11-10T09:00+03:00", "2026-11-16T09:00+03:00", "2026-11-17T09:00+03:00", "2026-11-24T09:00+03:00", "2026-12-01T09:00+03:00"}},
		{"BYDAY limits BYMONTHDAY: Friday the 13th", "FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR", "2026-01-01T09:00", "Europe/Istanbul",
			[]string{"2026-02-13T09:00+03:00", "2026-03-13T09:00+03:00", "2026-11-13T09:00+03:00", "2027-08-13T09:00+03:00"}},
		{"every 3 months from the start's month", "FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=15", "2026-11-20T09:00", "Europe/Istanbul",
			[]string{"2027-02-15T09:00+03:00", "2027-05-15T09:00+03:00", "2027-08-15T09:00+03:00"}},

		{"COUNT", "FREQ=DAILY;COUNT=3", "2026-11-01T09:00", "Europe/Istanbul",
			[]string{"2026-11-01T09:00+03:00", "2026-11-02T09:00+03:00", "2026-11-03T09:00+03:00"}},
		{"UNTIL is inclusive", "FREQ=DAILY;UNTIL=20261103T060000Z", "2026-11-01T09:00", "Europe/Istanbul",
			[]string{"2026-11-01T09:00+03:00", "2026-11-02T09:00+03:00", "2026-11-03T09:00+03:00"}},
		{"UNTIL a second before", "FREQ=DAILY;UNTIL=20261103T055959Z", "2026-11-01T09:00", "Europe/Istanbul",
			[]string{"2026-11-01T09:00+03:00", "2026-11-02T09:00+03:00"}},
		{"UNTIL compares the moved instant", "FREQ=DAILY;BYHOUR=2;BYMINUTE=30;UNTIL=20260329T010000Z", "2026-03-28T02:30", "Europe/Berlin",
			[]string{"2026-03-28T02:30+01:00"}},
		{"COUNT counts a merged time once", "FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=0;COUNT=4", "2026-03-29T00:00", "Europe/Berlin",
			[]string{"2026-03-29T01:00+01:00", "2026-03-29T03:00+02:00", "2026-03-30T01:00+02:00", "2026-03-30T02:00+02:00"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := mustNew(t, c.rule, c.start, c.zone)
			got := showAll(rc.Occurrences(len(c.want)+5), rc.Zone)
			n := len(c.want)
			if strings.Contains(c.rule, "COUNT") || strings.Contains(c.rule, "UNTIL") || c.rule == "" {
				n = len(got) // the rule ends: all of it
			}
			if !slices.Equal(got[:min(n, len(got))], c.want) {
				t.Errorf("\n got  %q\n want %q", got, c.want)
			}
			agree(t, rc, rc.Occurrences(len(c.want)))
		})
	}
}

// agree checks Next, Latest and CountBetween against a list of
// consecutive occurrences from the first: around each one, and at the
// local midnight before it (where counting switches from whole days to
// expansion).
func agree(t *testing.T, rc Recurrence, os []Occurrence) {
	t.Helper()
	first := os[0].At
	for i, o := range os {
		w := localtime.WallOf(o.At, rc.Zone)
		midnight, _ := localtime.Resolve(localtime.Wall{Year: w.Year, Month: w.Month, Day: w.Day}, rc.Zone)
		for _, p := range []time.Time{o.At.Add(-time.Second), midnight} {
			if !p.Before(o.At) || i > 0 && !p.After(os[i-1].At) {
				continue
			}
			if got, ok := rc.Next(p); !ok || got != o {
				t.Errorf("Next(%s) = %s, want %s", p, show(got, rc.Zone), show(o, rc.Zone))
			}
			if n := rc.CountBetween(first, p); n != i {
				t.Errorf("CountBetween(first, %s) = %d, want %d", p, n, i)
			}
		}
		if got, ok := rc.Latest(o.At); !ok || got != o {
			t.Errorf("Latest(%s) = %s, want %s", o.At, show(got, rc.Zone), show(o, rc.Zone))
		}
		if n := rc.CountBetween(first, o.At.Add(time.Second)); n != i+1 {
			t.Errorf("CountBetween(first, %s+1s) = %d, want %d", o.At, n, i+1)
		}
	}
}

// TestResolver: the cached resolver gives localtime.Resolve's answer for
// wall-clock times around changes, asked in any order.
func TestResolver(t *testing.T) {
	for _, name := range []string{"Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "America/Havana", "Antarctica/Troll"} {
		loc := mustZone(t, name)
		var walls []int64
		for at := time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC); at.Year() < 2013; {
			end, _, _, ok := nextChange(at.In(loc))
			if !ok {
				break
			}
			w := wallMinutes(localtime.WallOf(end, loc))
			for m := w - 26*60; m < w+26*60; m += 13 {
				walls = append(walls, m)
			}
			at = end
		}
		r := resolver{loc: loc, lo: 1, hi: 0}
		for i, j := range rnd(len(walls)) {
			w := walls[j]
			want, adj := localtime.Resolve(wallAt(w), loc)
			at, eff, gap := r.resolve(w)
			if at != want.Unix() || gap != (adj == localtime.DSTGap) || eff != wallMinutes(localtime.WallOf(want, loc)) {
				t.Fatalf("%s, query %d: resolve(%s) = %d %v, want %s %s", name, i, wallAt(w), at, gap, want, adj)
			}
		}
	}
}

// rnd returns a fixed shuffle of 0..n-1.
func rnd(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	x := uint32(2026)
	for i := n - 1; i > 0; i-- {
		x = x*1664525 + 1013904223
		j := int(x % uint32(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// TestHourlyAcrossDST answers the hourly preset's DST question: on a
// spring-forward day in Berlin 02:07 does not exist and moves to 03:07,
// where the rule has an occurrence anyway, so the day has 23 occurrences
// (the 03:07 one unmoved, no duplicate); on the autumn day 02:07 happens
// once, at its first instant, so 24 occurrences fill 25 hours. With Lord
// Howe's half-hour change nothing merges: 02:15 moves to 02:45.
func TestHourlyAcrossDST(t *testing.T) {
	for _, c := range []struct {
		zone, day string
		minute    int
		count     int
		check     string // one occurrence that must be there
	}{
		{"Europe/Berlin", "2026-03-29", 7, 23, "2026-03-29T03:07+02:00"},
		{"Europe/Berlin", "2026-10-25", 7, 24, "2026-10-25T02:07+02:00"},
		{"America/New_York", "2026-03-08", 0, 23, "2026-03-08T03:00-04:00"},
		{"America/New_York", "2026-11-01", 0, 24, "2026-11-01T01:00-04:00"},
		{"Australia/Lord_Howe", "2026-10-04", 15, 24, "2026-10-04T02:45+11:00 dst-gap from 02:15"},
		{"Europe/Istanbul", "2026-03-29", 7, 24, "2026-03-29T02:07+03:00"},
	} {
		loc := mustZone(t, c.zone)
		day := mustWall(t, c.day+"T00:00")
		r, _ := PresetRule(PresetHourly, localtime.Wall{Year: 2026, Month: 1, Day: 1, Minute: c.minute})
		rc, err := New(localtime.Wall{Year: 2026, Month: 1, Day: 1, Minute: c.minute}, loc, r)
		if err != nil {
			t.Fatal(err)
		}
		from, _ := localtime.Resolve(day, loc)
		to, _ := localtime.Resolve(day.AddDays(1), loc)
		got := rc.Between(from, to)
		shown := showAll(got, loc)
		if len(got) != c.count || !slices.Contains(shown, c.check) {
			t.Errorf("%s %s: %d occurrences, want %d with %q:\n%q", c.zone, c.day, len(got), c.count, c.check, shown)
		}
		if n := rc.CountBetween(from, to); n != c.count {
			t.Errorf("%s %s: CountBetween %d", c.zone, c.day, n)
		}
	}
}

// TestWeekAcrossDST: "Mondays 09:07" stays 09:07, so the week across
// Berlin's autumn change is 169 hours and across the spring change 167.
func TestWeekAcrossDST(t *testing.T) {
	rc := mustNew(t, "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=7", "2026-03-23T09:07", "Europe/Berlin")
	for _, c := range []struct {
		monday string
		hours  float64
	}{{"2026-03-23T09:07", 167}, {"2026-10-19T09:07", 169}, {"2026-10-26T09:07", 168}} {
		at, _ := localtime.Resolve(mustWall(t, c.monday), rc.Zone)
		next, ok := rc.Next(at)
		if !ok || next.At.Sub(at).Hours() != c.hours || next.At.In(rc.Zone).Format("Mon 15:04") != "Mon 09:07" {
			t.Errorf("after %s: %s, %v hours, want %v", c.monday, show(next, rc.Zone), next.At.Sub(at).Hours(), c.hours)
		}
	}
}

// TestLatestAfterDowntime: after a year without running, the latest due
// occurrence of an hourly rule is found by counting, and agrees with the
// count of what was missed.
func TestLatestAfterDowntime(t *testing.T) {
	rc := mustNew(t, "FREQ=DAILY;BYHOUR="+allHours+";BYMINUTE=7", "2025-11-02T00:07", "Europe/Berlin")
	start, _ := localtime.Resolve(rc.Start, rc.Zone)
	now, _ := localtime.Resolve(mustWall(t, "2026-11-02T10:00"), rc.Zone)
	got, ok := rc.Latest(now)
	if !ok || show(got, rc.Zone) != "2026-11-02T09:07+01:00" {
		t.Errorf("Latest = %s", show(got, rc.Zone))
	}
	// 365 days of 24, less the spring day's merged 02:07, plus 00:07..09:07 today.
	if n := rc.CountBetween(start, now); n != 365*24-1+10 {
		t.Errorf("CountBetween = %d", n)
	}
	if got, ok := rc.Latest(start.Add(-time.Second)); ok {
		t.Errorf("Latest before the start = %s", show(got, rc.Zone))
	}
	if got, ok := rc.Latest(start); !ok || !got.At.Equal(start) {
		t.Errorf("Latest at the start = %s, %v", show(got, rc.Zone), ok)
	}

	// With COUNT the latest is the last one, found by its index.
	counted := mustNew(t, "FREQ=DAILY;BYHOUR="+allHours+";BYMINUTE=7;COUNT=100", "2025-11-02T00:07", "Europe/Berlin")
	got, ok = counted.Latest(now)
	if !ok || !got.At.Equal(start.Add(99*time.Hour)) {
		t.Errorf("Latest with COUNT=100 = %s", show(got, rc.Zone))
	}
	if _, ok := counted.Next(now); ok {
		t.Error("Next after the last counted occurrence")
	}
	if n := counted.CountBetween(start, now); n != 100 {
		t.Errorf("CountBetween with COUNT=100 = %d", n)
	}
}

// TestFarWindows: windows reaching far beyond a rule's end stay cheap.
func TestFarWindows(t *testing.T) {
	rc := mustNew(t, "FREQ=DAILY;BYHOUR="+allHours+";BYMINUTE=7;COUNT=50", "2026-11-02T00:07", "Europe/Berlin")
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	far := time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := rc.Between(from, far); len(got) != 50 || cap(got) > 1<<16 {
		t.Errorf("Between to 2400: %d occurrences, capacity %d", len(got), cap(got))
	}
	if n := rc.CountBetween(from, far); n != 50 {
		t.Errorf("CountBetween to 2400 = %d", n)
	}
	if _, ok := rc.Next(far); ok {
		t.Error("Next after the end")
	}
}

// TestPastTheTable: past the tzdata table Go's ZoneBounds stalls at the
// end of leap years (Berlin 2040-12-31); the zone walks step over it, and
// expansion across it finishes. (localtime.Resolve itself loops there; the
// resolver only calls it near real changes of offset.)
func TestPastTheTable(t *testing.T) {
	loc := mustZone(t, "Europe/Berlin")
	var changes []string
	for at := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC); ; {
		end, before, after, ok := nextChange(at.In(loc))
		if !ok || end.Year() > 2041 {
			break
		}
		changes = append(changes, fmt.Sprintf("%s %d>%d", end.UTC().Format("2006-01-02T15:04Z"), before/3600, after/3600))
		at = end
	}
	want := []string{"2040-03-25T01:00Z 1>2", "2040-10-28T01:00Z 2>1", "2041-03-31T01:00Z 1>2", "2041-10-27T01:00Z 2>1"}
	if !slices.Equal(changes, want) {
		t.Errorf("changes %q, want %q", changes, want)
	}
	if start, before, ok := lastChange(time.Date(2041, 1, 1, 12, 0, 0, 0, loc)); !ok || !start.Equal(time.Date(2040, 10, 28, 1, 0, 0, 0, time.UTC)) || before != 7200 {
		t.Errorf("lastChange = %s %d %v", start, before, ok)
	}

	done := make(chan int, 1)
	go func() {
		rc := mustNew(t, "FREQ=DAILY;BYHOUR="+allHours+";BYMINUTE=7", "2040-12-29T00:07", "Europe/Berlin")
		from := time.Date(2040, 12, 29, 0, 0, 0, 0, time.UTC)
		done <- len(rc.Between(from, from.Add(96*time.Hour))) + rc.CountBetween(from, from.Add(96*time.Hour))
	}()
	select {
	case n := <-done:
		if n != 2*96 { // one at :07 past each of the 96 hours (Between and CountBetween)
			t.Errorf("across 2040-12-31: %d", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("expansion across 2040-12-31 does not finish")
	}
}

func TestOnce(t *testing.T) {
	rc := mustNew(t, "", "2026-11-02T09:00", "Europe/Istanbul")
	at := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	if o, ok := rc.Next(at.Add(-time.Nanosecond)); !ok || !o.At.Equal(at) || o.Local != rc.Start {
		t.Errorf("Next = %v %v", o, ok)
	}
	if _, ok := rc.Next(at); ok {
		t.Error("Next is strictly after")
	}
	if o, ok := rc.Latest(at); !ok || !o.At.Equal(at) {
		t.Errorf("Latest = %v %v", o, ok)
	}
	if n := rc.CountBetween(at, at.Add(time.Second)); n != 1 {
		t.Errorf("CountBetween [at, at+1s) = %d", n)
	}
	if n := rc.CountBetween(at.Add(-time.Hour), at); n != 0 {
		t.Errorf("CountBetween [at-1h, at) = %d", n)
	}
	if got := rc.Between(at, at); len(got) != 0 {
		t.Errorf("an empty window: %v", got)
	}
}

func TestNew(t *testing.T) {
	ist := mustZone(t, "Europe/Istanbul")
	start := mustWall(t, "2026-04-15T09:00")
	for _, c := range []struct {
		start localtime.Wall
		zone  *time.Location
		rule  *Rule
		want  *Error
	}{
		{start, nil, nil, ErrMissingZone},
		{localtime.Wall{Year: 2026, Month: 2, Day: 30}, ist, nil, ErrBadStart},
		{localtime.Wall{Year: 2026, Month: 1, Day: 1, Hour: 24}, ist, nil, ErrBadStart},
		{start, ist, &Rule{Freq: Daily, Interval: 1, ByMinute: []int{0, 30}}, ErrTooFrequent},
		{start, ist, &Rule{Freq: Daily, Interval: 1, ByHour: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, ByMinute: []int{0, 59}}, ErrManyPerDay},
		{start, ist, mustParse(t, "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=31"), ErrNeverOccurs}, // Aprils have 30 days
		{start, ist, mustParse(t, "FREQ=DAILY;INTERVAL=7;BYDAY=TU"), ErrNeverOccurs},         // every 7th day is a Wednesday
		{start, ist, mustParse(t, "FREQ=DAILY;UNTIL=20260101T000000Z"), ErrNeverOccurs},
	} {
		if _, err := New(c.start, c.zone, c.rule); !errors.Is(err, c.want) {
			t.Errorf("New(%v, %v, %v) = %v, want %s", c.start, c.zone, c.rule, err, c.want.Code)
		}
	}
	// New keeps its own copy of the rule.
	r := mustParse(t, "FREQ=DAILY")
	rc, err := New(start, ist, r)
	if err != nil {
		t.Fatal(err)
	}
	r.Interval = 5
	if rc.Rule.Interval != 1 {
		t.Error("New shares the caller's rule")
	}
}
