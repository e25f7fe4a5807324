package releases

import (
	"context"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
)

// Held says which non-terminal release holds a node (RFC §6.2).
type Held struct {
	ReleaseID string
	Rev       int64 // the release's rev, for "Unschedule and edit"
	State     release.State
	At        *time.Time
	// Removes: the release takes the node off the live site (an expiry
	// scheduled as a release) rather than publishing a version of it.
	Removes bool
}

// ReleasePageQuery is one page of a site's releases in Releases' order.
type ReleasePageQuery struct {
	SiteID   string
	From, To time.Time
	State    release.State // "" every state
	After    *ReleasePosition
	Limit    int
}

// ReleasePosition is a release's place in Releases' order: its time (nil
// for one without, which come first) and its id.
type ReleasePosition struct {
	At *time.Time
	ID string
}

// Change is a guarded change of a release's state by a person or by the
// scheduler without a claim (an unapproved request expiring, a missed
// occurrence, which also records its run).
type Change struct {
	ID       string
	Rev      int64
	From     []release.State
	To       release.State
	Outcome  *release.Outcome
	Approval *release.Approval // set with the change (an approver's carry-out)
	Run      *RunRecord
	Audit    engine.AuditEntry
	// A move (D4) sets the new time (Moved); a move that needs approval files a new
	// request, and any waiting one is withdrawn.
	ExecuteAt *time.Time
	Moved     bool
	LocalTime string
	// TimeZone, with ExecuteAt, is the zone the time was entered in; a
	// draft scheduled for the first time records it (a move keeps the old
	// one when it is empty).
	TimeZone string
	// WhenKind, when set, is the release's when.kind from now on: "at",
	// or "on-approval" (§4.2), when ExecuteAt is only the ticker's
	// fallback minute or nil while the release waits for approval. Empty
	// keeps the kind it has ("at" for one that had none).
	WhenKind string
	Request  *ApprovalRequest
	// Items, when set, replaces the release's items in the same guarded
	// transaction: a draft's items edited, a re-pin or a re-base (§6.1,
	// §6.4). Title, when set, renames the release.
	Items *ItemsUpdate
	Title *string
	// What the change does to the release's approval, its outcome and its
	// waiting request: decided by release.EffectOf (Settled), and written
	// by the store exactly as told. The store refuses an item change that
	// neither clears the approval nor carries a new one (S6).
	ClearApproval bool
	ClearOutcome  bool
	CloseRequest  release.RequestEnd
	// Repromote puts each set item's pinned version back as its node's
	// working copy where restoreDrafts had put the draft back (a Cancel's
	// Undo).
	Repromote bool
}

// Settled returns c with what it does to the approval, the outcome and the
// waiting request filled in by the one rule, release.EffectOf. Every
// release change goes to the store settled.
func (c Change) Settled() Change {
	e := release.EffectOf(release.ChangeFacts{From: c.From, To: c.To, ItemsChanged: c.Items != nil,
		NewApproval: c.Approval != nil, NewOutcome: c.Outcome != nil, NewRequest: c.Request != nil, Moved: c.Moved})
	c.ClearApproval, c.ClearOutcome, c.CloseRequest = e.ClearApproval, e.ClearOutcome, e.CloseRequest
	return c
}

// ItemsUpdate is a release's new item list and hash. NewVersions are saved
// first, in order (a promoted draft; an edit made with "Edit and re-approve",
// as a draft and then promoted), each at its Rev on top of Rev - 1, the first
// on the node's pinned rev; then every node in PinnedRevs must be at its rev
// (or its last new version's) and held by no other release.
type ItemsUpdate struct {
	Items       []release.Item
	Hash        string
	PinnedRevs  map[string]int64
	NewVersions []content.Node
	// Overlap lets a pinned node be held by another release as it is (a
	// release's items, D15, §6.2); without it the store refuses a held
	// node. A new version of a held node is refused either way.
	Overlap bool
}

// NewRelease is a release to insert: its items pinned at PinnedRevs after
// NewVersions are saved (as in ItemsUpdate), and the approval
// request it files, if any, all in one transaction.
type NewRelease struct {
	Release     release.Release
	ExecuteAt   *time.Time
	PinnedRevs  map[string]int64
	NewVersions []content.Node
	Request     *ApprovalRequest
	Audit       engine.AuditEntry
	Overlap     bool // as in ItemsUpdate
	// Caps bound the site's open releases at the insert (engine/caps.go):
	// ErrSiteCap or ErrCreatorCap, and nothing written, when one is full.
	Caps OpenCaps
}

// RunRecord is a run row written with a change: an occurrence that ended
// without running.
type RunRecord struct {
	ID           string
	SiteID       string
	SubjectID    string
	OccurrenceAt time.Time
	State        string
	Trigger      string
	Lateness     int64
}

// ReleaseRow is a release with the bookkeeping the ticker needs.
type ReleaseRow struct {
	release.Release
	ExecuteAt  *time.Time
	LeaseToken string
	LeaseUntil *time.Time
	// SitePaused says the site's kill switch is on (§11.6): the ticker
	// claims none of its releases. Only DueReleases fills it in.
	SitePaused bool
	// GoneNodes are the items whose node was deleted since pinning.
	GoneNodes []string
	// Approver, when ApproverRead, is the account of the person whose
	// approval the release carries, as read with the release (nil: they
	// left), so the run need not read them again. Only DueWork reads it.
	Approver     *engine.User
	ApproverRead bool
}

// Store is what the release use cases need from storage. Every write is
// one transaction with its audit row; guarded writes return
// engine.ErrConflict when their guard failed.
type Store interface {
	Site(ctx context.Context, id string) (engine.Site, error)

	Nodes(ctx context.Context, siteID string) ([]content.Node, error)
	// NodesByID is the working copies of the site's nodes among ids, not
	// deleted, by id; SnapshotRefs the refs of a snapshot's nodes among
	// ids. Each one statement that reads those nodes by key.
	NodesByID(ctx context.Context, siteID string, ids []string) ([]content.Node, error)
	SnapshotRefs(ctx context.Context, snapshotID string, ids []string) ([]release.Ref, error)
	Node(ctx context.Context, siteID, id string) (content.Node, error)
	// NodeAuthors maps each of ids that is a node of the site, deleted
	// ones too, to the id of its author; one statement.
	NodeAuthors(ctx context.Context, siteID string, ids []string) (map[string]string, error)
	// HeldNodes maps node ids to the non-terminal release holding them.
	// HeldNodes and LiveNodes take a node id to read one node only ("" for
	// all), so a single node's page does not read the whole site.
	HeldNodes(ctx context.Context, siteID, nodeID string) (map[string]Held, error)
	Snapshot(ctx context.Context, id string) (engine.Snapshot, error)
	LiveNodes(ctx context.Context, snapshotID, nodeID string) ([]engine.LiveNode, error)
	// PublishSnapshot inserts snap and flips the site pointer from site's
	// rev and hash to newHash in one transaction.
	PublishSnapshot(ctx context.Context, site engine.Site, newHash string, snap engine.Snapshot, audit engine.AuditEntry) error

	// CreateRelease inserts a new release; it fails with ErrConflict if any
	// pinned node moved since or is held.
	CreateRelease(ctx context.Context, n NewRelease) error
	// ReleaseOverlaps lists the site's other non-terminal releases that
	// carry one of releaseID's nodes, each with the shared nodes (§6.2
	// Overlaps, D15), in the order they run (undated ones last).
	ReleaseOverlaps(ctx context.Context, siteID, releaseID string) ([]Overlap, error)
	// ReleaseHistory lists a release's audit rows, oldest first.
	ReleaseHistory(ctx context.Context, releaseID string) ([]engine.AuditEntry, error)
	// NodeVersion is the body of one saved version of a node.
	NodeVersion(ctx context.Context, id string, rev int64) (content.Body, error)
	// AddressHolders lists the nodes of a site other than exceptID whose
	// working copy, or whose version in the site's live snapshot, is of
	// kind and has slug: one indexed query, not a read of every node.
	AddressHolders(ctx context.Context, siteID string, kind release.NodeKind, slug, exceptID string) ([]engine.AddressHolder, error)
	// AddressClash finds the first of a release's set items (sets: id,
	// kind and the version whose slug it publishes) whose address a node
	// live in the site's snapshot and not among itemIDs has, or another of
	// sets takes too; one statement.
	AddressClash(ctx context.Context, siteID string, sets []release.Ref, itemIDs []string) (AddressClash, bool, error)

	// WaitingApprovals and FirstWaitingApprovals list in WaitingOrder.
	WaitingApprovals(ctx context.Context, siteID string) ([]ApprovalRequest, error)
	// FirstWaitingApprovals is the first limit waiting requests of a site
	// and how many wait in all.
	FirstWaitingApprovals(ctx context.Context, siteID string, limit int) ([]ApprovalRequest, int, error)
	// WaitingApprovalsOf is the waiting requests of the given releases.
	WaitingApprovalsOf(ctx context.Context, siteID string, releaseIDs []string) ([]ApprovalRequest, error)
	ApprovalRequest(ctx context.Context, siteID, id string) (ApprovalRequest, error)
	// DecideApproval records a decision and applies its release change in
	// one transaction; ErrConflict when the request no longer waits or the
	// release moved.
	DecideApproval(ctx context.Context, d Decision) error
	Release(ctx context.Context, siteID, id string) (ReleaseRow, error)
	// ReleasesByID reads the given releases of a site in one statement, in
	// time order; ids of other sites or of no release are left out.
	ReleasesByID(ctx context.Context, siteID string, ids []string) ([]ReleaseRow, error)
	// DraftReleases lists a site's drafts, the most recently changed first,
	// at most limit.
	DraftReleases(ctx context.Context, siteID string, limit int) ([]ReleaseRow, error)
	// Releases lists a site's releases with execute_at in [from, to), and
	// every non-terminal one without a time, ordered by time then id.
	Releases(ctx context.Context, siteID string, from, to time.Time) ([]ReleaseRow, error)
	// ReleasesPage is one page of Releases' list: after the position
	// q.After (nil: from the start), of q.State only when set, at most
	// q.Limit, read with that limit (memory stays flat however many
	// releases the site has).
	ReleasesPage(ctx context.Context, q ReleasePageQuery) ([]ReleaseRow, error)
	// SetReleaseState moves a release from one of the given states at rev.
	// ChangeRelease moves a release that is still at its rev and in one of
	// the from states; ErrConflict otherwise. Leaving the holding states
	// without publishing puts back the drafts the release had promoted
	// (Item.RestoreRev) where they have not moved on; so does the scheduler's
	// FinishRelease.
	ChangeRelease(ctx context.Context, c Change) error

	// ScheduleSettings returns a site's schedule settings, the defaults at
	// rev 0 when it has no row.
	ScheduleSettings(ctx context.Context, siteID string) (ScheduleSettings, error)
}
