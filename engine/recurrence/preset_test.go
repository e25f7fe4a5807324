package recurrence

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"studio/engine/localtime"
)

func TestPresetRule(t *testing.T) {
	start := mustWall(t, "2026-11-02T09:07") // a Monday
	for _, c := range []struct {
		p    Preset
		want string // "" for no rule
	}{
		{PresetOnce, ""},
		{PresetHourly, "FREQ=DAILY;BYHOUR=" + allHours + ";BYMINUTE=7"},
		{PresetDaily, "FREQ=DAILY;BYHOUR=9;BYMINUTE=7"},
		{PresetWeekdays, "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=7"},
		{PresetWeekly, "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=7"},
		{PresetMonthly, "FREQ=MONTHLY;BYMONTHDAY=2;BYHOUR=9;BYMINUTE=7"},
	} {
		r, err := PresetRule(c.p, start)
		got := ""
		if r != nil {
			got = r.String()
		}
		if err != nil || got != c.want {
			t.Errorf("PresetRule(%s) = %q, %v; want %q", c.p, got, err, c.want)
		}
		if _, err := New(start, mustZone(t, "Europe/Istanbul"), r); err != nil {
			t.Errorf("PresetRule(%s) is not a valid recurrence: %v", c.p, err)
		}
	}
	if _, err := PresetRule(PresetCustom, start); !errors.Is(err, ErrCustomPreset) {
		t.Errorf("custom: %v", err)
	}
	if _, err := PresetRule("yearly", start); !errors.Is(err, ErrUnknownPreset) {
		t.Errorf("yearly: %v", err)
	}
}

func TestPresetOf(t *testing.T) {
	// Every preset comes back from its own rule, whatever the start.
	for _, s := range []string{"2026-11-02T09:07", "2026-01-31T00:00", "2028-02-29T23:59", "2026-03-29T02:30"} {
		start := mustWall(t, s)
		for _, p := range Presets[:len(Presets)-1] {
			r, _ := PresetRule(p, start)
			if got := PresetOf(r, start); got != p {
				t.Errorf("PresetOf(PresetRule(%s, %s)) = %s", p, s, got)
			}
		}
	}
	start := mustWall(t, "2026-11-02T09:07") // a Monday, the 2nd
	for _, c := range []struct {
		rule string
		want Preset
	}{
		{"FREQ=DAILY", PresetDaily}, // the start's time by default
		{"FREQ=WEEKLY", PresetWeekly},
		{"FREQ=MONTHLY", PresetMonthly},
		{"FREQ=DAILY;BYHOUR=" + allHours, PresetHourly},
		{"FREQ=WEEKLY;BYDAY=FR,TH,WE,TU,MO", PresetWeekdays},
		{"FREQ=DAILY;BYHOUR=" + allHours + ";BYMINUTE=8", PresetCustom}, // not the start's minute
		{"FREQ=WEEKLY;BYDAY=TU", PresetCustom},                          // not the start's weekday
		{"FREQ=MONTHLY;BYMONTHDAY=3", PresetCustom},
		{"FREQ=MONTHLY;BYDAY=1MO", PresetCustom},
		{"FREQ=DAILY;INTERVAL=2", PresetCustom},
		{"FREQ=DAILY;COUNT=3", PresetCustom},
		{"FREQ=DAILY;UNTIL=20271231T235959Z", PresetCustom},
		{"FREQ=DAILY;BYHOUR=9,18", PresetCustom},
		{"FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", PresetCustom}, // the same days, but not the preset's rule
	} {
		if got := PresetOf(mustParse(t, c.rule), start); got != c.want {
			t.Errorf("PresetOf(%s) = %s, want %s", c.rule, got, c.want)
		}
	}
	if got := PresetOf(nil, start); got != PresetOnce {
		t.Errorf("PresetOf(nil) = %s", got)
	}
}

// TestMinuteOffset pins the hash (FNV-1a 32 mod 10, checked against the
// algorithm written out here) and checks that it spreads.
func TestMinuteOffset(t *testing.T) {
	fnv1a := func(s string) uint32 {
		h := uint32(2166136261)
		for i := 0; i < len(s); i++ {
			h ^= uint32(s[i])
			h *= 16777619
		}
		return h
	}
	seen := map[int]int{}
	for i := range 10000 {
		id := fmt.Sprintf("aut_%020d", i)
		m := MinuteOffset(id)
		if m != int(fnv1a(id)%10) || MinuteOffset(id) != m {
			t.Fatalf("MinuteOffset(%q) = %d", id, m)
		}
		seen[m]++
	}
	for m := range 10 {
		if seen[m] < 800 || seen[m] > 1200 {
			t.Errorf("minute %d taken %d times in 10000", m, seen[m])
		}
	}
	if got := MinuteOffset("aut_0123456789ABCDEFGHJK"); got != int(fnv1a("aut_0123456789ABCDEFGHJK")%10) {
		t.Errorf("pinned example: %d", got)
	}
}

func TestDescribe(t *testing.T) {
	wall := func(s string) *localtime.Wall { w := mustWall(t, s); return &w }
	wd := func(ds ...time.Weekday) []time.Weekday { return ds }
	for _, c := range []struct {
		rule, start string
		want        Sentence
	}{
		{"", "2026-11-02T09:00", Sentence{Key: "once", Times: []string{"09:00"}, N: 1, On: wall("2026-11-02T09:00")}},
		{"FREQ=DAILY;BYHOUR=" + allHours + ";BYMINUTE=7", "2026-11-02T09:07", Sentence{Key: "hourly", Times: []string{":07"}, N: 1}},
		{"FREQ=DAILY", "2026-11-02T09:00", Sentence{Key: "daily", Times: []string{"09:00"}, N: 1}},
		{"FREQ=DAILY;INTERVAL=3;BYHOUR=18,9;BYMINUTE=30", "2026-11-02T09:00", Sentence{Key: "daily", Times: []string{"09:30", "18:30"}, N: 3}},
		{"FREQ=DAILY;INTERVAL=2;BYHOUR=" + allHours + ";BYMINUTE=7", "2026-11-02T09:07", Sentence{Key: "daily", Times: hourlyTimes(7), N: 2}},
		{"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:07", Sentence{Key: "weekdays", Times: []string{"09:07"}, Weekdays: wd(1, 2, 3, 4, 5), N: 1}},
		{"FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "2026-11-02T09:07", Sentence{Key: "weekdays", Times: []string{"09:07"}, Weekdays: wd(1, 2, 3, 4, 5), N: 1}},
		{"FREQ=WEEKLY", "2026-11-02T09:07", Sentence{Key: "weekly", Times: []string{"09:07"}, Weekdays: wd(1), N: 1}},
		{"FREQ=WEEKLY;INTERVAL=2;BYDAY=TH,TU;BYHOUR=10;BYMINUTE=0", "2026-11-02T09:07", Sentence{Key: "weekly", Times: []string{"10:00"}, Weekdays: wd(2, 4), N: 2}},
		{"FREQ=WEEKLY;BYDAY=SU,SA", "2026-11-02T09:07", Sentence{Key: "weekly", Times: []string{"09:07"}, Weekdays: wd(6, 0), N: 1}},
		{"FREQ=DAILY;BYDAY=SA,SU", "2026-11-02T09:07", Sentence{Key: "weekly", Times: []string{"09:07"}, Weekdays: wd(6, 0), N: 1}},
		{"FREQ=DAILY;INTERVAL=3;BYDAY=MO,FR", "2026-11-02T09:00", Sentence{Key: "daily_on_weekdays", Times: []string{"09:00"}, Weekdays: wd(1, 5), N: 3}},
		{"FREQ=MONTHLY", "2026-11-02T09:00", Sentence{Key: "monthly_days", Times: []string{"09:00"}, Days: []int{2}, N: 1}},
		{"FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=18;BYMINUTE=0", "2026-11-02T09:00", Sentence{Key: "monthly_days", Times: []string{"18:00"}, Days: []int{-1}, N: 1}},
		{"FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=-1,15,1", "2026-11-02T09:00", Sentence{Key: "monthly_days", Times: []string{"09:00"}, Days: []int{1, 15, -1}, N: 3}},
		{"FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:00", Sentence{Key: "monthly_weekdays", Times: []string{"09:07"}, Weekdays: wd(2), Ordinals: []int{2}, Ordinal: 2, N: 1}},
		{"FREQ=MONTHLY;BYDAY=-1FR,1MO", "2026-11-02T09:00", Sentence{Key: "monthly_weekdays", Times: []string{"09:00"}, Weekdays: wd(1, 5), Ordinals: []int{1, -1}, N: 1}},
		{"FREQ=MONTHLY;BYDAY=2TU,2TH", "2026-11-02T09:00", Sentence{Key: "monthly_weekdays", Times: []string{"09:00"}, Weekdays: wd(2, 4), Ordinals: []int{2, 2}, Ordinal: 2, N: 1}},
		{"FREQ=MONTHLY;BYDAY=3MO,TU", "2026-11-02T09:00", Sentence{Key: "monthly_weekdays", Times: []string{"09:00"}, Weekdays: wd(1, 2), Ordinals: []int{3, 0}, N: 1}},
		{"FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", "2026-11-02T09:00", Sentence{Key: "monthly_days_on_weekdays", Times: []string{"09:00"}, Days: []int{13}, Weekdays: wd(5), N: 1}},
		{"FREQ=DAILY;COUNT=5", "2026-11-02T09:00", Sentence{Key: "daily", Times: []string{"09:00"}, N: 1, Count: 5}},
		// UNTIL reads on the zone's clock: 20:59:59 UTC is 23:59 in Istanbul.
		{"FREQ=DAILY;UNTIL=20261231T205959Z", "2026-11-02T09:00", Sentence{Key: "daily", Times: []string{"09:00"}, N: 1, Until: wall("2026-12-31T23:59")}},
	} {
		rc := mustNew(t, c.rule, c.start, "Europe/Istanbul")
		// %+v prints On and Until through Wall.String, so this compares values.
		if got := Describe(rc); fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", c.want) {
			t.Errorf("Describe(%q)\n got  %+v\n want %+v", c.rule, got, c.want)
		}
	}
}

func hourlyTimes(minute int) []string {
	var out []string
	for h := range 24 {
		out = append(out, fmt.Sprintf("%02d:%02d", h, minute))
	}
	return out
}
