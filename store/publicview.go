package store

import (
	"context"
	"database/sql"
	"fmt"

	"studio/engine/public"
)

// liveSitesQuery is LiveSites' query: every site with the earliest time of
// its releases that can still change the live site. Each correlated
// subquery is one seek on releases_site (site, state, execute_at) and one
// row (ORDER BY … LIMIT 1: min() would read every row of the state), so the
// statement costs the same with ten releases or ten thousand; it is
// prepared once, as the public site asks it on every request.
const liveSitesQuery = `SELECT ` + siteColumns + `,
	(SELECT execute_at FROM releases r WHERE r.site_id = sites.id AND r.state = 'scheduled'
		AND r.execute_at IS NOT NULL ORDER BY r.execute_at LIMIT 1),
	(SELECT execute_at FROM releases r WHERE r.site_id = sites.id AND r.state = 'awaiting_approval'
		AND r.execute_at IS NOT NULL ORDER BY r.execute_at LIMIT 1),
	(SELECT execute_at FROM releases r WHERE r.site_id = sites.id AND r.state = 'running'
		AND r.execute_at IS NOT NULL ORDER BY r.execute_at LIMIT 1)
	FROM sites ORDER BY created_at, id`

// LiveSites lists every site, oldest first, each with the earliest instant
// one of its open releases is due: one statement.
func (s *Store) LiveSites(ctx context.Context) ([]public.LiveSite, error) {
	rows, err := s.liveSites.QueryContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: live sites: %w", err)
	}
	defer rows.Close()
	var out []public.LiveSite
	for rows.Next() {
		var x public.LiveSite
		var due [3]sql.NullString
		if err := rows.Scan(&x.ID, &x.Name, &x.TimeZone, &x.PublishedSnapshotID, &x.Rev, &x.Hash, &x.Lang,
			&due[0], &due[1], &due[2]); err != nil {
			return nil, fmt.Errorf("store: live sites: %w", err)
		}
		for _, d := range due {
			t, err := parseInstant(d)
			if err != nil {
				return nil, err
			}
			if t != nil && (x.NextRelease.IsZero() || t.Before(x.NextRelease)) {
				x.NextRelease = *t
			}
		}
		out = append(out, x)
	}
	return out, rows.Err()
}
