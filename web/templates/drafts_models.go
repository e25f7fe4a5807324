package templates

import "time"

// NodeChoice is one article or page to tick in a release form.
type NodeChoice struct {
	ID      string
	Title   string
	Kind    string
	Status  string
	Live    bool
	Checked bool
}

// NewReleaseForm is the "New release…" page: a title, the articles and
// pages to publish and the live ones to take down at the release's time.
type NewReleaseForm struct {
	Title  string
	Nodes  []NodeChoice // to publish
	Live   []NodeChoice // live ones, for "Unpublish at this time"
	Errors FieldErrors
	Error  string
}

// OverlapView flags another pending release that carries the same node
// (§6.2 Overlaps, D15).
type OverlapView struct {
	ReleaseID string
	Title     string
	At        *time.Time // in the site's zone; nil for a draft without a time
}

// DraftItemView is one item of a draft release.
type DraftItemView struct {
	ReleaseItemView
	// Moved says the node changed since it was pinned (Re-pin).
	Moved bool
}

// DraftView is the page of a draft release: its items, and the forms that
// change it while it is a draft (§5.2, §6.1).
type DraftView struct {
	// Confirm is the destructive action whose confirmation comes open in
	// the page (cancel: ?confirm= without JavaScript).
	Confirm string
	// Undo, for a few seconds after an Unschedule, schedules the release
	// again at the time it had.
	Undo *UndoOffer
	// OnApproval: the schedule form comes back with "When approved" chosen.
	OnApproval bool
	ID         string
	Title      string
	Rev        int64
	By         string
	Items      []DraftItemView
	Error      string
	// Latest is "Load the latest", after a refusal that says it changed.
	Latest string
	// Moved offers Re-pin: some items changed since they were pinned.
	Moved bool
	// CanChange: the creator, or someone who may approve releases.
	CanChange bool
	// CanApprove: scheduling needs no approval.
	CanApprove bool
	// Addable and AddableLive are what "Add items" offers: articles and
	// pages with something to publish, and live ones to take down.
	Addable     []NodeChoice
	AddableLive []NodeChoice
	RenameTitle string
	RenameError FieldErrors
	// The schedule form, in the site's zone.
	Date           string
	Time           string
	MinDate        string
	Preview        SchedulePreviewView
	ScheduleErrors FieldErrors
	History        []HistoryRow
}

// DraftRow is one draft release on the Schedules page.
type DraftRow struct {
	ID    string
	Title string
	By    string
	Items int
}

// UndoOffer is an Undo that puts a release back at its time: the schedule
// form's Action with its Date and Time (the site's zone), When to show, and
// the Seconds it is offered for.
type UndoOffer struct {
	Action     string
	Date, Time string
	When       time.Time
	Seconds    int
}
