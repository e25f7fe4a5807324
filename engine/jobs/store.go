package jobs

import (
	"context"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
)

// Store is what the job bodies need from storage; package store implements
// it. Every method is one statement unless it says otherwise.
type Store interface {
	// Site reads a site (its live snapshot pointer).
	Site(ctx context.Context, id string) (engine.Site, error)
	// LiveIndex lists every node of a live snapshot without its body: what
	// links resolve against. Snapshots never change, so callers keep it.
	LiveIndex(ctx context.Context, snapshotID string) ([]IndexNode, error)
	// LivePage lists the live versions of a snapshot's nodes of the given
	// kinds with an id after after, by id, at most limit, with their bodies
	// and when each version was saved.
	LivePage(ctx context.Context, snapshotID string, kinds []release.NodeKind, after string, limit int) ([]LiveNode, error)
	// DraftsPage lists a site's working copies that are drafts saved before
	// before and not deleted, with an id after after, by id, at most limit
	// (pages and entries only).
	DraftsPage(ctx context.Context, siteID string, before time.Time, after string, limit int) ([]content.Node, error)
	// UnusedAssets lists a site's assets (working copies, not deleted) with
	// an id after after, by id, at most limit, that no live or working page,
	// entry or menu refers to, by reference or by /media/<slug> in its text.
	UnusedAssets(ctx context.Context, siteID, snapshotID, after string, limit int) ([]content.Node, error)

	// Findings reads the findings of automationID with these keys.
	Findings(ctx context.Context, automationID string, keys []string) ([]Finding, error)
	// SaveFindings writes findings (keyed upserts) and records that runID
	// saw them, in one transaction; with gone set, it then marks every
	// finding of the automation the run did not see as gone at at.
	SaveFindings(ctx context.Context, w FindingsWrite) error
	// RunFindings lists the findings runID saw (new or still there) and
	// those it found gone, in the order they were first recorded.
	RunFindings(ctx context.Context, automationID, runID string) ([]RunFinding, error)
	// DismissFinding records "Not a problem" on a finding: detail is what
	// it said then. ErrNotFound when the automation has no such finding.
	DismissFinding(ctx context.Context, automationID, key, detail, by string, at time.Time) error
	// OpenFindings counts a site's findings that are not gone, per job,
	// dismissed ones left out.
	OpenFindings(ctx context.Context, siteID string) (map[string]int, error)

	// CountNotFound adds the hits, in one transaction: an upsert each that
	// stops adding new paths once a site's day has limit of them.
	CountNotFound(ctx context.Context, hits []NotFoundHits, limit int) error
	// TopNotFound lists the site's most frequent 404 paths of the days
	// from..to (inclusive, YYYY-MM-DD), most hits first, at most limit.
	TopNotFound(ctx context.Context, siteID, from, to string, limit int) ([]NotFoundPath, error)

	// ReleaseOutcomes counts the site's releases that ended in (from, to]:
	// after from, up to and including to (a run at to sees what ended then).
	ReleaseOutcomes(ctx context.Context, siteID string, from, to time.Time) (ReleaseOutcomes, error)
	// StaleEntries counts the site's live entries of the snapshot whose
	// live version was saved before before.
	StaleEntries(ctx context.Context, snapshotID string, before time.Time) (int, error)
}

// IndexNode is a live node as links resolve against it.
type IndexNode struct {
	ID        string
	Kind      release.NodeKind
	Slug      string
	Published bool
	From      *time.Time
	Until     *time.Time
}

// LiveNode is a node's live version with the instant it was saved.
type LiveNode struct {
	engine.LiveNode
	SavedAt time.Time
}

// RunFinding is a finding as one run saw it: SeenNew, SeenStill or
// SeenGone.
type RunFinding struct {
	Finding
	Seen string
}

// How a run saw a finding.
const (
	SeenNew   = "new"
	SeenStill = "still"
	SeenGone  = "gone"
)

// NotFoundPath is a path the public site answered 404 to, with how often.
// NotFoundHits is a number of 404s of one normalised path on one UTC day
// (YYYY-MM-DD).
type NotFoundHits struct {
	SiteID string
	Day    string
	Path   string
	Hits   int
}

type NotFoundPath struct {
	Path string
	Hits int
}

// ReleaseOutcomes are the release results of a stretch of time.
type ReleaseOutcomes struct {
	Published int // published
	Late      int // of which published a minute or more after their time
	Missed    int
	Conflicts int
	Failed    int // failed or expired
}

// FindingsWrite is one step's findings.
type FindingsWrite struct {
	AutomationID string
	RunID        string
	Findings     []Finding
	// Gone: the run's sweep is complete, so the findings it did not see
	// are gone, at At.
	Gone bool
	At   time.Time
}
