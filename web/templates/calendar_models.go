package templates

// CalendarView is the Schedules page (RFC §15.1): its navigation, the
// time-zone note and the filters, the Agenda or the Month, and the aside.
// Every word and link is decided by the handler.
type CalendarView struct {
	View  string // agenda | month
	Title string // the period: "2–15 November 2026", "November 2026"
	// URL is the page in this state (canonical): forms that decide
	// something inline come back to it.
	URL string
	// ViewerZone says times and days are in the viewer's own zone.
	ViewerZone bool

	Nav     CalendarNav
	Zone    ZoneNote
	Filters CalendarFilters

	Agenda *AgendaView
	Month  *MonthView

	Aside     CalendarAside
	Attention *AttentionBanner
	// Paused is the kill switch's banner, shown under the title with the
	// attention banner rather than above the page.
	Paused *PausedView
	// Stalled is §8.7's alert: the scheduler has stopped.
	Stalled *StalledBanner
	// Alert is a refusal of an inline decision, shown above the calendar.
	Alert string
	CSRF  string
}

// CalendarNav is ‹ Today › with the period's title, "Go to date" and the
// Agenda | Month switch.
type CalendarNav struct {
	PrevURL, TodayURL, NextURL string
	PrevLabel, NextLabel       string // "Previous 14 days", "Next month"
	AgendaURL, MonthURL        string
	// Date is the "Go to date" field's value; Keep the state the form
	// carries along.
	Date string
	Keep []HiddenField
}

// HiddenField is one name and value a form carries.
type HiddenField struct {
	Name, Value string
}

// ZoneNote is "Times are in Istanbul time (UTC+3)" with the way to the
// viewer's own zone and back.
type ZoneNote struct {
	City, Offset string // the zone the page shows
	Viewer       bool   // it is the viewer's zone
	// ToggleURL switches to the other zone, OtherCity names it; empty when
	// the viewer's zone is the site's or unknown.
	ToggleURL string
	OtherCity string
}

// CalendarFilters are the facets as checkbox groups, the built-in views and
// "Clear filters".
type CalendarFilters struct {
	// Text is the title search (q); SearchKeep the rest of the state,
	// which a search keeps.
	Text       string
	SearchKeep []HiddenField
	Keep       []HiddenField
	Groups     []FilterGroup
	Presets    []PresetLink
	// ClearURL is the page without filters; empty when nothing is filtered.
	ClearURL string
	Chosen   int  // how many facet values are ticked
	Open     bool // the fold comes open (the request came from it)
}

// FilterGroup is one facet.
type FilterGroup struct {
	Name    string // the URL's name: kind, state, …
	Legend  string
	Options []FilterOption
}

// FilterOption is one value of a facet.
type FilterOption struct {
	Value, Label string
	Checked      bool
}

// PresetLink is one built-in view.
type PresetLink struct {
	Key, Label, URL string
	Current         bool
}

// AgendaView is the Agenda (§15.2): days in order, each with its items.
type AgendaView struct {
	Days []AgendaDay
	// MoreURL loads the next page of items ("Load more"); MoreFragment is
	// the same for htmx, naming the day the page ends on. Empty at the end.
	MoreURL, MoreFragment string
	// Empty is the sentence when there is nothing to show.
	Empty string
	// What the rows' forms need: the session's token, the page to come
	// back to, and whether times are the viewer's.
	CSRF       string
	ReturnURL  string
	ViewerZone bool
	// Move is the reschedule dialog "Move to…" opens in place (the one a
	// drag opens on the Month); nil for someone who may not schedule.
	Move *MoveDialogView
}

// AgendaDay is one day of the Agenda.
type AgendaDay struct {
	Heading string
	Date    string // 2006-01-02, the heading's id
	// Continued days go on from a previous page: their heading is
	// already on the page.
	Continued bool
	Today     bool
	Past      bool
	// Done are today's finished items, folded ("3 done today").
	Done  []AgendaItem
	Items []AgendaItem
	// NowAt is where the "Now" rule goes among Items (-1: none); Now is
	// its time.
	NowAt int
	Now   string
	// Runs are the day's recurring automation runs, folded.
	Runs []AgendaItem
}

// AgendaItem is one row of the Agenda: a release, a gate or an
// automation run.
type AgendaItem struct {
	ID        string // the calendar item's id
	ReleaseID string // for a release, its id
	Kind      string // publish | expiry | embargo | release | automation
	KindLabel string
	Title     string
	Href      string // "" when the item has no page
	When      TimePair
	// State is the badge's state (the release state, or "denied"), with
	// its word; Look is the row's fill (§15.3): filled, dashed, struck,
	// faded, ghost, alert.
	State      string
	StateLabel string
	Look       string
	Running    bool
	// Extra badges: "Automatic", "Approved".
	Auto, Approved bool
	Collection     string // "Article"
	By             string // "by Elif Editor", "proposed by Desk"
	Agent          bool
	Recurring      bool
	// Overlaps: a node of the release is also in another pending release
	// (§6.2, D15); the release's page names which.
	Overlaps bool
	// SameMinute counts the site's releases due in this item's minute when
	// more than one is: they run one at a time, in id order (§6.5, D15).
	SameMinute int
	Rev        int64
	// Decide, when set, is the waiting request the viewer may approve or
	// deny inline.
	Decide *DecideView
	Menu   *ItemMenu
	// Outcome is a past occurrence's run outcome, apart from its state
	// ("ran" is not "did something", §11.7), with its word; Manual says
	// it was a person's Run now.
	Outcome, OutcomeLabel string
	Manual                bool
	// Quiet: an occurrence whose run went as planned (succeeded, or
	// skipped by coalescing): on a past day, these fold with the day's
	// automation runs, and the rest (failed, missed, not run…) stay in
	// view.
	Quiet bool
	// Occurrence is an automation occurrence's ⋯ menu.
	Occurrence *OccurrenceMenu
}

// OccurrenceMenu is the ⋯ menu of an automation's occurrence: Run now
// (a form; RunNowURL is empty when the engine would refuse it), Edit
// (empty when the person may not) and History.
type OccurrenceMenu struct {
	RunNowURL  string
	EditURL    string
	HistoryURL string
}

// DecideView is an inline Approve / Deny of one request.
type DecideView struct {
	RequestID string
	Title     string
}

// ItemMenu is an item's ⋯ menu.
type ItemMenu struct {
	MoveURL       string
	PublishNowURL string
	CompareURL    string
	Unschedule    bool
}

// CalendarAside is the column beside the calendar: the requests waiting
// for approval and the scheduler's health.
type CalendarAside struct {
	Waiting      []WaitingRow
	WaitingTotal int
	Health       HealthView
	CanSettings  bool
	Drafts       []DraftRow
	// Paused: the site's schedules are paused, so the Scheduler card says
	// so (and how many releases wait) instead of promising a publish.
	Paused bool
	Held   int
	// Stalled: the scheduler has stopped by §8.7's rule; the page shows
	// the stalled banner.
	Stalled bool
}

// WaitingRow is one request waiting for approval.
type WaitingRow struct {
	RequestID   string
	Title       string
	When        *TimePair
	RequestedBy string
	CanDecide   bool
}

// StalledBanner says scheduled work is not running (§8.7), with the last
// tick (nil before the first) and, for those who may, the way to the
// Scheduler card.
type StalledBanner struct {
	LastTick    *TimePair
	CanSettings bool
}

// AttentionBanner is "2 schedules need attention · Review".
type AttentionBanner struct {
	Count     int
	ReviewURL string
}
