package engine

import (
	"context"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// User is a person who signs in to Studio.
type User struct {
	ID    string
	Email string
	Name  string
	// Role is the person's role on SiteID, the site the request acts on
	// (a membership, §10.2). Read without a site (a route no site is in:
	// the list of sites, the scheduler's status), SiteID is "" and Role is
	// the highest the person holds on any site; "" when they hold none.
	Role   policy.Role
	SiteID string
	Lang   string
	// SessionEpoch is the account's session epoch, read with the account
	// (UserByID, UserByEmail): a session signed in at another has ended.
	SessionEpoch int64
	// Scopes, for a call with a personal access token, are the token's
	// scopes (narrowed to Role on use, see Level); nil for a person signed
	// in, who holds their role's.
	Scopes []policy.Scope
	// Agent is set when an agent calls through its key (§11.2, §12): the
	// call is the key's, on behalf of its owner (ID, Role and Scopes above,
	// narrowed to the owner's current role); nil for a person.
	Agent *AgentCall
}

// Reader is the caller of a read the process makes for itself on one
// site, for no request: the operator's command line (schedules list), the
// demo seeder, tests looking at what a use case did. It reads schedules
// and content there and can change nothing. No surface makes one: every
// request's caller comes from its credentials.
func Reader(siteID string) User {
	return User{ID: "sys_reader", Name: "Reader", Role: policy.Owner, SiteID: siteID,
		Scopes: []policy.Scope{policy.SchedulesRead, policy.ContentRead}}
}

// Membership is a person's role on one site (§10.2).
type Membership struct {
	SiteID   string
	SiteName string
	Role     policy.Role
}

// AgentCall is the agent side of a call through an agent key.
type AgentCall struct {
	KeyID   string
	KeyName string
	// Mode is the call's effective mode: the key's, capped by its owner's
	// role and, for an automation's key, by the automation's modeCap.
	Mode policy.Mode
	// AutomationID is set for an automation's own key (one key, one
	// automation); RunID while that automation's run is open.
	AutomationID string
	RunID        string
	// Tainted: the open run (an automation's key) or the MCP session (a
	// person's key, which the surface keeps) has read visitor-supplied
	// text (§11.4); the gate and the write use cases ask with it.
	Tainted bool
}

// Actor returns the user as the actor of an audited act: the person, or
// the agent key acting for them.
func (u User) Actor() release.Actor {
	if u.Agent != nil {
		return release.Actor{Kind: "agent", ID: u.Agent.KeyID, Name: u.Agent.KeyName}
	}
	return release.Actor{Kind: "person", ID: u.ID, Name: u.Name}
}

// require refuses u unless they act on the site siteID and hold scope
// there at some level; a use case on nodes then checks the own level on
// the nodes it touches. u's role is their role on u.SiteID (a surface
// finds it, identity.OnSite): acting with it on another site would carry
// one site's role to another, so that is refused as a site u is no member
// of, one that does not exist (ErrNotFound).
func require(u User, siteID string, scope policy.Scope) error {
	if err := ActsOn(u, siteID); err != nil {
		return err
	}
	if !u.Passes(scope) {
		return refuse(CodeForbidden, "")
	}
	return nil
}

// ActsOn refuses u on any site but the one their role is read on: the
// site check of require, for use cases whose rule is not one scope.
func ActsOn(u User, siteID string) error {
	if u.SiteID == "" || u.SiteID != siteID {
		return ErrNotFound
	}
	return nil
}

// AgentOnSite refuses an agent key's call on any site but the key's own
// (u.SiteID: a key, a person's or an automation's, is minted on one site
// and is its caller there only). The refusal is forbidden for every other
// id, one that exists or not, so it tells nothing; it reads nothing.
func AgentOnSite(u User, siteID string) error {
	if u.Agent == nil || u.SiteID == "" || siteID != u.SiteID {
		return refuse(CodeForbidden, "siteId")
	}
	return nil
}

// Require is the check every use case starts with (require), for the
// engine's sub-packages.
func Require(u User, siteID string, scope policy.Scope) error { return require(u, siteID, scope) }

// Languages Studio speaks; the first is the default.
var Languages = []string{"en", "tr"}

// ValidLanguage reports whether Studio speaks lang.
func ValidLanguage(lang string) bool { return lang == "en" || lang == "tr" }

// Token is a person's personal access token for the JSON API. It acts as
// that person with the scopes chosen when it was made, narrowed to the
// person's current role in every call. The store reads and writes it; the
// token use cases are engine/identity's.
type Token struct {
	ID     string
	UserID string
	Name   string
	// Scopes are the scopes chosen at creation, within the person's role;
	// nil for a token made before tokens had scopes: it holds the role's.
	Scopes    []policy.Scope
	CreatedAt time.Time
	LastUsed  *time.Time
	Revoked   *time.Time
}

// DeployToken is an operator's tools' secret (`studio token create
// --deploy`): no person's, it reaches only the operator routes.
type DeployToken struct {
	ID        string
	Name      string
	CreatedAt time.Time
	LastUsed  *time.Time
}

// Site is one website: its zone and the pointer to its live snapshot. Rev and
// Hash guard every pointer flip (compare-and-swap).
type Site struct {
	ID       string
	Name     string
	TimeZone string
	Lang     string // the public site's language, and new nodes' (locales.Languages)
	// PublicURL is the public site's base URL (public.ParsePublicURL), its
	// absolute links' origin; "" when the site has none of its own.
	PublicURL string
	// DefaultHost: the public site answers with this site the hosts no
	// site's public URL names (public.SiteForHost).
	DefaultHost         bool
	PublishedSnapshotID string
	Rev                 int64
	Hash                string
}

// Snapshot is an immutable list of node refs; the live site is one of them.
type Snapshot struct {
	ID       string
	SiteID   string
	ParentID string
	Reason   string // publish | scheduled | rollback | manual
	Label    string
	Actor    release.Actor
	Refs     []release.Ref
	// Changes, when set, is what the snapshot changes in its parent, and
	// Refs is not read: a release's run computes it from the refs of its
	// items alone (release.Diff), so publishing costs the items, not the
	// site. Without it the store diffs Refs against the live snapshot.
	Changes   *release.Changes
	Metadata  map[string]string
	CreatedAt time.Time
}

// LiveNode is a node of a snapshot with its body, as the public site reads it.
type LiveNode struct {
	release.Ref
	Body content.Body
}

// AddressHolder is a node that holds an address (a slug in its kind's
// namespace): Live when its live version has it, Working when its working
// copy does (both can be true).
type AddressHolder struct {
	NodeID, Title string
	Live, Working bool
}

// AuditEntry records who did what, for whom, within which run.
type AuditEntry struct {
	Action    string // e.g. "release.schedule", "release.publish"
	Actor     release.Actor
	SiteID    string
	ReleaseID string
	RunID     string
	// AutomationID is the automation whose key acted (§11.5 counts a
	// site's automation writes a day by it).
	AutomationID string
	Details      map[string]any
	At           time.Time
}

type agentAuditKey struct{}

// agentAudit is the run and the automation an agent's call is made in.
type agentAudit struct{ runID, automationID string }

// WithAgentCall is ctx for the use cases of u's one tool call: every audit
// row written under it carries u's run and automation (§11.7, §12: "every
// row carries release_id, run_id and automation_id where they apply"),
// whichever use case writes it. A person's ctx is unchanged.
func WithAgentCall(ctx context.Context, u User) context.Context {
	if u.Agent == nil {
		return ctx
	}
	return context.WithValue(ctx, agentAuditKey{}, agentAudit{u.Agent.RunID, u.Agent.AutomationID})
}

// AuditScope fills in a's run and automation from ctx (WithAgentCall)
// where a names none; the store calls it for every row it writes.
func AuditScope(ctx context.Context, a AuditEntry) AuditEntry {
	if v, ok := ctx.Value(agentAuditKey{}).(agentAudit); ok {
		if a.RunID == "" {
			a.RunID = v.runID
		}
		if a.AutomationID == "" {
			a.AutomationID = v.automationID
		}
	}
	return a
}

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
	Audit    AuditEntry
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
	Audit       AuditEntry
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
	Approver     *User
	ApproverRead bool
}

// Store is what the engine needs from storage. Every write is one
// transaction; guarded writes return ErrConflict when their guard failed.
type Store interface {
	CreateSite(ctx context.Context, s Site, now time.Time) error
	// AppendAudit writes one audit row that goes with no other change (an
	// agent's tool call, reads too).
	AppendAudit(ctx context.Context, a AuditEntry) error
	Site(ctx context.Context, id string) (Site, error)
	Sites(ctx context.Context) ([]Site, error)

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
	Snapshot(ctx context.Context, id string) (Snapshot, error)
	LiveNodes(ctx context.Context, snapshotID, nodeID string) ([]LiveNode, error)
	// PublishSnapshot inserts snap and flips the site pointer from site's
	// rev and hash to newHash in one transaction.
	PublishSnapshot(ctx context.Context, site Site, newHash string, snap Snapshot, audit AuditEntry) error

	// CreateRelease inserts a new release; it fails with ErrConflict if any
	// pinned node moved since or is held.
	CreateRelease(ctx context.Context, n NewRelease) error
	// OpenReleases counts a site's releases that are not finished (draft,
	// awaiting_approval, scheduled, running), in one statement (§6.1 step 7).
	OpenReleases(ctx context.Context, siteID string) (int, error)
	// ReleaseOverlaps lists the site's other non-terminal releases that
	// carry one of releaseID's nodes, each with the shared nodes (§6.2
	// Overlaps, D15), in the order they run (undated ones last).
	ReleaseOverlaps(ctx context.Context, siteID, releaseID string) ([]Overlap, error)
	// ReleaseHistory lists a release's audit rows, oldest first.
	ReleaseHistory(ctx context.Context, releaseID string) ([]AuditEntry, error)
	// NodeVersion is the body of one saved version of a node.
	NodeVersion(ctx context.Context, id string, rev int64) (content.Body, error)
	// AddressHolders lists the nodes of a site other than exceptID whose
	// working copy, or whose version in the site's live snapshot, is of
	// kind and has slug: one indexed query, not a read of every node.
	AddressHolders(ctx context.Context, siteID string, kind release.NodeKind, slug, exceptID string) ([]AddressHolder, error)
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
