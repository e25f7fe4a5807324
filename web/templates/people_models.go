package templates

import "time"

// PeoplePage is a site's people (issue 15): its members with their roles,
// its open invitations, and the form for a new one.
type PeoplePage struct {
	Members     []MemberRow
	Invitations []InvitationRow
	// Roles are the roles the viewer may give, highest first.
	Roles []string
	// Email and Role are the invite form's fields, after a refusal.
	Email, Role string
	Errors      FieldErrors
	Error       string
	// Link is a new invitation's link, for LinkEmail, or a password reset
	// link, for LinkName: in this answer only, as Studio keeps nothing but
	// its hash.
	Link, LinkEmail, LinkName string
	// Confirm is the member whose remove dialog comes open in the page
	// (the confirm step of a browser without JavaScript).
	Confirm string
}

// MemberRow is one member of the site.
type MemberRow struct {
	ID, Name, Email, Role string
	Joined                time.Time
	// Self is the viewer; Locked a member the viewer may not change (the
	// viewer, or an Owner to an Administrator).
	Self, Locked bool
	// ResetPassword offers a password reset link; Elsewhere says instead
	// that the member's account is not the viewer's to reset, as they also
	// work on a site the viewer does not manage them on.
	ResetPassword, Elsewhere bool
}

// InvitationRow is an open invitation.
type InvitationRow struct {
	ID, Email, Role, By string
	Expires             time.Time
}

// JoinForm is an invitation's page: who is invited to which site, and
// either a new account's fields or the existing account's password.
type JoinForm struct {
	Token, SiteName, Email, Role string
	HasAccount                   bool
	Name                         string
	Errors                       FieldErrors
	Error                        string
	PasswordChars                int
}

// ResetForm is a password reset link's page: whose password, and the new
// one's field.
type ResetForm struct {
	Token, Name   string
	Errors        FieldErrors
	PasswordChars int
}
