package people

import (
	"context"

	"studio/engine"
	"studio/engine/policy"
)

// CodeMemberElsewhere refuses an act on a member's whole account (a
// password reset link) by someone who manages them on this site but not on
// every other site the account is a member of (issue 36): the account
// holds their roles there too, so whoever takes it over takes those.
const CodeMemberElsewhere = "member_elsewhere"

// MemberAbilities are what the viewer may do to one member of the site:
// the People page shows these, and the use cases refuse by the same rules
// (onSite, onAccount).
type MemberAbilities struct {
	// Manage is a change of their role on this site, and their removal
	// from it: per site, so it holds whatever their other sites.
	Manage bool
	// ResetPassword is a password reset link for their account, which
	// signs in as them on every site they are on.
	ResetPassword bool
	// Elsewhere says the viewer manages them here but not on every site
	// of their account, so their account is not the viewer's to act on
	// (CodeMemberElsewhere).
	Elsewhere bool
}

// Sites are the memberships of a site's members, by account id: every
// site each of them is a member of (this one among them), with their role
// there.
type Sites map[string][]engine.Membership

// onSite refuses u's change of the member m on the site u acts on: not
// their own membership, and an Owner's only by an Owner.
func onSite(u, m engine.User) error {
	if m.ID == u.ID {
		return engine.Refuse(CodeOwnMembership, "")
	}
	if !mayGive(u, m.Role) {
		return engine.Refuse(CodeOwnerOnly, "")
	}
	return nil
}

// onAccount refuses u's act on the whole account of m, a member of the
// site u acts on, unless u may manage m on every site of m's: there u is a
// member holding site:settings, and an Owner where m is one. sites holds
// both their memberships.
func onAccount(u, m engine.User, sites Sites) error {
	if err := onSite(u, m); err != nil {
		return err
	}
	mine := map[string]policy.Role{}
	for _, s := range sites[u.ID] {
		mine[s.SiteID] = s.Role
	}
	for _, s := range sites[m.ID] {
		role, member := mine[s.SiteID]
		there := u
		there.Role, there.SiteID = role, s.SiteID
		if !member || engine.Require(there, s.SiteID, policy.SiteSettings) != nil || !mayGive(there, s.Role) {
			return engine.Refuse(CodeMemberElsewhere, "")
		}
	}
	return nil
}

// abilities are u's abilities over the member m.
func abilities(u, m engine.User, sites Sites) MemberAbilities {
	if onSite(u, m) != nil {
		return MemberAbilities{}
	}
	err := onAccount(u, m, sites)
	return MemberAbilities{Manage: true, ResetPassword: err == nil, Elsewhere: err != nil}
}

// accountTarget reads the member userID whose whole account u would act
// on, by onAccount's rule. A refusal of someone who manages the site's
// people, about one of its members, is audited (action, on the site) with
// the member and the refusal's code, and still refused when its row cannot
// be written.
func (p *People) accountTarget(ctx context.Context, u engine.User, siteID, userID, action string) (engine.User, error) {
	if err := manages(u, siteID); err != nil {
		return engine.User{}, err
	}
	m, err := p.store.MemberByID(ctx, siteID, userID)
	if err != nil {
		return engine.User{}, err
	}
	sites, err := p.store.MemberSites(ctx, siteID)
	if err != nil {
		return engine.User{}, err
	}
	refused := onAccount(u, m, sites)
	if refused == nil {
		return m, nil
	}
	code := ""
	if c, ok := engine.AsError(refused); ok {
		code = c.Code
	}
	err = p.store.AppendAudit(ctx, engine.AuditEntry{Action: action, Actor: u.Actor(), SiteID: siteID, At: p.e.Now(),
		Details: map[string]any{"userId": m.ID, "name": m.Name, "role": string(m.Role), "refusal": code}})
	if err != nil {
		return engine.User{}, err
	}
	return engine.User{}, refused
}
