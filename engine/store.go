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

// Store is what the kernel needs from storage: sites and the audit rows
// that go with no other change. Every write is one transaction.
type Store interface {
	CreateSite(ctx context.Context, s Site, now time.Time) error
	// AppendAudit writes one audit row that goes with no other change (an
	// agent's tool call, reads too).
	AppendAudit(ctx context.Context, a AuditEntry) error
	Site(ctx context.Context, id string) (Site, error)
	Sites(ctx context.Context) ([]Site, error)
}
