package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/jobs"
	"studio/engine/model/automation"
	"studio/engine/model/release"
)

var _ jobs.Store = (*Store)(nil)

// liveJoin joins a snapshot's refs (j) to their versions (v).
var liveJoin = `FROM (` + snapshotRefs("?1", "") + `) j
		JOIN node_versions v ON v.node_id = j.id AND v.rev = j.rev`

// LiveIndex lists a snapshot's nodes without bodies: one statement. The
// gates are read as instants whatever offset a body wrote them with.
func (s *Store) LiveIndex(ctx context.Context, snapshotID string) ([]jobs.IndexNode, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT v.node_id, j.kind,
		COALESCE(json_extract(v.body, '$.slug'), ''), COALESCE(json_extract(v.body, '$.status'), '') = 'published',
		COALESCE(json_extract(v.body, '$.availability.from'), ''), COALESCE(json_extract(v.body, '$.availability.until'), '')
		`+liveJoin+` ORDER BY v.node_id`, snapshotID)
	if err != nil {
		return nil, fmt.Errorf("store: live index: %w", err)
	}
	defer rows.Close()
	var out []jobs.IndexNode
	for rows.Next() {
		var n jobs.IndexNode
		var kind, from, until string
		if err := rows.Scan(&n.ID, &kind, &n.Slug, &n.Published, &from, &until); err != nil {
			return nil, fmt.Errorf("store: live index: %w", err)
		}
		n.Kind = release.NodeKind(kind)
		if n.From, err = bodyInstant(from); err != nil {
			return nil, err
		}
		if n.Until, err = bodyInstant(until); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// bodyInstant parses a gate as a body's JSON holds it (RFC 3339).
func bodyInstant(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, fmt.Errorf("store: bad gate %q: %w", s, err)
	}
	return &t, nil
}

func kindsJSON(kinds []release.NodeKind) string {
	data, _ := json.Marshal(kinds)
	return string(data)
}

// LivePage lists a page of a snapshot's live versions by id: one statement.
func (s *Store) LivePage(ctx context.Context, snapshotID string, kinds []release.NodeKind, after string, limit int) ([]jobs.LiveNode, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT v.node_id, j.kind, v.rev, v.hash, v.body, v.saved_at
		`+liveJoin+` WHERE j.kind IN (SELECT value FROM json_each(?))
		AND j.id > ? ORDER BY v.node_id LIMIT ?`, snapshotID, kindsJSON(kinds), after, limit)
	if err != nil {
		return nil, fmt.Errorf("store: live page: %w", err)
	}
	defer rows.Close()
	var out []jobs.LiveNode
	for rows.Next() {
		var n jobs.LiveNode
		var kind, body, saved string
		if err := rows.Scan(&n.ID, &kind, &n.Rev, &n.Hash, &body, &saved); err != nil {
			return nil, fmt.Errorf("store: live page: %w", err)
		}
		n.Kind = release.NodeKind(kind)
		if err := json.Unmarshal([]byte(body), &n.Body); err != nil {
			return nil, fmt.Errorf("store: live node %s: %w", n.ID, err)
		}
		if n.SavedAt, err = mustInstant(saved); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// StaleEntries counts a snapshot's published entries whose live version
// was saved before before: one statement.
func (s *Store) StaleEntries(ctx context.Context, snapshotID string, before time.Time) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) `+liveJoin+` WHERE j.kind = 'contentEntry'
		AND json_extract(v.body, '$.status') = 'published' AND v.saved_at < ?`, snapshotID, instant(before)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: stale entries: %w", err)
	}
	return n, nil
}

// scanNodes reads working copies (id, kind, rev, hash, body, updated_at).
func scanNodes(rows *sql.Rows, siteID string) ([]content.Node, error) {
	defer rows.Close()
	var out []content.Node
	for rows.Next() {
		n := content.Node{SiteID: siteID}
		var kind, body, updated string
		if err := rows.Scan(&n.ID, &kind, &n.Rev, &n.Hash, &body, &updated); err != nil {
			return nil, fmt.Errorf("store: nodes: %w", err)
		}
		n.Kind = release.NodeKind(kind)
		if err := json.Unmarshal([]byte(body), &n.Body); err != nil {
			return nil, fmt.Errorf("store: node %s: %w", n.ID, err)
		}
		var err error
		if n.UpdatedAt, err = mustInstant(updated); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// DraftsPage lists a page of old drafts: one statement.
func (s *Store) DraftsPage(ctx context.Context, siteID string, before time.Time, after string, limit int) ([]content.Node, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, kind, rev, hash, body, updated_at FROM nodes
		WHERE site_id = ? AND kind IN ('page', 'contentEntry') AND deleted_at IS NULL
		AND json_extract(body, '$.status') = 'draft' AND updated_at < ? AND id > ? ORDER BY id LIMIT ?`,
		siteID, instant(before), after, limit)
	if err != nil {
		return nil, fmt.Errorf("store: drafts page: %w", err)
	}
	return scanNodes(rows, siteID)
}

// UnusedAssets lists a page of the assets nothing refers to: one
// statement. Referrers are the pages, entries and menus (never assets,
// whose bodies hold their files), working and live, by reference or by
// /media/<slug> in their text.
func (s *Store) UnusedAssets(ctx context.Context, siteID, snapshotID, after string, limit int) ([]content.Node, error) {
	rows, err := s.read.QueryContext(ctx, `WITH referrers(body) AS (
			SELECT body FROM nodes WHERE site_id = ?1 AND kind != 'asset' AND deleted_at IS NULL
			UNION ALL
			SELECT v.body FROM (`+snapshotRefs("?2", "")+`) j
			JOIN node_versions v ON v.node_id = j.id AND v.rev = j.rev
			WHERE j.kind != 'asset'
		), used(id) AS (
			SELECT r.value FROM referrers, json_each(referrers.body, '$.refs') r
		), texts(t) AS (
			SELECT COALESCE(json_extract(body, '$.body'), '') || ' ' || COALESCE(json_extract(body, '$.summary'), '') FROM referrers
		)
		SELECT a.id, a.kind, a.rev, a.hash, a.body, a.updated_at FROM nodes a
		WHERE a.site_id = ?1 AND a.kind = 'asset' AND a.deleted_at IS NULL AND a.id > ?3
		AND a.id NOT IN (SELECT id FROM used)
		AND NOT EXISTS (SELECT 1 FROM texts WHERE instr(t, '/media/' || json_extract(a.body, '$.slug')) > 0)
		ORDER BY a.id LIMIT ?4`, siteID, snapshotID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unused assets: %w", err)
	}
	return scanNodes(rows, siteID)
}

const findingColumns = `id, automation_id, key, site_id, job, code, node_id, node_kind, field, target, detail, hits,
	first_run, first_at, last_run, last_at, gone_run, gone_at, dismissed_detail, dismissed_at, dismissed_by`

func scanFindings(rows *sql.Rows) ([]jobs.Finding, error) {
	return scanFindingsWith(rows, func(dest []any) []any { return dest })
}

// scanFindingsWith scans findings; extra may put more destinations before
// the finding's own.
func scanFindingsWith(rows *sql.Rows, extra func([]any) []any) ([]jobs.Finding, error) {
	defer rows.Close()
	var out []jobs.Finding
	for rows.Next() {
		var f jobs.Finding
		var id int64
		var job, kind, firstAt, lastAt string
		var goneRun, goneAt, dDetail, dAt, dBy sql.NullString
		if err := rows.Scan(extra([]any{&id, &f.AutomationID, &f.Key, &f.SiteID, &job, &f.Code, &f.NodeID, &kind, &f.Field,
			&f.Target, &f.Detail, &f.Hits, &f.FirstRun, &firstAt, &f.LastRun, &lastAt, &goneRun, &goneAt,
			&dDetail, &dAt, &dBy})...); err != nil {
			return nil, fmt.Errorf("store: findings: %w", err)
		}
		f.Job, f.NodeKind = automation.Builtin(job), release.NodeKind(kind)
		var err error
		if f.FirstAt, err = mustInstant(firstAt); err != nil {
			return nil, err
		}
		if f.LastAt, err = mustInstant(lastAt); err != nil {
			return nil, err
		}
		f.GoneRun = goneRun.String
		if f.GoneAt, err = parseInstant(goneAt); err != nil {
			return nil, err
		}
		if dDetail.Valid {
			d := dDetail.String
			f.DismissedDetail = &d
		}
		if f.DismissedAt, err = parseInstant(dAt); err != nil {
			return nil, err
		}
		f.DismissedBy = dBy.String
		out = append(out, f)
	}
	return out, rows.Err()
}

func keysJSON(keys []string) string {
	data, _ := json.Marshal(keys)
	return string(data)
}

// Findings reads findings by key: one statement.
func (s *Store) Findings(ctx context.Context, automationID string, keys []string) ([]jobs.Finding, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+findingColumns+` FROM job_findings
		WHERE automation_id = ? AND key IN (SELECT value FROM json_each(?))`, automationID, keysJSON(keys))
	if err != nil {
		return nil, fmt.Errorf("store: findings: %w", err)
	}
	return scanFindings(rows)
}

// SaveFindings writes a step's findings in one transaction: one upsert of
// all of them, one insert of the run's rows, and with w.Gone one insert of
// the run's gone rows and one update.
func (s *Store) SaveFindings(ctx context.Context, w jobs.FindingsWrite) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if len(w.Findings) > 0 {
			var q strings.Builder
			q.WriteString(`INSERT INTO job_findings (automation_id, key, site_id, job, code, node_id, node_kind, field, target,
				detail, hits, first_run, first_at, last_run, last_at, dismissed_detail, dismissed_at, dismissed_by) VALUES `)
			args := make([]any, 0, 18*len(w.Findings))
			keys := make([]string, 0, len(w.Findings))
			for i, f := range w.Findings {
				if i > 0 {
					q.WriteString(", ")
				}
				q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''))")
				var dDetail any
				if f.DismissedDetail != nil {
					dDetail = *f.DismissedDetail
				}
				var dAt any
				if f.DismissedAt != nil {
					dAt = instant(*f.DismissedAt)
				}
				args = append(args, w.AutomationID, f.Key, f.SiteID, string(f.Job), f.Code, f.NodeID, string(f.NodeKind),
					f.Field, f.Target, f.Detail, f.Hits, f.FirstRun, instant(f.FirstAt), f.LastRun, instant(f.LastAt),
					dDetail, dAt, f.DismissedBy)
				keys = append(keys, f.Key)
			}
			q.WriteString(` ON CONFLICT (automation_id, key) DO UPDATE SET node_kind = excluded.node_kind,
				detail = excluded.detail, hits = excluded.hits, first_run = excluded.first_run, first_at = excluded.first_at,
				last_run = excluded.last_run, last_at = excluded.last_at, gone_run = NULL, gone_at = NULL,
				dismissed_detail = excluded.dismissed_detail, dismissed_at = excluded.dismissed_at,
				dismissed_by = excluded.dismissed_by`)
			if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
				return fmt.Errorf("store: save findings: %w", err)
			}
			// new or still there, as the finding's first run (just written) says
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_finding_runs (run_id, finding_id, seen)
				SELECT ?1, id, CASE WHEN first_run = ?1 THEN 'new' ELSE 'still' END FROM job_findings
				WHERE automation_id = ?2 AND key IN (SELECT value FROM json_each(?3))
				ON CONFLICT DO NOTHING`,
				w.RunID, w.AutomationID, keysJSON(keys)); err != nil {
				return fmt.Errorf("store: finding runs: %w", err)
			}
		}
		if w.Gone {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_finding_runs (run_id, finding_id, seen)
				SELECT ?, id, 'gone' FROM job_findings WHERE automation_id = ? AND gone_run IS NULL AND last_run != ?
				ON CONFLICT DO NOTHING`,
				w.RunID, w.AutomationID, w.RunID); err != nil {
				return fmt.Errorf("store: finding runs gone: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE job_findings SET gone_run = ?, gone_at = ?
				WHERE automation_id = ? AND gone_run IS NULL AND last_run != ?`,
				w.RunID, instant(w.At), w.AutomationID, w.RunID); err != nil {
				return fmt.Errorf("store: findings gone: %w", err)
			}
		}
		return nil
	})
}

// RunFindings lists what a run saw and found gone, as it saw them: one
// statement.
func (s *Store) RunFindings(ctx context.Context, automationID, runID string) ([]jobs.RunFinding, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT r.seen, `+prefixed("f.", findingColumns)+`
		FROM job_finding_runs r JOIN job_findings f ON f.id = r.finding_id
		WHERE r.run_id = ? AND f.automation_id = ? ORDER BY f.id`, runID, automationID)
	if err != nil {
		return nil, fmt.Errorf("store: run findings: %w", err)
	}
	var seen []string
	fs, err := scanFindingsWith(rows, func(dest []any) []any {
		seen = append(seen, "")
		return append([]any{&seen[len(seen)-1]}, dest...)
	})
	if err != nil {
		return nil, err
	}
	out := make([]jobs.RunFinding, len(fs))
	for i, f := range fs {
		out[i] = jobs.RunFinding{Finding: f, Seen: seen[i]}
	}
	return out, nil
}

// prefixed puts prefix before every column of a column list.
func prefixed(prefix, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = prefix + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// DismissFinding records "Not a problem": one statement.
func (s *Store) DismissFinding(ctx context.Context, automationID, key, detail, by string, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE job_findings SET dismissed_detail = ?, dismissed_at = ?, dismissed_by = ?
			WHERE automation_id = ? AND key = ?`, detail, instant(at), by, automationID, key))
		if err != nil {
			return fmt.Errorf("store: dismiss finding: %w", err)
		}
		if !ok {
			return engine.ErrNotFound
		}
		return nil
	})
}

// OpenFindings counts the open findings of a site per job: one statement.
// "Hidden" is jobs.Finding.Hidden's rule, said again in SQL so the count
// needs no rows: dismissed with the detail it still has, after it was
// first seen.
func (s *Store) OpenFindings(ctx context.Context, siteID string) (map[string]int, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT job, count(*) FROM job_findings WHERE site_id = ? AND gone_run IS NULL
		AND NOT (dismissed_detail IS NOT NULL AND dismissed_detail = detail AND dismissed_at >= first_at) GROUP BY job`, siteID)
	if err != nil {
		return nil, fmt.Errorf("store: open findings: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var job string
		var n int
		if err := rows.Scan(&job, &n); err != nil {
			return nil, fmt.Errorf("store: open findings: %w", err)
		}
		out[job] = n
	}
	return out, rows.Err()
}

// CountNotFound adds a batch of 404 counts in one transaction, a statement
// each: an existing path of the day counts up, a new one is inserted only
// while the day has fewer than limit paths.
func (s *Store) CountNotFound(ctx context.Context, hits []jobs.NotFoundHits, limit int) error {
	if len(hits) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, h := range hits {
			_, err := tx.ExecContext(ctx, `INSERT INTO site_not_found (site_id, day, path, hits)
				SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM site_not_found WHERE site_id = ?1 AND day = ?2 AND path = ?3)
				OR (SELECT count(*) FROM site_not_found WHERE site_id = ?1 AND day = ?2) < ?5
				ON CONFLICT (site_id, day, path) DO UPDATE SET hits = site_not_found.hits + excluded.hits`, h.SiteID, h.Day, h.Path, h.Hits, limit)
			if err != nil {
				return fmt.Errorf("store: count 404: %w", err)
			}
		}
		return nil
	})
}

// TopNotFound lists the most frequent 404 paths of some days: one statement.
func (s *Store) TopNotFound(ctx context.Context, siteID, from, to string, limit int) ([]jobs.NotFoundPath, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT path, sum(hits) AS n FROM site_not_found
		WHERE site_id = ? AND day BETWEEN ? AND ? GROUP BY path ORDER BY n DESC, path LIMIT ?`, siteID, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("store: top 404: %w", err)
	}
	defer rows.Close()
	var out []jobs.NotFoundPath
	for rows.Next() {
		var p jobs.NotFoundPath
		if err := rows.Scan(&p.Path, &p.Hits); err != nil {
			return nil, fmt.Errorf("store: top 404: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ReleaseOutcomes counts the releases of a site that ended in (from, to]:
// one statement. Late is published a minute or more after its time, as
// the scheduler's tally counts it.
func (s *Store) ReleaseOutcomes(ctx context.Context, siteID string, from, to time.Time) (jobs.ReleaseOutcomes, error) {
	var o jobs.ReleaseOutcomes
	err := s.read.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE r.state = 'published'),
		count(*) FILTER (WHERE r.state = 'published' AND EXISTS (SELECT 1 FROM schedule_runs sr
			WHERE sr.subject_id = r.id AND sr.lateness_s >= 60)),
		count(*) FILTER (WHERE r.state = 'missed'), count(*) FILTER (WHERE r.state = 'conflict'),
		count(*) FILTER (WHERE r.state IN ('failed', 'expired'))
		FROM releases r WHERE r.site_id = ? AND r.state IN ('published', 'missed', 'conflict', 'failed', 'expired')
		AND r.updated_at > ? AND r.updated_at <= ?`, siteID, instant(from), instant(to)).
		Scan(&o.Published, &o.Late, &o.Missed, &o.Conflicts, &o.Failed)
	if err != nil {
		return o, fmt.Errorf("store: release outcomes: %w", err)
	}
	return o, nil
}
