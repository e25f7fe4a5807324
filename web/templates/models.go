// Package templates renders Studio's pages and the public site with templ.
// View models carry everything a page shows, already decided; templates
// only lay it out and translate words through locales.
package templates

import "time"

// Page is what every Studio page's frame needs.
type Page struct {
	Title string
	Nav   string // content | schedules | settings
	User  *UserView
	CSRF  string
	Flash string // message key of a one-time notice
	// Ended, when set, says beside the notice what a password change, a
	// reset or "sign out everywhere else" ended.
	Ended *EndedView
	Site  SiteView
	// CanSettings shows the Settings link (site:settings).
	CanSettings bool
	// Notices counts the person's notifications, for the bell.
	Notices int
	// Paused, when set, shows the kill switch's banner above the content.
	Paused *PausedView
	// Sites are the person's sites, for the site switcher (the current
	// one among them); AddSite offers "New site…".
	Sites   []SiteLink
	AddSite bool
}

// EndedView is what an act on the person's own account ended: Sessions
// other than this one (all of them, for a Reset), and for a reset the
// access tokens and agent keys it revoked.
type EndedView struct {
	Reset                       bool
	Sessions, Tokens, AgentKeys int
}

// SiteLink is one of the person's sites in the site switcher: the same
// section of Studio on that site.
type SiteLink struct {
	ID      string
	Name    string
	URL     string
	Current bool
}

// UserView is the signed-in person.
type UserView struct {
	Name string
	Role string
}

// SiteView is the site Studio is editing.
type SiteView struct {
	ID       string
	Name     string
	TimeZone string
	// ZoneLabel is "Istanbul (UTC+3)" in the page's language.
	ZoneLabel string
	// PublicURL is where its public site is read ("" for Studio's own host).
	PublicURL string
}

// FieldErrors maps form fields to their message (already translated).
type FieldErrors map[string]string

// LoginForm is the sign-in page.
type LoginForm struct {
	Email string
	Error string
	Next  string
}

// SetupForm is the first-run setup page: what was typed (never the
// password), the choices, and each refused field's sentence.
type SetupForm struct {
	Token         string // the setup link's one-time token
	SiteName      string
	PublicURL     string
	TimeZone      string // "" lets the page suggest the browser's zone
	SiteLang      string
	OwnerName     string
	Email         string
	PasswordChars int // the sign-in's least number of characters
	Langs         []string
	Zones         []ZoneOption
	Errors        FieldErrors
}

// NodeRow is one page or entry in the content list.
type NodeRow struct {
	ID        string
	Kind      string
	Title     string
	Status    string
	Live      bool
	Changed   bool // the working copy differs from live
	HeldUntil *time.Time
	HeldBy    string
	// HeldState is the state of the release holding it (scheduled,
	// awaiting_approval …); Removes: that release takes it off the site.
	HeldState string
	Removes   bool
	UpdatedAt time.Time
	// Author is the name of the person who created it, "" when it was
	// created before Studio recorded authors (and nobody could be found).
	Author string
	Lang   string // its own language, else the site's
}

// ContentList is the content page.
type ContentList struct {
	Rows       []NodeRow
	Pending    int
	CanPublish bool
	Error      string
	// The filters, as the URL holds them, and their choices.
	Search, Kind, Status, Lang, Author, Timing, Sort string
	Kinds, Statuses, Langs, Authors, Timings, Sorts  []Option
	Filtered                                         bool
	// PrevURL and NextURL are the pages before and after, "" at an end.
	Page             int
	PrevURL, NextURL string
}

// NodeForm is the editor of one page or entry.
type NodeForm struct {
	// FileLimits is what an image may be (types, size, pixels), said
	// the same on both upload screens.
	FileLimits string
	// Author is the name of the person who created it (a saved node).
	Author string
	// CanSchedule: the person may schedule this node now (the engine's
	// node abilities).
	CanSchedule bool
	// ReadOnly: a saved node the person may not change (another's, under
	// own-level scopes): the editor shows it with no Save. CanDelete: they
	// may delete it. Both are the engine's node abilities.
	ReadOnly  bool
	CanDelete bool
	ID        string // empty for a new node
	Kind      string
	Rev       int64
	Title     string
	Slug      string
	Summary   string
	Body      string
	Status    string
	// Lang is the language it is written in, one of Langs.
	Lang    string
	Langs   []string
	LiveRev int64
	Held    *HeldView
	// A media file's editor (Kind "asset"): its alt text and the Studio
	// address of its image as saved, for the preview ("" before a file).
	Alt     string
	FileURL string
	// Cover is a page's or an article's cover (a media file's id, "" for
	// none), chosen among Media, the site's media files; Uploads is where
	// the editor's image upload posts ("" when the person may not upload).
	Cover   string
	Media   []MediaChoice
	Uploads string
	// EditScheduled is "Edit and re-approve" (§6.2): the fields of a held
	// node are open, and saving pins the edit to the release.
	EditScheduled bool
	// ConfirmDelete renders the delete dialog open (the no-JavaScript step).
	ConfirmDelete bool
	Errors        FieldErrors
	Error         string
	Latest        string // "Load the latest", after a refusal that says it changed
	Statuses      []string
	// Gates is the Schedule card beside the editor of a saved page or
	// entry (gates_models.go); nil for a new one.
	Gates *GatesCard
}

// MediaChoice is a media file the cover may be.
type MediaChoice struct{ ID, Title, Path string }

// HeldView says which release holds a node.
type HeldView struct {
	ReleaseID string
	Rev       int64
	At        *time.Time
	// CanUnschedule offers "Unschedule and edit" (§6.2).
	CanUnschedule bool
	// CanEdit offers "Edit and re-approve" (Approves) or "Edit and send
	// for approval" (§6.2).
	CanEdit  bool
	Approves bool
}

// ScheduleForm is the "Schedule…" page of one node.
type ScheduleForm struct {
	NodeID     string
	NodeTitle  string
	Rev        int64
	Date       string
	Time       string
	MinDate    string
	Errors     FieldErrors
	Error      string
	Preview    SchedulePreviewView
	CanApprove bool
	Latest     string // "Load the latest", after a refusal that says it changed
	// Closure is what the release adds because the node uses it and it is
	// not live (§6.1 step 2), each with the item that uses it.
	Closure []ReleaseItemView
	// HeldAt, with Held, says the node is already in another pending
	// release (at that time, when it has one): scheduling it again is an
	// overlap, allowed and flagged (D15, §6.2).
	Held   bool
	HeldAt *time.Time
}

// TimePair is one instant in the site's zone and, when the viewer's zone
// differs, in theirs too.
type TimePair struct {
	At         time.Time // in the site's zone
	SiteCity   string
	Viewer     *time.Time // in the viewer's zone, when it differs
	ViewerCity string
}

// ReleaseItemView is one item of a release.
type ReleaseItemView struct {
	NodeID    string
	Title     string
	Kind      string
	Op        string
	PinnedRev int64
	LiveRev   int64 // 0 when not live
	BaseRev   int64 // 0 when not live when pinned
	// AddedBecause is the title of the item that uses this one, for an
	// item the dependency closure added (§6.1 step 2).
	AddedBecause string
	// Overlaps are the other pending releases that carry this node (§6.2).
	Overlaps []OverlapView
}

// ReleaseView is the release page.
type ReleaseView struct {
	// UndoCancelSeconds, when above zero, is how long the Cancel just
	// made may still be taken back.
	UndoCancelSeconds int
	ID                string
	Title             string
	State             string
	Rev               int64
	When              *TimePair
	By                string
	// ByAgent: an agent key proposed it (By is the key's name); RunID is
	// the agent task's run it came from, when it came from one.
	ByAgent       bool
	RunID         string
	Items         []ReleaseItemView
	CanUnschedule bool
	CanCancel     bool
	CanMove       bool
	CanUndo       bool
	History       []HistoryRow
	MoveDate      string // the move form, in the site's zone
	MoveTime      string
	MoveErrors    FieldErrors
	Outcome       string // translated sentence, if finished
	Error         string
	Latest        string // "Load the latest", after a refusal that says it changed

	// CanPublishNow shows "Publish now…" (a person who may approve it, on a
	// missed, expired or scheduled release), with PublishNowErrors beside
	// its box after a refusal.
	CanPublishNow    bool
	PublishNowErrors FieldErrors
	// Confirm is the action whose confirmation comes open in the page
	// (publish-now, cancel, unschedule: the ?confirm= step without
	// JavaScript, or Publish now after a refusal of it).
	Confirm string

	// Conflict is the three-way view of a release held as a conflict
	// (§6.4), with its ways on.
	Conflict *ConflictPanel

	// Approval is the release's Approval card (§15.1); nil for a release
	// that neither has an approval nor waits for one.
	Approval *ApprovalCard
}

// ApprovalCard says who approved a release, when and for which time, or
// who asked for approval; ReviewURL is the request's review, where each
// item compares live with what the release publishes.
type ApprovalCard struct {
	Approved  bool
	Automatic bool // an agent key's automatic approval (§11.4)
	By        string
	At        time.Time // in the site's zone
	For       *time.Time
	ReviewURL string
}

// HistoryRow is one audited act on a release.
type HistoryRow struct {
	At     time.Time // in the site's zone
	Who    string
	Action string // message key
}
