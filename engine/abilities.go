package engine

import (
	"context"
	"slices"

	"studio/engine/model/release"
	"studio/engine/policy"
)

// This file is who may do what to a release or a node, in one place: the
// use cases refuse with these predicates and the surfaces show buttons from
// the same flags (ReleaseAbilities, NodeAbilities), so a button shown and
// the engine's refusal can never differ.

// held is what u holds: the role's scopes for a person signed in to Studio;
// for a token, its scopes narrowed to the person's current role (§10.2
// note), so a demoted person's token loses scopes at once.
func (u User) held() []policy.Scope {
	if u.Scopes == nil {
		return policy.RoleScopes(u.Role)
	}
	return policy.Narrow(u.Scopes, u.Role)
}

// Level is the level at which u may act on scope s (§10.1–10.2): LevelAny,
// LevelOwn (only on their own nodes) or LevelNone.
func (u User) Level(s policy.Scope) policy.Level {
	if u.Scopes == nil {
		return policy.RoleLevel(u.Role, s)
	}
	return policy.LevelIn(u.held(), s)
}

// Passes reports whether u passes a route's guard on scope: u holds it at
// any level, the own level being checked by the use case on the nodes it
// touches. The route tables of every surface call it.
func (u User) Passes(s policy.Scope) bool { return u.Level(s) != policy.LevelNone }

// may reports whether u may act on s for nodes that are all their own
// (own) or not.
func (u User) may(s policy.Scope, own bool) bool {
	switch u.Level(s) {
	case policy.LevelAny:
		return true
	case policy.LevelOwn:
		return own
	}
	return false
}

// ownItems reports whether every item of a release is u's own (§10.1
// OwnLimit target release): its node was created by u. An asset the
// dependency closure added rides along (what an own article needs to
// render); any other node of someone else's makes the release not u's own.
func ownItems(u User, items []release.Item, authors map[string]string) bool {
	for _, it := range items {
		if u.isSelf(authors[it.NodeID]) {
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
func (u User) needsOwnership() bool {
	for _, s := range []policy.Scope{policy.SchedulesWrite, policy.ReleasesPublish, policy.SitePublish, policy.ContentWrite} {
		if u.Level(s) == policy.LevelOwn {
			return true
		}
	}
	return false
}

// ownsRelease reads whether every item of items is u's own; it reads
// nothing when u's levels do not depend on it.
func (e *Engine) ownsRelease(ctx context.Context, u User, siteID string, items []release.Item) (bool, error) {
	if !u.needsOwnership() {
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
func (u User) mayApproveRelease(own bool) bool {
	return u.Agent == nil && u.may(policy.ReleasesPublish, own)
}

// mayChangeRelease is the rule every change of a release checks: u may
// schedule (schedules:write at the level the items need) and either created
// the release or may approve it.
func (u User) mayChangeRelease(f ReleaseFacts) bool {
	return u.may(policy.SchedulesWrite, f.Own) && (u.isSelf(f.CreatedBy) || u.mayApproveRelease(f.Own))
}

// mayDecide: u may approve or deny a waiting request for the release:
// someone who could make the call now, never the person who asked (§10.4).
func (u User) mayDecide(f ReleaseFacts) bool {
	return u.mayApproveRelease(f.Own) && f.RequestedBy != "" && f.RequestedBy != u.ID &&
		f.State == release.StateAwaitingApproval
}

// AbilitiesOf is the release rule: what u may do to a release with facts f.
func AbilitiesOf(u User, f ReleaseFacts) ReleaseAbilities {
	change := u.mayChangeRelease(f)
	s := f.State
	return ReleaseAbilities{
		Change:          change && s == release.StateDraft,
		Move:            change && (s == release.StateScheduled || s == release.StateAwaitingApproval),
		Unschedule:      change && release.CanTransition(s, release.StateDraft),
		Cancel:          change && release.CanCancel(s),
		PublishNow:      u.mayApproveRelease(f.Own) && release.CanPublishNow(s),
		Approve:         u.mayDecide(f),
		Undo:            u.may(policy.SitePublish, f.Own) && f.Published,
		ResolveConflict: change && s == release.StateConflict,
		Approves:        u.mayApproveRelease(f.Own),
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
func (e *Engine) ReleaseAbilities(ctx context.Context, u User, siteID string, rows []ReleaseRow) (map[string]ReleaseAbilities, error) {
	out := make(map[string]ReleaseAbilities, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	var authors map[string]string
	if u.needsOwnership() {
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
func (e *Engine) AbilitiesOfFacts(ctx context.Context, u User, siteID string, facts []ReleaseFacts) (map[string]ReleaseAbilities, error) {
	out := make(map[string]ReleaseAbilities, len(facts))
	if len(facts) == 0 {
		return out, nil
	}
	own := map[string]bool{}
	if u.needsOwnership() {
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
func (e *Engine) ReleaseAbilitiesByID(ctx context.Context, u User, siteID string, ids []string) (map[string]ReleaseAbilities, error) {
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
func (e *Engine) AbilitiesOfRelease(ctx context.Context, u User, r ReleaseRow) (ReleaseAbilities, error) {
	m, err := e.ReleaseAbilities(ctx, u, r.SiteID, []ReleaseRow{r})
	return m[r.ID], err
}

// releaseRule loads the facts of r for u, for a use case to check.
func (e *Engine) releaseRule(ctx context.Context, u User, r ReleaseRow) (ReleaseFacts, error) {
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
func nodeOwn(u User, d NodeDetail) bool { return u.isSelf(d.Author.ID) }

// isSelf reports whether id is u's: the person's, or the key u calls
// through (what an agent creates is its owner's own, and the key's).
func (u User) isSelf(id string) bool {
	return id != "" && (id == u.ID || (u.Agent != nil && id == u.Agent.KeyID))
}

// NodeAbilitiesOf is the node rule: what u may do to the node d. A node a
// release holds is locked (§6.2): nothing but the held-node paths.
func NodeAbilitiesOf(u User, d NodeDetail) NodeAbilities {
	own := nodeOwn(u, d)
	free := d.Held == nil
	timed := d.Kind == release.KindPage || d.Kind == release.KindContentEntry
	write := u.MayWriteNode(d.Author.ID)
	return NodeAbilities{
		Edit:        write && free,
		Schedule:    timed && free && u.may(policy.SchedulesWrite, own),
		Gate:        timed && free && u.MayGate(d),
		LiftEmbargo: timed && free && u.MayLift(d),
		Delete:      write && free,
		Approves:    u.mayApproveRelease(own),
	}
}

// NodeAbilities answers what u may do to the node d now (NodeAbilitiesOf).
func (e *Engine) NodeAbilities(u User, d NodeDetail) NodeAbilities { return NodeAbilitiesOf(u, d) }

// PersonAbilities are what a person may do at all, for the parts of a page
// that are about no one release or node.
type PersonAbilities struct {
	// Schedule: create releases and gates (at least of their own nodes).
	Schedule bool
	// ApproveAny: approve anyone's releases (releases:publish, any level).
	ApproveAny bool
	// Approve: approve at least their own nodes' releases.
	Approve bool
	// PublishSite: publish the whole working copy (MayPublishSite).
	PublishSite bool
	// Settings: the site's schedule settings, the kill switch, the cap.
	Settings bool
	// EditContent: create pages and articles.
	EditContent bool
	// AddSite: make a new site, of which the person becomes the Owner.
	AddSite bool
}

// AbilitiesOfPerson is what u may do at all.
func AbilitiesOfPerson(u User) PersonAbilities {
	return PersonAbilities{
		Schedule:    u.Passes(policy.SchedulesWrite),
		ApproveAny:  u.Level(policy.ReleasesPublish) == policy.LevelAny,
		Approve:     u.Passes(policy.ReleasesPublish),
		PublishSite: MayPublishSite(u),
		Settings:    u.Passes(policy.SiteSettings),
		EditContent: u.Passes(policy.ContentWrite),
		AddSite:     MayAddSite(u),
	}
}

// MayAddSite: u may make a new site (issue 15), as an Owner of the site
// they act on, a person and not a token or an agent key.
func MayAddSite(u User) bool {
	return u.SiteID != "" && u.Role == policy.Owner && u.Agent == nil && u.Scopes == nil
}

// HeldEdit says whether u may edit a node a scheduled or waiting release
// holds ("Edit and re-approve", EditAndRepin) and whether that keeps it
// approved by u (approves) or sends it for approval again.
func (e *Engine) HeldEdit(ctx context.Context, u User, d NodeDetail) (may, approves bool, err error) {
	if d.Held == nil || (d.Held.State != release.StateScheduled && d.Held.State != release.StateAwaitingApproval) ||
		!u.MayWriteNode(d.Author.ID) {
		return false, false, nil
	}
	r, err := e.store.Release(ctx, d.SiteID, d.Held.ReleaseID)
	if err != nil {
		return false, false, err
	}
	f, err := e.releaseRule(ctx, u, r)
	if err != nil {
		return false, false, err
	}
	return u.mayChangeRelease(f), u.mayApproveRelease(f.Own), nil
}

// MayGate: u may set the gates of d: schedules:write and content:write,
// each at a level d reaches (set_embargo, schedule_unpublish, §12). The
// node rule reads it, and engine/gates checks it.
func (u User) MayGate(d NodeDetail) bool {
	own := nodeOwn(u, d)
	return u.may(policy.SchedulesWrite, own) && u.may(policy.ContentWrite, own)
}

// MayLift: u may lift d's embargo (D8): MayGate and releases:publish at a
// level d reaches. The node rule reads it, and engine/gates checks it.
func (u User) MayLift(d NodeDetail) bool {
	return u.MayGate(d) && u.may(policy.ReleasesPublish, nodeOwn(u, d))
}

// MayWriteNode is the content rule the node use cases check: content:write,
// or :own on a node u created. A new node is always its creator's own.
func (u User) MayWriteNode(authorID string) bool {
	return u.may(policy.ContentWrite, u.isSelf(authorID))
}
