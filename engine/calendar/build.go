package calendar

import (
	"context"
	"slices"
	"sort"
	"strings"
	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"time"

	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/recurrence"
)

// The one query path of the calendar: Calendar (a page) and CalendarDays
// (the Month grid's counts) read the same sources through calendarSet and
// filter them with the same calendarFilter, so a day's count is exactly the
// number of items Calendar lists for that day.

// calendarSet is what one read of a range found: the releases, and the
// gates and past occurrences with a run, that pass the query's facets,
// each in (At, ID) order, and the automations whose other occurrences
// (from their rules) may.
type calendarSet struct {
	siteID   string
	from, to time.Time
	filter   calendarFilter
	// withReleases: the kinds reach releases. For the grid, releases holds
	// them all; a page reads only those it can show (calendarPage).
	withReleases bool
	releases     []CalendarItem
	// listed are the gates and the occurrences with a run behind them
	// (read, not computed from a rule).
	listed []CalendarItem
	autos  []occurrences
	// pending is the grid's read of releases, which runs beside the rest
	// (wait collects it).
	pending chan releasesRead
}

// releasesRead is the outcome of the grid's read of releases.
type releasesRead struct {
	items []CalendarItem
	err   error
}

// wait collects the grid's read of releases.
func (s *calendarSet) wait() error {
	if s.pending == nil {
		return nil
	}
	r := <-s.pending
	s.pending = nil
	s.releases = r.items
	return r.err
}

// occurrences are one automation's occurrences in the range that come
// from its rule: the future ones, and the past ones with no run behind
// them (ran holds the instants, in Unix milliseconds, of those that have
// one: they are listed items). Every one of them has the same facets but
// its state, which depends only on whether it has passed, so the filter
// is applied once to a past and a future template, and lo/hi bound the
// instants worth expanding.
type occurrences struct {
	id           string
	rc           recurrence.Recurrence
	now          time.Time
	lo, hi       time.Time
	past, future CalendarItem
	ran          map[int64]bool
}

// item is the occurrence at at.
func (o *occurrences) item(at time.Time) CalendarItem {
	it := o.future
	if !at.After(o.now) {
		it = o.past
	}
	it.At = at.UTC()
	it.ID = "occ:" + o.id + ":" + localtime.FormatInstant(at)
	return it
}

// between lists the occurrences in [lo, hi) that pass the filter.
func (o *occurrences) between(lo, hi time.Time) []recurrence.Occurrence {
	lo, hi = later(lo, o.lo), earlier(hi, o.hi)
	if !lo.Before(hi) {
		return nil
	}
	out := o.rc.Between(lo, hi)
	if len(o.ran) == 0 || lo.After(o.now) {
		return out
	}
	return slices.DeleteFunc(out, func(oc recurrence.Occurrence) bool {
		return !oc.At.After(o.now) && o.ran[oc.At.UnixMilli()]
	})
}

// calendarFilter is a query's facets, as every source applies them.
type calendarFilter struct {
	q      CalendarQuery
	text   string // q.Text folded (FoldTitle)
	userID string // Mine: the person asking
	// pause tells which releases the kill switch holds. Nil: none (the
	// filter of a source without releases).
	pause *pauseProbe
}

// pauseProbe reads whether the site's schedules are paused, once, and only
// when a release it reads may be held by the pause: a scheduled release
// whose time has come. The ticker runs those within a minute on a site
// that is not paused, so a calendar without them (nearly every one) costs
// no statement more.
type pauseProbe struct {
	now    time.Time
	read   func() (bool, error)
	known  bool
	paused bool
}

// holds reports whether the kill switch holds a release in state at at.
func (p *pauseProbe) holds(state release.State, at time.Time) (bool, error) {
	if p == nil || state != release.StateScheduled || at.After(p.now) {
		return false, nil
	}
	if !p.known {
		paused, err := p.read()
		if err != nil {
			return false, err
		}
		p.known, p.paused = true, paused
	}
	return p.paused, nil
}

// newPauseProbe is the probe of a site at now.
func (e *Calendar) newPauseProbe(ctx context.Context, siteID string, now time.Time) *pauseProbe {
	return &pauseProbe{now: now, read: func() (bool, error) {
		set, err := e.store.ScheduleSettings(ctx, siteID)
		return set.Paused, err
	}}
}

// wantsKind reports whether an item of one of kinds can pass.
func (f calendarFilter) wantsKind(kinds ...string) bool {
	if len(f.q.Kinds) == 0 {
		return true
	}
	for _, k := range kinds {
		if slices.Contains(f.q.Kinds, k) {
			return true
		}
	}
	return false
}

// wantsType reports whether an item of type can pass.
func (f calendarFilter) wantsType(t string) bool {
	return len(f.q.Types) == 0 || slices.Contains(f.q.Types, t)
}

// wantsState reports whether an item in one of the state facets can pass.
func (f calendarFilter) wantsState(facets ...string) bool {
	if len(f.q.States) == 0 {
		return true
	}
	for _, st := range facets {
		if slices.Contains(f.q.States, st) {
			return true
		}
	}
	return false
}

// readsActors reports whether the facets read who created or approved an
// item (origin, approval, Mine).
func (f calendarFilter) readsActors() bool {
	return len(f.q.Origins) > 0 || len(f.q.Approvals) > 0 || f.q.Mine
}

// match reports whether it passes the facets; approvedBy is the id of the
// person who approved it, for Mine.
func (f calendarFilter) match(it *CalendarItem, approvedBy string) bool {
	q := f.q
	if it.State == string(release.StateDraft) {
		return false // a draft is not on the calendar, even with a time kept from before (§6.2 "Unschedule")
	}
	if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, it.Kind) {
		return false
	}
	if !f.wantsType(ItemType(*it)) {
		return false
	}
	facet := ItemFacet(*it)
	lapsed := it.Approval == ApprovalDenied || it.Approval == ApprovalExpired
	switch {
	case len(q.States) > 0:
		if !slices.Contains(q.States, facet) {
			return false
		}
	case facet == FacetCanceled || lapsed:
		// Hidden by default (§15.5), unless the approval facet asks for
		// exactly this denied or expired approval.
		if !lapsed || !slices.Contains(q.Approvals, it.Approval) {
			return false
		}
	}
	if len(q.Origins) > 0 && !slices.Contains(q.Origins, it.Origin) {
		return false
	}
	if len(q.Approvals) > 0 && !slices.Contains(q.Approvals, it.Approval) {
		return false
	}
	if len(q.Collections) > 0 && (it.Collection == "" || !slices.Contains(q.Collections, it.Collection)) {
		return false
	}
	if q.Mine && (f.userID == "" || (it.By.ID != f.userID && approvedBy != f.userID)) {
		return false
	}
	if f.text != "" && !strings.Contains(FoldTitle(it.Title), f.text) {
		return false
	}
	return true
}

// calendarSet reads the sources of [from, to) that the query's kinds can
// reach, a statement each: gates and automations here; releases for the
// Month grid (page false) here too, every one of them and brief (days
// fills in the ones shown as chips), in the background until wait; and for
// a page in calendarPage, which knows how far the page can reach.
func (e *Calendar) calendarSet(ctx context.Context, u engine.User, q CalendarQuery, from, to time.Time, page bool) (*calendarSet, error) {
	now := e.Now()
	f := calendarFilter{q: q, text: FoldTitle(strings.TrimSpace(q.Text)), userID: u.ID, pause: e.newPauseProbe(ctx, q.SiteID, now)}
	s := &calendarSet{from: from, to: to, siteID: q.SiteID, filter: f}
	s.withReleases = f.wantsKind(ItemPublish, ItemExpiry, ItemRelease) && f.wantsType(TypeRelease)
	if s.withReleases && !page {
		// The grid reads every release of the range, the costliest read:
		// it runs on its own connection while the gates and automations
		// are read and the occurrences counted (the caller waits for it).
		pending := make(chan releasesRead, 1) // never blocks: nothing leaks if nobody waits
		s.pending = pending
		go func() {
			items, err := e.calendarReleases(ctx, f, from, to, nil, 0)
			pending <- releasesRead{items, err}
		}()
	}
	// Gates are scheduled or done, occurrences scheduled or not run (or
	// paused): a state facet without those ("Needs attention") reads
	// neither.
	if f.wantsKind(ItemEmbargo, ItemExpiry) && f.wantsType(TypeGate) && f.wantsState(FacetScheduled, FacetDone) {
		gates, err := e.store.CalendarGates(ctx, q.SiteID, from, to)
		if err != nil {
			return nil, err
		}
		for _, g := range gates {
			it := gateItem(g, now)
			if !it.At.Before(from) && it.At.Before(to) && f.match(&it, "") {
				s.listed = append(s.listed, it)
			}
		}
	}
	// Occurrences to come are scheduled (or paused); past ones have their
	// run's state (done, attention, running, not run) or are not run.
	if f.wantsKind(ItemAutomation) && f.wantsType(TypeAutomation) && f.wantsState(FacetScheduled, FacetNotRun, FacetDone, FacetAttention, FacetRunning) {
		autos, err := e.store.Automations(ctx, q.SiteID)
		if err != nil {
			return nil, err
		}
		runs, err := e.calendarRuns(ctx, q.SiteID, autos, f, now, from, to)
		if err != nil {
			return nil, err
		}
		for _, a := range autos {
			rc, ok := e.automationRecurrence(a)
			if !ok {
				continue
			}
			ran, items := runItems(a, rc, runs[a.ID], f, now, from, to)
			s.listed = append(s.listed, items...)
			if o, ok := automationOccurrences(a, rc, f, now, from, to); ok {
				o.ran = ran
				s.autos = append(s.autos, o)
			}
		}
	}
	slices.SortFunc(s.listed, compareItems)
	return s, nil
}

// calendarRuns reads the automation runs behind the range's past
// occurrences, by automation, in one statement; none when the range has
// no past or no automation existed in it, or when the state facets leave
// out every occurrence a run can be behind.
func (e *Calendar) calendarRuns(ctx context.Context, siteID string, autos []automations.Automation, f calendarFilter, now, from, to time.Time) (map[string][]automations.Run, error) {
	hi := earlier(to, now.Add(time.Millisecond)) // runs stand at or before now
	if !from.Before(hi) || !f.wantsState(FacetNotRun, FacetDone, FacetAttention, FacetRunning) ||
		!slices.ContainsFunc(autos, func(a automations.Automation) bool { return a.CreatedAt.Before(hi) }) {
		return nil, nil
	}
	runs, err := e.store.CalendarRuns(ctx, siteID, from, hi)
	if err != nil {
		return nil, err
	}
	by := make(map[string][]automations.Run)
	for _, r := range runs {
		by[r.SubjectID] = append(by[r.SubjectID], r)
	}
	return by, nil
}

// automationRecurrence is an automation's recurrence in its zone; false
// (logged) when its zone or rule no longer parses.
func (e *Calendar) automationRecurrence(a automations.Automation) (recurrence.Recurrence, bool) {
	loc, err := localtime.Zone(a.TimeZone)
	if err != nil {
		e.log.Warn("calendar: automation zone", "automation", a.ID, "zone", a.TimeZone)
		return recurrence.Recurrence{}, false
	}
	rc, err := automations.AutomationRecurrenceIn(a.StartLocal, loc, a.Rule)
	if err != nil {
		e.log.Warn("calendar: automation rule", "automation", a.ID, "err", err)
		return recurrence.Recurrence{}, false
	}
	return rc, true
}

// occurrenceBase is what every occurrence of a shows but its time and state.
func occurrenceBase(a automations.Automation) CalendarItem {
	return CalendarItem{Kind: ItemAutomation, Title: a.Name, Target: a.ID, Origin: a.Origin, By: a.CreatedBy,
		Approval: ApprovalNone}
}

// runItems are the past occurrences of a in [from, to) that have a run
// behind them, as the facets pass them, and ran the instants (Unix
// milliseconds) of every occurrence a run stands for, so that the rule's
// expansion leaves them out. An occurrence shows its run's state and
// outcome and links to it; a manual run ("Run now") stands at its own
// time. A skipped run stands for the coalesced occurrences from its own to
// when it was recorded (§8.6: only the latest one ran, with its own run),
// so each of them is skipped and links to it. No run is ever shown in the
// future.
func runItems(a automations.Automation, rc recurrence.Recurrence, runs []automations.Run, f calendarFilter, now, from, to time.Time) (map[int64]bool, []CalendarItem) {
	if len(runs) == 0 {
		return nil, nil
	}
	base := occurrenceBase(a)
	ran := make(map[int64]bool, len(runs))
	var out []CalendarItem
	add := func(at time.Time, r automations.Run) {
		ran[at.UnixMilli()] = true
		if at.Before(from) || !at.Before(to) || at.After(now) {
			return
		}
		it := base
		it.At, it.ID = at.UTC(), "occ:"+a.ID+":"+localtime.FormatInstant(at)
		it.State, it.Outcome, it.RunID = r.State, r.Outcome, r.ID
		// A run at a time the rule does not have is a person's Run now
		// (the ticker's own runs are at the rule's occurrences, whatever
		// woke it, a "manual" run-due included).
		it.Manual = r.Trigger == automations.TriggerManual && len(rc.Between(at, at.Add(time.Millisecond))) == 0
		if f.match(&it, "") {
			out = append(out, it)
		}
	}
	// Every run stands at its own occurrence first; then a skipped run
	// stands for the coalesced ones that have no run of their own.
	for _, r := range runs {
		add(r.OccurrenceAt, r)
	}
	for _, r := range runs {
		if r.State != string(automation.RunSkipped) || r.EndedAt == nil {
			continue
		}
		lo, hi := later(r.OccurrenceAt.Add(time.Millisecond), from), earlier(r.EndedAt.Add(time.Millisecond), earlier(to, now.Add(time.Millisecond)))
		if !lo.Before(hi) {
			continue
		}
		for _, oc := range rc.Between(lo, hi) {
			if !ran[oc.At.UnixMilli()] {
				add(oc.At, r)
			}
		}
	}
	return ran, out
}

// calendarReleases reads the releases of [from, to) that pass f, in (At,
// ID) order: for a page, after p until n pass (no later release can be
// among the page's n items); for the grid (p nil), all of them, brief.
func (e *Calendar) calendarReleases(ctx context.Context, f calendarFilter, from, to time.Time, p *position, n int) ([]CalendarItem, error) {
	// A search reads titles, which a brief row has not.
	rq := CalendarReleaseQuery{SiteID: f.q.SiteID, From: from, To: to, Brief: p == nil && f.text == "", Actors: f.readsActors()}
	for _, st := range release.States {
		if len(f.q.States) > 0 && slices.Contains(f.q.States, StateFacet(string(st))) {
			rq.States = append(rq.States, st)
		}
	}
	if len(rq.States) > 0 && slices.Contains(f.q.States, FacetAttention) && !slices.Contains(rq.States, release.StateScheduled) {
		// "Needs attention" lists the releases the kill switch holds:
		// scheduled ones whose time has come. None is, unless the site is
		// paused; then read the scheduled ones up to now.
		paused, err := f.pause.holds(release.StateScheduled, f.pause.now)
		if err != nil {
			return nil, err
		}
		if paused {
			rq.States = append(rq.States, release.StateScheduled)
		}
	}
	if p != nil {
		if p.set {
			rq.AfterAt, rq.AfterID = p.at, p.id
		}
		rq.Limit = n // most pass the facets; if not, read on in bigger steps
	}
	var out []CalendarItem
	for {
		rows, err := e.store.CalendarReleases(ctx, rq)
		if err != nil {
			return nil, err
		}
		out = slices.Grow(out, len(rows))
		for _, r := range rows {
			it := calendarReleaseItem(r)
			if it.Held, err = f.pause.holds(r.State, r.At); err != nil {
				return nil, err
			}
			if f.match(&it, r.ApprovedBy) {
				out = append(out, it)
			}
		}
		if rq.Limit == 0 || len(rows) < rq.Limit || len(out) >= n {
			break
		}
		last := rows[len(rows)-1]
		rq.AfterAt, rq.AfterID, rq.Limit = last.At, last.ID, 4*rq.Limit
	}
	// The store sorts by the stored instant's text, which is (At, ID)
	// order; checking is cheap and keeps the merge right whatever it does.
	if !slices.IsSortedFunc(out, compareItems) {
		slices.SortFunc(out, compareItems)
	}
	return out, nil
}

// automationOccurrences prepares an automation's occurrences in [from, to)
// from its rule; false when none can pass the filter. An automation has no
// occurrences until it was created; past ones without a run (the caller
// sets ran) are "not_run" — never "done" without a run (§11.7): one a
// paused automation did not run is not run, since nothing ran it —, and
// future ones of a paused or broken automation are "paused".
func automationOccurrences(a automations.Automation, rc recurrence.Recurrence, f calendarFilter, now, from, to time.Time) (occurrences, bool) {
	base := occurrenceBase(a)
	o := occurrences{id: a.ID, rc: rc, now: now, past: base, future: base}
	o.past.State = ItemNotRun
	o.future.State = string(release.StateScheduled)
	if a.State != automations.AutomationActive {
		o.future.State = ItemPaused
	}
	o.future.Recurring = a.Rule != ""
	pastOK, futureOK := f.match(&o.past, ""), f.match(&o.future, "")
	afterNow := now.Add(time.Nanosecond) // the first instant of the future: At > now
	// The runner runs the occurrences after the automation was created
	// (its first HandledAt): one at the very instant it was created is not
	// its own either.
	o.lo, o.hi = later(from, a.CreatedAt.Add(time.Nanosecond)), to
	switch {
	case !pastOK && !futureOK:
		return occurrences{}, false
	case !pastOK:
		o.lo = later(o.lo, afterNow)
	case !futureOK:
		o.hi = earlier(o.hi, afterNow)
	}
	return o, o.lo.Before(o.hi)
}

// calendarReleaseItem is the calendar's view of a release.
func calendarReleaseItem(r CalendarRelease) CalendarItem {
	it := CalendarItem{ID: r.ID, Kind: ItemRelease, At: r.At.UTC(), Title: r.Title, Target: r.ID, Origin: "person",
		By: r.By, State: string(r.State), Rev: r.Rev, Approval: ApprovalNone, Overlaps: r.Overlaps,
		RequestID: r.RequestID}
	if r.By.Kind == "agent" {
		it.Origin = "agent"
	}
	if r.Items == 1 {
		it.Kind, it.Collection = ItemPublish, string(r.NodeKind)
		if r.Op == release.OpRemove {
			it.Kind = ItemExpiry
		}
	}
	switch {
	case r.State == release.StateAwaitingApproval:
		it.Approval = ApprovalPending
	case r.State == release.StateExpired:
		it.Approval = ApprovalExpired
	case r.ApprovalKind == "auto":
		it.Approval = ApprovalAuto
	case r.ApprovalKind != "":
		it.Approval = ApprovalApproved
	}
	return it
}

// gateItem is the calendar's view of a gate: an embargo at from, an expiry
// at until, "scheduled" until it passes and "done" after.
func gateItem(g CalendarGate, now time.Time) CalendarItem {
	it := CalendarItem{ID: "gate:" + g.NodeID + ":" + g.Edge, Kind: ItemEmbargo, At: g.At.UTC().Truncate(time.Millisecond),
		Title: g.Title, Target: g.NodeID, Origin: "person", By: g.By, Approval: ApprovalNone,
		State: string(release.StateScheduled), Collection: string(g.NodeKind)}
	if g.Edge == "until" {
		it.Kind = ItemExpiry
	}
	if g.By.Kind == "agent" {
		it.Origin = "agent"
	}
	if !it.At.After(now) {
		it.State = ItemDone
	}
	return it
}

// calendarPage returns the first n items of s after p, in (At, ID) order,
// in one read of releases: the gates and occurrences come first, as they
// cost no statement (windows that double from a day, so a month of hourly
// automations expands a day or two of them), and the n-th of them bounds
// the releases worth reading, since no later item can be on the page.
func (e *Calendar) calendarPage(ctx context.Context, s *calendarSet, p position, n int) ([]CalendarItem, error) {
	mem := s.gatesAndOccurrences(p, n)
	var rel []CalendarItem
	if s.withReleases {
		hi := s.to
		if len(mem) == n {
			hi = earlier(mem[n-1].At.Add(time.Millisecond), s.to) // instants are whole milliseconds
		}
		var err error
		if rel, err = e.calendarReleases(ctx, s.filter, s.from, hi, &p, n); err != nil {
			return nil, err
		}
		rel = slices.DeleteFunc(rel, func(it CalendarItem) bool { return !p.before(&it) })
	}
	out := make([]CalendarItem, 0, min(n, len(mem)+len(rel)))
	for i, j := 0, 0; len(out) < n && (i < len(mem) || j < len(rel)); {
		if j == len(rel) || (i < len(mem) && itemLess(&mem[i], &rel[j])) {
			out = append(out, mem[i])
			i++
		} else {
			out = append(out, rel[j])
			j++
		}
	}
	return out, nil
}

// gatesAndOccurrences returns the first n gates and occurrences after p, in
// (At, ID) order.
func (s *calendarSet) gatesAndOccurrences(p position, n int) []CalendarItem {
	var out []CalendarItem
	gi := 0
	for lo, w := s.from, 24*time.Hour; lo.Before(s.to) && len(out) < n; lo, w = lo.Add(w), 2*w {
		hi := earlier(lo.Add(w), s.to)
		first := len(out)
		for ; gi < len(s.listed) && s.listed[gi].At.Before(hi); gi++ {
			if p.before(&s.listed[gi]) {
				out = append(out, s.listed[gi])
			}
		}
		for i := range s.autos {
			o := &s.autos[i]
			for _, oc := range o.between(lo, hi) {
				if it := o.item(oc.At); p.before(&it) {
					out = append(out, it)
				}
			}
		}
		slices.SortFunc(out[first:], compareItems)
	}
	return out[:min(len(out), n)]
}

// days fills days (from calendarDays) with every item of the set: the
// occurrences and gates first, then the releases once their read is in.
func (s *calendarSet) days(days []CalendarDay) ([]CalendarDay, error) {
	if len(days) == 0 {
		return days, s.wait()
	}
	// Counts by kind go into arrays first: a month can hold ten thousand
	// occurrences, and a map increment each would be most of their cost.
	byKind := make([][len(itemKinds)]int, len(days))
	count := func(i int, kind, approval string) {
		days[i].Total++
		byKind[i][slices.Index(itemKinds[:], kind)]++
		if approval == ApprovalPending {
			days[i].Waiting++
		}
	}
	for i := range s.autos {
		o := &s.autos[i]
		day := 0
		for _, oc := range o.between(s.from, s.to) {
			for day < len(days) && !days[day].End.After(oc.At) {
				day++
			}
			if day == len(days) {
				break
			}
			count(day, ItemAutomation, ApprovalNone)
			// Only an occurrence that can be among the day's first chips is
			// made into an item (its id is the costly part).
			if d := &days[day]; len(d.Items) < CalendarDayItems || !oc.At.After(d.Items[len(d.Items)-1].At) {
				d.offer(o.item(oc.At))
			}
		}
	}
	dayOf := func(at time.Time) int {
		return sort.Search(len(days), func(i int) bool { return days[i].End.After(at) })
	}
	add := func(list []CalendarItem) {
		for _, it := range list {
			if i := dayOf(it.At); i < len(days) {
				count(i, it.Kind, it.Approval)
				days[i].offer(it)
			}
		}
	}
	add(s.listed)
	if err := s.wait(); err != nil {
		return nil, err
	}
	add(s.releases)
	for i := range days {
		for k, n := range byKind[i] {
			if n > 0 {
				days[i].ByKind[itemKinds[k]] = n
			}
		}
	}
	return days, nil
}

// completeChips replaces the brief releases among the days' chips with
// full ones (title, rev, overlaps, request): one statement for at most
// CalendarDayItems a day. A release that moved in between keeps its brief
// row, where it was counted.
func (e *Calendar) completeChips(ctx context.Context, s *calendarSet, days []CalendarDay) error {
	var ids []string
	for _, d := range days {
		for _, it := range d.Items {
			if isReleaseItem(it) {
				ids = append(ids, it.ID)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := e.store.CalendarReleases(ctx, CalendarReleaseQuery{SiteID: s.siteID, From: s.from, To: s.to, IDs: ids})
	if err != nil {
		return err
	}
	full := make(map[string]CalendarItem, len(rows))
	for _, r := range rows {
		it := calendarReleaseItem(r)
		if it.Held, err = s.filter.pause.holds(r.State, r.At); err != nil {
			return err
		}
		full[r.ID] = it
	}
	for i := range days {
		for j, it := range days[i].Items {
			if f, ok := full[it.ID]; ok && f.At.Equal(it.At) {
				days[i].Items[j] = f
			}
		}
	}
	return nil
}

// isReleaseItem reports whether it is a release's (not a gate's or an
// occurrence's).
func isReleaseItem(it CalendarItem) bool {
	return !strings.HasPrefix(it.ID, "gate:") && !strings.HasPrefix(it.ID, "occ:")
}

// offer keeps it if it is among the day's first CalendarDayItems.
func (d *CalendarDay) offer(it CalendarItem) {
	if len(d.Items) == CalendarDayItems && !itemLess(&it, &d.Items[len(d.Items)-1]) {
		return
	}
	i, _ := slices.BinarySearchFunc(d.Items, it, compareItems)
	d.Items = slices.Insert(d.Items, i, it)
	if len(d.Items) > CalendarDayItems {
		d.Items = d.Items[:CalendarDayItems]
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
