package studio

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"studio/engine/calendar"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/locales"
	"studio/web/templates"
)

// The Month view of the Schedules page (RFC §15.2, §15.3, §15.7): a grid
// of the month's weeks in the site's zone, each day with at most three
// chips, and the move from the grid (§15.6, D12): dropping a chip on
// another day opens a dialog, and only its "Move" writes, through the same
// engine Move as "Move to…".

// monthView builds the Month grid of cs's month for the signed-in person.
func (h *Handler) monthView(r *http.Request, cs calendarState) (templates.MonthView, error) {
	ctx := r.Context()
	st := stateOf(ctx)
	p := locales.From(ctx)
	loc := siteLoc(st.site)
	now := h.eng.Now().In(loc)
	todayWall := localtime.WallOf(now, loc)
	todayWall.Hour, todayWall.Minute = 0, 0
	d := cs.Date.In(loc)
	first := localtime.Wall{Year: d.Year(), Month: d.Month(), Day: 1}
	firstDay := monthFirstDay(p)
	lead := (int(monthCivilWeekday(first)) - int(firstDay) + 7) % 7
	inMonth := monthDaysIn(first.Year, first.Month)
	weeks := (lead + inMonth + 6) / 7
	start := first.AddDays(-lead)
	walls := make([]localtime.Wall, weeks*7+1) // one more: the end of the last day
	for i := range walls {
		walls[i] = start.AddDays(i)
	}
	from, _ := localtime.Resolve(walls[0], loc)
	to, _ := localtime.Resolve(walls[len(walls)-1], loc)

	days, err := h.monthDays(ctx, cs, from, to, loc)
	if err != nil {
		return templates.MonthView{}, err
	}
	firstInstant, _ := localtime.Resolve(first, loc)
	month := firstInstant.In(loc)
	m := templates.MonthView{
		Month:        month.Format("2006-01"),
		Caption:      p.T("month.caption", "Month", p.T("month.name."+strconv.Itoa(int(first.Month))), "Year", first.Year),
		PrevMonthURL: cs.With("month", month.AddDate(0, -1, 0)).URL(),
		NextMonthURL: cs.With("month", month.AddDate(0, 1, 0)).URL(),
		PrevYearURL:  cs.With("month", month.AddDate(-1, 0, 0)).URL(),
		NextYearURL:  cs.With("month", month.AddDate(1, 0, 0)).URL(),
		GridURL:      "/studio/schedules/month/grid?" + cs.With("month", month).Values().Encode(),
		PageURL:      cs.With("month", month).URL(),
		State:        cs.With("month", month).Values().Encode(),
		CSRF:         st.csrf,
		ZoneLabel:    zoneLabel(ctx, st.site.TimeZone, now),
		MinDate:      todayWall.Date(),
		Focus:        first.Date(),
	}
	if st.user != nil {
		can := engine.AbilitiesOfPerson(*st.user)
		m.CanDrag, m.CanApprove = can.Schedule, can.ApproveAny
	}
	for i := range 7 {
		wd := time.Weekday((int(firstDay) + i) % 7)
		m.Weekdays = append(m.Weekdays, templates.MonthWeekday{Name: p.T("month.weekday." + strconv.Itoa(int(wd))),
			Short: p.T("month.weekday_short." + strconv.Itoa(int(wd))), Weekend: wd == time.Saturday || wd == time.Sunday})
	}
	for w := range weeks {
		row := make([]templates.MonthDay, 7)
		for i := range row {
			wall := walls[w*7+i]
			at, _ := localtime.Resolve(wall, loc)
			row[i] = h.monthCell(r, cs, p, wall, at.In(loc), todayWall, days[wall.Date()], loc)
			row[i].InMonth = wall.Month == first.Month
			if row[i].Today && row[i].InMonth {
				m.Focus = wall.Date()
			}
		}
		m.Weeks = append(m.Weeks, row)
	}
	return m, nil
}

// monthCell is one day of the grid.
func (h *Handler) monthCell(r *http.Request, cs calendarState, p *locales.Printer, wall localtime.Wall, at time.Time,
	today localtime.Wall, day calendar.CalendarDay, loc *time.Location) templates.MonthDay {
	wd := monthCivilWeekday(wall)
	c := templates.MonthDay{Date: wall.Date(), Day: wall.Day, Label: p.DayMonth(at),
		Past: wall.Before(today), Today: wall == today, Weekend: wd == time.Saturday || wd == time.Sunday,
		DayURL: cs.With("agenda", at).URL(), PanelURL: monthPanelURL(cs, wall.Date())}
	c.Droppable = !c.Past
	for _, it := range day.Items {
		c.Chips = append(c.Chips, h.monthChip(r, p, it, loc))
	}
	if day.Total > len(day.Items) {
		c.More, c.MoreURL = day.Total-len(day.Items), c.DayURL
	}
	for _, k := range facetKinds {
		if day.ByKind[k] > 0 && len(c.Dots) < 3 {
			c.Dots = append(c.Dots, k)
		}
	}
	c.ApprovalDot = day.Waiting > 0
	c.Counts = monthCellCounts(p, c.Today, day)
	return c
}

// monthCellCounts is a cell's accessible description (§15.7): "today, 3
// items: 2 publishes, 1 waiting for approval". The cell's name is its
// visible content (the day, then its chips), so that what is read and
// what voice control matches is what is shown (WCAG 2.5.3).
func monthCellCounts(p *locales.Printer, today bool, day calendar.CalendarDay) string {
	var parts []string
	if today {
		parts = append(parts, p.T("month.today"))
	}
	if day.Total == 0 {
		return strings.Join(append(parts, p.T("month.no_items")), ", ")
	}
	var counts []string
	for _, k := range facetKinds {
		if n := day.ByKind[k]; n > 0 {
			counts = append(counts, p.T("month.count."+k, "Count", n))
		}
	}
	if day.Waiting > 0 {
		counts = append(counts, p.T("month.count.pending", "Count", day.Waiting))
	}
	return strings.Join(append(parts, p.T("month.items", "Count", day.Total)), ", ") + ": " + strings.Join(counts, ", ")
}

// monthChip is the grid's view of one item (§15.3): fill = certainty, tone
// = state, icons = kind and origin; the words say it all again. Whether
// it drags is the item's ability, as the engine answered it (it.May.Drag).
func (h *Handler) monthChip(r *http.Request, p *locales.Printer, it calendar.CalendarItem, loc *time.Location) templates.MonthChip {
	at := it.At.In(loc)
	now := h.eng.Now()
	c := templates.MonthChip{ID: it.ID, Kind: it.Kind, State: it.State, Time: locales.Clock(at), Title: it.Title,
		Look: "filled", Tone: "neutral", Icons: []string{monthKindIcon(it.Kind)}}
	if c.Title == "" {
		c.Title = it.Target
	}
	gate := it.Type() == calendar.TypeGate
	switch {
	case gate:
		c.Href = "/studio/content/" + url.PathEscape(it.Target)
	case it.Kind == calendar.ItemAutomation && it.RunID != "": // a past occurrence: what its run did
		c.Href = RunURL(it.RunID)
	case it.Kind == calendar.ItemAutomation:
		c.Href = "/studio/schedules?" + url.Values{"date": {at.Format("2006-01-02")}}.Encode()
	default:
		c.Href = "/studio/releases/" + url.PathEscape(it.ID)
	}
	// The words of the sentence, and the look that goes with them.
	key := "month.state." + it.State
	if it.Kind == calendar.ItemAutomation && it.RunID != "" {
		key = "month.run_state." + it.State
	}
	stateWord, ok := p.Lookup(key)
	if !ok {
		stateWord = it.State
	}
	future := it.At.After(now)
	switch {
	case it.Recurring && future:
		c.Look, c.Tone, stateWord = "ghost", "muted", p.T("month.recurring")
		c.Icons = []string{"recurring"}
		if it.State == "paused" {
			c.Icons = append(c.Icons, "paused")
			stateWord += ", " + p.T("month.state.paused")
		}
	case it.Kind == calendar.ItemAutomation && it.RunID != "": // the run's state (§15.3)
		switch calendar.StateFacet(it.State) {
		case calendar.FacetDone:
			c.Look, c.Tone = "faded", "ok"
			c.Icons = append(c.Icons, "done")
		case calendar.FacetAttention:
			c.Tone = "danger"
			if it.State == string(release.StateMissed) {
				c.Icons = append(c.Icons, "missed")
			} else {
				c.Icons = append(c.Icons, "warning")
			}
		case calendar.FacetRunning:
			c.Tone, c.Running, c.RunningLabel = "info", true, occurrenceStateWord(p, it.State)
		default: // skipped: it did not run, by design (§8.6)
			c.Tone = "muted"
		}
		if it.Outcome != "" {
			stateWord += ", " + p.T("month.outcome."+it.Outcome)
		}
	case it.Approval == calendar.ApprovalDenied:
		c.Look, c.Tone, stateWord = "struck", "muted", p.T("month.state.denied")
	case it.State == string(release.StateExpired) || it.State == string(release.StateCanceled):
		c.Look, c.Tone = "struck", "muted"
	case it.State == string(release.StateAwaitingApproval) || it.Approval == calendar.ApprovalPending:
		c.Look, c.Tone = "dashed", "warn"
		c.Icons = append(c.Icons, "pending")
		stateWord = p.T("month.state.awaiting_approval")
	case it.State == string(release.StateRunning):
		c.Tone, c.Running, c.RunningLabel = "info", true, p.T("state.running")
	case it.State == string(release.StatePublished) || it.State == "ran" || it.State == "done":
		c.Look, c.Tone = "faded", "ok"
		c.Icons = append(c.Icons, "done")
	case it.State == string(release.StateConflict) || it.State == string(release.StateFailed):
		c.Tone = "danger"
		c.Icons = append(c.Icons, "warning")
	case it.State == string(release.StateMissed):
		c.Tone = "danger"
		c.Icons = append(c.Icons, "missed")
	case it.State == calendar.ItemNotRun: // no run behind it (§11.7): not done
		c.Tone = "muted"
		c.Icons = append(c.Icons, "missed")
	case it.Held:
		c.Tone, c.State, c.Held = "warn", "held", p.T("calendar.state.held")
		c.Icons = append(c.Icons, "paused")
	case gate:
		c.Look, c.Tone = "gate", "info"
		if it.Kind == calendar.ItemExpiry {
			c.Tone = "muted"
		}
	case it.Approval == calendar.ApprovalAuto:
		c.Tone = "warn"
		c.Icons = append(c.Icons, "auto")
		stateWord += ", " + p.T("month.automatic")
	case it.Approval == calendar.ApprovalApproved && it.Origin == "agent":
		stateWord += ", " + p.T("month.approved")
	}
	if it.Origin == "agent" {
		c.Icons = append(c.Icons, "agent")
	}
	if it.Overlaps { // a node also in another pending release (§6.2, D15)
		c.Icons = append(c.Icons, "overlap")
		stateWord += ", " + p.T("month.overlaps")
	}
	// The name starts with what the chip shows, its time and title (WCAG
	// 2.5.3), and goes on with what it shows with icons and looks.
	shown := c.Time + " " + p.T("month.quoted", "Title", c.Title)
	if c.Held != "" {
		shown += " " + c.Held // the badge it shows after the title
	}
	parts := []string{shown, p.T("month.kind." + it.Kind)}
	if it.By.Name != "" {
		if it.Origin == "agent" && it.Kind != calendar.ItemAutomation { // an agent task's run is its owner's, no proposal
			parts = append(parts, p.T("month.proposed_by", "Name", it.By.Name))
		} else {
			parts = append(parts, p.T("month.by", "Name", it.By.Name))
		}
	}
	c.Sentence = strings.Join(append(parts, stateWord), ", ")
	c.Badge, ok = p.Lookup("state." + it.State)
	switch {
	case it.Kind == calendar.ItemAutomation && it.RunID != "":
		c.Badge = occurrenceStateWord(p, it.State)
	case it.Held:
		c.Badge = c.Held
	case it.Approval == calendar.ApprovalDenied:
		c.Badge = p.T("month.badge_denied")
	case it.State == calendar.ItemDone || it.State == calendar.ItemPaused || it.State == calendar.ItemNotRun || !ok:
		c.Badge = p.T("month.badge_" + monthBadgeKey(it.State))
	}

	// Drag to reschedule (§15.6): the engine's answer (calendar.ItemAbilities).
	if it.May.Drag {
		c.Draggable, c.Rev = true, it.Rev
		c.Date, c.Clock = at.Format("2006-01-02"), locales.Clock(at)
		c.When = p.DayMonth(at) + ", " + c.Clock
	}
	return c
}

// monthBadgeKey names the badge of an item state that is not a release
// state: a gate or a run that has passed, a paused automation's run.
func monthBadgeKey(state string) string {
	switch state {
	case calendar.ItemPaused:
		return "paused"
	case calendar.ItemNotRun:
		return "not_run"
	}
	return "done"
}

func monthKindIcon(kind string) string {
	switch kind {
	case calendar.ItemPublish, calendar.ItemExpiry, calendar.ItemEmbargo, calendar.ItemRelease, calendar.ItemAutomation:
		return kind
	}
	return calendar.ItemRelease
}

// monthDays reads the grid's days [from, to) in loc, as cs filters them,
// keyed by date.
func (h *Handler) monthDays(ctx context.Context, cs calendarState, from, to time.Time, loc *time.Location) (map[string]calendar.CalendarDay, error) {
	st := stateOf(ctx)
	q := cs.Query(st.site.ID, from, to)
	q.Abilities = true // what each chip offers
	days, err := h.cal.CalendarDays(ctx, *st.user, q, loc)
	if err != nil {
		return nil, err
	}
	out := make(map[string]calendar.CalendarDay, len(days))
	for _, d := range days {
		out[d.Date] = d
	}
	return out, nil
}

// monthFirstDay is the language's first day of the week (month.first_day_of_week).
func monthFirstDay(p *locales.Printer) time.Weekday {
	n, err := strconv.Atoi(p.T("month.first_day_of_week"))
	if err != nil || n < 0 || n > 6 {
		return time.Monday
	}
	return time.Weekday(n)
}

// monthCivilWeekday is the weekday of a date, whatever the zone.
func monthCivilWeekday(w localtime.Wall) time.Weekday {
	return time.Date(w.Year, w.Month, w.Day, 12, 0, 0, 0, time.UTC).Weekday()
}

func monthDaysIn(year int, month time.Month) int {
	return time.Date(year, month+1, 0, 12, 0, 0, 0, time.UTC).Day()
}

func monthPanelURL(cs calendarState, date string) string {
	v := cs.Values()
	v.Del("view")
	v.Set("date", date)
	return "/studio/schedules/month/day?" + v.Encode()
}

// monthState reads the Schedules page's state from q, for the grid's own
// routes: always the Month view.
func (h *Handler) monthState(r *http.Request, q url.Values) calendarState {
	st := stateOf(r.Context())
	loc := siteLoc(st.site)
	cs := parseCalendarState(q, loc, midnight(h.eng.Now(), loc))
	cs.View = "month"
	return cs
}

func monthIsHTMX(r *http.Request) bool { return r.Header.Get("HX-Request") == "true" }

// MonthGridFragment is the grid alone, for htmx: after a move, and for
// "Load the latest". A browser that asks for it as a page gets the page.
func (h *Handler) MonthGridFragment(w http.ResponseWriter, r *http.Request) {
	cs := h.monthState(r, r.URL.Query())
	if !monthIsHTMX(r) {
		http.Redirect(w, r, to(r, cs.URL()), http.StatusSeeOther)
		return
	}
	m, err := h.monthView(r, cs)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.MonthGrid(m))
}

// MonthDayPanel is a day's agenda under the grid, where a phone's tap on a
// day shows it (§15.2). As a page, it is the day on the Agenda.
func (h *Handler) MonthDayPanel(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	loc := siteLoc(st.site)
	cs := h.monthState(r, r.URL.Query())
	day := cs.Date.In(loc)
	if !monthIsHTMX(r) {
		http.Redirect(w, r, to(r, cs.With("agenda", day).URL()), http.StatusSeeOther)
		return
	}
	wall := localtime.Wall{Year: day.Year(), Month: day.Month(), Day: day.Day()}
	from, _ := localtime.Resolve(wall, loc)
	to, _ := localtime.Resolve(wall.AddDays(1), loc)
	q := cs.Query(st.site.ID, from, to)
	q.Abilities = true // what each chip offers
	p := locales.From(ctx)
	panel := templates.MonthDayPanel{CSRF: st.csrf, Date: wall.Date(), Heading: p.DayHeading(day, h.eng.Now().In(loc)),
		DayURL: cs.With("agenda", day).URL()}
	for {
		page, err := h.cal.Calendar(ctx, *st.user, q)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, it := range page.Items {
			if !it.At.Before(from) && it.At.Before(to) {
				c := h.monthChip(r, p, it, loc)
				if it.Type() == calendar.TypeAutomation {
					c.Menu = occurrenceMenu(it)
				}
				panel.Chips = append(panel.Chips, c)
			}
		}
		if page.NextCursor == "" || page.NextCursor == q.Cursor {
			break
		}
		q.Cursor = page.NextCursor
	}
	h.render(w, r, http.StatusOK, templates.MonthPanel(panel))
}

// MoveFromCalendar moves a release dropped on another day of the grid, once
// the person confirms the dialog (§15.6: dropping never writes). It calls
// the same engine Move as "Move to…" and answers the grid as it is now with
// a toast offering Undo; "undo=1" is that Undo, which offers none. The
// form's "state" is the Schedules page's query, so the grid comes back as
// the person saw it.
func (h *Handler) MoveFromCalendar(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	p := locales.From(ctx)
	loc := siteLoc(st.site)
	id := chi.URLParam(r, "id")
	state, _ := url.ParseQuery(r.PostFormValue("state"))
	cs := h.monthState(r, state)
	if !monthIsHTMX(r) { // the dialog's form without JavaScript: the release page's own Move
		h.Move(w, r)
		return
	}
	before, err := h.releases.Release(ctx, *st.user, st.site.ID, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	undo := r.PostFormValue("undo") == "1"
	moved, err := h.releases.Move(ctx, *st.user, st.site.ID, id, formRev(r), r.PostFormValue("date"), r.PostFormValue("time"))
	if msg, fields, status, ok := refusal(ctx, err); ok {
		prob := templates.MonthProblem{Message: msg, Fields: fields}
		if e, _ := engine.AsError(err); e.ChangedElsewhere() {
			prob.Message = p.T("month.stale")
			prob.LatestURL = "/studio/schedules/month/grid?" + cs.Values().Encode()
			prob.LatestPage = cs.URL()
		}
		h.render(w, r, status, templates.MonthMoveProblem(prob))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	grid, err := h.monthView(r, cs)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := templates.MonthMoved{Grid: grid}
	when := p.DateTime(moved.ExecuteAt.In(loc))
	switch {
	case undo:
		out.Message = p.T("month.undone", "Title", releaseTitle(moved), "When", when)
	case moved.State == release.StateScheduled:
		out.Message = p.T("month.moved", "Title", releaseTitle(moved), "When", when)
	default:
		out.Message = p.T("month.moved_for_approval", "Title", releaseTitle(moved), "When", when)
	}
	if !undo && before.ExecuteAt != nil {
		old := localtime.WallOf(before.ExecuteAt.In(loc), loc)
		if before.When != nil && before.When.LocalTime != "" { // the time as it was chosen, even in a DST gap
			if d, c, ok := strings.Cut(before.When.LocalTime, "T"); ok {
				if w, err := localtime.ParseDateAndTime(d, c); err == nil {
					old = w
				}
			}
		}
		out.Undo = &templates.MonthUndo{Action: "/studio/releases/" + id + "/move-calendar", Rev: moved.Rev,
			Date: old.Date(), Clock: old.Clock()}
	}
	h.render(w, r, http.StatusOK, templates.MonthMovedFragment(out, cs.Values().Encode()))
}
