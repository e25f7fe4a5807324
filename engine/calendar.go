package engine

import (
	"context"
	"time"

	"studio/engine/policy"
	"studio/engine/release"
)

// Calendar item kinds (RFC §12 list_schedule, §15.3 icons).
const (
	ItemPublish    = "publish"    // a one-item release that publishes a page or an entry
	ItemExpiry     = "expiry"     // a one-item release that takes one down, or a gate's until
	ItemEmbargo    = "embargo"    // a gate's from
	ItemRelease    = "release"    // a release of several items
	ItemAutomation = "automation" // an occurrence of an automation's rule
)

// Approval facets of a calendar item (§12).
const (
	ApprovalNone     = "none"
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalAuto     = "auto"
	ApprovalDenied   = "denied"
	ApprovalExpired  = "expired"
)

// Calendar limits (§12): a range of at most 62 days, 200 items a page.
const (
	CalendarMaxDays  = 62
	CalendarMaxItems = 200
)

// CalendarItem is one thing on the calendar: a release, a gate or an
// occurrence of an automation (§12 list_schedule, §4.5: a view, not a
// contract). The Agenda, the Month grid and GET …/schedule all read these.
type CalendarItem struct {
	ID    string    `json:"id"` // rel_…, gate:<nodeId>:from|until, occ:<automationId>:<at>
	Kind  string    `json:"kind"`
	At    time.Time `json:"at"`
	Title string    `json:"title"`
	// Target is what the item is about: the release id, or the node id of a
	// gate, or the automation id.
	Target     string        `json:"target"`
	Origin     string        `json:"origin"` // person | agent
	By         release.Actor `json:"by"`
	Approval   string        `json:"approval"`
	State      string        `json:"state"` // the release's state; "scheduled" for a gate or an occurrence to come
	Overlaps   bool          `json:"overlaps,omitempty"`
	Recurring  bool          `json:"recurring,omitempty"`  // a future occurrence of a rule (a ghost chip)
	Collection string        `json:"collection,omitempty"` // the node kind of a one-item release or a gate
	// Rev is the release's rev, for the actions an item offers inline
	// (approve, move, unschedule) to be guarded on what the person saw.
	Rev int64 `json:"rev,omitempty"`
	// RequestID is the waiting approval request of a release awaiting
	// approval, so the agenda can decide it inline.
	RequestID string `json:"requestId,omitempty"`
}

// CalendarQuery selects calendar items: [From, To) of at most
// CalendarMaxDays, filtered by facets (an empty facet means all; values are
// the item's Kind, State, Origin, Approval and Collection), at most Limit
// (≤ CalendarMaxItems) items after Cursor.
type CalendarQuery struct {
	SiteID      string
	From, To    time.Time
	Kinds       []string
	States      []string
	Origins     []string
	Approvals   []string
	Collections []string
	Mine        bool // only items the person created or approved
	Cursor      string
	Limit       int
}

// CalendarPage is one page of items in time order (ties by id).
type CalendarPage struct {
	Items      []CalendarItem `json:"items"`
	NextCursor string         `json:"nextCursor,omitempty"`
	TimeZone   string         `json:"timeZone"`
}

// Calendar lists the calendar items of a site for u (§12 list_schedule).
//
// First version: releases only, no cursor. Gates, automation occurrences,
// facets and the cursor come next in this file.
func (e *Engine) Calendar(ctx context.Context, u User, q CalendarQuery) (CalendarPage, error) {
	if err := require(u, policy.SchedulesRead); err != nil {
		return CalendarPage{}, err
	}
	site, err := e.store.Site(ctx, q.SiteID)
	if err != nil {
		return CalendarPage{}, err
	}
	rows, err := e.store.Releases(ctx, q.SiteID, q.From, q.To)
	if err != nil {
		return CalendarPage{}, err
	}
	page := CalendarPage{TimeZone: site.TimeZone}
	for _, r := range rows {
		if r.ExecuteAt == nil {
			continue
		}
		page.Items = append(page.Items, releaseItem(r))
	}
	return page, nil
}

// releaseItem is the calendar's view of a release.
func releaseItem(r ReleaseRow) CalendarItem {
	it := CalendarItem{ID: r.ID, Kind: ItemRelease, At: *r.ExecuteAt, Title: r.Title, Target: r.ID, Origin: "person",
		By: r.CreatedBy, State: string(r.State), Rev: r.Rev, Approval: ApprovalNone}
	if r.CreatedBy.Kind == "agent" {
		it.Origin = "agent"
	}
	if len(r.Items) == 1 {
		it.Kind, it.Collection = ItemPublish, string(r.Items[0].NodeKind)
		if r.Items[0].Op == release.OpRemove {
			it.Kind = ItemExpiry
		}
	}
	switch {
	case r.State == release.StateAwaitingApproval:
		it.Approval = ApprovalPending
	case r.State == release.StateExpired:
		it.Approval = ApprovalExpired
	case r.Approval != nil && r.Approval.Kind == "auto":
		it.Approval = ApprovalAuto
	case r.Approval != nil:
		it.Approval = ApprovalApproved
	}
	return it
}
