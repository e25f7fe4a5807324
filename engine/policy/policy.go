// Package policy holds who may do what (RFC §10–§12): roles and the scopes
// they grant, the IMPLIES and own-variant rules, abilities, call classes ×
// modes, the auto-mode window (D9), the MCP tool table with its taint rules,
// and the narrowing of automation keys. Everything is data plus small pure
// functions; nothing here does I/O or reads the clock.
package policy

import (
	"slices"
	"strings"
)

// Role is a person's role on a site.
type Role string

const (
	Owner       Role = "owner"
	Admin       Role = "admin"
	Editor      Role = "editor"
	Author      Role = "author"
	Contributor Role = "contributor"
)

// Roles lists the roles from most to least powerful.
var Roles = []Role{Owner, Admin, Editor, Author, Contributor}

// Scope is one permission.
type Scope string

const (
	ContentRead     Scope = "content:read"
	ContentWrite    Scope = "content:write"
	ContentWriteOwn Scope = "content:write:own" // only one's own nodes
	SitePublish     Scope = "site:publish"
	SitePublishOwn  Scope = "site:publish:own" // only one's own nodes
	SiteSettings    Scope = "site:settings"    // incl. the schedules kill switch and daily cap

	SchedulesRead      Scope = "schedules:read"       // calendar, releases, automations, runs
	SchedulesWrite     Scope = "schedules:write"      // create and change releases and gates
	SchedulesWriteOwn  Scope = "schedules:write:own"  // the same, only for one's own nodes
	ReleasesPublish    Scope = "releases:publish"     // approve releases; auto-mode releases without a person
	ReleasesPublishOwn Scope = "releases:publish:own" // the same, only for releases of one's own nodes
	AutomationsManage  Scope = "automations:manage"   // people only: create, edit, resume, run, delete automations

	CommentsRead     Scope = "comments:read"
	CommentsModerate Scope = "comments:moderate" // label and hide
	AnalyticsRead    Scope = "analytics:read"
	AssetRead        Scope = "asset:read"
	AssetWrite       Scope = "asset:write"
)

// Scopes lists every scope Studio knows, in a fixed order that results of
// this package follow.
var Scopes = []Scope{
	ContentRead, ContentWrite, ContentWriteOwn,
	SitePublish, SitePublishOwn, SiteSettings,
	SchedulesRead, SchedulesWrite, SchedulesWriteOwn,
	ReleasesPublish, ReleasesPublishOwn, AutomationsManage,
	CommentsRead, CommentsModerate, AnalyticsRead,
	AssetRead, AssetWrite,
}

// personScopes may be held by people only, never by a key (§10.1
// PERSON_SCOPES): creating and resuming automations is people-only (D7).
var personScopes = []Scope{AutomationsManage}

// PersonOnly reports whether scope is one a key can never hold.
func PersonOnly(s Scope) bool { return slices.Contains(personScopes, s) }

// KeyScopes lists the scopes an API or automation key may hold (§10.1
// KEY_SCOPES): every scope but the person-only ones.
func KeyScopes() []Scope {
	out := make([]Scope, 0, len(Scopes))
	for _, s := range Scopes {
		if !PersonOnly(s) {
			out = append(out, s)
		}
	}
	return out
}

// Known reports whether s is one of Scopes.
func Known(s Scope) bool { return slices.Contains(Scopes, s) }

// roleScopes is §10.2 as data: what each role holds directly. The
// schedules columns follow §10.2 exactly ("own" = the :own variant;
// releases:publish comes by IMPLIES from site:publish and site:publish:own,
// §10.1). The content, comments, analytics and asset scopes are defined by
// earlier RFCs that Studio does not have; Studio grants content and asset
// reads and writes to every role (as before), comment and analytics reads to
// every role, and moderation to Editors and above.
var roleScopes = map[Role][]Scope{
	Owner: {ContentRead, ContentWrite, SitePublish, SiteSettings, SchedulesRead, SchedulesWrite,
		AutomationsManage, CommentsRead, CommentsModerate, AnalyticsRead, AssetRead, AssetWrite},
	Admin: {ContentRead, ContentWrite, SitePublish, SiteSettings, SchedulesRead, SchedulesWrite,
		AutomationsManage, CommentsRead, CommentsModerate, AnalyticsRead, AssetRead, AssetWrite},
	Editor: {ContentRead, ContentWrite, SitePublish, SchedulesRead, SchedulesWrite,
		AutomationsManage, CommentsRead, CommentsModerate, AnalyticsRead, AssetRead, AssetWrite},
	Author: {ContentRead, ContentWrite, SitePublishOwn, SchedulesRead, SchedulesWriteOwn,
		CommentsRead, AnalyticsRead, AssetRead, AssetWrite},
	Contributor: {ContentRead, ContentWrite, SchedulesRead, SchedulesWriteOwn,
		CommentsRead, AnalyticsRead, AssetRead, AssetWrite},
}

// implies lists what a scope grants besides itself (§10.1 IMPLIES):
// publishing later is no more power than publishing now, and a scope grants
// its own variant. content:write → content:write:own is Studio's, for the
// same reason as schedules:write → schedules:write:own. Studio's too: a
// scope that writes grants reading what it writes (a key or token that may
// save a draft reads the draft it saved, which every write's answer shows).
// The graph has no cycles (tested), which reaches relies on.
var implies = map[Scope][]Scope{
	SchedulesWrite:    {SchedulesWriteOwn},
	SchedulesWriteOwn: {SchedulesRead},
	SitePublish:       {SitePublishOwn, ReleasesPublish},
	SitePublishOwn:    {ReleasesPublishOwn},
	ReleasesPublish:   {ReleasesPublishOwn},
	ContentWrite:      {ContentWriteOwn},
	ContentWriteOwn:   {ContentRead},
	AssetWrite:        {AssetRead},
}

// ownVariants maps a scope to its own-level variant (§10.1 OWN_VARIANTS): a
// check for the scope passes at the own level when only the variant is held,
// and the caller then limits the call to the person's own nodes (their
// author is the person or one of their agents).
var ownVariants = map[Scope]Scope{
	SchedulesWrite:  SchedulesWriteOwn,
	ReleasesPublish: ReleasesPublishOwn,
	SitePublish:     SitePublishOwn,
	ContentWrite:    ContentWriteOwn,
}

// ParseRole returns the role named s, or false.
func ParseRole(s string) (Role, bool) {
	for _, r := range Roles {
		if string(r) == s {
			return r, true
		}
	}
	return "", false
}

// ParseScope returns the scope named s, or false.
func ParseScope(s string) (Scope, bool) {
	for _, sc := range Scopes {
		if string(sc) == s {
			return sc, true
		}
	}
	return "", false
}

// Implies returns the scopes s grants directly besides itself.
func Implies(s Scope) []Scope { return slices.Clone(implies[s]) }

// OwnVariant returns the own-level variant of s, if it has one.
func OwnVariant(s Scope) (Scope, bool) {
	v, ok := ownVariants[s]
	return v, ok
}

// OwnOf returns the scope that s is the own-level variant of, if any.
func OwnOf(s Scope) (Scope, bool) {
	for full, own := range ownVariants {
		if own == s {
			return full, true
		}
	}
	return "", false
}

// Expand returns scopes closed under IMPLIES, without repeats: the known
// scopes in the order of Scopes, then any unknown ones in their given order.
func Expand(scopes []Scope) []Scope {
	seen := make(map[Scope]bool, len(scopes)*2)
	var walk func(Scope)
	walk = func(s Scope) {
		if seen[s] {
			return
		}
		seen[s] = true
		for _, i := range implies[s] {
			walk(i)
		}
	}
	for _, s := range scopes {
		walk(s)
	}
	return ordered(seen, scopes)
}

// ordered lists the members of set: known scopes in canonical order, then
// unknown ones in the order they appear in given.
func ordered(set map[Scope]bool, given []Scope) []Scope {
	out := make([]Scope, 0, len(set))
	for _, s := range Scopes {
		if set[s] {
			out = append(out, s)
		}
	}
	for _, s := range given {
		if set[s] && !Known(s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Level is how far a grant reaches.
type Level string

const (
	// LevelNone: not granted.
	LevelNone Level = ""
	// LevelOwn: granted for the holder's own nodes only (an own variant).
	LevelOwn Level = "own"
	// LevelAny: granted without limit.
	LevelAny Level = "any"
)

func (l Level) rank() int {
	switch l {
	case LevelAny:
		return 2
	case LevelOwn:
		return 1
	}
	return 0
}

// Min returns the narrower of two levels.
func (l Level) Min(o Level) Level {
	if o.rank() < l.rank() {
		return o
	}
	return l
}

// LevelIn reports at which level a holder of scopes may act on s: LevelAny
// when s is held or implied, LevelOwn when only s's own variant is, and
// LevelNone otherwise.
func LevelIn(held []Scope, s Scope) Level {
	if grants(held, s) {
		return LevelAny
	}
	if v, ok := ownVariants[s]; ok && grants(held, v) {
		return LevelOwn
	}
	return LevelNone
}

// grants reports whether s is in the IMPLIES closure of held. The graph is
// a few edges deep, so walking it beats building the closure (Has runs on
// every request).
func grants(held []Scope, s Scope) bool {
	for _, h := range held {
		if reaches(h, s) {
			return true
		}
	}
	return false
}

func reaches(from, to Scope) bool {
	if from == to {
		return true
	}
	for _, i := range implies[from] {
		if reaches(i, to) {
			return true
		}
	}
	return false
}

// RoleScopes returns the scopes role holds directly (§10.2), in the order
// of Scopes. An unknown role holds nothing.
func RoleScopes(role Role) []Scope {
	set := make(map[Scope]bool)
	for _, s := range roleScopes[role] {
		set[s] = true
	}
	return ordered(set, nil)
}

// RoleLevel reports at which level role may act on s (§10.1–10.2).
func RoleLevel(role Role, s Scope) Level { return LevelIn(roleScopes[role], s) }

// Holds reports whether role holds s without limit: directly or by
// implication.
func Holds(role Role, s Scope) bool { return RoleLevel(role, s) == LevelAny }

// Has reports whether role passes a guard on scope, as Studio's handlers
// and engine have always used it: Holds(role, scope), except that a guard on
// schedules:write also admits the own level. Every role that may schedule at
// all passes it, and the caller enforces the own limit (only the creator or
// an approver changes a release). This is how the RFC's REST table guards
// the scheduling routes, with schedules:write:own (§13); a guard on
// releases:publish, by contrast, means approving anyone's release and stays
// at the any level — use RoleLevel for the own level of other scopes.
func Has(role Role, scope Scope) bool {
	if scope == SchedulesWrite {
		return RoleLevel(role, scope) != LevelNone
	}
	return Holds(role, scope)
}

// Ability is a named capability Studio shows and checks (§10.1 ABILITIES).
type Ability string

const (
	AbilitySchedulesRead      Ability = "schedules.read"
	AbilitySchedulesWrite     Ability = "schedules.write" // own or any
	AbilitySchedulesWriteAny  Ability = "schedules.writeAny"
	AbilityReleasesApprove    Ability = "releases.approve" // own or any
	AbilityReleasesApproveAny Ability = "releases.approveAny"
	AbilityAutomationsManage  Ability = "automations.manage"
	AbilitySchedulesSettings  Ability = "schedules.settings"
)

// Abilities lists the abilities in the RFC's order.
var Abilities = []Ability{
	AbilitySchedulesRead, AbilitySchedulesWrite, AbilitySchedulesWriteAny,
	AbilityReleasesApprove, AbilityReleasesApproveAny,
	AbilityAutomationsManage, AbilitySchedulesSettings,
}

// abilitySpec is the scope behind an ability and whether the own level
// grants it.
type abilitySpec struct {
	scope  Scope
	ownToo bool
}

var abilities = map[Ability]abilitySpec{
	AbilitySchedulesRead:      {SchedulesRead, false},
	AbilitySchedulesWrite:     {SchedulesWrite, true},
	AbilitySchedulesWriteAny:  {SchedulesWrite, false},
	AbilityReleasesApprove:    {ReleasesPublish, true},
	AbilityReleasesApproveAny: {ReleasesPublish, false},
	AbilityAutomationsManage:  {AutomationsManage, false},
	AbilitySchedulesSettings:  {SiteSettings, false},
}

// AbilityScope returns the scope an ability rests on and whether its own
// variant is enough.
func AbilityScope(a Ability) (scope Scope, ownToo bool, ok bool) {
	s, ok := abilities[a]
	return s.scope, s.ownToo, ok
}

// AbilityLevelIn reports whether a holder of scopes has ability a, and at
// which level: schedules.write and releases.approve at LevelOwn for holders
// of the own variant only; every other ability at LevelAny or not at all.
func AbilityLevelIn(held []Scope, a Ability) Level {
	spec, ok := abilities[a]
	if !ok {
		return LevelNone
	}
	l := LevelIn(held, spec.scope)
	if l == LevelOwn && !spec.ownToo {
		return LevelNone
	}
	return l
}

// AbilityLevel reports whether role has ability a, and at which level.
func AbilityLevel(role Role, a Ability) Level { return AbilityLevelIn(roleScopes[role], a) }

// ForbiddenForUntrusted reports whether an automation that reads untrusted
// text (readsUntrustedText: true) may never hold s (§11.4 rule 3):
// content:write, site:publish, schedules:write, releases:publish, their own
// variants (they are the same writes on fewer nodes, and D10 says such an
// automation holds no write scopes) and every asset:* scope.
func ForbiddenForUntrusted(s Scope) bool {
	if strings.HasPrefix(string(s), "asset:") {
		return true
	}
	if full, ok := OwnOf(s); ok {
		s = full
	}
	switch s {
	case ContentWrite, SitePublish, SchedulesWrite, ReleasesPublish:
		return true
	}
	return false
}

// StripUntrusted returns scopes without those ForbiddenForUntrusted, in
// their order: what an untrusted-input automation's key keeps on every call.
func StripUntrusted(scopes []Scope) []Scope {
	out := make([]Scope, 0, len(scopes))
	for _, s := range scopes {
		if !ForbiddenForUntrusted(s) {
			out = append(out, s)
		}
	}
	return out
}

// Narrow returns an automation key's scopes narrowed to its owner's current
// role (§10.2 note, §11.2, §11.8), as the server does on every call: a scope
// the role holds is kept; a scope the role holds only at the own level
// becomes its own variant (schedules:write for an Author is
// schedules:write:own); anything else — scopes the role lacks, person-only
// scopes and unknown names — is dropped. The result has no repeats and
// follows the order of Scopes. Narrowing never widens: every scope in the
// result is held by the key and, at least at the same level, by the role.
func Narrow(keyScopes []Scope, ownerRole Role) []Scope {
	set := make(map[Scope]bool)
	for _, s := range keyScopes {
		if !Known(s) || PersonOnly(s) {
			continue
		}
		switch RoleLevel(ownerRole, s) {
		case LevelAny:
			set[s] = true
		case LevelOwn:
			set[ownVariants[s]] = true
		}
	}
	return ordered(set, nil)
}
