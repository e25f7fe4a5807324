package locales

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"studio/engine/localtime"
	"studio/engine/recurrence"
)

// Recurrence renders a recurrence's sentence (recurrence.Describe) in p's
// language, every word from the [recurrence] messages: "On the second
// Tuesday of every month at 09:07" / "Her ayın ikinci salısı 09:07".
func (p *Printer) Recurrence(s recurrence.Sentence) string {
	var text string
	switch s.Key {
	case "once":
		text = p.T("recurrence.once", "Date", p.wallDate(*s.On), "Time", s.On.Clock())
	case "hourly":
		text = p.T("recurrence.hourly", "Minute", strings.TrimPrefix(s.Times[0], ":"))
	default:
		text = p.T("recurrence."+s.Key,
			"Every", p.every(s),
			"Times", p.list(s.Times, "recurrence.and"),
			"Days", p.monthDays(s.Days),
			"Weekdays", p.weekdays(s))
	}
	if s.Count > 0 {
		text = p.T("recurrence.count", "Rule", text, "Count", s.Count)
	}
	if u := s.Until; u != nil {
		if u.Hour == 23 && u.Minute == 59 {
			text = p.T("recurrence.until", "Rule", text, "Date", p.wallDate(*u))
		} else {
			text = p.T("recurrence.until_time", "Rule", text, "Date", p.wallDate(*u), "Time", u.Clock())
		}
	}
	return text
}

// RecurrencePreset names a preset in p's language: "Weekdays" / "Hafta içi her gün".
func (p *Printer) RecurrencePreset(preset recurrence.Preset) string {
	return p.T("recurrence.preset." + string(preset))
}

// RecurrenceError turns an engine/recurrence refusal into a sentence in p's
// language that says what to change; other errors get the generic one.
func (p *Printer) RecurrenceError(err error) string {
	var e *recurrence.Error
	if errors.As(err, &e) {
		if s, ok := p.Lookup("recurrence.error." + e.Code); ok {
			return s
		}
	}
	return p.T("error.invalid")
}

// every is the sentence's "Every 2 weeks" / "Her 2 haftada bir" part; the unit
// follows the shape and N > 1 takes the counted form.
func (p *Printer) every(s recurrence.Sentence) string {
	unit := map[string]string{
		"daily": "day", "daily_on_weekdays": "day", "weekly": "week",
		"monthly_days": "month", "monthly_weekdays": "month", "monthly_days_on_weekdays": "month",
	}[s.Key]
	if unit == "" {
		return ""
	}
	if s.N > 1 {
		return p.T("recurrence.every."+unit+"s", "N", s.N)
	}
	return p.T("recurrence.every." + unit)
}

var dayKeys = [7]string{"su", "mo", "tu", "we", "th", "fr", "sa"}

var ordinalKeys = map[int]string{
	1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth",
	-1: "last", -2: "second_last", -3: "third_last", -4: "fourth_last", -5: "fifth_last",
}

// weekdays names the sentence's weekdays: with their ordinals for the
// monthly shape ("the second Tuesday and every Friday"), joined by "or"
// where they limit other days ("if that day is a Monday or Friday"), else
// by "and".
func (p *Printer) weekdays(s recurrence.Sentence) string {
	var names []string
	for i, d := range s.Weekdays {
		if s.Key != "monthly_weekdays" {
			names = append(names, p.T("recurrence.weekday."+dayKeys[d]))
			continue
		}
		name := p.T("recurrence.weekday_of." + dayKeys[d])
		if n := s.Ordinals[i]; n != 0 {
			names = append(names, p.T("recurrence.nth_weekday", "Ordinal", p.T("recurrence.ordinal."+ordinalKeys[n]), "Weekday", name))
		} else {
			names = append(names, p.T("recurrence.every_weekday", "Weekday", name))
		}
	}
	if strings.HasSuffix(s.Key, "_on_weekdays") {
		return p.list(names, "recurrence.or")
	}
	return p.list(names, "recurrence.and")
}

// monthDays names days of the month: "1st and 15th", "last day" / "1. ve 15.", "son".
func (p *Printer) monthDays(days []int) string {
	var names []string
	for _, d := range days {
		key := "recurrence.monthday." + strconv.Itoa(d)
		if d == -1 {
			key = "recurrence.monthday.last"
		}
		names = append(names, p.T(key))
	}
	return p.list(names, "recurrence.and")
}

// list joins "a, b and c" with the language's word for "and" or "or".
func (p *Printer) list(items []string, word string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + p.T(word) + " " + items[len(items)-1]
}

// wallDate is "2 November 2026" / "2 Kasım 2026".
func (p *Printer) wallDate(w localtime.Wall) string {
	return fmt.Sprintf("%d %s %d", w.Day, months[p.Lang][w.Month-1], w.Year)
}
