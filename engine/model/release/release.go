// Package release models releases (RFC-0008 §4.2, §5.2, §6): pinned items,
// the rl1: binding, composition of the live snapshot, conflicts, states and
// transitions, the late limit and retry back-off. It does no I/O and never
// reads the clock: every function that needs the time takes now.
package release

import "time"

// NodeKind is the kind of node a release item acts on. Never "site".
type NodeKind string

const (
	KindPage         NodeKind = "page"
	KindContentEntry NodeKind = "contentEntry"
	KindTaxonomy     NodeKind = "taxonomy"
	KindTerm         NodeKind = "term"
	KindRedirect     NodeKind = "redirect"
	KindMenu         NodeKind = "menu"
	KindAsset        NodeKind = "asset"
)

// Version names one saved version of a node.
type Version struct {
	Rev  int64  `json:"rev"`
	Hash string `json:"hash"`
}

// Op is what an item does: set the node to its target, or remove it.
type Op string

const (
	OpSet    Op = "set"
	OpRemove Op = "remove"
)

// Item is one pinned change. Target is nil for a removal; Base is nil when
// the node was not live when pinned.
type Item struct {
	Op       Op       `json:"kind"`
	NodeID   string   `json:"nodeId"`
	NodeKind NodeKind `json:"nodeKind"`
	Target   *Version `json:"target,omitempty"`
	Base     *Version `json:"base,omitempty"`
	// Deps are the ids the target body references (§6.1 step 2); internal,
	// not part of the contract.
	Deps []string `json:"-"`
	// RestoreRev, when set, is the version whose status and date the node
	// gets back if the release ends without publishing: scheduling turned
	// that draft into the pinned, published version. Internal.
	RestoreRev int64 `json:"-"`
	// AddedBecause, when set, names the item whose target references this
	// node: the dependency closure added it (§6.1 step 2). The release shows
	// it as closureAdded.
	AddedBecause string `json:"-"`
}

// ClosureAdded is an item the dependency closure added, and the item whose
// target needs it (§4.2 closureAdded, §6.1 step 2).
type ClosureAdded struct {
	NodeID  string `json:"nodeId"`
	Because string `json:"because"`
}

// Closure lists the closure-added items of items, in node-id order.
func Closure(items []Item) []ClosureAdded {
	var out []ClosureAdded
	for _, it := range sortedByNode(items) {
		if it.AddedBecause != "" {
			out = append(out, ClosureAdded{NodeID: it.NodeID, Because: it.AddedBecause})
		}
	}
	return out
}

// Ref is one node as a snapshot holds it.
type Ref struct {
	ID   string   `json:"id"`
	Kind NodeKind `json:"kind"`
	Rev  int64    `json:"rev"`
	Hash string   `json:"hash"`
}

// State is a release's state (§5.2).
type State string

const (
	StateDraft            State = "draft"
	StateAwaitingApproval State = "awaiting_approval"
	StateScheduled        State = "scheduled"
	StateRunning          State = "running"
	StatePublished        State = "published"
	StateConflict         State = "conflict"
	StateMissed           State = "missed"
	StateExpired          State = "expired"
	StateFailed           State = "failed"
	StateCanceled         State = "canceled"
)

// States lists every state in the order of §4.2.
var States = []State{StateDraft, StateAwaitingApproval, StateScheduled, StateRunning,
	StatePublished, StateConflict, StateMissed, StateExpired, StateFailed, StateCanceled}

// When is the release's time: an instant with the zone it was entered in and,
// for a person's pick, the wall-clock time (§9.1).
type When struct {
	Kind      string    `json:"kind"` // "at" | "on-approval"
	At        time.Time `json:"at"`
	TimeZone  string    `json:"timeZone,omitempty"`
	LocalTime string    `json:"localTime,omitempty"`
}

// Actor is who did something.
type Actor struct {
	Kind string `json:"kind"` // "person" | "agent" | "system"
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// Approval records who approved the release (§4.2): a person (kind
// "person"), or an agent key's auto window (kind "auto", §10.7: KeyID and
// WindowEnds set, By the key).
type Approval struct {
	Kind       string     `json:"kind"` // ApprovalPerson | ApprovalAuto
	By         Actor      `json:"by"`
	At         time.Time  `json:"at"`
	ExecuteAt  *time.Time `json:"executeAt,omitempty"`
	ApprovalID string     `json:"approvalId,omitempty"`
	KeyID      string     `json:"keyId,omitempty"`
	WindowEnds *time.Time `json:"windowEnds,omitempty"`
	// Reduce: the auto approval of a change that can only hide content (an
	// agent's gate-only embargo, §7.6), which the run-time re-check holds
	// to the key and the window but not to auto mode (edits may reduce).
	Reduce bool `json:"reduce,omitempty"`
}

// The kinds of approval.
const (
	ApprovalPerson = "person"
	ApprovalAuto   = "auto"
)

// MaxLowRiskChanges is the most entries a low-risk release changes
// (§10.3 checkAutoPublish).
const MaxLowRiskChanges = 20

// LowRisk reports whether items pass §10.3's low-risk check, the one an
// auto-mode key's release must pass to go out without a person: articles
// only (content entries, with the assets riding along with them), nothing
// removed, at most MaxLowRiskChanges entries, at least one.
func LowRisk(items []Item) bool {
	entries := 0
	for _, it := range items {
		if it.Op != OpSet {
			return false
		}
		switch it.NodeKind {
		case KindContentEntry:
			entries++
		case KindAsset:
		default:
			return false
		}
	}
	return entries > 0 && entries <= MaxLowRiskChanges
}

// Outcome is how a release ended (§4.2); Kind matches the terminal state.
type Outcome struct {
	Kind            string     `json:"kind"`
	RunID           string     `json:"runId,omitempty"`
	At              time.Time  `json:"at"`
	SnapshotID      string     `json:"snapshotId,omitempty"`
	BaseSnapshotID  string     `json:"baseSnapshotId,omitempty"`
	LatenessSeconds *int64     `json:"latenessSeconds,omitempty"`
	Purge           string     `json:"purge,omitempty"`
	Conflicts       []Conflict `json:"conflicts,omitempty"`
	Code            string     `json:"code,omitempty"`
	Message         string     `json:"message,omitempty"`
	Reason          string     `json:"reason,omitempty"`
	By              *Actor     `json:"by,omitempty"`
	// From is the state a person's Cancel ended, so that its Undo
	// (CanUndoCancel) knows where the release goes back to.
	From State `json:"from,omitempty"`
}

// Conflict names a node whose live version is no longer the pinned base.
type Conflict struct {
	NodeID   string   `json:"nodeId"`
	Expected *Version `json:"expected,omitempty"`
	Found    *Version `json:"found,omitempty"`
}

// Release is a scheduled change set (§4.2).
type Release struct {
	SchemaVersion int       `json:"schemaVersion"`
	ID            string    `json:"id"`
	SiteID        string    `json:"siteId"`
	Title         string    `json:"title,omitempty"`
	Items         []Item    `json:"items"`
	When          *When     `json:"when,omitempty"`
	State         State     `json:"state"`
	Hash          string    `json:"hash"`
	Approval      *Approval `json:"approval,omitempty"`
	Outcome       *Outcome  `json:"outcome,omitempty"`
	CreatedBy     Actor     `json:"createdBy"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	Rev           int64     `json:"rev"`

	// ClosureAdded lists the items the dependency closure added and why
	// (§4.2, §6.1 step 2); derived from the items' AddedBecause.
	ClosureAdded []ClosureAdded `json:"closureAdded,omitempty"`
}
