package studio

import (
	"net/url"
	"reflect"
	"testing"
	"time"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestCalendarStateRoundTrip: every state the page links to parses back to
// itself from its URL, and its URL is canonical (parse ∘ format is the
// identity on canonical URLs).
func TestCalendarStateRoundTrip(t *testing.T) {
	ist := mustZone(t, "Europe/Istanbul")
	today := midnight(time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), ist)
	base := parseCalendarState(url.Values{}, ist, today)
	var states []calendarState
	for _, view := range calendarViews {
		for _, preset := range calendarPresets {
			s := base.With(view, today).WithPreset(preset, today, ist)
			states = append(states, s, s.Step(1, ist), s.Step(-1, ist))
			s.Kinds, s.Origins = []string{"publish", "release"}, []string{"agent"}
			s.TZ = "viewer"
			states = append(states, s)
			s.States, s.Approvals, s.Collections = []string{"waiting", "done"}, []string{"pending", "expired"}, []string{"page"}
			states = append(states, s)
		}
	}
	for _, s := range states {
		q, err := url.ParseQuery(s.Values().Encode())
		if err != nil {
			t.Fatal(err)
		}
		got := parseCalendarState(q, ist, today)
		if s.View == "month" { // a month's URL names the month, not the day
			s.Date = monthStart(s.Date, ist)
			got.Date = monthStart(got.Date, ist)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("%s\nparsed %+v\nwant   %+v", s.URL(), got, s)
		}
		if again := got.URL(); again != s.URL() {
			t.Errorf("not canonical: %s → %s", s.URL(), again)
		}
	}
}

func TestParseCalendarState(t *testing.T) {
	ist := mustZone(t, "Europe/Istanbul")
	today := midnight(time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), ist) // Monday
	for _, c := range []struct {
		name, query, want string
	}{
		{"Default", "", "date=2026-11-02"},
		{"IssueExample", "view=month&date=2026-10&kind=publish,release&origin=agent&approval=pending",
			"approval=pending&date=2026-10&kind=publish%2Crelease&origin=agent&view=month"},
		{"UnknownValuesDropped", "view=week&date=2026-13-45&kind=publish,bogus&state=nope&origin=robot&preset=zzz&tz=mars&collection=menu",
			"date=2026-11-02&kind=publish"},
		{"CanonicalOrder", "kind=release,publish,release", "date=2026-11-02&kind=publish%2Crelease"},
		{"RepeatedValues", "kind=release&kind=publish", "date=2026-11-02&kind=publish%2Crelease"},
		{"OutOfRangeYear", "date=0001-01-01", "date=2026-11-02"},
		{"PresetFillsItsFacet", "preset=waiting", "date=2026-11-02&preset=waiting"},
		{"PresetAndMoreFacets", "preset=waiting&origin=agent", "date=2026-11-02&origin=agent&preset=waiting"},
		{"PresetAll", "preset=all&kind=publish", "date=2026-11-02&kind=publish"},
		{"WeekStartsOnMonday", "preset=week&date=2026-11-08", "date=2026-11-02&preset=week"},
		{"WeekOnMonth", "preset=week&view=month&date=2026-11-08", "date=2026-11&preset=week&view=month"},
		{"ViewerZone", "tz=viewer", "date=2026-11-02&tz=viewer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, _ := url.ParseQuery(c.query)
			if got := parseCalendarState(q, ist, today).Values().Encode(); got != c.want {
				t.Errorf("?%s → %s, want %s", c.query, got, c.want)
			}
		})
	}
	q, _ := url.ParseQuery("preset=waiting")
	s := parseCalendarState(q, ist, today)
	if !reflect.DeepEqual(s.Approvals, []string{"pending"}) || s.ActivePreset() != "waiting" {
		t.Errorf("preset=waiting: approvals %v, active %q", s.Approvals, s.ActivePreset())
	}
	q, _ = url.ParseQuery("approval=pending")
	if got := parseCalendarState(q, ist, today).ActivePreset(); got != "waiting" {
		t.Errorf("approval=pending is the Waiting view, got %q", got)
	}
	q, _ = url.ParseQuery("preset=mine")
	if s := parseCalendarState(q, ist, today); !s.Mine() || s.Query("site", today, today.Add(time.Hour)).Mine != true {
		t.Errorf("preset=mine does not ask for mine")
	}
}

// TestCalendarPeriods: periods are calendar days and months in the zone,
// whatever the clocks do.
func TestCalendarPeriods(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	today := midnight(time.Date(2026, 10, 19, 10, 0, 0, 0, berlin), berlin)
	s := parseCalendarState(url.Values{}, berlin, today)
	from, to := s.Range(berlin)
	// 19 October to 2 November crosses the end of summer time on the 25th.
	if want := time.Date(2026, 11, 2, 0, 0, 0, 0, berlin); !to.Equal(want) || to.Sub(from) != 14*24*time.Hour+time.Hour {
		t.Errorf("agenda range %v – %v, want to %v (one hour longer than 14 × 24 h)", from, to, want)
	}
	if next := s.Step(1, berlin); next.Date.Format("2006-01-02 15:04") != "2026-11-02 00:00" {
		t.Errorf("next period starts %v", next.Date)
	}
	if prev := s.Step(-1, berlin); prev.Date.Format("2006-01-02 15:04") != "2026-10-05 00:00" {
		t.Errorf("previous period starts %v", prev.Date)
	}
	m := s.With("month", today)
	from, to = m.Range(berlin)
	if from.Format("2006-01-02 15:04 MST") != "2026-10-01 00:00 CEST" || to.Format("2006-01-02 15:04 MST") != "2026-11-01 00:00 CET" {
		t.Errorf("month range %v – %v", from, to)
	}
	if got := m.Step(-1, berlin).Values().Get("date"); got != "2026-09" {
		t.Errorf("previous month %s", got)
	}
	if got := m.Step(3, berlin).Values().Get("date"); got != "2027-01" {
		t.Errorf("three months on %s", got)
	}
	// A week from its Monday, on the day the clocks go back.
	w := parseCalendarState(url.Values{"preset": {"week"}, "date": {"2026-10-25"}}, berlin, today)
	from, to = w.Range(berlin)
	if from.Format("2006-01-02") != "2026-10-19" || to.Format("2006-01-02 15:04") != "2026-10-26 00:00" {
		t.Errorf("week %v – %v", from, to)
	}
	// Santiago skips midnight on its spring day: the day starts at 01:00.
	scl := mustZone(t, "America/Santiago")
	d := parseCalendarState(url.Values{"date": {"2026-09-06"}}, scl, today)
	if got := d.Date.Format("15:04"); got != "01:00" {
		t.Errorf("a day without midnight starts at %s", got)
	}
}
