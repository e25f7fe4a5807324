package recurrence

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	maxRuleLen  = 300     // RFC-0008 §4.3: AutomationRule is at most 300 characters
	maxInterval = 999     // D3
	maxCount    = 1000000 // keeps COUNT an ordinary number; 114 years of an hourly rule
	untilLayout = "20060102T150405Z"
)

// dayCodes are RFC 5545's weekday names, indexed by time.Weekday.
var dayCodes = [7]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}

// refused maps the RFC 5545 parts the subset leaves out (§9.3) to their
// refusals, so each gets its own code and a hint instead of "unknown part".
var refused = map[string]*Error{
	"BYSECOND":  ErrBySecond,
	"BYWEEKNO":  ErrByWeekNo,
	"BYYEARDAY": ErrByYearDay,
	"BYSETPOS":  ErrBySetPos,
	"BYMONTH":   ErrByMonth,
	"RDATE":     ErrRDate,
	"EXDATE":    ErrExDate,
}

// Parse reads a rule of the RRULE subset (RFC-0008 D3, §9.3), as stored in
// AutomationRule: "FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=7".
//
// Names and values are case-insensitive, as in RFC 5545, and parts may come
// in any order; String writes the canonical form (upper case, parts in a
// fixed order, lists sorted without duplicates, INTERVAL=1 left out).
// WKST=MO is accepted and dropped, since weeks always start on Monday; any
// other WKST is refused. UNTIL must be a UTC date-time (20261231T235959Z):
// a date-only or floating UNTIL would need a zone to mean an instant.
//
// Every error is an *Error with a stable Code and the Part at fault.
func Parse(s string) (Rule, error) {
	r, err := parse(s)
	if err != nil {
		return Rule{}, err
	}
	if err := r.Validate(); err != nil {
		return Rule{}, err
	}
	return r, nil
}

func parse(s string) (Rule, *Error) {
	if len(s) > maxRuleLen {
		return Rule{}, ErrTooLong.with("", "")
	}
	s = upperASCII(s)
	if strings.HasPrefix(s, "RRULE:") {
		return Rule{}, ErrRRulePrefix.with("", "")
	}
	if s == "" {
		return Rule{}, ErrMissingFreq.with("", "the rule is empty")
	}
	r := Rule{Interval: 1}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ";") {
		name, value, ok := strings.Cut(part, "=")
		if !ok || name == "" {
			return Rule{}, ErrBadSyntax.with("", "not NAME=VALUE: "+quote(part))
		}
		if e, no := refused[name]; no {
			return Rule{}, e.with(name, "")
		}
		if seen[name] {
			return Rule{}, ErrDuplicate.with(name, name+" is given twice")
		}
		seen[name] = true
		var err *Error
		switch name {
		case "FREQ":
			r.Freq, err = parseFreq(value)
		case "INTERVAL":
			r.Interval, err = parseNumber(value, 1, maxInterval, ErrInterval, name)
		case "COUNT":
			r.Count, err = parseNumber(value, 1, maxCount, ErrCount, name)
		case "UNTIL":
			t, perr := time.Parse(untilLayout, value)
			if perr != nil || len(value) != len(untilLayout) {
				err = ErrUntil.with(name, "")
			}
			t = t.UTC()
			r.Until = &t
		case "BYDAY":
			r.ByDay, err = parseByDay(value)
		case "BYMONTHDAY":
			r.ByMonthDay, err = parseList(value, 1, 31, ErrByMonthDay, name)
		case "BYHOUR":
			r.ByHour, err = parseList(value, 0, 23, ErrByHour, name)
		case "BYMINUTE":
			r.ByMinute, err = parseList(value, 0, 59, ErrByMinute, name)
		case "WKST":
			if value != "MO" {
				err = ErrWkst.with(name, "")
			}
		default:
			err = ErrUnknownPart.with(name, "unknown rule part "+quote(name))
		}
		if err != nil {
			return Rule{}, err
		}
	}
	if !seen["FREQ"] {
		return Rule{}, ErrMissingFreq.with("FREQ", "")
	}
	return r, nil
}

func parseFreq(v string) (Freq, *Error) {
	switch f := Freq(v); f {
	case Daily, Weekly, Monthly:
		return f, nil
	case "SECONDLY", "MINUTELY", "HOURLY":
		return "", ErrFreq.with("FREQ", "FREQ="+v+" is not supported: for hourly runs use FREQ=DAILY with BYHOUR and BYMINUTE")
	case "YEARLY":
		return "", ErrFreq.with("FREQ", "FREQ=YEARLY is not supported: use FREQ=MONTHLY;INTERVAL=12")
	}
	return "", ErrBadFreq.with("FREQ", "")
}

// parseNumber reads plain ASCII digits in [lo, hi]; signs, spaces and
// numbers too long to be in range are refused before strconv sees them.
func parseNumber(v string, lo, hi int, e *Error, part string) (int, *Error) {
	if v == "" || len(v) > 7 || strings.Trim(v, "0123456789") != "" {
		return 0, e.with(part, "")
	}
	n, _ := strconv.Atoi(v)
	if n < lo || n > hi {
		return 0, e.with(part, "")
	}
	return n, nil
}

// parseList reads a comma-separated list of numbers in [lo, hi], and -1 for
// BYMONTHDAY (the last day: the only count from the end the subset has).
// The result is sorted and without duplicates.
func parseList(v string, lo, hi int, e *Error, part string) ([]int, *Error) {
	if v == "" {
		return nil, e.with(part, part+" is empty")
	}
	var out []int
	for _, item := range strings.Split(v, ",") {
		if part == "BYMONTHDAY" && item == "-1" {
			out = append(out, -1)
			continue
		}
		n, err := parseNumber(item, lo, hi, e, part)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if part == "BYMINUTE" && len(out) > 4 {
		return nil, ErrManyMinutes.with(part, "")
	}
	return out, nil
}

// parseByDay reads "MO,2TU,-1FR,+3WE": an optional signed ordinal 1..5
// before each weekday.
func parseByDay(v string) ([]WeekdayNum, *Error) {
	if v == "" {
		return nil, ErrByDay.with("BYDAY", "BYDAY is empty")
	}
	var out []WeekdayNum
	for _, item := range strings.Split(v, ",") {
		if len(item) < 2 {
			return nil, ErrByDay.with("BYDAY", "")
		}
		code, num := item[len(item)-2:], item[:len(item)-2]
		wd := slices.Index(dayCodes[:], code)
		if wd < 0 {
			return nil, ErrByDay.with("BYDAY", "unknown weekday "+quote(code))
		}
		n := 0
		if num != "" {
			sign := 1
			switch num[0] {
			case '-':
				sign, num = -1, num[1:]
			case '+':
				num = num[1:]
			}
			if len(num) != 1 || num[0] < '1' || num[0] > '5' {
				return nil, ErrByDay.with("BYDAY", "an ordinal is 1 to 5 or -1 to -5")
			}
			n = sign * int(num[0]-'0')
		}
		out = append(out, WeekdayNum{N: n, Weekday: time.Weekday(wd)})
	}
	return sortDays(out), nil
}

// sortDays sorts BYDAY entries Monday first, then by ordinal, and drops
// duplicates.
func sortDays(days []WeekdayNum) []WeekdayNum {
	days = slices.Clone(days)
	slices.SortFunc(days, func(a, b WeekdayNum) int {
		if d := mondayIndex(a.Weekday) - mondayIndex(b.Weekday); d != 0 {
			return d
		}
		return a.N - b.N
	})
	return slices.Compact(days)
}

// String returns the canonical form of r: upper case; FREQ, INTERVAL (only
// when above 1), BYDAY, BYMONTHDAY, BYHOUR, BYMINUTE, COUNT, UNTIL in that
// order; lists sorted (weekdays from Monday) without duplicates. Parse of
// the result gives r back for every valid rule.
func (r Rule) String() string {
	var b strings.Builder
	b.WriteString("FREQ=" + string(r.Freq))
	if r.Interval > 1 {
		b.WriteString(";INTERVAL=" + strconv.Itoa(r.Interval))
	}
	if len(r.ByDay) > 0 {
		b.WriteString(";BYDAY=")
		for i, d := range sortDays(r.ByDay) {
			if i > 0 {
				b.WriteByte(',')
			}
			if d.N != 0 {
				b.WriteString(strconv.Itoa(d.N))
			}
			if d.Weekday >= 0 && d.Weekday < 7 {
				b.WriteString(dayCodes[d.Weekday])
			}
		}
	}
	writeList(&b, "BYMONTHDAY", r.ByMonthDay)
	writeList(&b, "BYHOUR", r.ByHour)
	writeList(&b, "BYMINUTE", r.ByMinute)
	if r.Count > 0 {
		b.WriteString(";COUNT=" + strconv.Itoa(r.Count))
	}
	if r.Until != nil {
		b.WriteString(";UNTIL=" + r.Until.UTC().Format(untilLayout))
	}
	return b.String()
}

// Format returns the canonical form of r, the same as r.String().
func Format(r Rule) string { return r.String() }

func writeList(b *strings.Builder, name string, list []int) {
	if len(list) == 0 {
		return
	}
	list = slices.Compact(slices.Sorted(slices.Values(list)))
	b.WriteString(";" + name + "=")
	for i, n := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(n))
	}
}

// Validate checks r against the subset and §9.3's limits: field ranges,
// COUNT with UNTIL, ordinals only with MONTHLY (and not with BYMONTHDAY),
// BYMONTHDAY only with MONTHLY, at most four BYMINUTE values, at most 24
// occurrences a day and at least one hour between consecutive occurrences
// on the floating clock (DST can bring two closer in real time, as Lord
// Howe's half-hour change does; the limit is about the rule as written).
// Absent BYHOUR or BYMINUTE stand for the start's single value, so the
// limits do not depend on the start.
//
// RFC 5545 allows BYMONTHDAY with DAILY, but the subset does not: MONTHLY
// says the same thing and keeps counting occurrences arithmetic.
func (r Rule) Validate() error {
	if e := r.validate(); e != nil {
		return e
	}
	return nil
}

func (r Rule) validate() *Error {
	switch r.Freq {
	case Daily, Weekly, Monthly:
	case "SECONDLY", "MINUTELY", "HOURLY", "YEARLY":
		return ErrFreq.with("FREQ", "")
	default:
		return ErrBadFreq.with("FREQ", "")
	}
	if r.Interval < 1 || r.Interval > maxInterval {
		return ErrInterval.with("INTERVAL", "")
	}
	for _, d := range r.ByDay {
		switch {
		case d.Weekday < 0 || d.Weekday > 6 || d.N < -5 || d.N > 5:
			return ErrByDay.with("BYDAY", "")
		case d.N != 0 && r.Freq != Monthly:
			return ErrOrdinal.with("BYDAY", "")
		case d.N != 0 && len(r.ByMonthDay) > 0:
			return ErrOrdinalDay.with("BYDAY", "")
		}
	}
	for _, d := range r.ByMonthDay {
		if d < -1 || d == 0 || d > 31 {
			return ErrByMonthDay.with("BYMONTHDAY", "")
		}
	}
	if len(r.ByMonthDay) > 0 && r.Freq != Monthly {
		return ErrMonthDayFreq.with("BYMONTHDAY", "")
	}
	for _, h := range r.ByHour {
		if h < 0 || h > 23 {
			return ErrByHour.with("BYHOUR", "")
		}
	}
	for _, m := range r.ByMinute {
		if m < 0 || m > 59 {
			return ErrByMinute.with("BYMINUTE", "")
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(r.ByMinute)))) > 4 {
		return ErrManyMinutes.with("BYMINUTE", "")
	}
	if r.Count < 0 || r.Count > maxCount {
		return ErrCount.with("COUNT", "")
	}
	if r.Count > 0 && r.Until != nil {
		return ErrCountUntil.with("COUNT", "")
	}
	if r.Until != nil && (r.Until.UTC().Year() < 0 || r.Until.UTC().Year() > 9999) {
		return ErrUntil.with("UNTIL", "") // four digits, so String parses back
	}
	// Absent lists stand for the start's one value, so placeholders do. The
	// wrap from one day's last time to the next day's first needs no check:
	// with one minute, all times are whole hours apart, across midnight
	// too; with more, two of them share an hour and fail below.
	times := timesOfDay(orOne(r.ByHour), orOne(r.ByMinute))
	if len(times) > 24 {
		return ErrManyPerDay.with("BYHOUR", "")
	}
	for i := 1; i < len(times); i++ {
		if times[i]-times[i-1] < 60 {
			return ErrTooFrequent.with("BYMINUTE", "")
		}
	}
	return nil
}

func orOne(list []int) []int {
	if len(list) == 0 {
		return []int{0}
	}
	return list
}

// timesOfDay returns the sorted, distinct minutes of the day of hours × minutes.
func timesOfDay(hours, minutes []int) []int {
	var out []int
	for _, h := range hours {
		for _, m := range minutes {
			out = append(out, h*60+m)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func upperASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// quote keeps messages short and printable whatever was typed.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}
