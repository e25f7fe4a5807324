package releases

import (
	"context"
	"slices"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// This file is who may do what to a release or a node, in one place: the
// use cases refuse with these predicates and the surfaces show buttons from
// the same flags (ReleaseAbilities, NodeAbilities), so a button shown and
// the engine's refusal can never differ. The scopes a User holds, and the
// content rule MayWriteNode, are the kernel's (package engine).

// ownItems reports whether every item of a release is u's own (§10.1
// OwnLimit target release): its node was created by u. An asset the
// dependency closure added rides along (what an own article needs to
// render); any other node of someone else's makes the release not u's own.
func ownItems(u engine.User, items []release.Item, authors map[string]string) bool {
	for _, it := range items {
		if u.IsSelf(authors[it.NodeID]) {
			continue
		}
		if it.AddedBecause != "" && it.NodeKind == release.KindAsset {
			continue
		}
		return false
	}
	return true
}

// needsOwnership reports whether u acts at the own level on any scope a
// release's or node's rule reads: only then are the authors worth reading.
func needsOwnership(u engine.User) bool {
	for _, s := range []policy.Scope{policy.SchedulesWrite, policy.ReleasesPublish, policy.SitePublish, policy.ContentWrite} {
		if u.Level(s) == policy.LevelOwn {
			return true
		}
	}
	return false
}

// ownsRelease reads whether every item of items is u's own; it reads
// nothing when u's levels do not depend on it.
func (e *Releases) ownsRelease(ctx context.Context, u engine.User, siteID string, items []release.Item) (bool, error) {
	if !needsOwnership(u) {
		return false, nil
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.NodeID)
	}
	authors, err := e.store.NodeAuthors(ctx, siteID, ids)
	if err != nil {
		return false, err
	}
	return ownItems(u, items, authors), nil
}

// ReleaseFacts is what the release rule reads of a release.
type ReleaseFacts struct {
	ID    string
	State release.State
	// CreatedBy is the id of the person who created the release.
	CreatedBy string
	// Own: every item is the caller's own node (ownItems).
	Own bool
	// RequestedBy is the id of who asked for the release's waiting
	// approval request, "" when none waits.
	RequestedBy string
	// Published: the release published (state published with an outcome).
	Published bool
}

// ReleaseAbilities says what a person may do to one release now: each flag
// is true exactly when the use case of that name accepts the act (given
// valid input and the release as it is).
type ReleaseAbilities struct {
	// Change: edit a draft's items and title, and schedule it.
	Change bool `json:"change"`
	// Move: give a scheduled or waiting release a new time.
	Move bool `json:"move"`
	// Unschedule: take it back to a draft.
	Unschedule bool `json:"unschedule"`
	// Cancel: end it without publishing.
	Cancel bool `json:"cancel"`
	// PublishNow: a manual run now (missed, expired, scheduled).
	PublishNow bool `json:"publishNow"`
	// Approve: approve or deny its waiting request.
	Approve bool `json:"approve"`
	// Undo: roll the site back before a published release.
	Undo bool `json:"undo"`
	// ResolveConflict: re-pin or re-base a conflict.
	ResolveConflict bool `json:"resolveConflict"`
	// Approves: scheduling, moving or resolving it gives u's own approval
	// (no request is filed).
	Approves bool `json:"approves"`
}

// mayApproveRelease: u may approve a release whose items are own or not
// (releases:publish, or :own with own-only items, §10.6). Only a person
// approves: an agent's release goes out without one only through its auto
// window (agentApproval), whatever its key's scopes.
func mayApproveRelease(u engine.User, own bool) bool {
	return u.Agent == nil && u.May(policy.ReleasesPublish, own)
}

// mayChangeRelease is the rule every change of a release checks: u may
// schedule (schedules:write at the level the items need) and either created
// the release or may approve it. For an agent key, schedules:write (own) is
// the whole of §12's rule: what its mode then allows is the gate's, call by
// call (agentApproval, agentMayCancel), and its move never keeps an
// approval (D4), so a key moves a person's release only into a request.
func mayChangeRelease(u engine.User, f ReleaseFacts) bool {
	if !u.May(policy.SchedulesWrite, f.Own) {
		return false
	}
	return u.Agent != nil || u.IsSelf(f.CreatedBy) || mayApproveRelease(u, f.Own)
}

// mayDecide: u may approve or deny a waiting request for the release:
// someone who could make the call now, never the person who asked (§10.4).
func mayDecide(u engine.User, f ReleaseFacts) bool {
	return mayApproveRelease(u, f.Own) && f.RequestedBy != "" && f.RequestedBy != u.ID &&
		f.State == release.StateAwaitingApproval
}

// AbilitiesOf is the release rule: what u may do to a release with facts f.
func AbilitiesOf(u engine.User, f ReleaseFacts) ReleaseAbilities {
	change := mayChangeRelease(u, f)
	s := f.State
	return ReleaseAbilities{
		Change:          change && s == release.StateDraft,
		Move:            change && (s == release.StateScheduled || s == release.StateAwaitingApproval),
		Unschedule:      change && release.CanTransition(s, release.StateDraft),
		Cancel:          change && release.CanCancel(s),
		PublishNow:      mayApproveRelease(u, f.Own) && release.CanPublishNow(s),
		Approve:         mayDecide(u, f),
		Undo:            u.May(policy.SitePublish, f.Own) && f.Published,
		ResolveConflict: change && s == release.StateConflict,
		Approves:        mayApproveRelease(u, f.Own),
	}
}

// factsOf are the facts of a release row; own and the request's asker come
// from the caller.
func factsOf(r ReleaseRow, own bool, requestedBy string) ReleaseFacts {
	return ReleaseFacts{ID: r.ID, State: r.State, CreatedBy: r.CreatedBy.ID, Own: own, RequestedBy: requestedBy,
		Published: r.State == release.StatePublished && r.Outcome != nil}
}

// ReleaseAbilities answers, for each release of a site, what u may do to it
// now. It reads the authors of their nodes only when u acts at the own
// level, and the waiting requests only when u may approve at all.
func (e *Releases) ReleaseAbilities(ctx context.Context, u engine.User, siteID string, rows []ReleaseRow) (map[string]ReleaseAbilities, error) {
	out := make(map[string]ReleaseAbilities, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	var authors map[string]string
	if needsOwnership(u) {
		var ids []string
		for _, r := range rows {
			for _, it := range r.Items {
				ids = append(ids, it.NodeID)
			}
		}
		slices.Sort(ids)
		var err error
		if authors, err = e.store.NodeAuthors(ctx, siteID, slices.Compact(ids)); err != nil {
			return nil, err
		}
	}
	askers := map[string]string{}
	if u.Passes(policy.ReleasesPublish) {
		var waiting []string
		for _, r := range rows {
			if r.State == release.StateAwaitingApproval {
				waiting = append(waiting, r.ID)
			}
		}
		if len(waiting) > 0 {
			qs, err := e.store.WaitingApprovalsOf(ctx, siteID, waiting)
			if err != nil {
				return nil, err
			}
			for _, q := range qs {
				askers[q.ReleaseID] = q.RequestedBy.ID
			}
		}
	}
	for _, r := range rows {
		out[r.ID] = AbilitiesOf(u, factsOf(r, authors != nil && ownItems(u, r.Items, authors), askers[r.ID]))
	}
	return out, nil
}

// AbilitiesOfFacts answers for releases a surface knows by their facts (a
// calendar's items: id, state, creator, the waiting request's asker)
// without reading them, except when u acts at the own level: then their
// items and the authors are read, in two statements, to fill in Own.
func (e *Releases) AbilitiesOfFacts(ctx context.Context, u engine.User, siteID string, facts []ReleaseFacts) (map[string]ReleaseAbilities, error) {
	out := make(map[string]ReleaseAbilities, len(facts))
	if len(facts) == 0 {
		return out, nil
	}
	own := map[string]bool{}
	if needsOwnership(u) {
		ids := make([]string, 0, len(facts))
		for _, f := range facts {
			ids = append(ids, f.ID)
		}
		rows, err := e.store.ReleasesByID(ctx, siteID, ids)
		if err != nil {
			return nil, err
		}
		var nodeIDs []string
		for _, r := range rows {
			for _, it := range r.Items {
				nodeIDs = append(nodeIDs, it.NodeID)
			}
		}
		authors, err := e.store.NodeAuthors(ctx, siteID, nodeIDs)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			own[r.ID] = ownItems(u, r.Items, authors)
		}
	}
	for _, f := range facts {
		f.Own = own[f.ID]
		out[f.ID] = AbilitiesOf(u, f)
	}
	return out, nil
}

// ReleaseAbilitiesByID is ReleaseAbilities for releases named by id (a
// calendar's items), read in one statement; ids of no release are left out.
func (e *Releases) ReleaseAbilitiesByID(ctx context.Context, u engine.User, siteID string, ids []string) (map[string]ReleaseAbilities, error) {
	if len(ids) == 0 {
		return map[string]ReleaseAbilities{}, nil
	}
	rows, err := e.store.ReleasesByID(ctx, siteID, ids)
	if err != nil {
		return nil, err
	}
	return e.ReleaseAbilities(ctx, u, siteID, rows)
}

// AbilitiesOfRelease is ReleaseAbilities for one release.
func (e *Releases) AbilitiesOfRelease(ctx context.Context, u engine.User, r ReleaseRow) (ReleaseAbilities, error) {
	m, err := e.ReleaseAbilities(ctx, u, r.SiteID, []ReleaseRow{r})
	return m[r.ID], err
}

// releaseRule loads the facts of r for u, for a use case to check.
func (e *Releases) releaseRule(ctx context.Context, u engine.User, r ReleaseRow) (ReleaseFacts, error) {
	own, err := e.ownsRelease(ctx, u, r.SiteID, r.Items)
	return factsOf(r, own, ""), err
}

// NodeAbilities says what a person may do to one page, entry or asset now.
type NodeAbilities struct {
	// Edit: save a new version.
	Edit bool `json:"edit"`
	// Schedule: schedule its publish (pages and entries).
	Schedule bool `json:"schedule"`
	// Gate: set its embargo or expiry.
	Gate bool `json:"gate"`
	// LiftEmbargo: lift an embargo in force on the live site (D8); whether
	// one is in force is the node's gate state, not a permission.
	LiftEmbargo bool `json:"liftEmbargo"`
	// Delete: delete it.
	Delete bool `json:"delete"`
	// Approves: scheduling it, or gating it live, comes with u's own
	// approval (no request is filed).
	Approves bool `json:"approves"`
}

// nodeOwn reports whether u created the node.
func nodeOwn(u engine.User, d NodeDetail) bool { return u.IsSelf(d.Author.ID) }

// NodeAbilitiesOf is the node rule: what u may do to the node d. A node a
// release holds is locked (§6.2): nothing but the held-node paths.
func NodeAbilitiesOf(u engine.User, d NodeDetail) NodeAbilities {
	own := nodeOwn(u, d)
	free := d.Held == nil
	timed := d.Kind == release.KindPage || d.Kind == release.KindContentEntry
	write := u.MayWriteNode(d.Author.ID)
	return NodeAbilities{
		Edit:        write && free,
		Schedule:    timed && free && u.May(policy.SchedulesWrite, own),
		Gate:        timed && free && MayGate(u, d),
		LiftEmbargo: timed && free && MayLift(u, d),
		Delete:      write && free,
		Approves:    mayApproveRelease(u, own),
	}
}

// NodeAbilities answers what u may do to the node d now (NodeAbilitiesOf).
func (e *Releases) NodeAbilities(u engine.User, d NodeDetail) NodeAbilities {
	return NodeAbilitiesOf(u, d)
}

// HeldAbilities are what u may do, from a node's editor, to the release
// that holds it (§6.2).
type HeldAbilities struct {
	// Edit: "Edit and re-approve" (EditAndRepin), for a scheduled or
	// waiting release whose node u may write.
	Edit bool
	// Approves: that edit keeps the release approved by u; otherwise it
	// is sent for approval again.
	Approves bool
	// Unschedule: take the release back to a draft, by the release rule.
	Unschedule bool
}

// HeldAbilities answers what u may do to the release holding d, by the
// release rule; none when nothing holds d.
func (e *Releases) HeldAbilities(ctx context.Context, u engine.User, d NodeDetail) (HeldAbilities, error) {
	if d.Held == nil {
		return HeldAbilities{}, nil
	}
	r, err := e.store.Release(ctx, d.SiteID, d.Held.ReleaseID)
	if err != nil {
		return HeldAbilities{}, err
	}
	f, err := e.releaseRule(ctx, u, r)
	if err != nil {
		return HeldAbilities{}, err
	}
	held := HeldAbilities{Unschedule: AbilitiesOf(u, f).Unschedule}
	if (r.State == release.StateScheduled || r.State == release.StateAwaitingApproval) && u.MayWriteNode(d.Author.ID) && mayChangeRelease(u, f) {
		held.Edit, held.Approves = true, mayApproveRelease(u, f.Own)
	}
	return held, nil
}

// MayGate: u may set the gates of d: schedules:write and content:write,
// each at a level d reaches (set_embargo, schedule_unpublish, §12). The
// node rule reads it, and engine/gates checks it.
func MayGate(u engine.User, d NodeDetail) bool {
	own := nodeOwn(u, d)
	return u.May(policy.SchedulesWrite, own) && u.May(policy.ContentWrite, own)
}

// MayLift: u may lift d's embargo (D8): MayGate and releases:publish at a
// level d reaches. The node rule reads it, and engine/gates checks it.
func MayLift(u engine.User, d NodeDetail) bool {
	return MayGate(u, d) && u.May(policy.ReleasesPublish, nodeOwn(u, d))
}
