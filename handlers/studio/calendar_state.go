package studio

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/localtime"
)

// The Schedules page's state lives in its URL (RFC §15.5):
// ?view=month&date=2026-10&kind=publish,release&approval=pending. Unknown
// values are dropped, never errors, so a shared link always opens.

// Facet values the URL accepts, in the order the filters show them.
var (
	calendarViews = []string{"agenda", "month"}
	facetKinds    = []string{engine.ItemPublish, engine.ItemExpiry, engine.ItemEmbargo, engine.ItemRelease, engine.ItemAutomation}
	// States group the release states as people filter them (§15.5):
	// "attention" is conflict, failed or missed; "done" is published.
	facetStates      = []string{"scheduled", "waiting", "running", "attention", "done", "canceled"}
	facetOrigins     = []string{"person", "agent"}
	facetApprovals   = []string{engine.ApprovalNone, engine.ApprovalPending, engine.ApprovalApproved, engine.ApprovalAuto, engine.ApprovalDenied, engine.ApprovalExpired}
	facetCollections = []string{"contentEntry", "page"}
	// Built-in views (§15.5): each is a set of facets; "week" and "mine"
	// also change the range or the person.
	calendarPresets = []string{"all", "waiting", "agents", "week", "attention", "mine"}
)

// calendarState is the parsed URL of the Schedules page.
type calendarState struct {
	View string // agenda | month
	// Date is the day the view shows (agenda: its first day; month: any
	// day of the month), midnight in the site's zone.
	Date        time.Time
	Kinds       []string
	States      []string
	Origins     []string
	Approvals   []string
	Collections []string
	Preset      string // one of calendarPresets, or ""
}

// parseCalendarState reads q; today is the site's today at midnight.
func parseCalendarState(q url.Values, loc *time.Location, today time.Time) calendarState {
	s := calendarState{View: "agenda", Date: today}
	if v := q.Get("view"); slices.Contains(calendarViews, v) {
		s.View = v
	}
	if d := q.Get("date"); d != "" {
		if len(d) == len("2006-01") {
			d += "-01"
		}
		if t, err := time.ParseInLocation("2006-01-02", d, loc); err == nil && t.Year() > 1900 && t.Year() < 3000 {
			s.Date = midnight(t, loc)
		}
	}
	s.Kinds = facet(q.Get("kind"), facetKinds)
	s.States = facet(q.Get("state"), facetStates)
	s.Origins = facet(q.Get("origin"), facetOrigins)
	s.Approvals = facet(q.Get("approval"), facetApprovals)
	s.Collections = facet(q.Get("collection"), facetCollections)
	if p := q.Get("preset"); slices.Contains(calendarPresets, p) {
		s.Preset = p
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

// midnight is the first instant of t's day in loc (or just after, where
// midnight falls in a DST gap).
func midnight(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	at, _ := localtime.Resolve(localtime.Wall{Year: t.Year(), Month: t.Month(), Day: t.Day()}, loc)
	return at.In(loc)
}

// Values is the state as URL values, with only what differs from the
// defaults, so links stay short and canonical.
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
	for name, vals := range map[string][]string{"kind": s.Kinds, "state": s.States, "origin": s.Origins,
		"approval": s.Approvals, "collection": s.Collections} {
		if len(vals) > 0 {
			v.Set(name, strings.Join(vals, ","))
		}
	}
	if s.Preset != "" {
		v.Set("preset", s.Preset)
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
