package wire

import (
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// The API and MCP answer every release in RFC §4.2's shape
// (release.schema.json, written out in handlers/api/schema; the handlers'
// tests check every release the API answers against it). release.Release
// is the engine's record and carries more than the contract allows: the
// instant an "on-approval" release was given as the ticker's fallback, the
// run and the reason of a cancel, the approver's kind. Release is the
// contract; what the record knows beyond it goes, where a script may want
// it, into the contract's own map, metadata, under "studio.outcome.*" keys.

// Release is a release as §4.2 defines it.
type Release struct {
	SchemaVersion int               `json:"schemaVersion"`
	ID            string            `json:"id"`
	SiteID        string            `json:"siteId"`
	Title         string            `json:"title,omitempty"`
	Items         []release.Item    `json:"items"`
	When          *When             `json:"when,omitempty"`
	State         release.State     `json:"state"`
	Hash          string            `json:"hash"`
	Approval      *Approval         `json:"approval,omitempty"`
	Outcome       *Outcome          `json:"outcome,omitempty"`
	CreatedBy     release.Actor     `json:"createdBy"`
	CreatedAt     time.Time         `json:"createdAt"`
	UpdatedAt     time.Time         `json:"updatedAt"`
	Rev           int64             `json:"rev"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	// Abilities, outside §4.2, say what the caller may do to it now (the
	// engine's flags Studio draws its buttons from).
	Abilities *releases.ReleaseAbilities `json:"abilities,omitempty"`
}

// When is §4.2 when: {kind "at", at, timeZone, localTime?} or
// {kind "on-approval"} alone.
type When struct {
	Kind      string     `json:"kind"`
	At        *time.Time `json:"at,omitempty"`
	TimeZone  string     `json:"timeZone,omitempty"`
	LocalTime string     `json:"localTime,omitempty"`
}

// Approval is one of §4.2's approvals. Of kind person, by names a
// staff person ({id, name?}, never an actor kind), with executeAt and the
// request's id; of kind auto, by is the key as an Actor, with keyId and
// the window's end.
type Approval struct {
	Kind       string     `json:"kind"`
	By         any        `json:"by"`
	At         time.Time  `json:"at"`
	ExecuteAt  *time.Time `json:"executeAt,omitempty"`
	ApprovalID string     `json:"approvalId,omitempty"`
	KeyID      string     `json:"keyId,omitempty"`
	WindowEnds *time.Time `json:"windowEnds,omitempty"`
}

type Person struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// Outcome is one of §4.2's outcome variants; each field is set only
// for the variants that have it.
type Outcome struct {
	Kind            string             `json:"kind"`
	RunID           string             `json:"runId,omitempty"`
	At              time.Time          `json:"at"`
	SnapshotID      string             `json:"snapshotId,omitempty"`
	BaseSnapshotID  string             `json:"baseSnapshotId,omitempty"`
	LatenessSeconds *int64             `json:"latenessSeconds,omitempty"`
	Purge           string             `json:"purge,omitempty"`
	Conflicts       []release.Conflict `json:"conflicts,omitempty"`
	Code            string             `json:"code,omitempty"`
	Message         string             `json:"message,omitempty"`
	Reason          string             `json:"reason,omitempty"`
	By              *release.Actor     `json:"by,omitempty"`
}

// failedCodes are §4.2's failed outcome codes. A run that found the
// composed snapshot would put two nodes at one address (slug_taken) made
// an invalid snapshot; the engine's own code is kept in metadata.
var failedCodes = map[string]string{"dependency_missing": "dependency_missing", "invalid_snapshot": "invalid_snapshot",
	"site_missing": "site_missing", "node_body_missing": "node_body_missing", "store_error": "store_error",
	"slug_taken": "invalid_snapshot"}

// Metadata keys for what the record knows of an outcome beyond §4.2.
const (
	MetaOutcomeRunID   = "studio.outcome.runId"
	MetaOutcomeReason  = "studio.outcome.reason"
	MetaOutcomeMessage = "studio.outcome.message"
	MetaOutcomeCode    = "studio.outcome.code"
	MetaOutcomeBy      = "studio.outcome.by"
)

// ReleaseOf is r in §4.2's shape.
func ReleaseOf(r release.Release) Release {
	d := Release{SchemaVersion: 1, ID: r.ID, SiteID: r.SiteID, Title: r.Title, Items: r.Items, State: r.State,
		Hash: r.Hash, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Rev: r.Rev}
	if d.Items == nil {
		d.Items = []release.Item{}
	}
	switch w := r.When; {
	case w == nil:
	case w.Kind == "on-approval": // its fallback minute is the ticker's, not the release's time
		d.When = &When{Kind: w.Kind}
	case !w.At.IsZero(): // a kind without an instant is no time at all
		at, zone := w.At, w.TimeZone
		if zone == "" {
			zone = "UTC" // a site without a zone is in UTC (§4.1)
		}
		d.When = &When{Kind: w.Kind, At: &at, TimeZone: zone, LocalTime: w.LocalTime}
	}
	switch a := r.Approval; {
	case a == nil:
	case a.Kind == release.ApprovalAuto:
		d.Approval = &Approval{Kind: a.Kind, By: a.By, At: a.At, KeyID: a.KeyID, WindowEnds: a.WindowEnds}
	default:
		d.Approval = &Approval{Kind: a.Kind, By: Person{ID: a.By.ID, Name: a.By.Name}, At: a.At,
			ExecuteAt: a.ExecuteAt, ApprovalID: a.ApprovalID}
	}
	if o := r.Outcome; o != nil {
		d.Outcome, d.Metadata = outcomeOf(*o)
	}
	return d
}

// outcomeOf keeps of o what its §4.2 variant allows, and returns the rest
// as metadata (nil when nothing is left over).
func outcomeOf(o release.Outcome) (*Outcome, map[string]string) {
	meta := map[string]string{}
	keep := func(key, v string) {
		if v != "" {
			meta[key] = v
		}
	}
	d := &Outcome{Kind: o.Kind, At: o.At}
	switch o.Kind {
	case "published":
		d.RunID, d.SnapshotID, d.BaseSnapshotID, d.Purge = o.RunID, o.SnapshotID, o.BaseSnapshotID, o.Purge
		d.LatenessSeconds = lateness(o.LatenessSeconds)
		if d.Purge == "" {
			d.Purge = "none"
		}
		if o.By != nil { // Publish now: the person who ran it
			keep(MetaOutcomeBy, o.By.ID)
		}
	case "conflict":
		d.RunID, d.Conflicts = o.RunID, o.Conflicts
	case "failed":
		d.RunID, d.Message = o.RunID, o.Message
		code, ok := failedCodes[o.Code]
		if !ok {
			code = "store_error"
		}
		if code != o.Code {
			keep(MetaOutcomeCode, o.Code)
		}
		d.Code = code
	case "missed":
		d.LatenessSeconds = lateness(o.LatenessSeconds)
	case "expired":
		d.Reason = o.Reason
		keep(MetaOutcomeRunID, o.RunID)
	case "canceled":
		d.By = o.By
		if d.By == nil {
			by := engine.Scheduler // the system ended it
			d.By = &by
		}
		keep(MetaOutcomeRunID, o.RunID)
		keep(MetaOutcomeReason, o.Reason)
		keep(MetaOutcomeMessage, o.Message)
	}
	if len(meta) == 0 {
		return d, nil
	}
	return d, meta
}

func lateness(s *int64) *int64 {
	var v int64
	if s != nil {
		v = *s
	}
	return &v
}

// ReleaseView is §12's ReleaseView (GET …/releases/{id}): the §4.2
// release with its items named, what the closure added, the nodes it
// locks and the request waiting on it. The per-person abilities and the
// overlaps are one field each here, filled from releases.ReleaseView.
type ReleaseView struct {
	Release
	Items        []ViewItem             `json:"items"` // the release's items, named
	ClosureAdded []release.ClosureAdded `json:"closureAdded"`
	LockedNodes  []string               `json:"lockedNodes"`
	Request      *Request               `json:"request,omitempty"`
	Overlaps     []Overlap              `json:"overlaps"`
}

// Overlap is another open release sharing nodes with this one.
type Overlap struct {
	ReleaseID string        `json:"releaseId"`
	Title     string        `json:"title,omitempty"`
	State     release.State `json:"state"`
	At        *time.Time    `json:"at,omitempty"`
	NodeIDs   []string      `json:"nodeIds"`
}

// ViewItem is a §4.2 item with the title and the public path of the
// version it pins.
type ViewItem struct {
	release.Item
	Title string `json:"title"`
	Path  string `json:"path,omitempty"`
}

// Request is the approval request waiting on a release.
type Request struct {
	ID          string        `json:"id"`
	RequestedBy release.Actor `json:"requestedBy"`
	ExecuteAt   *time.Time    `json:"executeAt,omitempty"`
	CreatedAt   time.Time     `json:"createdAt"`
}

func ReleaseViewOf(v releases.ReleaseView) ReleaseView {
	out := ReleaseView{Release: ReleaseOf(v.Release.Release), Items: make([]ViewItem, 0, len(v.Items)),
		ClosureAdded: v.ClosureAdded, LockedNodes: v.LockedNodes, Overlaps: make([]Overlap, 0, len(v.Overlaps))}
	out.Abilities = &v.Abilities
	for _, o := range v.Overlaps {
		out.Overlaps = append(out.Overlaps, Overlap{ReleaseID: o.ReleaseID, Title: o.Title, State: o.State, At: o.At, NodeIDs: o.NodeIDs})
	}
	if out.ClosureAdded == nil {
		out.ClosureAdded = []release.ClosureAdded{}
	}
	for _, it := range v.Items {
		out.Items = append(out.Items, ViewItem{Item: it.Item, Title: it.Title, Path: it.Path})
	}
	if q := v.Request; q != nil {
		out.Request = &Request{ID: q.ID, RequestedBy: q.RequestedBy, ExecuteAt: q.ExecuteAt, CreatedAt: q.CreatedAt}
	}
	return out
}
