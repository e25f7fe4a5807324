package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"studio/engine/model/release"
	"studio/engine/releases"
)

// openStates are the states of a release that is not finished (§5.2).
const openStates = `('draft', 'awaiting_approval', 'scheduled', 'running')`

// OpenReleases counts a site's releases that are not finished, for the
// limit of 200 per site (§6.1 step 7). One statement, on releases_site.
func (s *Store) OpenReleases(ctx context.Context, siteID string) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM releases WHERE site_id = ? AND state IN `+openStates, siteID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: open releases: %w", err)
	}
	return n, nil
}

// checkOpenCaps counts the site's open releases, and those of the caps'
// creator, inside the inserting transaction: the write lock is held from
// BEGIN (_txlock=immediate), so no other insert can pass a cap between the
// count and the insert. One statement, on releases_site.
func checkOpenCaps(ctx context.Context, tx *sql.Tx, siteID string, c releases.OpenCaps) error {
	if c.Site <= 0 && c.Creator <= 0 {
		return nil
	}
	var site, mine int
	err := tx.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE json_extract(created_by, '$.id') = ?)
		FROM releases WHERE site_id = ? AND state IN `+openStates, c.CreatorID, siteID).Scan(&site, &mine)
	if err != nil {
		return fmt.Errorf("store: open releases: %w", err)
	}
	switch {
	case c.Site > 0 && site >= c.Site:
		return releases.ErrSiteCap
	case c.Creator > 0 && mine >= c.Creator:
		return releases.ErrCreatorCap
	}
	return nil
}

// ReleaseOverlaps lists the site's other non-terminal releases that carry one
// of releaseID's nodes (§6.2 Overlaps, D15), each with the shared node ids,
// in the order they run: by time, undated drafts last, then by id. One
// statement.
func (s *Store) ReleaseOverlaps(ctx context.Context, siteID, releaseID string) ([]releases.Overlap, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT r.id, COALESCE(r.title, ''), r.state, r.execute_at, group_concat(o.node_id, ' ')
		FROM release_items mine
		JOIN release_items o ON o.node_id = mine.node_id AND o.release_id <> mine.release_id
		JOIN releases r ON r.id = o.release_id
		WHERE mine.release_id = ? AND r.site_id = ? AND r.state IN `+openStates+`
		GROUP BY r.id
		ORDER BY r.execute_at IS NULL, r.execute_at, r.id`, releaseID, siteID)
	if err != nil {
		return nil, fmt.Errorf("store: overlaps: %w", err)
	}
	defer rows.Close()
	var out []releases.Overlap
	for rows.Next() {
		var o releases.Overlap
		var state, nodes string
		var at sql.NullString
		if err := rows.Scan(&o.ReleaseID, &o.Title, &state, &at, &nodes); err != nil {
			return nil, fmt.Errorf("store: overlaps: %w", err)
		}
		o.State = release.State(state)
		if o.At, err = parseInstant(at); err != nil {
			return nil, err
		}
		o.NodeIDs = strings.Fields(nodes)
		sort.Strings(o.NodeIDs)
		out = append(out, o)
	}
	return out, rows.Err()
}
