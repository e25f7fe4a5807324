package templates

import "time"

// GatesCard is the editor's Schedule card (RFC §7.6, §10.8, §15): a page's
// or an entry's gates as date and time fields in the site's zone, where the
// gates stand now, the lock, what saving does, lifting a live embargo, and
// the preview link.
type GatesCard struct {
	NodeID string
	Kind   string // page | contentEntry
	Title  string
	Rev    int64
	// The fields, as shown or as typed: dates YYYY-MM-DD, times HH:MM in
	// the site's zone.
	FromDate, FromTime, UntilDate, UntilTime string
	// HasFrom and HasUntil offer Clear: the working copy has the gate.
	HasFrom, HasUntil bool
	Errors            FieldErrors // "from", "until"
	Error             string
	Latest            string // "Load the latest", after a refusal that says it changed
	// State is where the gates stand now (gates.state_<State>): open,
	// open_until, embargoed, expired for a live node; not_live,
	// not_live_embargo, not_live_expiry for one that is not live. StateAt
	// is the instant it names, in the site's zone.
	State   string
	StateAt *time.Time
	// Pending: the working copy's gates are not the live ones yet.
	Pending bool
	Live    bool
	// Approves: saving on a live node publishes at once; otherwise it is
	// sent for approval.
	Approves bool
	// Locked: a release holds the node; its gates change with it only.
	Locked   bool
	LockedAt *time.Time
	// CanLift offers "Lift embargo…" for the embargo in force until
	// LiftUntil (site's zone); ConfirmLift renders its dialog open.
	CanLift     bool
	LiftUntil   *time.Time
	ConfirmLift bool
	LiftReason  string
	LiftErrors  FieldErrors // "reason", "from"
	// LiftEarlier chooses "Move it earlier to…" over "Lift it now", with
	// the new time as a date and a time in the site's zone (D8, §12
	// lift_embargo's from).
	LiftEarlier        bool
	LiftDate, LiftTime string
	// IncludeEdits is set after an other_edits refusal: the whole diff of
	// what would go live with the edits, and the form that includes them.
	IncludeEdits *IncludeEdits
}

// IncludeEdits offers to publish a live node's other unpublished edits with
// its gates: the whole diff first, then the same change again with
// include_edits=yes.
type IncludeEdits struct {
	Action   string
	Hidden   []HiddenField
	Item     ItemReview
	Approves bool
}
