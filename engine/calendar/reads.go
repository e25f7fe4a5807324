package calendar

import (
	"context"
	"time"

	"studio/engine/automations"
	"studio/engine/model/release"
)

// Reads is what the calendar reads of releases, gates and runs: its own
// three queries (the settings' pause preview reads the first two too).
type Reads interface {
	// CalendarReleases lists a site's releases as the query selects them,
	// in (time, id) order.
	CalendarReleases(ctx context.Context, q CalendarReleaseQuery) ([]CalendarRelease, error)
	// CalendarGates lists the gates of a site's pages and entries (working
	// copies, not deleted) whose instant falls in [from, to), one row per
	// gate, in any order.
	CalendarGates(ctx context.Context, siteID string, from, to time.Time) ([]CalendarGate, error)
	// CalendarRuns lists a site's automation runs whose occurrence falls
	// in [from, to), and the skipped runs whose occurrence is before from
	// but that were recorded at or after from (a skipped run stands for the
	// coalesced occurrences from its own to when it was recorded, §8.6), in
	// one statement, in any order.
	CalendarRuns(ctx context.Context, siteID string, from, to time.Time) ([]automations.Run, error)
}

// CalendarReleaseQuery selects a site's releases timed in [From, To).
type CalendarReleaseQuery struct {
	SiteID   string
	From, To time.Time
	// AfterAt and AfterID, when AfterID is set, continue after the release
	// at AfterAt with id AfterID, in (time, id) order.
	AfterAt time.Time
	AfterID string
	// Limit is the most rows to return; 0 means all.
	Limit int
	// IDs, when set, keeps only these releases.
	IDs []string
	// States, when set, keeps only releases in these states (the state
	// facet, read on the index); otherwise drafts and canceled releases,
	// which the calendar never shows unasked, are left out.
	States []release.State
	// Brief reads only what counting needs: ID, At, State and the item
	// summary (Items, Op, NodeKind); with Actors, also what the origin,
	// approval and Mine facets read (By, ApprovalKind, ApprovedBy). A full
	// row has everything.
	Brief  bool
	Actors bool
}

// CalendarRelease is a release as the calendar reads it: what its item
// shows and is filtered on, without the items themselves. A brief row
// (CalendarReleaseQuery.Brief) has no Title, Rev, Overlaps or RequestID,
// and no By or approval unless asked for.
type CalendarRelease struct {
	ID    string
	Title string // the release's title, or its first node's
	State release.State
	At    time.Time
	By    release.Actor // the creator
	// ApprovalKind is the approval's kind ("person", "auto"), "" for none;
	// ApprovedBy the approver's id.
	ApprovalKind string
	ApprovedBy   string
	Rev          int64
	Items        int              // how many items
	Op           release.Op       // the first item's, by node id: what a one-item release does
	NodeKind     release.NodeKind // the first item's node kind
	// Overlaps: the release is not finished and one of its nodes is in
	// another release that is not finished either (§6.2, D15).
	Overlaps bool
	// RequestID is the waiting approval request of a release awaiting
	// approval.
	RequestID string
}

// CalendarGate is one gate of a page or an entry (§7): its from or until.
type CalendarGate struct {
	NodeID   string
	NodeKind release.NodeKind
	Title    string
	Edge     string // "from" | "until"
	At       time.Time
	By       release.Actor // who saved the working copy
}
