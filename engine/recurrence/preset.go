package recurrence

import (
	"hash/fnv"
	"time"

	"studio/engine/localtime"
)

// Preset names a choice in Studio's and MCP's schedule pickers (§9.3).
type Preset string

// The presets. Custom means a rule written out in the editor.
const (
	PresetOnce     Preset = "once"
	PresetHourly   Preset = "hourly"
	PresetDaily    Preset = "daily"
	PresetWeekdays Preset = "weekdays"
	PresetWeekly   Preset = "weekly"
	PresetMonthly  Preset = "monthly"
	PresetCustom   Preset = "custom"
)

// Presets lists the presets in the order pickers show them.
var Presets = []Preset{PresetOnce, PresetHourly, PresetDaily, PresetWeekdays, PresetWeekly, PresetMonthly, PresetCustom}

// PresetRule returns the rule of preset p for a recurrence starting at
// start, spelled out so it does not lean on the start's defaults: hourly is
// FREQ=DAILY;BYHOUR=0,…,23;BYMINUTE=<start's minute> (so HOURLY stays out of
// the vocabulary), daily, weekdays (MO–FR), weekly (the start's weekday) and
// monthly (the start's day of the month, so a start on the 31st skips short
// months) run at the start's time. Once has no rule: it returns nil. Custom
// has no rule to build and returns ErrCustomPreset.
func PresetRule(p Preset, start localtime.Wall) (*Rule, error) {
	at := func(r Rule) *Rule {
		r.Interval = 1
		if r.ByHour == nil {
			r.ByHour = []int{start.Hour}
		}
		r.ByMinute = []int{start.Minute}
		return &r
	}
	wd := weekdayOf(dayOf(start.Year, start.Month, start.Day))
	switch p {
	case PresetOnce:
		return nil, nil
	case PresetHourly:
		hours := make([]int, 24)
		for h := range hours {
			hours[h] = h
		}
		return at(Rule{Freq: Daily, ByHour: hours}), nil
	case PresetDaily:
		return at(Rule{Freq: Daily}), nil
	case PresetWeekdays:
		return at(Rule{Freq: Weekly, ByDay: []WeekdayNum{{0, time.Monday}, {0, time.Tuesday}, {0, time.Wednesday}, {0, time.Thursday}, {0, time.Friday}}}), nil
	case PresetWeekly:
		return at(Rule{Freq: Weekly, ByDay: []WeekdayNum{{0, wd}}}), nil
	case PresetMonthly:
		return at(Rule{Freq: Monthly, ByMonthDay: []int{start.Day}}), nil
	case PresetCustom:
		return nil, ErrCustomPreset.with("", "")
	}
	return nil, ErrUnknownPreset.with("", "")
}

// PresetOf returns the preset whose rule for start is rule, once the
// start's defaults are filled in on both sides: nil is once, and
// "FREQ=DAILY" from a 09:00 start is daily just as
// "FREQ=DAILY;BYHOUR=9;BYMINUTE=0" is. Anything else, including a preset's
// shape at another time or weekday than the start's (which choosing that
// preset again would change), is custom. PresetOf(PresetRule(p, s), s) == p.
func PresetOf(rule *Rule, start localtime.Wall) Preset {
	if rule == nil {
		return PresetOnce
	}
	want := withDefaults(*rule, start).String()
	for _, p := range Presets[1 : len(Presets)-1] {
		r, _ := PresetRule(p, start)
		if withDefaults(*r, start).String() == want {
			return p
		}
	}
	return PresetCustom
}

// withDefaults fills in what an absent part means for a start (see
// Recurrence).
func withDefaults(r Rule, start localtime.Wall) Rule {
	if len(r.ByHour) == 0 {
		r.ByHour = []int{start.Hour}
	}
	if len(r.ByMinute) == 0 {
		r.ByMinute = []int{start.Minute}
	}
	switch {
	case r.Freq == Weekly && len(r.ByDay) == 0:
		r.ByDay = []WeekdayNum{{0, weekdayOf(dayOf(start.Year, start.Month, start.Day))}}
	case r.Freq == Monthly && len(r.ByDay) == 0 && len(r.ByMonthDay) == 0:
		r.ByMonthDay = []int{start.Day}
	}
	return r
}

// MinuteOffset returns the deterministic minute offset of §9.5 for an
// automation: the FNV-1a 32-bit hash of the id's UTF-8 bytes, mod 10. Built-in
// jobs created from presets add it to their minute, so many sites do not
// all wake at :00. The hash is part of the contract: changing it would move
// every such job.
func MinuteOffset(automationID string) int {
	h := fnv.New32a()
	h.Write([]byte(automationID))
	return int(h.Sum32() % 10)
}
