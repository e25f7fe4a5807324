package studio

import (
	"net/url"
	"slices"
	"strings"
	"studio/engine/calendar"
	"time"

	"studio/engine/localtime"
)

// The Schedules page's state lives in its URL (RFC §15.5):
// ?view=month&date=2026-10&kind=publish,release&approval=pending. Unknown
// values are dropped, never errors, so a shared link always opens.

// Facet values the URL accepts, in the order the filters show them.
var (
	calendarViews    = []string{"agenda", "month"}
	facetKinds       = calendar.ItemKinds
	facetStates      = calendar.StateFacets // grouped as people filter them (§15.5)
	facetOrigins     = []string{"person", "agent"}
	facetApprovals   = calendar.ApprovalFacets
	facetCollections = []string{"contentEntry", "page"}
	// Built-in views (§15.5): each is a set of facets; "week" and "mine"
	// also change the range or the person.
	calendarPresets = []string{"all", "waiting", "agents", "week", "attention", "mine"}
)

// Agenda periods: ‹ and › move by a span of days; "This week" shows one
// week from its Monday (weeks start on Monday in both languages, §15.8).
const (
	agendaSpanDays = 14
	weekSpanDays   = 7
)

// calendarPreset is what a built-in view sets (§15.5).
type calendarPreset struct {
	Kinds, States, Origins, Approvals, Collections []string
	// Mine keeps the items the person created or approved.
	Mine bool
	// Week shows the week of the date, Monday to Sunday, on the Agenda.
	Week bool
}

// calendarPresetFacets maps each built-in view to its facets. "all" sets
// none: it is the page without filters.
var calendarPresetFacets = map[string]calendarPreset{
	"all":       {},
	"waiting":   {Approvals: []string{calendar.ApprovalPending}},
	"agents":    {Origins: []string{"agent"}},
	"week":      {Week: true},
	"attention": {States: []string{"attention"}},
	"mine":      {Mine: true},
}

// calendarState is the parsed URL of the Schedules page.
type calendarState struct {
	View string // agenda | month
	// Date is the day the view shows (agenda: its first day; month: any
	// day of the month), midnight in the zone the page shows.
	Date        time.Time
	Kinds       []string
	States      []string
	Origins     []string
	Approvals   []string
	Collections []string
	Preset      string // one of calendarPresets, or ""
	// TZ is "viewer" when the Agenda shows times and days in the viewer's
	// own zone ("Show in my time"), "" for the site's.
	TZ string
	// Text is the search in the titles (the URL's q), at most
	// calendar.TextMax characters.
	Text string
}

// parseCalendarState reads q; today is today at midnight in loc, the zone
// the page shows. A facet may come comma-separated (kind=publish,release,
// as links write it) or repeated (kind=publish&kind=release, as the
// filters form sends it). A built-in view fills the facets the URL leaves
// empty.
func parseCalendarState(q url.Values, loc *time.Location, today time.Time) calendarState {
	s := calendarState{View: "agenda", Date: today}
	if v := q.Get("view"); slices.Contains(calendarViews, v) {
		s.View = v
	}
	if d := q.Get("date"); d != "" {
		if len(d) == len("2006-01") {
			d += "-01"
		}
		// The date alone, then its day in loc: a midnight in a DST gap
		// must not slide to the day before.
		if t, err := time.Parse("2006-01-02", d); err == nil && t.Year() > 1900 && t.Year() < 3000 {
			s.Date = midnight(time.Date(t.Year(), t.Month(), t.Day(), 12, 0, 0, 0, loc), loc)
		}
	}
	s.Kinds = facetValues(q["kind"], facetKinds)
	s.States = facetValues(q["state"], facetStates)
	s.Origins = facetValues(q["origin"], facetOrigins)
	s.Approvals = facetValues(q["approval"], facetApprovals)
	s.Collections = facetValues(q["collection"], facetCollections)
	if p := q.Get("preset"); slices.Contains(calendarPresets, p) && p != "all" {
		s.Preset = p
		pr := calendarPresetFacets[p]
		for _, f := range []struct {
			got  *[]string
			from []string
		}{{&s.Kinds, pr.Kinds}, {&s.States, pr.States},
			{&s.Origins, pr.Origins}, {&s.Approvals, pr.Approvals}, {&s.Collections, pr.Collections}} {
			if len(*f.got) == 0 && len(f.from) > 0 {
				*f.got = slices.Clone(f.from)
			}
		}
	}
	if q.Get("tz") == "viewer" {
		s.TZ = "viewer"
	}
	if text := []rune(strings.TrimSpace(q.Get("q"))); len(text) > 0 {
		s.Text = string(text[:min(len(text), calendar.TextMax)])
	}
	if s.View == "agenda" && s.week() {
		s.Date = weekStart(s.Date, loc)
	}
	return s
}

// facet keeps the known values of a comma-separated list, in the canonical
// order, without repeats.
func facet(raw string, known []string) []string {
	if raw == "" {
		return nil
	}
	given := strings.Split(raw, ",")
	var out []string
	for _, k := range known {
		if slices.Contains(given, k) {
			out = append(out, k)
		}
	}
	return out
}

// facetValues is facet over every value a query gives for one name.
func facetValues(raw []string, known []string) []string {
	return facet(strings.Join(raw, ","), known)
}

// midnight is the first instant of t's day in loc (or just after, where
// midnight falls in a DST gap).
func midnight(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	at, _ := localtime.Resolve(localtime.Wall{Year: t.Year(), Month: t.Month(), Day: t.Day()}, loc)
	return at.In(loc)
}

// addDays is the midnight n calendar days after t's day in loc: a day is
// 23 or 25 hours long across a clock change, so never t.Add(24h × n).
func addDays(t time.Time, n int, loc *time.Location) time.Time {
	t = t.In(loc)
	return midnight(time.Date(t.Year(), t.Month(), t.Day()+n, 12, 0, 0, 0, loc), loc)
}

// weekStart is the Monday of t's week, at midnight in loc.
func weekStart(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	back := (int(t.Weekday()) + 6) % 7 // Monday 0 … Sunday 6
	return addDays(t, -back, loc)
}

// monthStart is the first of t's month, at midnight in loc.
func monthStart(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	return midnight(time.Date(t.Year(), t.Month(), 1, 12, 0, 0, 0, loc), loc)
}

// Values is the state as URL values, with only what differs from the
// defaults, so links stay short and canonical: a built-in view's own
// facets are implied by preset=….
func (s calendarState) Values() url.Values {
	v := url.Values{}
	if s.View != "agenda" {
		v.Set("view", s.View)
	}
	if s.View == "month" {
		v.Set("date", s.Date.Format("2006-01"))
	} else {
		v.Set("date", s.Date.Format("2006-01-02"))
	}
	pr := calendarPresetFacets[s.Preset]
	for _, f := range []struct {
		name       string
		vals, from []string
	}{{"kind", s.Kinds, pr.Kinds}, {"state", s.States, pr.States}, {"origin", s.Origins, pr.Origins},
		{"approval", s.Approvals, pr.Approvals}, {"collection", s.Collections, pr.Collections}} {
		if len(f.vals) > 0 && !slices.Equal(f.vals, f.from) {
			v.Set(f.name, strings.Join(f.vals, ","))
		}
	}
	if s.Preset != "" {
		v.Set("preset", s.Preset)
	}
	if s.TZ != "" {
		v.Set("tz", s.TZ)
	}
	if s.Text != "" {
		v.Set("q", s.Text)
	}
	return v
}

// URL is the Schedules page for this state.
func (s calendarState) URL() string { return "/studio/schedules?" + s.Values().Encode() }

// With returns a copy with the view and date changed.
func (s calendarState) With(view string, date time.Time) calendarState {
	s.View, s.Date = view, date
	return s
}

// Mine reports whether only the person's own items show ("Mine").
func (s calendarState) Mine() bool { return calendarPresetFacets[s.Preset].Mine }

func (s calendarState) week() bool { return calendarPresetFacets[s.Preset].Week }

// SpanDays is the Agenda's period in days.
func (s calendarState) SpanDays() int {
	if s.week() {
		return weekSpanDays
	}
	return agendaSpanDays
}

// Range is the period the view shows, [from, to) in loc: SpanDays days
// from Date on the Agenda, Date's month on the Month.
func (s calendarState) Range(loc *time.Location) (from, to time.Time) {
	if s.View == "month" {
		from = monthStart(s.Date, loc)
		t := from.In(loc)
		return from, midnight(time.Date(t.Year(), t.Month()+1, 1, 12, 0, 0, 0, loc), loc)
	}
	return s.Date, addDays(s.Date, s.SpanDays(), loc)
}

// Step is the state one period later (n = 1) or earlier (n = -1).
func (s calendarState) Step(n int, loc *time.Location) calendarState {
	if s.View == "month" {
		t := monthStart(s.Date, loc).In(loc)
		s.Date = midnight(time.Date(t.Year(), t.Month()+time.Month(n), 1, 12, 0, 0, 0, loc), loc)
		return s
	}
	s.Date = addDays(s.Date, n*s.SpanDays(), loc)
	return s
}

// Filtered reports whether any facet or built-in view narrows the page.
func (s calendarState) Filtered() bool {
	return s.Preset != "" || s.Text != "" || len(s.Kinds)+len(s.States)+len(s.Origins)+len(s.Approvals)+len(s.Collections) > 0
}

// Cleared is the state without facets and built-in view.
func (s calendarState) Cleared() calendarState {
	s.Kinds, s.States, s.Origins, s.Approvals, s.Collections, s.Preset, s.Text = nil, nil, nil, nil, nil, "", ""
	return s
}

// WithPreset is the state showing a built-in view from scratch: its facets
// only; "This week" goes to the week of today.
func (s calendarState) WithPreset(p string, today time.Time, loc *time.Location) calendarState {
	s = s.Cleared()
	if p == "all" {
		return s
	}
	s.Preset = p
	pr := calendarPresetFacets[p]
	s.Kinds, s.States, s.Origins = slices.Clone(pr.Kinds), slices.Clone(pr.States), slices.Clone(pr.Origins)
	s.Approvals, s.Collections = slices.Clone(pr.Approvals), slices.Clone(pr.Collections)
	if pr.Week {
		s.View, s.Date = "agenda", weekStart(today, loc)
	}
	return s
}

// ActivePreset is the built-in view the page shows: the one in the URL,
// "all" without filters, or the view whose facets the filters match
// exactly; "" when the filters are a mix of their own.
func (s calendarState) ActivePreset() string {
	if s.Preset != "" {
		return s.Preset
	}
	if !s.Filtered() {
		return "all"
	}
	for _, p := range calendarPresets {
		pr := calendarPresetFacets[p]
		if p == "all" || pr.Mine || pr.Week {
			continue
		}
		if slices.Equal(s.Kinds, pr.Kinds) && slices.Equal(s.States, pr.States) && slices.Equal(s.Origins, pr.Origins) &&
			slices.Equal(s.Approvals, pr.Approvals) && slices.Equal(s.Collections, pr.Collections) {
			return p
		}
	}
	return ""
}

// Query is the engine's query for this state over [from, to): the state
// facets go as they are (the engine groups release states the same way,
// and hides canceled, denied and expired unless a facet asks for them).
func (s calendarState) Query(siteID string, from, to time.Time) calendar.CalendarQuery {
	return calendar.CalendarQuery{SiteID: siteID, From: from, To: to, Kinds: s.Kinds, States: s.States, Origins: s.Origins,
		Approvals: s.Approvals, Collections: s.Collections, Mine: s.Mine(), Text: s.Text, Limit: calendar.CalendarMaxItems}
}
