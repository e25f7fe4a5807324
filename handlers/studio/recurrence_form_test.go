package studio

import (
	"net/url"
	"reflect"
	"testing"
	"time"

	"studio/engine/recurrence"
)

// TestRuleOf: each shape the recurrence editor offers becomes the D3 rule
// that says it, which engine/recurrence accepts as written, and the form
// filled in again from that rule is the same form.
func TestRuleOf(t *testing.T) {
	ist, err := time.LoadLocation("Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	base := RecurrenceForm{Date: "2026-11-09", Time: "07:10", Preset: "custom", Interval: "1", Monthly: "day",
		MonthDay: "9", Nth: "1", NthDay: "MO", Ends: "never"}
	with := func(change func(*RecurrenceForm)) RecurrenceForm { f := base; change(&f); return f }
	cases := []struct {
		name       string
		form       RecurrenceForm
		preset     string
		rule       string
		roundTrips bool
	}{
		{"PresetWeekly", with(func(f *RecurrenceForm) { f.Preset = "weekly" }), "weekly", "", false},
		{"PresetOnce", with(func(f *RecurrenceForm) { f.Preset = "once" }), "once", "", false},
		{"EveryDay", with(func(f *RecurrenceForm) { f.Freq = "daily" }), "custom", "FREQ=DAILY;BYHOUR=7;BYMINUTE=10", true},
		{"Every3Days", with(func(f *RecurrenceForm) { f.Freq, f.Interval = "daily", "3" }), "custom",
			"FREQ=DAILY;INTERVAL=3;BYHOUR=7;BYMINUTE=10", true},
		{"WeeklyMondayThursday", with(func(f *RecurrenceForm) { f.Freq, f.Days = "weekly", []string{"TH", "MO"} }), "custom",
			"FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=7;BYMINUTE=10", true},
		{"Every2WeeksTuesday", with(func(f *RecurrenceForm) { f.Freq, f.Interval, f.Days = "weekly", "2", []string{"TU"} }),
			"custom", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=7;BYMINUTE=10", true},
		{"MonthlyOnThe12th", with(func(f *RecurrenceForm) { f.Freq, f.MonthDay = "monthly", "12" }), "custom",
			"FREQ=MONTHLY;BYMONTHDAY=12;BYHOUR=7;BYMINUTE=10", true},
		{"SecondTuesday", with(func(f *RecurrenceForm) { f.Freq, f.Monthly, f.Nth, f.NthDay = "monthly", "nth", "2", "TU" }),
			"custom", "FREQ=MONTHLY;BYDAY=2TU;BYHOUR=7;BYMINUTE=10", true},
		{"LastFriday", with(func(f *RecurrenceForm) { f.Freq, f.Monthly, f.Nth, f.NthDay = "monthly", "nth", "-1", "FR" }),
			"custom", "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=7;BYMINUTE=10", true},
		{"LastDay", with(func(f *RecurrenceForm) { f.Freq, f.Monthly = "monthly", "last" }), "custom",
			"FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=7;BYMINUTE=10", true},
		{"Every3MonthsCount4", with(func(f *RecurrenceForm) { f.Freq, f.Interval, f.Ends, f.Count = "monthly", "3", "count", "4" }),
			"custom", "FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=9;BYHOUR=7;BYMINUTE=10;COUNT=4", true},
		// The end date is the site's: the end of 31 December in Istanbul
		// (UTC+3) is 20:59:59 UTC.
		{"UntilEndOfYear", with(func(f *RecurrenceForm) {
			f.Freq, f.Days, f.Ends, f.UntilDate = "weekly", []string{"MO"}, "until", "2026-12-31"
		}), "custom", "FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=10;UNTIL=20261231T205959Z", true},
		// What no form sends reaches the engine as it came, to be refused there.
		{"BadInterval", with(func(f *RecurrenceForm) { f.Freq, f.Interval = "daily", "abc" }), "custom",
			"FREQ=DAILY;INTERVAL=abc;BYHOUR=7;BYMINUTE=10", false},
		{"BadUntil", with(func(f *RecurrenceForm) { f.Freq, f.Ends, f.UntilDate = "daily", "until", "" }), "custom",
			"FREQ=DAILY;BYHOUR=7;BYMINUTE=10;UNTIL=", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			preset, rule := RuleOf(c.form, ist)
			if preset != c.preset || rule != c.rule {
				t.Fatalf("RuleOf = %q, %q; want %q, %q", preset, rule, c.preset, c.rule)
			}
			if !c.roundTrips {
				return
			}
			r, err := recurrence.Parse(rule)
			if err != nil {
				t.Fatalf("the engine refuses %q: %v", rule, err)
			}
			if r.String() != rule {
				t.Errorf("canonical form %q, the form wrote %q", r.String(), rule)
			}
			back := recurrenceFormFor(preset, rule, c.form.Start(), ist)
			if p2, r2 := RuleOf(back, ist); p2 != preset || r2 != rule {
				t.Errorf("filled in again: %q, %q; want %q, %q (%+v)", p2, r2, preset, rule, back)
			}
		})
	}
}

// TestRecurrenceFormOf reads the editor's fields, ticked chips included.
func TestRecurrenceFormOf(t *testing.T) {
	v := url.Values{"date": {"2026-11-09"}, "time": {" 07:10 "}, "preset": {"custom"}, "freq": {"weekly"},
		"byday": {"MO", "TH"}, "ends": {"never"}}
	got := recurrenceFormOf(v)
	want := RecurrenceForm{Date: "2026-11-09", Time: "07:10", Preset: "custom", Freq: "weekly", Days: []string{"MO", "TH"}, Ends: "never"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
