package templates

import "time"

// SiteHistoryView is the site's History page (issue 15): its acts, newest
// first, the filters in the URL, and the next page's link.
type SiteHistoryView struct {
	Rows             []SiteHistoryRow
	Kind, Actor      string
	Kinds, Actors    []Option
	Filtered         bool
	ClearURL, CSVURL string
	NextURL          string // "" on the last page
}

// SiteHistoryRow is one act: when, what, who (and for whom), about which
// release or node.
type SiteHistoryRow struct {
	At                time.Time
	What              string // the act, in the person's words
	Who, OnBehalfOf   string
	ActorKind         string
	ReleaseURL        string
	ReleaseTitle      string
	NodeURL, NodeName string
	Reason            string
}
