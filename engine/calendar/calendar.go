// Package calendar is the calendar read model (RFC §12 list_schedule,
// §15): the items of a site's schedule in a range, filtered by facets, as
// Studio's Agenda and Month, the JSON API and the CLI list them. It only
// reads; every change goes through the engine's use cases.
package calendar

import (
	"context"
	"encoding/base64"
	"log/slog"
	"strings"
	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/releases"
	"time"
	"unicode/utf8"

	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// Calendar item kinds (RFC §12 list_schedule, §15.3 icons).
const (
	ItemPublish    = "publish"    // a one-item release that publishes a page or an entry
	ItemExpiry     = "expiry"     // a one-item release that takes one down, or a gate's until
	ItemEmbargo    = "embargo"    // a gate's from
	ItemRelease    = "release"    // a release of several items
	ItemAutomation = "automation" // an occurrence of an automation's rule
)

// ItemKinds lists the kinds in the order the filters show them.
var ItemKinds = itemKinds[:]

// The types of §12 list_schedule: what an item stands for, whatever its
// kind (an expiry is a release's or a gate's).
const (
	TypeRelease    = "release"
	TypeGate       = "gate"
	TypeAutomation = "automation"
)

// ItemTypes are the types, in §12's order.
var ItemTypes = []string{TypeRelease, TypeGate, TypeAutomation}

// ItemType is the type of it: an occurrence by its kind (the filter
// matches an automation's occurrences before they have ids), a gate by its
// id.
func ItemType(it CalendarItem) string {
	switch {
	case it.Kind == ItemAutomation:
		return TypeAutomation
	case strings.HasPrefix(it.ID, "gate:"):
		return TypeGate
	}
	return TypeRelease
}

var itemKinds = [...]string{ItemPublish, ItemExpiry, ItemEmbargo, ItemRelease, ItemAutomation}

// Approval facets of a calendar item (§12).
const (
	ApprovalNone     = "none"
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalAuto     = "auto"
	ApprovalDenied   = "denied"
	ApprovalExpired  = "expired"
)

// ApprovalFacets lists the approval facets in the order the filters show them.
var ApprovalFacets = []string{ApprovalNone, ApprovalPending, ApprovalApproved, ApprovalAuto, ApprovalDenied, ApprovalExpired}

// Calendar limits (§12): a range of at most 62 days, 200 items a page; a
// Month cell shows at most three chips (§15.2).
const (
	CalendarMaxDays  = 62
	CalendarMaxItems = 200
	CalendarDayItems = 3
)

// Item states that are not release states: a gate that has passed is
// done; an occurrence that has passed with no run behind it is not run
// (§11.7: an occurrence is never shown as done without a run; one with a
// run has the run's state, automation.RunState, and its RunID); a future
// occurrence of a paused (or broken) automation is paused. Gates and
// occurrences to come are release.StateScheduled's "scheduled".
const (
	ItemDone   = "done"
	ItemNotRun = "not_run"
	ItemPaused = "paused"
)

// State facets (§15.5): the URL's grouped values, which people filter by.
// StateFacet says which one an item's State belongs to.
const (
	FacetScheduled = "scheduled" // scheduled, a draft with a time, a paused automation's occurrence
	FacetWaiting   = "waiting"   // awaiting approval
	FacetRunning   = "running"   // a release publishing; an occurrence's run in progress
	FacetAttention = "attention" // conflict, failed, missed; a release held by the kill switch; a run failed, missed, killed or over budget
	FacetNotRun    = "not_run"   // an occurrence that has passed with no run behind it, or whose run was skipped
	FacetDone      = "done"      // published; a gate that has passed; an occurrence whose run succeeded
	FacetCanceled  = "canceled"  // canceled, expired, denied: hidden unless asked for
)

// StateFacets lists the state facets in the order the filters show them.
var StateFacets = []string{FacetScheduled, FacetWaiting, FacetRunning, FacetAttention, FacetNotRun, FacetDone, FacetCanceled}

// StateFacet is the state facet of an item state: a release state, a run
// state (an occurrence that has passed with a run behind it), "done",
// "ran", "not_run", "paused" or "denied". An unknown state has none ("").
func StateFacet(state string) string {
	switch state {
	case string(release.StateScheduled), ItemPaused:
		return FacetScheduled
	case string(release.StateAwaitingApproval):
		return FacetWaiting
	case string(release.StateRunning):
		return FacetRunning
	case string(release.StateConflict), string(release.StateFailed), string(release.StateMissed):
		return FacetAttention
	case ItemNotRun:
		return FacetNotRun
	case string(release.StatePublished), ItemDone, "ran", string(automation.RunSucceeded):
		return FacetDone
	case string(automation.RunKilled), string(automation.RunBudgetExceeded):
		return FacetAttention
	case string(automation.RunDue), string(automation.RunReady):
		return FacetRunning
	case string(automation.RunSkipped):
		return FacetNotRun // recorded, but it did not run (a coalesced occurrence, §8.6)
	case string(release.StateCanceled), string(release.StateExpired), ApprovalDenied:
		return FacetCanceled
	}
	return ""
}

// checkCalendarQuery refuses a range the calendar does not read and a
// search text too long to be a title's.
func checkCalendarQuery(q CalendarQuery, loc *time.Location) error {
	if utf8.RuneCountInString(q.Text) > TextMax {
		return &engine.Error{Code: CodeTextTooLong, Field: "q", Args: map[string]any{"Max": TextMax}}
	}
	return checkCalendarRange(q.From, q.To, loc)
}

// Refusals of a calendar query.
const (
	// CodeRangeTooLong: To is more than CalendarMaxDays after From (on the
	// clock of the site's zone). Field "to"; Args["MaxDays"].
	CodeRangeTooLong = "range_too_long"
	// CodeBadRange: To is not after From, or one of them is missing.
	CodeBadRange = "bad_range"
	// CodeBadCursor: the cursor is not one a page handed out.
	CodeBadCursor = "bad_cursor"
	// CodeTextTooLong: the search text is longer than TextMax. Field "q".
	CodeTextTooLong = "text_too_long"
)

// CalendarItem is one thing on the calendar: a release, a gate or an
// occurrence of an automation (§12 list_schedule, §4.5: a view, not a
// contract). The Agenda, the Month grid and GET …/schedule all read these.
type CalendarItem struct {
	ID    string    `json:"id"` // rel_…, gate:<nodeId>:from|until, occ:<automationId>:<at>
	Kind  string    `json:"kind"`
	At    time.Time `json:"at"` // UTC, to the millisecond
	Title string    `json:"title"`
	// Target is what the item is about: the release id, or the node id of a
	// gate, or the automation id.
	Target     string        `json:"target"`
	Origin     string        `json:"origin"` // person | agent
	By         release.Actor `json:"by"`
	Approval   string        `json:"approval"`
	State      string        `json:"state"` // the release's state; "scheduled" for a gate or an occurrence to come, "done" for a gate once passed, its run's state (succeeded, failed, skipped, missed, running…) for an occurrence once passed, "not_run" for one with no run, "paused"
	Overlaps   bool          `json:"overlaps,omitempty"`
	Recurring  bool          `json:"recurring,omitempty"`  // a future occurrence of a rule (a ghost chip)
	Collection string        `json:"collection,omitempty"` // the node kind of a one-item release or a gate
	// Rev is the release's rev, for the actions an item offers inline
	// (approve, move, unschedule) to be guarded on what the person saw.
	Rev int64 `json:"rev,omitempty"`
	// RequestID is the waiting approval request of a release awaiting
	// approval, so the agenda can decide it inline.
	RequestID string `json:"requestId,omitempty"`
	// Held: a scheduled release whose time has come while the site's
	// schedules are paused (RFC §11.6): it waits for the site to resume,
	// and is missed after its late limit. Its state stays "scheduled"; its
	// state facet is "attention" (see ItemFacet).
	Held bool `json:"held,omitempty"`
	// RunID is the run behind a past occurrence (for a skipped one, the
	// skipped run that stands for it and the other coalesced ones), and
	// Outcome that run's outcome (automation.Outcome, "" while it runs or
	// when it did not run). Manual: the run was a person's "Run now", at
	// its own time, not one of the rule's.
	RunID   string `json:"runId,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Manual  bool   `json:"manual,omitempty"`
	// May is what the person who asked may do to the item now, filled
	// when the query asks for it (CalendarQuery.Abilities): the Studio
	// page's actions, not part of §12's item.
	May ItemAbilities `json:"-"`
}

// ItemFacet is the state facet of an item: StateFacet of its state, except
// that a release held by the kill switch needs attention (someone has to
// resume the site within the late limit, or it is missed).
func ItemFacet(it CalendarItem) string {
	if it.Held {
		return FacetAttention
	}
	return StateFacet(it.State)
}

// CalendarQuery selects calendar items: [From, To) of at most
// CalendarMaxDays, filtered by facets (an empty facet means all; values are
// the item's Kind, StateFacet(State), Origin, Approval and Collection), at
// most Limit (≤ CalendarMaxItems; 0 means CalendarMaxItems) items after
// Cursor.
//
// States are the grouped values of StateFacets. When States is empty,
// canceled, denied and expired items (StateFacet "canceled", approval
// "denied" or "expired") are hidden (§15.5); they show when States asks for
// them, or when Approvals names "denied" or "expired" for items with that
// approval. Collections keep only items that have a collection (one-item
// releases and gates). Mine keeps the items the person created or approved.
type CalendarQuery struct {
	SiteID      string
	From, To    time.Time
	Kinds       []string
	States      []string
	Origins     []string
	Approvals   []string
	Collections []string
	Mine        bool // only items the person created or approved
	// Text keeps the items whose title has it (FoldTitle on both sides:
	// case, Turkish dotted and dotless i and the letters with marks fold,
	// so "secim" finds "Seçim"); at most TextMax runes.
	Text string
	// Types are §12 list_schedule's types (ItemTypes): releases, gates,
	// automation occurrences; empty, all three.
	Types  []string
	Cursor string
	Limit  int
	// Abilities asks for each item's May: what the person may do to it
	// now (one more statement or two, for the release items only).
	Abilities bool
}

// TextMax is the longest text a calendar search takes.
const TextMax = 100

// FoldTitle is s as a title search compares it: lower case, with the
// Turkish i's one letter and ç ğ ö ş ü as c g o s u.
func FoldTitle(s string) string {
	return titleFolder.Replace(strings.ToLower(strings.ReplaceAll(s, "İ", "i")))
}

var titleFolder = strings.NewReplacer("ı", "i", "ç", "c", "ğ", "g", "ö", "o", "ş", "s", "ü", "u", "â", "a", "î", "i", "û", "u")

// CalendarPage is one page of items in time order (ties by id).
type CalendarPage struct {
	Items      []CalendarItem `json:"items"`
	NextCursor string         `json:"nextCursor,omitempty"`
	TimeZone   string         `json:"timeZone"`
}

// CalendarDay is one day of the Month grid, in the site's zone: its first
// CalendarDayItems items and what the cell's accessible name counts ("3
// items: 2 publishes, 1 waiting for approval"). Days cover [Start, End):
// 23 or 25 hours on the days the clocks change.
type CalendarDay struct {
	Date  string    `json:"date"` // YYYY-MM-DD in the zone
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Items are the day's first CalendarDayItems items in time order (ties
	// by id); Total - len(Items) is the "+N more".
	Items   []CalendarItem `json:"items"`
	Total   int            `json:"total"`
	ByKind  map[string]int `json:"byKind"`
	Waiting int            `json:"waiting"` // items waiting for approval (approval "pending")
}

// More is how many items the day has beyond its chips.
func (d CalendarDay) More() int { return d.Total - len(d.Items) }

// Store is what the calendar reads: the site and its schedule settings,
// its releases and gates in a range, and its automations.
type Store interface {
	Site(ctx context.Context, id string) (engine.Site, error)
	ScheduleSettings(ctx context.Context, siteID string) (releases.ScheduleSettings, error)
	Automations(ctx context.Context, siteID string) ([]automations.Automation, error)
	// Release is one release of the site, for an item's time (Item).
	Release(ctx context.Context, siteID, id string) (releases.ReleaseRow, error)
	Reads
}

// Calendar answers calendar reads against a store at the clock's time.
type Calendar struct {
	store    Store
	clock    engine.Clock
	log      *slog.Logger
	releases Releases // for CalendarQuery.Abilities
}

// New wires a calendar. rel answers the release items' abilities
// (CalendarQuery.Abilities), and may be nil for a calendar never asked
// them; log may be nil.
func New(store Store, rel Releases, clock engine.Clock, log *slog.Logger) *Calendar {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Calendar{store: store, releases: rel, clock: clock, log: log}
}

// Now is the clock's time to the millisecond, as the engine reads it.
func (e *Calendar) Now() time.Time { return e.clock.Now().UTC().Truncate(time.Millisecond) }

// Calendar lists the calendar items of a site for u (§12 list_schedule):
// releases with a time in the range, the gates of pages and entries, and
// the occurrences of automations, filtered by the query's facets, one page
// of at most Limit items in (At, ID) order; NextCursor continues it.
func (e *Calendar) Calendar(ctx context.Context, u engine.User, q CalendarQuery) (CalendarPage, error) {
	if err := engine.Require(u, q.SiteID, policy.SchedulesRead); err != nil {
		return CalendarPage{}, err
	}
	site, err := e.store.Site(ctx, q.SiteID)
	if err != nil {
		return CalendarPage{}, err
	}
	loc := siteLocation(site)
	if err := checkCalendarQuery(q, loc); err != nil {
		return CalendarPage{}, err
	}
	after, err := parseCalendarCursor(q.Cursor)
	if err != nil {
		return CalendarPage{}, err
	}
	limit := q.Limit
	if limit <= 0 || limit > CalendarMaxItems {
		limit = CalendarMaxItems
	}
	from := q.From
	if after.set && after.at.After(from) {
		from = after.at
	}
	if !from.Before(q.To) {
		return CalendarPage{Items: []CalendarItem{}, TimeZone: site.TimeZone}, nil
	}
	set, err := e.calendarSet(ctx, u, q, from, q.To, true)
	if err != nil {
		return CalendarPage{}, err
	}
	items, err := e.calendarPage(ctx, set, after, limit+1)
	if err != nil {
		return CalendarPage{}, err
	}
	page := CalendarPage{Items: items, TimeZone: site.TimeZone}
	if len(items) > limit {
		page.Items = items[:limit]
		page.NextCursor = calendarCursor(items[limit-1])
	}
	if q.Abilities {
		ptrs := make([]*CalendarItem, len(page.Items))
		for i := range page.Items {
			ptrs[i] = &page.Items[i]
		}
		if err := e.attachAbilities(ctx, u, q.SiteID, ptrs); err != nil {
			return CalendarPage{}, err
		}
	}
	return page, nil
}

// CalendarDays lists the days of [q.From, q.To) in loc (nil: the site's
// zone), each with its first CalendarDayItems items and its counts, for the
// Month grid. The facets filter as in Calendar; Cursor and Limit are
// ignored: every item of the range is counted. Days start at local
// midnight (or the first instant after it); the first and last are cut at
// From and To.
func (e *Calendar) CalendarDays(ctx context.Context, u engine.User, q CalendarQuery, loc *time.Location) ([]CalendarDay, error) {
	if err := engine.Require(u, q.SiteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	site, err := e.store.Site(ctx, q.SiteID)
	if err != nil {
		return nil, err
	}
	if loc == nil {
		loc = siteLocation(site)
	}
	if err := checkCalendarQuery(q, loc); err != nil {
		return nil, err
	}
	set, err := e.calendarSet(ctx, u, q, q.From, q.To, false)
	if err != nil {
		return nil, err
	}
	days, err := set.days(calendarDays(q.From, q.To, loc))
	if err != nil {
		return nil, err
	}
	if err := e.completeChips(ctx, set, days); err != nil {
		return nil, err
	}
	if q.Abilities {
		var ptrs []*CalendarItem
		for i := range days {
			for j := range days[i].Items {
				ptrs = append(ptrs, &days[i].Items[j])
			}
		}
		if err := e.attachAbilities(ctx, u, q.SiteID, ptrs); err != nil {
			return nil, err
		}
	}
	return days, nil
}

// checkCalendarRange refuses a range that is empty, backwards or longer
// than CalendarMaxDays on the clock of loc: the 62 days from 00:00 on 1
// March to 00:00 on 2 May are 62 × 24 hours less the hour the clocks skip.
func checkCalendarRange(from, to time.Time, loc *time.Location) error {
	switch {
	case from.IsZero():
		return &engine.Error{Code: CodeBadRange, Field: "from"}
	case to.IsZero() || !to.After(from):
		return &engine.Error{Code: CodeBadRange, Field: "to"}
	}
	_, offFrom := from.In(loc).Zone()
	_, offTo := to.In(loc).Zone()
	if to.Sub(from)+time.Duration(offTo-offFrom)*time.Second > CalendarMaxDays*24*time.Hour {
		return &engine.Error{Code: CodeRangeTooLong, Field: "to", Args: map[string]any{"MaxDays": CalendarMaxDays}}
	}
	return nil
}

// calendarDays cuts [from, to) at the local midnights of loc. A midnight
// that does not exist (a DST gap at 00:00) starts its day at the first
// instant after it, as localtime.Resolve says.
func calendarDays(from, to time.Time, loc *time.Location) []CalendarDay {
	w := localtime.WallOf(from, loc)
	w.Hour, w.Minute = 0, 0
	var days []CalendarDay
	for start := from; start.Before(to); {
		next := w.AddDays(1)
		end, _ := localtime.Resolve(next, loc)
		end = end.UTC()
		if end.After(to) {
			end = to
		}
		days = append(days, CalendarDay{Date: w.Date(), Start: start.UTC(), End: end, Items: []CalendarItem{},
			ByKind: map[string]int{}})
		start, w = end, next
	}
	return days
}

// calendarCursor is an opaque position: after the item at this instant with
// this id.
func calendarCursor(it CalendarItem) string {
	return base64.RawURLEncoding.EncodeToString([]byte(localtime.FormatInstant(it.At) + "|" + it.ID))
}

// position is a decoded cursor; set is false for the first page.
type position struct {
	set bool
	at  time.Time
	id  string
}

// before reports whether the item comes after p: (At, ID) order.
func (p position) before(it *CalendarItem) bool {
	if !p.set {
		return true
	}
	if !it.At.Equal(p.at) {
		return it.At.After(p.at)
	}
	return it.ID > p.id
}

func parseCalendarCursor(s string) (position, error) {
	if s == "" {
		return position{}, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return position{}, &engine.Error{Code: CodeBadCursor, Field: "cursor"}
	}
	at, id, ok := strings.Cut(string(raw), "|")
	if !ok || id == "" {
		return position{}, &engine.Error{Code: CodeBadCursor, Field: "cursor"}
	}
	t, err := localtime.ParseInstant(at)
	if err != nil {
		return position{}, &engine.Error{Code: CodeBadCursor, Field: "cursor"}
	}
	return position{set: true, at: t, id: id}, nil
}

// itemLess is the calendar's order: by instant, then by id.
func itemLess(a, b *CalendarItem) bool {
	if !a.At.Equal(b.At) {
		return a.At.Before(b.At)
	}
	return a.ID < b.ID
}

func compareItems(a, b CalendarItem) int {
	switch {
	case itemLess(&a, &b):
		return -1
	case itemLess(&b, &a):
		return 1
	}
	return 0
}

// siteLocation is the site's zone; UTC for a name that does not load.
func siteLocation(site engine.Site) *time.Location {
	if loc, err := localtime.Zone(site.TimeZone); err == nil {
		return loc
	}
	return time.UTC
}
