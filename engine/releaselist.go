package engine

import (
	"context"
	"slices"

	"studio/engine/policy"
	"studio/engine/release"
)

// ReleaseListMax is the most releases one page of ReleaseList holds (§12
// list_releases: limit ≤ 50).
const ReleaseListMax = 50

// Refusals of ReleaseList.
const (
	// CodeBadCursor: the cursor is no release of the list (any more).
	CodeBadCursor = "bad_cursor"
	// CodeUnknownReleaseState: the state filter is no release state.
	CodeUnknownReleaseState = "unknown_release_state"
	// CodeBadReleaseLimit: the limit is not 1..ReleaseListMax.
	CodeBadReleaseLimit = "bad_release_limit"
)

// ReleaseListQuery selects a page of a site's releases (§12 list_releases).
type ReleaseListQuery struct {
	SiteID string
	// State keeps the releases in that state only ("" every state).
	State release.State
	// Cursor is the NextCursor of the page before.
	Cursor string
	// Limit is the most releases of the page: 1..ReleaseListMax, 0 the
	// most.
	Limit int
}

// ReleasePage is one page of releases and the cursor of the next.
type ReleasePage struct {
	Releases   []ReleaseRow
	NextCursor string
}

// ReleaseList pages through the releases GET …/releases lists by default
// (timed from now for 400 days, and every open one without a time), in
// the same order (time, then id), for u (§12 list_releases). An unknown
// state or a limit out of range is refused (Field names it); a cursor
// that no longer names a release of the list is CodeBadCursor.
func (e *Engine) ReleaseList(ctx context.Context, u User, q ReleaseListQuery) (ReleasePage, error) {
	if err := require(u, policy.SchedulesRead); err != nil {
		return ReleasePage{}, err
	}
	if q.State != "" && !slices.Contains(release.States, q.State) {
		return ReleasePage{}, refuse(CodeUnknownReleaseState, "state")
	}
	if q.Limit < 0 || q.Limit > ReleaseListMax {
		return ReleasePage{}, refuse(CodeBadReleaseLimit, "limit")
	}
	limit := q.Limit
	if limit == 0 {
		limit = ReleaseListMax
	}
	now := e.Now()
	rows, err := e.store.Releases(ctx, q.SiteID, now, now.AddDate(0, 0, 400))
	if err != nil {
		return ReleasePage{}, err
	}
	if q.State != "" {
		rows = slices.DeleteFunc(rows, func(r ReleaseRow) bool { return r.State != q.State })
	}
	if q.Cursor != "" {
		i := slices.IndexFunc(rows, func(r ReleaseRow) bool { return r.ID == q.Cursor })
		if i < 0 {
			return ReleasePage{}, &Error{Code: CodeBadCursor, Field: "cursor"}
		}
		rows = rows[i+1:]
	}
	page := ReleasePage{Releases: rows}
	if len(rows) > limit {
		page.Releases = rows[:limit]
		page.NextCursor = rows[limit-1].ID
	}
	return page, nil
}
