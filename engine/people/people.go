// Package people holds who is on a site and with which role (issue 15,
// RFC §10.2, §11.8): the list of a site's members, inviting someone by
// email with a one-time link, changing a member's role and removing a
// member. The Owner and Administrators of a site manage its people; only an
// Owner gives or takes the Owner role; nobody changes or removes their own
// membership here, so a site always keeps the Owner who acts.
//
// Roles are per site, but an account is one across sites: an act on the
// account itself (a password reset link, which signs in as the person on
// every site of theirs) is only for someone who manages the person on
// every one of those sites (issue 36, account.go); a role change and a
// removal stay per site.
//
// What a change of role or a removal does to releases follows from reading
// the role at their time: a demoted approver's approval is re-checked when
// the release runs, and a removed person's approvals lapse then
// (approval_lost, engine/scheduler). A removed person's waiting requests
// are denied in the removal's own transaction.
package people

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
)

// InvitationLife is how long an invitation link works.
const InvitationLife = 7 * 24 * time.Hour

// Refusal codes.
const (
	// CodeOwnMembership refuses changing or removing one's own membership.
	CodeOwnMembership = "own_membership"
	// CodeOwnerOnly refuses an Administrator giving, changing or removing
	// the Owner role.
	CodeOwnerOnly = "owner_only"
	// CodeAlreadyMember refuses inviting someone who is a member already.
	CodeAlreadyMember = "already_member"
)

// secretPrefix marks an invitation's secret, so a leaked one is
// recognisable.
const secretPrefix = "studio_inv_"

// Member is a person on a site.
type Member struct {
	User   engine.User // with their role on the site
	Joined time.Time
	// Can is what the viewer may do to them (Members fills it).
	Can MemberAbilities
}

// Invitation is an open invitation to a site: Email may join with Role
// until ExpiresAt, once.
type Invitation struct {
	ID        string
	SiteID    string
	Email     string
	Role      policy.Role
	By        release.Actor
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Removal is one member's removal, written in one transaction: the
// membership goes, each of Denials is decided, and Audit is appended.
type Removal struct {
	SiteID, UserID string
	Denials        []releases.Decision
	Audit          engine.AuditEntry
}

// Acceptance is an invitation taken up, written in one transaction: the
// invitation is spent (engine.ErrConflict when it is no longer open at
// At), the new account is created when NewHash is set, and the membership
// and Audit are written.
type Acceptance struct {
	Invitation Invitation
	User       engine.User
	NewHash    string // the new account's password hash; "" for an account that exists
	At         time.Time
	Audit      engine.AuditEntry
}

// Store is what the people use cases read and write.
type Store interface {
	Members(ctx context.Context, siteID string) ([]Member, error)
	MemberByID(ctx context.Context, siteID, id string) (engine.User, error)
	// MemberSites reads, for every member of siteID, every site they are
	// a member of (siteID among them) with their role there.
	MemberSites(ctx context.Context, siteID string) (Sites, error)
	// AppendAudit writes one audit row that goes with no other change (a
	// refused act on an account).
	AppendAudit(ctx context.Context, a engine.AuditEntry) error
	UserByEmail(ctx context.Context, email string) (engine.User, string, error)
	// SetMemberRole changes a member's role with its audit row, in one
	// transaction; engine.ErrNotFound when they are not a member.
	SetMemberRole(ctx context.Context, siteID, userID string, role policy.Role, audit engine.AuditEntry) error
	// RemoveMember writes a Removal; engine.ErrNotFound when they are not a
	// member, engine.ErrConflict when a request of Denials is no longer
	// waiting.
	RemoveMember(ctx context.Context, r Removal) error
	WaitingApprovals(ctx context.Context, siteID string) ([]releases.ApprovalRequest, error)
	Release(ctx context.Context, siteID, id string) (releases.ReleaseRow, error)
	// CreateInvitation writes an invitation and its audit row, and revokes
	// the site's open invitations of the same email, in one transaction.
	CreateInvitation(ctx context.Context, inv Invitation, hash string, audit engine.AuditEntry) error
	// Invitations lists a site's invitations open at now, newest first.
	Invitations(ctx context.Context, siteID string, now time.Time) ([]Invitation, error)
	// RevokeInvitation revokes an open invitation with its audit row;
	// engine.ErrNotFound when the site has no such open invitation.
	RevokeInvitation(ctx context.Context, siteID, id string, at time.Time, audit engine.AuditEntry) error
	// OpenInvitation is the invitation with hash open at now;
	// engine.ErrNotFound otherwise.
	OpenInvitation(ctx context.Context, hash string, now time.Time) (Invitation, error)
	AcceptInvitation(ctx context.Context, a Acceptance) error
	ResetStore
}

// Engine is what the people use cases need from the engine: its clock.
type Engine interface{ Now() time.Time }

// SignIn checks an existing account's password, under the sign-in
// throttle (identity.Identity.SignIn).
type SignIn func(ctx context.Context, try identity.SignInTry) (engine.User, error)

// KeysOfRemoved is what a removal does to the removed person's agent keys
// on the site (§11.8 "owner removed": every key revoked, each agent task
// whose key it was broken, owner-removed): engine/agents' OwnerRemoved.
type KeysOfRemoved interface {
	OwnerRemoved(ctx context.Context, u engine.User, siteID, ownerID string) error
}

// People is the people use cases.
type People struct {
	e      Engine
	store  Store
	signIn SignIn
	keys   KeysOfRemoved
}

// RevokeKeysWith has every removal revoke the removed person's agent keys
// on the site through keys (services wires engine/agents in).
func (p *People) RevokeKeysWith(keys KeysOfRemoved) { p.keys = keys }

// New wires the people use cases.
func New(e Engine, store Store, signIn SignIn) *People {
	return &People{e: e, store: store, signIn: signIn}
}

// manages refuses u unless they manage the site's people: a person (not an
// agent, not a token) holding site:settings, an Owner or Administrator.
func manages(u engine.User, siteID string) error {
	if u.Agent != nil || u.Scopes != nil {
		return engine.Refuse(engine.CodeForbidden, "")
	}
	return engine.Require(u, siteID, policy.SiteSettings)
}

// mayGive reports whether u may give role or take it away.
func mayGive(u engine.User, role policy.Role) bool {
	return role != policy.Owner || u.Role == policy.Owner
}

// GivableRoles lists the roles u may give (an invitation's, a member's
// new role), from most to least powerful: every role for an Owner, all
// but Owner for anyone else. Invite and SetRole refuse the others
// (CodeOwnerOnly); the People page offers these.
func GivableRoles(u engine.User) []policy.Role {
	var out []policy.Role
	for _, role := range policy.Roles {
		if mayGive(u, role) {
			out = append(out, role)
		}
	}
	return out
}

// Members lists the site's members, by name, each with what u may do to
// them (Member.Can).
func (p *People) Members(ctx context.Context, u engine.User, siteID string) ([]Member, error) {
	if err := manages(u, siteID); err != nil {
		return nil, err
	}
	members, err := p.store.Members(ctx, siteID)
	if err != nil {
		return nil, err
	}
	sites, err := p.store.MemberSites(ctx, siteID)
	if err != nil {
		return nil, err
	}
	for i := range members {
		members[i].Can = abilities(u, members[i].User, sites)
	}
	return members, nil
}

// Authors lists the site's members by name for someone who reads its
// content (who wrote what: the content list's author filter).
func (p *People) Authors(ctx context.Context, u engine.User, siteID string) ([]Member, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return nil, err
	}
	return p.store.Members(ctx, siteID)
}

// target reads the member userID whom u would change, refusing u's own
// membership and, unless u is an Owner, an Owner's.
func (p *People) target(ctx context.Context, u engine.User, siteID, userID string) (engine.User, error) {
	if err := manages(u, siteID); err != nil {
		return engine.User{}, err
	}
	if userID == u.ID {
		return engine.User{}, engine.Refuse(CodeOwnMembership, "")
	}
	m, err := p.store.MemberByID(ctx, siteID, userID)
	if err != nil {
		return engine.User{}, err
	}
	if err := onSite(u, m); err != nil {
		return engine.User{}, err
	}
	return m, nil
}

// SetRole gives the member userID role on the site. Their approvals are
// judged by it when each release runs (§10.6, §11.8).
func (p *People) SetRole(ctx context.Context, u engine.User, siteID, userID string, role policy.Role) error {
	m, err := p.target(ctx, u, siteID, userID)
	if err != nil {
		return err
	}
	if _, ok := policy.ParseRole(string(role)); !ok {
		return engine.Refuse("bad_role", "role")
	}
	if !mayGive(u, role) {
		return engine.Refuse(CodeOwnerOnly, "role")
	}
	if m.Role == role {
		return nil
	}
	return p.store.SetMemberRole(ctx, siteID, userID, role, engine.AuditEntry{Action: "member.role_changed", Actor: u.Actor(),
		SiteID: siteID, At: p.e.Now(), Details: map[string]any{"userId": userID, "name": m.Name, "from": string(m.Role), "to": string(role)}})
}

// Remove takes the member userID off the site: from the next request
// they, their tokens and their agent keys have no access to it; the
// requests they wait on are denied (the release back to draft), and the
// releases they approved lapse at their time (approval_lost).
func (p *People) Remove(ctx context.Context, u engine.User, siteID, userID string) error {
	m, err := p.target(ctx, u, siteID, userID)
	if err != nil {
		return err
	}
	// Their agent keys on the site go first, each key with its task's
	// break in a transaction of its own (engine/agents): should the
	// removal then fail, it is asked again and finds them revoked, while
	// keys left after a removal would never be asked about again. (The
	// keys stop with the membership anyway: a key acts as its owner on its
	// site; revoking says so on the Agents page and breaks their tasks.)
	if p.keys != nil {
		if err := p.keys.OwnerRemoved(ctx, u, siteID, m.ID); err != nil {
			return err
		}
	}
	// A request decided between the read and the write is a conflict:
	// read again, a few times.
	for range 3 {
		r, err := p.removal(ctx, u, siteID, m)
		if err != nil {
			return err
		}
		if err = p.store.RemoveMember(ctx, r); !errors.Is(err, engine.ErrConflict) {
			return err
		}
	}
	return engine.Refuse(engine.CodeStale, "")
}

func (p *People) removal(ctx context.Context, u engine.User, siteID string, m engine.User) (Removal, error) {
	now := p.e.Now()
	waiting, err := p.store.WaitingApprovals(ctx, siteID)
	if err != nil {
		return Removal{}, err
	}
	r := Removal{SiteID: siteID, UserID: m.ID, Audit: engine.AuditEntry{Action: "member.removed", Actor: u.Actor(),
		SiteID: siteID, At: now, Details: map[string]any{"userId": m.ID, "name": m.Name, "role": string(m.Role)}}}
	for _, q := range waiting {
		if q.RequestedBy.Kind != "person" || q.RequestedBy.ID != m.ID {
			continue
		}
		rel, err := p.store.Release(ctx, siteID, q.ReleaseID)
		if err != nil {
			return Removal{}, err
		}
		r.Denials = append(r.Denials, releases.Withdrawal(q, rel, u.Actor(), now, "requester_removed"))
	}
	return r, nil
}

// Invite makes an invitation for email to join the site with role, and
// returns its one-time secret: shown once, only its hash is kept, good for
// InvitationLife. A new invitation of the same email replaces the open one.
func (p *People) Invite(ctx context.Context, u engine.User, siteID, email string, role policy.Role) (string, Invitation, error) {
	if err := manages(u, siteID); err != nil {
		return "", Invitation{}, err
	}
	var refused []error
	address, err := identity.ParseEmail(email)
	if err != nil {
		refused = append(refused, err)
	}
	if _, ok := policy.ParseRole(string(role)); !ok {
		refused = append(refused, engine.Refuse("bad_role", "role"))
	} else if !mayGive(u, role) {
		refused = append(refused, engine.Refuse(CodeOwnerOnly, "role"))
	}
	if len(refused) > 0 {
		return "", Invitation{}, errors.Join(refused...)
	}
	if existing, _, err := p.store.UserByEmail(ctx, address); err == nil {
		if _, err := p.store.MemberByID(ctx, siteID, existing.ID); err == nil {
			return "", Invitation{}, engine.Refuse(CodeAlreadyMember, "email")
		} else if !errors.Is(err, engine.ErrNotFound) {
			return "", Invitation{}, err
		}
	} else if !errors.Is(err, engine.ErrNotFound) {
		return "", Invitation{}, err
	}
	now := p.e.Now()
	inv := Invitation{ID: ids.New("inv"), SiteID: siteID, Email: address, Role: role, By: u.Actor(),
		CreatedAt: now, ExpiresAt: now.Add(InvitationLife)}
	b := make([]byte, 32)
	rand.Read(b)
	secret := secretPrefix + base64.RawURLEncoding.EncodeToString(b)
	err = p.store.CreateInvitation(ctx, inv, hash(secret), engine.AuditEntry{Action: "member.invited", Actor: u.Actor(),
		SiteID: siteID, At: now, Details: map[string]any{"invitation": inv.ID, "email": inv.Email, "role": string(role)}})
	if err != nil {
		return "", Invitation{}, err
	}
	return secret, inv, nil
}

// Invitations lists the site's open invitations, newest first.
func (p *People) Invitations(ctx context.Context, u engine.User, siteID string) ([]Invitation, error) {
	if err := manages(u, siteID); err != nil {
		return nil, err
	}
	return p.store.Invitations(ctx, siteID, p.e.Now())
}

// RevokeInvitation ends an open invitation: its link works no more.
func (p *People) RevokeInvitation(ctx context.Context, u engine.User, siteID, id string) error {
	if err := manages(u, siteID); err != nil {
		return err
	}
	now := p.e.Now()
	return p.store.RevokeInvitation(ctx, siteID, id, now, engine.AuditEntry{Action: "member.invitation_revoked",
		Actor: u.Actor(), SiteID: siteID, At: now, Details: map[string]any{"invitation": id}})
}

func hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Opened is an invitation as its link shows it: to whom and which site,
// and whether its email has an account already (who then signs in with
// its password instead of choosing one).
type Opened struct {
	Invitation Invitation
	HasAccount bool
}

// Open reads the invitation secret opens; engine.ErrNotFound for an
// unknown, spent, revoked or expired one, all alike.
func (p *People) Open(ctx context.Context, secret string) (Opened, error) {
	if !strings.HasPrefix(secret, secretPrefix) {
		return Opened{}, engine.ErrNotFound
	}
	inv, err := p.store.OpenInvitation(ctx, hash(secret), p.e.Now())
	if err != nil {
		return Opened{}, err
	}
	_, _, err = p.store.UserByEmail(ctx, inv.Email)
	if err != nil && !errors.Is(err, engine.ErrNotFound) {
		return Opened{}, err
	}
	return Opened{Invitation: inv, HasAccount: err == nil}, nil
}

// AcceptInput is what the invitation's page asks: a name, a password and a
// language for a new account; the account's password for one that exists.
type AcceptInput struct {
	Name, Password, Lang string
	// Client is the address the request came from, for the sign-in
	// throttle of an existing account.
	Client string
}

// Accept takes up the invitation secret opens: the person joins the site
// with the invitation's role, as a new account or, when their email has
// one, as that account once its password is right. It returns the person
// as a member of the site, to be signed in. Bad fields are refused together
// and change nothing; a link no longer open is engine.ErrNotFound.
func (p *People) Accept(ctx context.Context, secret string, in AcceptInput) (engine.User, error) {
	o, err := p.Open(ctx, secret)
	if err != nil {
		return engine.User{}, err
	}
	inv := o.Invitation
	var u engine.User
	var newHash string
	if o.HasAccount {
		if u, err = p.signIn(ctx, identity.SignInTry{Email: inv.Email, Password: in.Password, Client: in.Client, Lang: in.Lang}); err != nil {
			return engine.User{}, err
		}
	} else if u, newHash, err = identity.NewAccount(inv.Email, in.Name, inv.Role, in.Password, in.Lang); err != nil {
		return engine.User{}, err
	}
	u.Role, u.SiteID = inv.Role, inv.SiteID
	now := p.e.Now()
	err = p.store.AcceptInvitation(ctx, Acceptance{Invitation: inv, User: u, NewHash: newHash, At: now,
		Audit: engine.AuditEntry{Action: "member.joined", Actor: u.Actor(), SiteID: inv.SiteID, At: now,
			Details: map[string]any{"invitation": inv.ID, "role": string(inv.Role), "newAccount": newHash != ""}}})
	if errors.Is(err, engine.ErrConflict) {
		return engine.User{}, engine.ErrNotFound // spent or revoked meanwhile
	}
	if err != nil {
		return engine.User{}, err
	}
	return u, nil
}
