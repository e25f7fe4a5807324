package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

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
	rows, err := s.read.QueryContext(ctx, liveSitesQuery)
	if err != nil {
		return nil, fmt.Errorf("store: live sites: %w", err)
	}
	defer rows.Close()
	var out []public.LiveSite
	for rows.Next() {
		var x public.LiveSite
		var due [3]sql.NullString
		if err := rows.Scan(&x.ID, &x.Name, &x.TimeZone, &x.PublishedSnapshotID, &x.Rev, &x.Hash, &x.Lang, &x.PublicURL, &x.DefaultHost,
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

// generation is Generation's state.
type generation struct {
	mu      sync.Mutex
	value   int64     // what Generation answers
	writes  int64     // meter.writes when value was last checked
	version int64     // data_version then
	checked time.Time // when data_version was last asked
}

// OtherProcessesEvery is how often Generation asks SQLite whether another
// process committed (a `studio schedules run-due` from cron): asking takes
// SQLite's shared-memory locks, a system call on every public request
// otherwise. So another process's publish shows at most this much later
// than it committed, as if its release ran that much later (never
// earlier); this process's own commits show on the next request.
const OtherProcessesEvery = 100 * time.Millisecond

// Generation is a number that changes whenever a commit lands in the
// database: at once for this store's own commits (counted as they return),
// and within OtherProcessesEvery for another process's, through PRAGMA
// data_version on a connection kept for it alone (a connection does not
// see its own commits there, and this one never writes). The public site
// asks it on every request and reads the sites again only when it moved.
func (s *Store) Generation(ctx context.Context) (int64, error) {
	g := &s.gen
	g.mu.Lock()
	defer g.mu.Unlock()
	writes, now := s.meter.writes.Load(), time.Now()
	if writes == g.writes && !g.checked.IsZero() && now.Sub(g.checked) < OtherProcessesEvery {
		return g.value, nil
	}
	var v int64
	if err := s.watch.QueryRowContext(ctx, s.generationSQL).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: generation: %w", err)
	}
	if writes != g.writes || v != g.version || g.checked.IsZero() {
		g.value++
	}
	g.writes, g.version, g.checked = writes, v, now
	return g.value, nil
}
