package studio

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"studio/engine/localtime"
	"studio/engine/recurrence"
	"studio/web/templates"
)

// RecurrenceForm is the recurrence editor's fields (templates.RecurrenceForm).
type RecurrenceForm = templates.RecurrenceForm

// weekdayCodes are RFC 5545's day names, Monday first as the chips are.
var weekdayCodes = []string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}

// recurrenceFormOf reads the recurrence fields of a form (or a query).
func recurrenceFormOf(v url.Values) RecurrenceForm {
	get := func(k string) string { return strings.TrimSpace(v.Get(k)) }
	return RecurrenceForm{Date: get("date"), Time: get("time"), Preset: get("preset"), Freq: get("freq"),
		Interval: get("interval"), Days: v["byday"], Monthly: get("monthly"), MonthDay: get("monthday"),
		Nth: get("nth"), NthDay: get("nthday"), Ends: get("ends"), UntilDate: get("until"), Count: get("count")}
}

// RuleOf is the preset and the D3 rule (engine/recurrence's subset) the
// form says, in zone loc (an end date is the end of that day there). A
// preset other than custom brings its own rule (the engine writes it from
// the start); a custom one is written out from its parts, the time of day
// from the start's. Values the form could not have sent are written as they
// came (INTERVAL=abc), so the engine refuses them with its own reason.
func RuleOf(f RecurrenceForm, loc *time.Location) (preset, rule string) {
	if f.Preset != "custom" {
		return f.Preset, ""
	}
	var parts []string
	switch f.Freq {
	case "weekly":
		parts = append(parts, "FREQ=WEEKLY")
	case "monthly":
		parts = append(parts, "FREQ=MONTHLY")
	default:
		parts = append(parts, "FREQ=DAILY")
	}
	if n := strings.TrimSpace(f.Interval); n != "" && n != "1" {
		parts = append(parts, "INTERVAL="+n)
	}
	switch f.Freq {
	case "weekly":
		var days []string
		for _, d := range weekdayCodes {
			if slices.Contains(f.Days, d) {
				days = append(days, d)
			}
		}
		if len(days) > 0 {
			parts = append(parts, "BYDAY="+strings.Join(days, ","))
		}
	case "monthly":
		switch f.Monthly {
		case "nth":
			parts = append(parts, "BYDAY="+f.Nth+f.NthDay)
		case "last":
			parts = append(parts, "BYMONTHDAY=-1")
		default:
			if f.MonthDay != "" {
				parts = append(parts, "BYMONTHDAY="+f.MonthDay)
			}
		}
	}
	if h, m, ok := clockOf(f.Time); ok {
		parts = append(parts, "BYHOUR="+strconv.Itoa(h), "BYMINUTE="+strconv.Itoa(m))
	}
	switch f.Ends {
	case "count":
		parts = append(parts, "COUNT="+f.Count)
	case "until":
		parts = append(parts, "UNTIL="+untilOf(f.UntilDate, loc))
	}
	return "custom", strings.Join(parts, ";")
}

// clockOf reads "07:10".
func clockOf(s string) (h, m int, ok bool) {
	w, err := localtime.ParseWall("2000-01-01T" + s)
	if err != nil {
		return 0, 0, false
	}
	return w.Hour, w.Minute, true
}

// untilOf is the end of date's day in loc as RRULE's UTC UNTIL; a date
// that is not one comes back as it is, for the engine to refuse.
func untilOf(date string, loc *time.Location) string {
	d, err := time.ParseInLocation("2006-01-02 15:04:05", date+" 23:59:59", loc)
	if err != nil {
		return date
	}
	return d.UTC().Format("20060102T150405Z")
}

// recurrenceFormFor fills the form in from a saved schedule (editing, and
// Duplicate): its preset, or a custom rule's parts read back; start is
// YYYY-MM-DDTHH:MM on loc's clock.
func recurrenceFormFor(preset, rule, start string, loc *time.Location) RecurrenceForm {
	f := RecurrenceForm{Preset: preset, Freq: "weekly", Interval: "1", Monthly: "day", Nth: "1", NthDay: "MO", Ends: "never"}
	if f.Preset == "" {
		f.Preset = "once"
	}
	if d, t, ok := strings.Cut(start, "T"); ok {
		f.Date, f.Time = d, t
	}
	if w, err := localtime.ParseWall(start); err == nil {
		f.MonthDay = strconv.Itoa(w.Day)
		wd := time.Date(w.Year, w.Month, w.Day, 12, 0, 0, 0, time.UTC).Weekday()
		f.Days = []string{weekdayCodes[(int(wd)+6)%7]}
		f.NthDay = f.Days[0]
	}
	if preset != "custom" || rule == "" {
		return f
	}
	r, err := recurrence.Parse(rule)
	if err != nil {
		return f
	}
	f.Freq = strings.ToLower(string(r.Freq))
	f.Interval = strconv.Itoa(r.Interval)
	if r.Freq == recurrence.Weekly && len(r.ByDay) > 0 {
		f.Days = nil
		for _, d := range r.ByDay {
			f.Days = append(f.Days, weekdayCodes[(int(d.Weekday)+6)%7])
		}
	}
	if r.Freq == recurrence.Monthly {
		switch {
		case len(r.ByDay) > 0:
			f.Monthly, f.Nth, f.NthDay = "nth", strconv.Itoa(r.ByDay[0].N), weekdayCodes[(int(r.ByDay[0].Weekday)+6)%7]
		case len(r.ByMonthDay) > 0 && r.ByMonthDay[0] == -1:
			f.Monthly = "last"
		case len(r.ByMonthDay) > 0:
			f.MonthDay = strconv.Itoa(r.ByMonthDay[0])
		}
	}
	switch {
	case r.Count > 0:
		f.Ends, f.Count = "count", strconv.Itoa(r.Count)
	case r.Until != nil:
		f.Ends, f.UntilDate = "until", r.Until.In(loc).Format("2006-01-02")
	}
	return f
}
