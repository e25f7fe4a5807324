package engine

import "studio/engine/policy"

// This file is what a User holds and the rules on it alone: its scopes and
// their levels (§10.1–10.2), the content rule, and what a person may do at
// all. Who may do what to one release or node is engine/releases'
// (ReleaseAbilities, NodeAbilities).

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

// May reports whether u may act on s for nodes that are all their own
// (own) or not.
func (u User) May(s policy.Scope, own bool) bool {
	switch u.Level(s) {
	case policy.LevelAny:
		return true
	case policy.LevelOwn:
		return own
	}
	return false
}

// IsSelf reports whether id is u's: the person's, or the key u calls
// through (what an agent creates is its owner's own, and the key's).
func (u User) IsSelf(id string) bool {
	return id != "" && (id == u.ID || (u.Agent != nil && id == u.Agent.KeyID))
}

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

// MayWriteNode is the content rule the node use cases check: content:write,
// or :own on a node u created. A new node is always its creator's own.
func (u User) MayWriteNode(authorID string) bool {
	return u.May(policy.ContentWrite, u.IsSelf(authorID))
}
