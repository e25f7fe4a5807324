package releases

import (
	"context"
	"errors"
	"slices"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// ReleaseListMax is the most releases one page of list_releases holds
// (§12: limit ≤ 50); ReleasePageMax the most one page of GET …/releases
// holds; a page is ReleaseListMax releases unless asked otherwise.
const (
	ReleaseListMax = 50
	ReleasePageMax = 200
)

// Refusals of ReleaseList.
const (
	// CodeBadCursor: the cursor is no release of the list (any more).
	CodeBadCursor = "bad_cursor"
	// CodeUnknownReleaseState: the state filter is no release state.
	CodeUnknownReleaseState = "unknown_release_state"
	// CodeBadReleaseLimit: the limit is not 1..ReleasePageMax.
	CodeBadReleaseLimit = "bad_release_limit"
)

// ReleaseListQuery selects a page of a site's releases (§12 list_releases,
// GET …/releases).
type ReleaseListQuery struct {
	SiteID string
	// From and To bound the releases' times; zero values are now and 400
	// days after it. Releases without a time are listed whatever they are.
	From, To time.Time
	// State keeps the releases in that state only ("" every state).
	State release.State
	// Cursor is the NextCursor of the page before.
	Cursor string
	// Limit is the most releases of the page: 1..ReleasePageMax, 0 for
	// ReleaseListMax.
	Limit int
}

// ReleasePage is one page of releases and the cursor of the next.
type ReleasePage struct {
	Releases   []ReleaseRow
	NextCursor string
	// Abilities are what the person asking may do to each release now, by
	// release id (ReleaseAbilities).
	Abilities map[string]ReleaseAbilities
}

// ReleaseList pages through a site's releases timed in [From, To) and every
// open one without a time, in time order (those without first, then by
// id), for u: one bounded read a page, whatever the site holds. The cursor
// is the id of the page's last release, whose place the next page starts
// after; one that no longer names a release of the site is CodeBadCursor.
// An unknown state or a limit out of range is refused (Field names it).
func (e *Releases) ReleaseList(ctx context.Context, u engine.User, q ReleaseListQuery) (ReleasePage, error) {
	if err := engine.Require(u, q.SiteID, policy.SchedulesRead); err != nil {
		return ReleasePage{}, err
	}
	if q.State != "" && !slices.Contains(release.States, q.State) {
		return ReleasePage{}, engine.Refuse(CodeUnknownReleaseState, "state")
	}
	if q.Limit < 0 || q.Limit > ReleasePageMax {
		return ReleasePage{}, engine.Refuse(CodeBadReleaseLimit, "limit")
	}
	limit := q.Limit
	if limit == 0 {
		limit = ReleaseListMax
	}
	now := e.Now()
	pq := ReleasePageQuery{SiteID: q.SiteID, From: q.From, To: q.To, State: q.State, Limit: limit + 1}
	if pq.From.IsZero() {
		pq.From = now
	}
	if pq.To.IsZero() {
		pq.To = now.AddDate(0, 0, 400)
	}
	if q.Cursor != "" {
		r, err := e.store.Release(ctx, q.SiteID, q.Cursor)
		if errors.Is(err, engine.ErrNotFound) {
			return ReleasePage{}, &engine.Error{Code: CodeBadCursor, Field: "cursor"}
		}
		if err != nil {
			return ReleasePage{}, err
		}
		pq.After = &ReleasePosition{At: r.ExecuteAt, ID: r.ID}
	}
	rows, err := e.store.ReleasesPage(ctx, pq)
	if err != nil {
		return ReleasePage{}, err
	}
	page := ReleasePage{Releases: rows}
	if len(rows) > limit {
		page.Releases = rows[:limit]
		page.NextCursor = rows[limit-1].ID
	}
	page.Abilities, err = e.ReleaseAbilities(ctx, u, q.SiteID, page.Releases)
	return page, err
}
