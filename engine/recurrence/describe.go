package recurrence

import (
	"fmt"
	"slices"
	"time"

	"studio/engine/localtime"
)

// Sentence is what a recurrence says, as data; package locales renders it
// in English and Turkish ("On the second Tuesday of every month at 09:07" /
// "Her ayın ikinci salısı 09:07"). Key picks the sentence's shape:
//
//	once                      Once, on 2 November 2026 at 09:00
//	hourly                    Every hour at :07
//	daily                     Every day at 09:00 · Every 3 days at 09:00
//	weekdays                  Weekdays at 09:07
//	weekly                    Every week on Monday at 09:07 · Every 2 weeks on Tuesday and Thursday at 10:00
//	daily_on_weekdays         Every 3 days at 09:00, if that day is a Monday or Friday
//	monthly_days              On the last day of every month at 18:00
//	monthly_weekdays          On the second Tuesday of every month at 09:07
//	monthly_days_on_weekdays  On the 13th of every month at 09:00, if that day is a Friday
//
// and Count or Until, when set, add "5 times" or "until 31 December 2026".
type Sentence struct {
	Key      string
	Times    []string       // "09:07", ascending; for hourly the minute alone, ":07"
	Days     []int          // days of the month, ascending, -1 (the last day) at the end
	Weekdays []time.Weekday // Monday first
	Ordinals []int          // monthly_weekdays: per weekday, 1..5, -1..-5 from the end, 0 every
	Ordinal  int            // the ordinal all of Ordinals share, else 0
	N        int            // the interval: every N days, weeks or months
	Count    int
	Until    *localtime.Wall // UNTIL on the zone's clock
	On       *localtime.Wall // once: when
}

// Describe returns the sentence of rc.
func Describe(rc Recurrence) Sentence {
	if rc.Rule == nil {
		on := rc.Start
		return Sentence{Key: "once", Times: []string{on.Clock()}, N: 1, On: &on}
	}
	r := withDefaults(*rc.Rule, rc.Start)
	s := Sentence{N: max(r.Interval, 1), Count: r.Count}
	if r.Until != nil && rc.Zone != nil {
		u := localtime.WallOf(*r.Until, rc.Zone)
		s.Until = &u
	}
	times := timesOfDay(r.ByHour, r.ByMinute)
	for _, t := range times {
		s.Times = append(s.Times, fmt.Sprintf("%02d:%02d", t/60, t%60))
	}
	days := sortDays(r.ByDay)
	for _, d := range days {
		s.Weekdays = append(s.Weekdays, d.Weekday)
	}
	switch {
	case r.Freq == Daily && len(days) == 0 && s.N == 1 && len(times) == 24 && len(slices.Compact(slices.Sorted(slices.Values(r.ByMinute)))) == 1:
		s.Key, s.Times = "hourly", []string{fmt.Sprintf(":%02d", r.ByMinute[0])}
	case r.Freq == Daily && len(days) == 0:
		s.Key = "daily"
	case r.Freq == Daily && s.N > 1:
		s.Key = "daily_on_weekdays"
	case r.Freq != Monthly: // WEEKLY, or DAILY on some weekdays: the same thing
		s.Key = "weekly"
		if s.N == 1 && slices.Equal(s.Weekdays, []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}) {
			s.Key = "weekdays"
		}
	case len(r.ByMonthDay) > 0:
		s.Key = "monthly_days"
		if len(days) > 0 {
			s.Key = "monthly_days_on_weekdays"
		}
		s.Days = slices.Compact(slices.Sorted(slices.Values(r.ByMonthDay)))
		if s.Days[0] == -1 {
			s.Days = append(s.Days[1:], -1)
		}
	default:
		s.Key = "monthly_weekdays"
		for _, d := range days {
			s.Ordinals = append(s.Ordinals, d.N)
		}
		if slices.Min(s.Ordinals) == slices.Max(s.Ordinals) {
			s.Ordinal = s.Ordinals[0]
		}
	}
	return s
}
