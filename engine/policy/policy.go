// Package policy maps roles to scopes (RFC §10.1–10.2). The skeleton holds
// the scopes people need; agents' modes and call classes come later.
package policy

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
	SitePublish     Scope = "site:publish"
	SiteSettings    Scope = "site:settings"
	SchedulesRead   Scope = "schedules:read"
	SchedulesWrite  Scope = "schedules:write"
	ReleasesPublish Scope = "releases:publish"
)

var roleScopes = map[Role][]Scope{
	Owner:       {ContentRead, ContentWrite, SitePublish, SiteSettings, SchedulesRead, SchedulesWrite},
	Admin:       {ContentRead, ContentWrite, SitePublish, SiteSettings, SchedulesRead, SchedulesWrite},
	Editor:      {ContentRead, ContentWrite, SitePublish, SchedulesRead, SchedulesWrite},
	Author:      {ContentRead, ContentWrite, SchedulesRead, SchedulesWrite},
	Contributor: {ContentRead, ContentWrite, SchedulesRead, SchedulesWrite},
}

// implies lists what a scope grants besides itself: publishing later is no
// more power than publishing now (§10.1).
var implies = map[Scope][]Scope{
	SitePublish: {ReleasesPublish},
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

// Has reports whether role holds scope, directly or by implication.
func Has(role Role, scope Scope) bool {
	for _, s := range roleScopes[role] {
		if s == scope {
			return true
		}
		for _, i := range implies[s] {
			if i == scope {
				return true
			}
		}
	}
	return false
}
