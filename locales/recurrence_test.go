package locales

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"studio/engine/localtime"
	"studio/engine/recurrence"
)

const everyHour = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23"

// sentence describes rule ("" for once) from start in Istanbul.
func sentence(t *testing.T, rule, start string) recurrence.Sentence {
	t.Helper()
	w, err := localtime.ParseWall(start)
	if err != nil {
		t.Fatal(err)
	}
	zone, _ := localtime.LoadZone("Europe/Istanbul")
	var r *recurrence.Rule
	if rule != "" {
		parsed, err := recurrence.Parse(rule)
		if err != nil {
			t.Fatalf("%s: %v", rule, err)
		}
		r = &parsed
	}
	rc, err := recurrence.New(w, zone, r)
	if err != nil {
		t.Fatalf("%s: %v", rule, err)
	}
	return recurrence.Describe(rc)
}

// TestRecurrenceSentences renders every preset and every custom shape in
// both languages, exactly; the glossary's examples are among them.
func TestRecurrenceSentences(t *testing.T) {
	for _, c := range []struct{ rule, start, en, tr string }{
		// Presets.
		{"", "2026-11-02T09:00", "Once, on 2 November 2026 at 09:00", "Bir kez, 2 Kasım 2026 09:00"},
		{"FREQ=DAILY;BYHOUR=" + everyHour + ";BYMINUTE=7", "2026-11-02T09:07", "Every hour at :07", "Her saat :07"},
		{"FREQ=DAILY;BYHOUR=9;BYMINUTE=0", "2026-11-02T09:00", "Every day at 09:00", "Her gün 09:00"},
		{"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:07", "Weekdays at 09:07", "Hafta içi her gün 09:07"},
		{"FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:07", "Every week on Monday at 09:07", "Her hafta pazartesi 09:07"},
		{"FREQ=MONTHLY;BYMONTHDAY=2;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:07", "On the 2nd of every month at 09:07", "Her ayın 2. günü 09:07"},
		// Custom shapes.
		{"FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=7", "2026-11-01T09:07", "On the second Tuesday of every month at 09:07", "Her ayın ikinci salısı 09:07"},
		{"FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=18;BYMINUTE=0", "2026-11-01T09:07", "On the last day of every month at 18:00", "Her ayın son günü 18:00"},
		{"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;BYHOUR=10;BYMINUTE=0", "2026-11-01T09:07", "Every 2 weeks on Tuesday and Thursday at 10:00", "Her 2 haftada bir salı ve perşembe 10:00"},
		{"FREQ=DAILY;INTERVAL=3", "2026-11-02T09:00", "Every 3 days at 09:00", "3 günde bir 09:00"},
		{"FREQ=DAILY;BYHOUR=9,13,18;BYMINUTE=30", "2026-11-02T09:00", "Every day at 09:30, 13:30 and 18:30", "Her gün 09:30, 13:30 ve 18:30"},
		{"FREQ=DAILY;BYDAY=SA,SU", "2026-11-02T10:00", "Every week on Saturday and Sunday at 10:00", "Her hafta cumartesi ve pazar 10:00"},
		{"FREQ=WEEKLY;BYDAY=MO,WE,FR", "2026-11-02T08:00", "Every week on Monday, Wednesday and Friday at 08:00", "Her hafta pazartesi, çarşamba ve cuma 08:00"},
		{"FREQ=DAILY;INTERVAL=3;BYDAY=MO,FR", "2026-11-02T09:00", "Every 3 days at 09:00, if that day is a Monday or Friday", "3 günde bir 09:00, o gün pazartesi ya da cuma ise"},
		{"FREQ=MONTHLY;BYMONTHDAY=1,15", "2026-11-02T09:00", "On the 1st and 15th of every month at 09:00", "Her ayın 1. ve 15. günü 09:00"},
		{"FREQ=MONTHLY;BYMONTHDAY=15,-1", "2026-11-02T09:00", "On the 15th and last day of every month at 09:00", "Her ayın 15. ve son günü 09:00"},
		{"FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=22", "2026-11-02T09:00", "On the 22nd of every 3 months at 09:00", "3 ayda bir, ayın 22. günü 09:00"},
		{"FREQ=MONTHLY;BYDAY=1MO,-1FR", "2026-11-02T09:00", "On the first Monday and the last Friday of every month at 09:00", "Her ayın ilk pazartesisi ve son cuması 09:00"},
		{"FREQ=MONTHLY;BYDAY=-2WE", "2026-11-02T09:00", "On the second-to-last Wednesday of every month at 09:00", "Her ayın sondan ikinci çarşambası 09:00"},
		{"FREQ=MONTHLY;BYDAY=3MO,TU", "2026-11-02T09:00", "On the third Monday and every Tuesday of every month at 09:00", "Her ayın üçüncü pazartesisi ve her salısı 09:00"},
		{"FREQ=MONTHLY;INTERVAL=2;BYDAY=5SA,5SU", "2026-11-02T09:00", "On the fifth Saturday and the fifth Sunday of every 2 months at 09:00", "2 ayda bir, ayın beşinci cumartesisi ve beşinci pazarı 09:00"},
		{"FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR", "2026-11-02T09:00", "On the 13th of every month at 09:00, if that day is a Friday", "Her ayın 13. günü 09:00, o gün cuma ise"},
		{"FREQ=MONTHLY;BYDAY=TH", "2026-11-02T09:00", "On every Thursday of every month at 09:00", "Her ayın her perşembesi 09:00"},
		// COUNT and UNTIL, with the plural English needs.
		{"FREQ=DAILY;COUNT=5", "2026-11-02T09:00", "Every day at 09:00, 5 times", "Her gün 09:00, 5 kez"},
		{"FREQ=WEEKLY;COUNT=1", "2026-11-02T09:00", "Every week on Monday at 09:00, once", "Her hafta pazartesi 09:00, 1 kez"},
		{"FREQ=DAILY;UNTIL=20261231T205959Z", "2026-11-02T09:00", "Every day at 09:00, until 31 December 2026", "Her gün 09:00, 31 Aralık 2026 tarihine kadar"},
		{"FREQ=DAILY;UNTIL=20261231T090000Z", "2026-11-02T09:00", "Every day at 09:00, until 31 December 2026 at 12:00", "Her gün 09:00, 31 Aralık 2026 12:00 tarihine kadar"},
	} {
		s := sentence(t, c.rule, c.start)
		for lang, want := range map[string]string{"en": c.en, "tr": c.tr} {
			if got := For(lang).Recurrence(s); got != want {
				t.Errorf("%s %q:\n got  %q\n want %q", lang, c.rule, got, want)
			}
		}
	}
}

// TestRecurrenceEveryShapeRenders: every key Describe can produce, with
// every ordinal, weekday and day of the month, renders in both languages
// without a missing message.
func TestRecurrenceEveryShapeRenders(t *testing.T) {
	var rules []string
	for _, d := range []string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"} {
		for _, n := range []string{"", "1", "2", "3", "4", "5", "-1", "-2", "-3", "-4", "-5"} {
			rules = append(rules, "FREQ=MONTHLY;BYDAY="+n+d)
		}
		rules = append(rules, "FREQ=WEEKLY;BYDAY="+d, "FREQ=DAILY;INTERVAL=2;BYDAY="+d, "FREQ=MONTHLY;BYMONTHDAY=1;BYDAY="+d)
	}
	for d := 1; d <= 31; d++ {
		rules = append(rules, "FREQ=MONTHLY;BYMONTHDAY="+strconv.Itoa(d)+",-1;INTERVAL=2;COUNT=2")
	}
	for _, lang := range Languages {
		p := For(lang)
		for _, rule := range rules {
			got := p.Recurrence(sentence(t, rule, "2026-11-02T09:00"))
			if strings.Contains(got, "recurrence.") || strings.Contains(got, "<no value>") || strings.Contains(got, "  ") {
				t.Errorf("%s %s: %q", lang, rule, got)
			}
		}
		for _, preset := range recurrence.Presets {
			if got := p.RecurrencePreset(preset); strings.HasPrefix(got, "recurrence.") {
				t.Errorf("%s: no name for preset %s", lang, preset)
			}
		}
	}
	if got := For("tr").RecurrencePreset(recurrence.PresetWeekdays); got != "Hafta içi her gün" {
		t.Errorf("tr weekdays preset: %q", got)
	}
}

// TestRecurrenceErrors: every code engine/recurrence can return has a
// sentence in both languages.
func TestRecurrenceErrors(t *testing.T) {
	generic := map[string]string{}
	for _, lang := range Languages {
		generic[lang] = For(lang).T("error.invalid")
	}
	for _, code := range recurrence.Codes() {
		for _, lang := range Languages {
			got := For(lang).RecurrenceError(&recurrence.Error{Code: code})
			if got == generic[lang] || strings.HasPrefix(got, "recurrence.") {
				t.Errorf("%s: no message for %s", lang, code)
			}
		}
	}
	_, err := recurrence.Parse("RRULE:FREQ=DAILY")
	if got := For("tr").RecurrenceError(err); got != "Baştaki “RRULE:” kısmını çıkarın; yalnızca FREQ=… ve sonrasını yazın." {
		t.Errorf("tr rrule_prefix: %q", got)
	}
	if got := For("en").RecurrenceError(errors.New("boom")); got != generic["en"] {
		t.Errorf("a foreign error: %q", got)
	}
}

// TestRecurrenceConcurrent renders in both languages at once (under -race)
// and compares with one at a time.
func TestRecurrenceConcurrent(t *testing.T) {
	s := sentence(t, "FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=7;COUNT=3", "2026-11-01T09:07")
	want := map[string]string{"en": For("en").Recurrence(s), "tr": For("tr").Recurrence(s)}
	var wg sync.WaitGroup
	for i := range 20 {
		lang := Languages[i%2]
		wg.Go(func() {
			if got := For(lang).Recurrence(s); got != want[lang] {
				t.Errorf("%s: %q", lang, got)
			}
		})
	}
	wg.Wait()
}
