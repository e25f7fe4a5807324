package studio

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"studio/engine/calendar"
	"studio/engine/releases"
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/scheduler"
	"studio/locales"
	"studio/web/templates"
)

// The Schedules page (RFC §15.1, §15.2, §15.5): the navigation, the
// time-zone note and the filters around the Agenda or the Month, an aside
// with the requests waiting for approval and the scheduler's health, and
// the banners. The URL is the state (calendar_state.go). htmx swaps the
// #calendar region and, out of band, the parts around it that the state
// changes, so a period, a filter or an inline approval never reloads the
// page; every link and form is also a plain page without JavaScript.

const (
	// keyCalendarAlert carries a refused inline decision to the Schedules
	// page the person comes back to.
	keyCalendarAlert = "calendar_alert"
	// attentionPastDays is how far back "needs attention" looks: the
	// notifications' week of problems (§14).
	attentionPastDays = 7
	// asideWaitingRows is how many requests the aside lists.
	asideWaitingRows = 5
	// asideDraftRows is how many draft releases the aside lists.
	asideDraftRows = 20
	// foldFrom is the fewest finished items of today, or automation runs
	// of a day, that fold: one row folded into a one-line summary saves
	// nothing and costs a click.
	foldFrom = 2
)

// calendarZone is the zone the page shows days and times in: the site's,
// or with tz=viewer on the Agenda the viewer's own ("Show in my time").
type calendarZone struct {
	loc      *time.Location
	name     string
	viewer   bool
	site     *time.Location
	siteName string
	// other is the zone the note offers to switch to, nil when the
	// viewer's clock is the site's (or unknown).
	other     *time.Location
	otherName string
}

func (h *Handler) calendarZone(r *http.Request, q url.Values) calendarZone {
	st := stateOf(r.Context())
	site := siteLoc(st.site)
	z := calendarZone{loc: site, name: site.String(), site: site, siteName: site.String()}
	v := viewerZone(r)
	now := h.eng.Now()
	if v == nil || localtime.OffsetLabel(now, v) == localtime.OffsetLabel(now, site) {
		return z
	}
	z.other, z.otherName = v, v.String()
	if q.Get("tz") == "viewer" && q.Get("view") != "month" { // the Month is the site's grid
		z.loc, z.name, z.viewer = v, v.String(), true
		z.other, z.otherName = site, site.String()
	}
	return z
}

// pair shows at in the page's zone and, when the other clock differs, in
// that one too.
func (z calendarZone) pair(r *http.Request, at time.Time) templates.TimePair {
	if !z.viewer {
		return timePair(r, at, z.siteName)
	}
	p := locales.From(r.Context())
	tp := templates.TimePair{At: at.In(z.loc), SiteCity: p.ZoneCity(z.name)}
	if s := at.In(z.site); locales.Clock(s) != locales.Clock(tp.At) {
		tp.Viewer, tp.ViewerCity = &s, p.ZoneCity(z.siteName)
	}
	return tp
}

// isFragment reports an htmx request for a part of the page. htmx asks
// for the whole page again when its history cache misses.
func isFragment(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-History-Restore-Request") != "true"
}

// Calendar is the Schedules page. For htmx it answers the #calendar region
// with the rest out of band, or only the next rows for "Load more".
func (h *Handler) Calendar(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	z := h.calendarZone(r, q)
	cs := parseCalendarState(q, z.loc, midnight(h.eng.Now(), z.loc))
	w.Header().Set("Vary", "HX-Request") // a fragment and the page share the URL
	fragment := isFragment(r)
	if fragment && q.Get("cursor") != "" && cs.View == "agenda" {
		a, err := h.agendaView(r, cs, z, q.Get("cursor"), q.Get("after"))
		if err != nil {
			h.fail(w, r, err)
			return
		}
		h.render(w, r, http.StatusOK, templates.AgendaMore(a))
		return
	}
	v, err := h.calendarView(r, cs, z, q.Get("cursor"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if fragment {
		if cur, err := url.Parse(r.Header.Get("HX-Current-URL")); err != nil || cur.RequestURI() != v.URL {
			w.Header().Set("HX-Push-Url", to(r, v.URL)) // the canonical URL, however the form spelled it
		}
		v.Filters.Open = v.Filters.Open || r.Header.Get("HX-Trigger") == "filters-form"
		h.render(w, r, http.StatusOK, templates.CalendarFragment(v, h.sessions.PopString(ctx, keyNext)))
		return
	}
	h.render(w, r, http.StatusOK, templates.CalendarPage(h.page(r, "agenda.title", "schedules"), v))
}

// calendarView builds everything the page shows for cs.
func (h *Handler) calendarView(r *http.Request, cs calendarState, z calendarZone, cursor string) (templates.CalendarView, error) {
	ctx := r.Context()
	st := stateOf(ctx)
	p := locales.From(ctx)
	now := h.eng.Now()
	today := midnight(now, z.loc)
	v := templates.CalendarView{View: cs.View, URL: cs.URL(), ViewerZone: z.viewer, CSRF: st.csrf,
		Title: periodTitle(p, cs, z.loc), Alert: h.sessions.PopString(ctx, keyCalendarAlert)}
	var err error
	v.Nav = calendarNav(p, cs, z.loc, today)
	v.Zone = zoneNote(p, cs, z, now)
	v.Filters = calendarFilters(p, cs, z.loc, today)
	if cs.View == "month" {
		m, err := h.monthView(r, cs)
		if err != nil {
			return v, err
		}
		v.Month = &m
	} else {
		a, err := h.agendaView(r, cs, z, cursor, "")
		if err != nil {
			return v, err
		}
		v.Agenda = &a
	}
	if v.Aside, err = h.calendarAside(r, z); err != nil {
		return v, err
	}
	if v.Attention, err = h.attention(r, cs, z); err != nil {
		return v, err
	}
	if v.Paused, err = h.pausedBanner(r); err != nil {
		return v, err
	}
	if v.Aside.Stalled {
		v.Stalled = &templates.StalledBanner{LastTick: v.Aside.Health.LastTick, CanSettings: v.Aside.CanSettings}
	}
	if v.Paused != nil { // the Scheduler card promises no publish while paused
		v.Aside.Paused, v.Aside.Held = true, v.Paused.Effects.HeldCount
	}
	return v, nil
}

// periodTitle names the period: "2–15 November 2026", "26 October – 8
// November 2026", "November 2026" (the same order in Turkish).
func periodTitle(p *locales.Printer, cs calendarState, loc *time.Location) string {
	from, to := cs.Range(loc)
	f, l := from.In(loc), addDays(to, -1, loc).In(loc) // the first and the last day shown
	month := func(t time.Time) string { return p.T("month.name." + strconv.Itoa(int(t.Month()))) }
	switch {
	case cs.View == "month":
		return p.T("month.caption", "Month", month(f), "Year", f.Year())
	case f.Year() != l.Year():
		return fmt.Sprintf("%d %s %d – %d %s %d", f.Day(), month(f), f.Year(), l.Day(), month(l), l.Year())
	case f.Month() != l.Month():
		return fmt.Sprintf("%d %s – %d %s %d", f.Day(), month(f), l.Day(), month(l), l.Year())
	}
	return fmt.Sprintf("%d–%d %s %d", f.Day(), l.Day(), month(l), l.Year())
}

// calendarNav is ‹ Today ›, "Go to date" and the view switch.
func calendarNav(p *locales.Printer, cs calendarState, loc *time.Location, today time.Time) templates.CalendarNav {
	n := templates.CalendarNav{PrevURL: cs.Step(-1, loc).URL(), NextURL: cs.Step(1, loc).URL(),
		TodayURL: cs.With(cs.View, today).URL(), Date: cs.Date.Format("2006-01-02")}
	switch {
	case cs.View == "month":
		n.PrevLabel, n.NextLabel = p.T("calendar.prev_month"), p.T("calendar.next_month")
	case cs.SpanDays() == weekSpanDays:
		n.PrevLabel, n.NextLabel = p.T("calendar.prev_week"), p.T("calendar.next_week")
	default:
		n.PrevLabel, n.NextLabel = p.T("calendar.prev_days", "Count", cs.SpanDays()), p.T("calendar.next_days", "Count", cs.SpanDays())
	}
	agendaDate := cs.Date
	if cs.View == "month" { // from a month to its days: today if it is in it, else its first
		if from, to := cs.Range(loc); !today.Before(from) && today.Before(to) {
			agendaDate = today
		} else {
			agendaDate = from
		}
	}
	n.AgendaURL, n.MonthURL = cs.With("agenda", agendaDate).URL(), cs.With("month", cs.Date).URL()
	n.Keep = keep(cs.Values(), "date")
	return n
}

// keep lists v without the names given, as hidden fields.
func keep(v url.Values, without ...string) []templates.HiddenField {
	for _, name := range without {
		v.Del(name)
	}
	var out []templates.HiddenField
	for _, name := range []string{"view", "date", "kind", "state", "origin", "approval", "collection", "preset", "tz", "q"} {
		if s := v.Get(name); s != "" {
			out = append(out, templates.HiddenField{Name: name, Value: s})
		}
	}
	return out
}

// zoneNote is "Times are in Istanbul time (UTC+3)" and the switch between
// the site's and the viewer's zones.
func zoneNote(p *locales.Printer, cs calendarState, z calendarZone, now time.Time) templates.ZoneNote {
	n := templates.ZoneNote{City: p.ZoneCity(z.name), Offset: localtime.OffsetLabel(now, z.loc), Viewer: z.viewer}
	if z.other != nil && cs.View != "month" {
		other := cs
		if z.viewer {
			other.TZ = ""
		} else {
			other.TZ = "viewer"
		}
		n.ToggleURL, n.OtherCity = other.URL(), p.ZoneCity(z.otherName)
	}
	return n
}

// calendarFilters are the facets, the built-in views and "Clear filters".
func calendarFilters(p *locales.Printer, cs calendarState, loc *time.Location, today time.Time) templates.CalendarFilters {
	f := templates.CalendarFilters{}
	// The form's checkboxes are the facets; a view that is not facets
	// ("This week", "Mine") goes along with the period and the zone.
	v := cs.Values()
	for _, name := range []string{"kind", "state", "origin", "approval", "collection"} {
		v.Del(name)
	}
	if pr := calendarPresetFacets[cs.Preset]; !pr.Mine && !pr.Week {
		v.Del("preset")
	}
	f.Keep = keep(v)
	for _, g := range []struct {
		name          string
		known, chosen []string
	}{{"kind", facetKinds, cs.Kinds}, {"state", facetStates, cs.States}, {"origin", facetOrigins, cs.Origins},
		{"approval", facetApprovals, cs.Approvals}, {"collection", facetCollections, cs.Collections}} {
		group := templates.FilterGroup{Name: g.name, Legend: p.T("calendar.facet." + g.name)}
		for _, val := range g.known {
			checked := false
			for _, c := range g.chosen {
				checked = checked || c == val
			}
			if checked {
				f.Chosen++
			}
			group.Options = append(group.Options, templates.FilterOption{Value: val, Checked: checked,
				Label: p.T("calendar.facet." + g.name + "_" + val)})
		}
		f.Groups = append(f.Groups, group)
	}
	active := cs.ActivePreset()
	for _, name := range calendarPresets {
		f.Presets = append(f.Presets, templates.PresetLink{Key: name, Label: p.T("calendar.preset." + name),
			URL: cs.WithPreset(name, today, loc).URL(), Current: name == active})
	}
	if cs.Filtered() {
		f.ClearURL = cs.Cleared().URL()
	}
	f.Text, f.SearchKeep = cs.Text, keep(cs.Values(), "q")
	return f
}

// agendaView is one page of the Agenda; after names the day the page
// before ended on ("Load more"), whose heading is already shown.
func (h *Handler) agendaView(r *http.Request, cs calendarState, z calendarZone, cursor, after string) (templates.AgendaView, error) {
	st := stateOf(r.Context())
	ctx := r.Context()
	p := locales.From(ctx)
	now := h.eng.Now()
	today := midnight(now, z.loc)
	from, to := cs.Range(z.loc)
	q := cs.Query(st.site.ID, from, to)
	q.Cursor, q.Abilities = cursor, true
	page, err := h.cal.Calendar(ctx, *st.user, q)
	if e, ok := engine.AsError(err); ok && e.Code == calendar.CodeBadCursor { // a stale or edited link: from the start
		q.Cursor, after = "", ""
		page, err = h.cal.Calendar(ctx, *st.user, q)
	}
	if err != nil {
		return templates.AgendaView{}, err
	}
	a := templates.AgendaView{CSRF: st.csrf, ReturnURL: cs.URL(), ViewerZone: z.viewer}
	if st.user != nil {
		if can := engine.AbilitiesOfPerson(*st.user); can.Schedule {
			siteNow := now.In(siteLoc(st.site))
			a.Move = &templates.MoveDialogView{ID: "agenda-move", CSRF: st.csrf, Next: cs.URL(), CanApprove: can.ApproveAny,
				ZoneLabel: zoneLabel(ctx, st.site.TimeZone, now), MinDate: siteNow.Format("2006-01-02")}
		}
	}
	for _, it := range page.Items {
		at := it.At.In(z.loc)
		key := at.Format("2006-01-02")
		if len(a.Days) == 0 || a.Days[len(a.Days)-1].Date != key {
			day := midnight(at, z.loc)
			a.Days = append(a.Days, templates.AgendaDay{Date: key, Heading: p.DayHeading(at, now.In(z.loc)), NowAt: -1,
				Today: day.Equal(today), Past: day.Before(today), Continued: len(a.Days) == 0 && key == after})
		}
		d := &a.Days[len(a.Days)-1]
		row := h.agendaItem(r, p, z, it)
		if it.Type() == calendar.TypeAutomation {
			row.Occurrence = occurrenceMenu(it)
		}
		d.Items = append(d.Items, row)
	}
	for i := range a.Days {
		foldDay(&a.Days[i], now, z.loc)
	}
	markSameMinute(a.Days)
	if page.NextCursor != "" {
		more := cs.Values()
		more.Set("cursor", page.NextCursor)
		a.MoreURL = "/studio/schedules?" + more.Encode()
		if len(a.Days) > 0 {
			more.Set("after", a.Days[len(a.Days)-1].Date)
		}
		a.MoreFragment = "/studio/schedules?" + more.Encode()
	}
	if len(a.Days) == 0 && cursor == "" {
		a.Empty = p.T("calendar.empty_period")
		if cs.Filtered() {
			a.Empty = p.T("calendar.empty_filtered")
		}
	}
	return a, nil
}

// foldDay folds a day's recurring automation runs (to come, or on a past
// day those that went as planned), and on today its finished items, and
// places the "Now" rule between today's past and future.
func foldDay(d *templates.AgendaDay, now time.Time, loc *time.Location) {
	var runs, rest []templates.AgendaItem
	for _, it := range d.Items {
		if it.Recurring || (d.Past && it.Quiet) {
			runs = append(runs, it)
		} else {
			rest = append(rest, it)
		}
	}
	if len(runs) >= foldFrom {
		d.Items, d.Runs = rest, runs
	}
	if !d.Today {
		return
	}
	var done, open []templates.AgendaItem
	for _, it := range d.Items {
		if !it.When.At.After(now) && it.Look == "faded" {
			done = append(done, it)
		} else {
			open = append(open, it)
		}
	}
	if len(done) >= foldFrom {
		d.Items, d.Done = open, done
	}
	d.NowAt, d.Now = 0, locales.Clock(now.In(loc))
	for d.NowAt < len(d.Items) && !d.Items[d.NowAt].When.At.After(now) {
		d.NowAt++
	}
}

// agendaItem is the Agenda's row of one calendar item (§15.2, §15.3):
// fill = certainty, tone = state, icon = kind; the words say it all. Its
// actions are the item's abilities, as the engine answered them (it.May).
func (h *Handler) agendaItem(r *http.Request, p *locales.Printer, z calendarZone, it calendar.CalendarItem) templates.AgendaItem {
	now := h.eng.Now()
	row := templates.AgendaItem{ID: it.ID, Kind: it.Kind, KindLabel: p.T("calendar.facet.kind_" + it.Kind), Title: it.Title,
		When: z.pair(r, it.At), State: it.State, Look: "filled", Rev: it.Rev, Recurring: it.Recurring && it.At.After(now),
		Agent: it.Origin == "agent", Overlaps: it.Overlaps}
	if row.Title == "" {
		row.Title = it.Target
	}
	isRelease := it.Type() == calendar.TypeRelease
	switch {
	case isRelease:
		row.ReleaseID, row.Href = it.ID, "/studio/releases/"+url.PathEscape(it.ID)
	case it.Type() == calendar.TypeGate:
		row.Href = "/studio/content/" + url.PathEscape(it.Target)
	case it.Kind == calendar.ItemAutomation && it.RunID != "": // a past occurrence: what its run did
		row.Href = RunURL(it.RunID)
	}
	if it.Collection != "" {
		row.Collection = p.T("kind." + it.Collection)
	}
	if it.By.Name != "" {
		// An agent task's own occurrence is its owner's task, not a proposal.
		if row.Agent && it.Kind != calendar.ItemAutomation {
			row.By = p.T("calendar.proposed_by", "Name", it.By.Name)
		} else {
			row.By = p.T("agenda.by", "Name", it.By.Name)
		}
	}
	switch {
	case row.Recurring:
		row.Look = "ghost"
	case it.Approval == calendar.ApprovalDenied:
		row.State, row.Look = calendar.ApprovalDenied, "struck"
	case it.State == string(release.StateExpired) || it.State == string(release.StateCanceled):
		row.Look = "struck"
	case it.State == string(release.StateAwaitingApproval):
		row.Look = "dashed"
	case it.State == string(release.StateRunning):
		row.Running = true
	case it.Held:
		row.State, row.Look = "held", "alert"
	case calendar.StateFacet(it.State) == calendar.FacetDone:
		row.Look = "faded"
	case calendar.StateFacet(it.State) == calendar.FacetAttention:
		row.Look = "alert"
	}
	row.StateLabel = stateWord(p, row.State)
	if it.Kind == calendar.ItemAutomation {
		row.StateLabel = occurrenceStateWord(p, row.State)
		row.Outcome, row.Manual = it.Outcome, it.Manual
		row.Quiet = it.RunID != "" && (it.State == string(automation.RunSucceeded) || it.State == string(automation.RunSkipped))
		if it.Outcome != "" {
			row.OutcomeLabel = p.T("runs.outcome." + it.Outcome)
		}
	}
	row.Auto = it.Approval == calendar.ApprovalAuto
	row.Approved = it.Approval == calendar.ApprovalApproved && row.Agent

	if !isRelease {
		return row
	}
	can := it.May
	if can.Decide {
		row.Decide = &templates.DecideView{RequestID: can.Request, Title: row.Title}
		return row
	}
	m := &templates.ItemMenu{CompareURL: row.Href}
	if can.Request != "" { // the request shows each item's diff
		m.CompareURL = "/studio/approvals/" + url.PathEscape(can.Request)
	}
	if can.Move {
		m.MoveURL = row.Href + "#move-date"
	}
	if can.PublishNow {
		m.PublishNowURL = row.Href + "?confirm=publish-now#publish-now-dialog"
	}
	m.Unschedule = can.Unschedule
	row.Menu = m
	return row
}

// stateWord is the badge's word for an item state: a release state, or a
// gate's or an automation run's.
func stateWord(p *locales.Printer, state string) string {
	for _, key := range []string{"state." + state, "calendar.state." + state} {
		if s, ok := p.Lookup(key); ok {
			return s
		}
	}
	return state
}

// occurrenceStateWord is the badge's word for an automation occurrence:
// its run's state (Succeeded, Skipped, Running…), or not run, scheduled,
// paused.
func occurrenceStateWord(p *locales.Printer, state string) string {
	if s, ok := p.Lookup("runs.state." + state); ok {
		return s
	}
	return stateWord(p, state)
}

// occurrenceMenu is the ⋯ menu of an automation's occurrence: Run now
// and Edit as the engine's abilities allow them (the use case decides
// again), History always.
func occurrenceMenu(it calendar.CalendarItem) *templates.OccurrenceMenu {
	page := "/studio/schedules/automations/" + url.PathEscape(it.Target)
	m := &templates.OccurrenceMenu{HistoryURL: "/studio/schedules/history?" + url.Values{"automation": {it.Target}}.Encode()}
	if it.May.RunNow {
		m.RunNowURL = page + "/run-now"
	}
	if it.May.Edit {
		m.EditURL = page
	}
	return m
}

// markSameMinute warns where two or more releases share a minute (§6.5):
// they run one at a time, and the order within the minute is by id only.
func markSameMinute(days []templates.AgendaDay) {
	for d := range days {
		perMinute := map[string]int{}
		groups := [][]templates.AgendaItem{days[d].Done, days[d].Items}
		for _, items := range groups {
			for _, it := range items {
				if it.ReleaseID != "" && (it.State == string(release.StateScheduled) || it.State == string(release.StateAwaitingApproval)) {
					perMinute[it.When.At.UTC().Format("2006-01-02T15:04")]++
				}
			}
		}
		for _, items := range groups {
			for i := range items {
				if n := perMinute[items[i].When.At.UTC().Format("2006-01-02T15:04")]; n > 1 && items[i].ReleaseID != "" {
					items[i].SameMinute = n
				}
			}
		}
	}
}

// calendarAside is the requests waiting for approval, the scheduler's
// health and the draft releases.
func (h *Handler) calendarAside(r *http.Request, z calendarZone) (templates.CalendarAside, error) {
	ctx := r.Context()
	st := stateOf(ctx)
	a := templates.CalendarAside{CanSettings: engine.AbilitiesOfPerson(*st.user).Settings}
	requests, total, err := h.releases.FirstWaitingRequests(ctx, *st.user, st.site.ID, asideWaitingRows)
	if err != nil {
		return a, err
	}
	a.WaitingTotal = total
	approvals, err := h.releases.ApprovalsFor(ctx, *st.user, st.site.ID, requests)
	if err != nil {
		return a, err
	}
	for _, v := range approvals {
		row := templates.WaitingRow{RequestID: v.Request.ID, Title: releaseTitle(v.Release), RequestedBy: v.Request.RequestedBy.Name,
			CanDecide: releases.CanDecide(*st.user, v.Request)}
		if v.Release.ExecuteAt != nil {
			tp := z.pair(r, *v.Release.ExecuteAt)
			row.When = &tp
		}
		a.Waiting = append(a.Waiting, row)
	}
	// The same report as the Scheduler card's: late while releases wait
	// that a running scheduler should have taken.
	health, err := h.sched.Status(ctx, st.site.ID)
	if err != nil {
		return a, err
	}
	a.Health = templates.HealthView{State: health.State()}
	a.Stalled = health.Scheduler.State != scheduler.HealthRunning // §8.7's rule, not releases waiting
	if hb := health.Scheduler.Beat; hb != nil {
		last, next := z.pair(r, hb.At), z.pair(r, hb.NextWakeAt)
		a.Health.LastTick, a.Health.NextWake, a.Health.Trigger = &last, &next, hb.Trigger
	}
	a.Drafts = h.draftRows(r)
	return a, nil
}

// attention is the banner "2 schedules need attention · Review" (§15.1):
// releases in conflict, failed or missed, over the notifications' week of
// problems and what is to come. Review opens the "Needs attention" view on
// the day of the first.
func (h *Handler) attention(r *http.Request, cs calendarState, z calendarZone) (*templates.AttentionBanner, error) {
	page, today, err := h.needsAttention(r, z.site)
	if err != nil || len(page.Items) == 0 {
		return nil, err
	}
	review := cs.WithPreset("attention", today, z.loc)
	review.View, review.Date = "agenda", midnight(page.Items[0].At, z.loc)
	return &templates.AttentionBanner{Count: len(page.Items), ReviewURL: review.URL()}, nil
}

// needsAttention is what needs attention (§15.1): the calendar's
// releases in conflict, failed or missed, from attentionPastDays ago, read
// in the site's zone site; today is its midnight there.
func (h *Handler) needsAttention(r *http.Request, site *time.Location) (calendar.CalendarPage, time.Time, error) {
	ctx := r.Context()
	st := stateOf(ctx)
	today := midnight(h.eng.Now(), site)
	from := addDays(today, -attentionPastDays, site)
	to := addDays(from, calendar.CalendarMaxDays, site)
	page, err := h.cal.Calendar(ctx, *st.user, calendar.CalendarQuery{SiteID: st.site.ID, From: from, To: to,
		States: []string{"attention"}, Limit: calendar.CalendarMaxItems})
	return page, today, err
}

// fromCalendar is the Schedules page an inline form came from (its "next",
// when it says from=calendar), or "" for a form of another page.
func fromCalendar(r *http.Request) string {
	if r.PostFormValue("from") != "calendar" {
		return ""
	}
	if next := templates.WithoutSite(safeNext(r.PostFormValue("next"))); strings.HasPrefix(next, "/studio/schedules?") {
		return next
	}
	return "/studio/schedules"
}

// backToCalendar ends an action taken inline on the Schedules page (an
// approval, a denial, Unschedule from an item's menu): done, it leaves
// doneKey's notice; refused, the refusal's sentence above the calendar;
// either way the person is back on the page as they left it (for htmx, the
// redirect brings the #calendar fragment). It reports false for a form of
// another page, or an error nobody can act on, which the caller handles.
func (h *Handler) backToCalendar(w http.ResponseWriter, r *http.Request, err error, doneKey string) bool {
	next := fromCalendar(r)
	if next == "" {
		return false
	}
	ctx := r.Context()
	msg, fields, _, refused := refusal(ctx, err)
	switch {
	case refused:
		for _, m := range fields {
			if msg == "" {
				msg = m
			}
		}
		h.sessions.Put(ctx, keyCalendarAlert, msg)
	case err != nil:
		return false
	default:
		h.flash(r, doneKey)
	}
	http.Redirect(w, r, to(r, next), http.StatusSeeOther)
	return true
}
