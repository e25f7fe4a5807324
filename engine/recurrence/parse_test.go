package recurrence

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const allHours = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23"

func TestParseCanonical(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"FREQ=DAILY", "FREQ=DAILY"},
		{"FREQ=WEEKLY", "FREQ=WEEKLY"},
		{"FREQ=MONTHLY", "FREQ=MONTHLY"},
		// Case-insensitive, as RFC 5545; canonical is upper case.
		{"freq=daily;byhour=9;byminute=7", "FREQ=DAILY;BYHOUR=9;BYMINUTE=7"},
		{"Freq=Monthly;ByDay=2tu", "FREQ=MONTHLY;BYDAY=2TU"},
		{"freq=daily;until=20261231t235959z", "FREQ=DAILY;UNTIL=20261231T235959Z"},
		// Parts in any order; canonical order FREQ, INTERVAL, BYDAY, BYMONTHDAY, BYHOUR, BYMINUTE, COUNT, UNTIL.
		{"BYMINUTE=7;BYHOUR=9;BYDAY=2TU;FREQ=MONTHLY", "FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=7"},
		{"COUNT=5;INTERVAL=3;FREQ=DAILY", "FREQ=DAILY;INTERVAL=3;COUNT=5"},
		// INTERVAL=1 is the default and left out; WKST=MO is the only week start and dropped.
		{"FREQ=DAILY;INTERVAL=1", "FREQ=DAILY"},
		{"FREQ=WEEKLY;WKST=MO;BYDAY=TU", "FREQ=WEEKLY;BYDAY=TU"},
		{"FREQ=DAILY;INTERVAL=999", "FREQ=DAILY;INTERVAL=999"},
		// Lists sorted (weekdays from Monday), duplicates dropped, leading zeros and + signs dropped.
		{"FREQ=WEEKLY;BYDAY=FR,MO,WE,MO", "FREQ=WEEKLY;BYDAY=MO,WE,FR"},
		{"FREQ=WEEKLY;BYDAY=SU,MO", "FREQ=WEEKLY;BYDAY=MO,SU"},
		{"FREQ=DAILY;BYHOUR=18,09,9;BYMINUTE=05", "FREQ=DAILY;BYHOUR=9,18;BYMINUTE=5"},
		{"FREQ=MONTHLY;BYDAY=-1FR,+2TU", "FREQ=MONTHLY;BYDAY=2TU,-1FR"},
		{"FREQ=MONTHLY;BYDAY=-1MO,1MO,MO", "FREQ=MONTHLY;BYDAY=-1MO,MO,1MO"},
		{"FREQ=MONTHLY;BYMONTHDAY=15,-1,1", "FREQ=MONTHLY;BYMONTHDAY=-1,1,15"},
		{"FREQ=MONTHLY;BYDAY=5FR", "FREQ=MONTHLY;BYDAY=5FR"},
		{"FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR", "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13"},
		{"FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"},
		{"FREQ=DAILY;BYHOUR=" + allHours + ";BYMINUTE=7", "FREQ=DAILY;BYHOUR=" + allHours + ";BYMINUTE=7"},
		{"FREQ=DAILY;COUNT=1000000", "FREQ=DAILY;COUNT=1000000"},
		{"FREQ=DAILY;BYHOUR=0,23;BYMINUTE=30", "FREQ=DAILY;BYHOUR=0,23;BYMINUTE=30"}, // 23:30 to 00:30 is an hour
		{"FREQ=DAILY;BYMINUTE=0,0,0", "FREQ=DAILY;BYMINUTE=0"},
	} {
		r, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := Format(r); got != c.want {
			t.Errorf("Format(Parse(%q)) = %q, want %q", c.in, got, c.want)
		}
		again, err := Parse(r.String())
		if err != nil || !equalRules(again, r) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", r.String(), again, err, r)
		}
	}
}

func TestParseValues(t *testing.T) {
	r := mustParse(t, "FREQ=MONTHLY;INTERVAL=2;BYDAY=2TU,-1FR;BYHOUR=9,18;BYMINUTE=7;COUNT=5")
	want := Rule{Freq: Monthly, Interval: 2, ByDay: []WeekdayNum{{2, time.Tuesday}, {-1, time.Friday}}, ByHour: []int{9, 18}, ByMinute: []int{7}, Count: 5}
	if !equalRules(*r, want) {
		t.Errorf("got %+v, want %+v", *r, want)
	}
	u := mustParse(t, "FREQ=DAILY;UNTIL=20261231T235959Z").Until
	if u == nil || !u.Equal(time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)) || u.Location() != time.UTC {
		t.Errorf("UNTIL = %v", u)
	}
}

// TestParseLength: 300 characters are allowed, 301 are not, and the length
// is checked before anything else.
func TestParseLength(t *testing.T) {
	rule := "FREQ=DAILY;BYHOUR=09" + strings.Repeat(",9", 140) // duplicates are allowed
	if len(rule) != 300 {
		t.Fatal(len(rule))
	}
	if r, err := Parse(rule); err != nil || r.String() != "FREQ=DAILY;BYHOUR=9" {
		t.Errorf("a 300-character rule: %v, %v", r, err)
	}
	long := strings.Replace(rule, "09", "009", 1)
	if _, err := Parse(long); !errors.Is(err, ErrTooLong) {
		t.Errorf("a 301-character rule: %v", err)
	}
	if _, err := Parse("RRULE:" + long); !errors.Is(err, ErrTooLong) {
		t.Errorf("the length is checked first: %v", err)
	}
}

// TestParseRefusals: every refusal has its own stable code and names the
// part at fault.
func TestParseRefusals(t *testing.T) {
	for _, c := range []struct {
		in   string
		want *Error
		part string
	}{
		{"RRULE:FREQ=DAILY", ErrRRulePrefix, ""},
		{"rrule:FREQ=DAILY", ErrRRulePrefix, ""},
		{"FREQ=DAILY;;BYHOUR=9", ErrBadSyntax, ""},
		{"FREQ=DAILY;", ErrBadSyntax, ""},
		{"FREQ", ErrBadSyntax, ""},
		{"=DAILY", ErrBadSyntax, ""},
		{"FREQ=DAILY;DTSTART=20260101T000000Z", ErrUnknownPart, "DTSTART"},
		{"FREQ=DAILY;X-NAME=1", ErrUnknownPart, "X-NAME"},
		{"FREQ=DAILY;FREQ=WEEKLY", ErrDuplicate, "FREQ"},
		{"FREQ=DAILY;BYHOUR=9;byhour=10", ErrDuplicate, "BYHOUR"},
		{"", ErrMissingFreq, ""},
		{"BYHOUR=9;BYMINUTE=0", ErrMissingFreq, "FREQ"},
		{"FREQ=SOMETIMES", ErrBadFreq, "FREQ"},
		{"FREQ=", ErrBadFreq, "FREQ"},
		{"FREQ=SECONDLY", ErrFreq, "FREQ"},
		{"FREQ=MINUTELY", ErrFreq, "FREQ"},
		{"FREQ=HOURLY", ErrFreq, "FREQ"},
		{"FREQ=YEARLY", ErrFreq, "FREQ"},
		{"FREQ=DAILY;BYSECOND=0", ErrBySecond, "BYSECOND"},
		{"FREQ=DAILY;BYWEEKNO=1", ErrByWeekNo, "BYWEEKNO"},
		{"FREQ=DAILY;BYYEARDAY=1", ErrByYearDay, "BYYEARDAY"},
		{"FREQ=MONTHLY;BYDAY=TU;BYSETPOS=2", ErrBySetPos, "BYSETPOS"},
		{"FREQ=MONTHLY;BYMONTH=1", ErrByMonth, "BYMONTH"},
		{"FREQ=DAILY;RDATE=20260101T090000Z", ErrRDate, "RDATE"},
		{"FREQ=DAILY;EXDATE=20260101T090000Z", ErrExDate, "EXDATE"},
		{"FREQ=DAILY;BYWEEKNO=1;BYWEEKNO=2", ErrByWeekNo, "BYWEEKNO"},
		{"FREQ=WEEKLY;WKST=SU", ErrWkst, "WKST"},
		{"FREQ=DAILY;INTERVAL=0", ErrInterval, "INTERVAL"},
		{"FREQ=DAILY;INTERVAL=1000", ErrInterval, "INTERVAL"},
		{"FREQ=DAILY;INTERVAL=-1", ErrInterval, "INTERVAL"},
		{"FREQ=DAILY;INTERVAL=+2", ErrInterval, "INTERVAL"},
		{"FREQ=DAILY;INTERVAL=2x", ErrInterval, "INTERVAL"},
		{"FREQ=DAILY;INTERVAL=", ErrInterval, "INTERVAL"},
		{"FREQ=DAILY;INTERVAL=99999999999999999999", ErrInterval, "INTERVAL"},
		{"FREQ=DAILY;COUNT=0", ErrCount, "COUNT"},
		{"FREQ=DAILY;COUNT=1000001", ErrCount, "COUNT"},
		{"FREQ=DAILY;COUNT=1.5", ErrCount, "COUNT"},
		{"FREQ=DAILY;UNTIL=20261231", ErrUntil, "UNTIL"},         // date only: refused
		{"FREQ=DAILY;UNTIL=20261231T235959", ErrUntil, "UNTIL"},  // floating: refused
		{"FREQ=DAILY;UNTIL=20261331T000000Z", ErrUntil, "UNTIL"}, // no 13th month
		{"FREQ=DAILY;UNTIL=20260230T000000Z", ErrUntil, "UNTIL"}, // no 30 February
		{"FREQ=DAILY;UNTIL=20261231T235960Z", ErrUntil, "UNTIL"},
		{"FREQ=DAILY;UNTIL=20261231T235959.5Z", ErrUntil, "UNTIL"},
		{"FREQ=DAILY;UNTIL=2026-12-31T23:59:59Z", ErrUntil, "UNTIL"},
		{"FREQ=WEEKLY;BYDAY=XX", ErrByDay, "BYDAY"},
		{"FREQ=WEEKLY;BYDAY=", ErrByDay, "BYDAY"},
		{"FREQ=WEEKLY;BYDAY=MO,,TU", ErrByDay, "BYDAY"},
		{"FREQ=WEEKLY;BYDAY=MONDAY", ErrByDay, "BYDAY"},
		{"FREQ=MONTHLY;BYDAY=6MO", ErrByDay, "BYDAY"},
		{"FREQ=MONTHLY;BYDAY=0MO", ErrByDay, "BYDAY"},
		{"FREQ=MONTHLY;BYDAY=-6MO", ErrByDay, "BYDAY"},
		{"FREQ=MONTHLY;BYDAY=10MO", ErrByDay, "BYDAY"},
		{"FREQ=MONTHLY;BYDAY=+MO", ErrByDay, "BYDAY"},
		{"FREQ=MONTHLY;BYMONTHDAY=0", ErrByMonthDay, "BYMONTHDAY"},
		{"FREQ=MONTHLY;BYMONTHDAY=32", ErrByMonthDay, "BYMONTHDAY"},
		{"FREQ=MONTHLY;BYMONTHDAY=-2", ErrByMonthDay, "BYMONTHDAY"}, // only -1 counts from the end
		{"FREQ=MONTHLY;BYMONTHDAY=", ErrByMonthDay, "BYMONTHDAY"},
		{"FREQ=DAILY;BYHOUR=24", ErrByHour, "BYHOUR"},
		{"FREQ=DAILY;BYHOUR=-1", ErrByHour, "BYHOUR"},
		{"FREQ=DAILY;BYHOUR=9,", ErrByHour, "BYHOUR"},
		{"FREQ=DAILY;BYMINUTE=60", ErrByMinute, "BYMINUTE"},
		{"FREQ=DAILY;BYMINUTE=0,10,20,30,40", ErrManyMinutes, "BYMINUTE"},
		{"FREQ=DAILY;COUNT=3;UNTIL=20261231T235959Z", ErrCountUntil, "COUNT"},
		{"FREQ=WEEKLY;BYDAY=2TU", ErrOrdinal, "BYDAY"},
		{"FREQ=DAILY;BYDAY=-1FR", ErrOrdinal, "BYDAY"},
		{"FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=2FR", ErrOrdinalDay, "BYDAY"},
		{"FREQ=WEEKLY;BYMONTHDAY=1", ErrMonthDayFreq, "BYMONTHDAY"},
		{"FREQ=DAILY;BYMONTHDAY=1", ErrMonthDayFreq, "BYMONTHDAY"},
		{"FREQ=DAILY;BYHOUR=" + allHours + ";BYMINUTE=0,30", ErrManyPerDay, "BYHOUR"},
		{"FREQ=DAILY;BYMINUTE=0,30", ErrTooFrequent, "BYMINUTE"},
		{"FREQ=DAILY;BYHOUR=9;BYMINUTE=0,59", ErrTooFrequent, "BYMINUTE"},
		{"FREQ=WEEKLY;BYMINUTE=0,15,30,45", ErrTooFrequent, "BYMINUTE"},
	} {
		_, err := Parse(c.in)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, c.want) || e.Part != c.part || e.Message == "" {
			t.Errorf("Parse(%q) = %#v, want code %q part %q", c.in, err, c.want.Code, c.part)
		}
	}
}

// TestEveryCodeIsReachable: each sentinel is a distinct code, and the
// refusals tests above and the New tests reach every one.
func TestEveryCodeIsReachable(t *testing.T) {
	codes := Codes()
	if len(slices.Compact(slices.Sorted(slices.Values(codes)))) != len(codes) {
		t.Errorf("duplicate codes in %v", codes)
	}
	for _, c := range codes {
		if c == "" || strings.ToLower(c) != c || strings.ContainsAny(c, " -.") {
			t.Errorf("code %q is not snake_case", c)
		}
	}
}

func TestValidateRuleValues(t *testing.T) {
	for _, c := range []struct {
		r    Rule
		want *Error
	}{
		{Rule{Freq: Daily}, ErrInterval}, // Interval 0 is not a default: Parse always sets 1
		{Rule{Freq: "YEARLY", Interval: 1}, ErrFreq},
		{Rule{Freq: "daily", Interval: 1}, ErrBadFreq},
		{Rule{Freq: Weekly, Interval: 1, ByDay: []WeekdayNum{{0, 7}}}, ErrByDay},
		{Rule{Freq: Monthly, Interval: 1, ByMonthDay: []int{-31}}, ErrByMonthDay},
		{Rule{Freq: Daily, Interval: 1, Count: -1}, ErrCount},
		{Rule{Freq: Daily, Interval: 1, ByMinute: []int{1, 2, 3, 4, 5}}, ErrManyMinutes},
		{Rule{Freq: Daily, Interval: 1, Until: &farFuture}, ErrUntil},
	} {
		if err := c.r.Validate(); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %s", c.r, err, c.want.Code)
		}
	}
	if err := (Rule{Freq: Daily, Interval: 1}).Validate(); err != nil {
		t.Errorf("a plain rule: %v", err)
	}
}

var farFuture = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)

// equalRules compares rules field by field (Until by instant).
func equalRules(a, b Rule) bool {
	ua, ub := a.Until, b.Until
	a.Until, b.Until = nil, nil
	if (ua == nil) != (ub == nil) || ua != nil && !ua.Equal(*ub) {
		return false
	}
	return reflect.DeepEqual(a, b)
}
