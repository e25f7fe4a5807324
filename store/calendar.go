package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"studio/engine/automations"
	"studio/engine/calendar"
	"studio/engine/model/release"
)

// The calendar reads a site's releases by time on releases_site_at (site,
// time, id), so rows come in (time, id) order without a sort and a page can
// continue after a row (keyset). The item summary ("<count> <op> <kind>":
// what a one-item release does, to what) and every column of calendarFull
// are correlated lookups on a primary key or an index: release_items' key,
// release_items_node and the other release for the overlap (§6.2, D15),
// approvals_one_waiting for the waiting request. (A join of the items with
// GROUP BY reads the same rows but costs twice as much in SQLite.) The
// summary reads release_items_summary alone. The creator and the approval
// are read when asked for (?1): counting a month of releases does without.
const calendarBrief = `r.id, r.state, r.execute_at,
	(SELECT CAST(count(*) AS TEXT) || ' ' || COALESCE(min(op), '-') || ' ' || COALESCE(min(node_kind), '-') FROM release_items
		WHERE release_id = r.id),
	CASE WHEN ?1 = 1 THEN r.created_by END, CASE WHEN ?1 = 1 THEN json_extract(r.approval, '$.kind') END,
	CASE WHEN ?1 = 1 THEN json_extract(r.approval, '$.by.id') END`

const calendarFull = `,
	COALESCE(NULLIF(r.title, ''), (SELECT json_extract(n.body, '$.title') FROM release_items t JOIN nodes n ON n.id = t.node_id
		WHERE t.release_id = r.id ORDER BY t.node_id LIMIT 1), ''),
	r.rev,
	r.state IN ` + openStates + ` AND EXISTS (SELECT 1 FROM release_items mine
		JOIN release_items o ON o.node_id = mine.node_id AND o.release_id <> mine.release_id
		JOIN releases other ON other.id = o.release_id AND other.state IN ` + openStates + `
		WHERE mine.release_id = r.id),
	CASE WHEN r.state = 'awaiting_approval' THEN
		(SELECT id FROM approvals WHERE release_id = r.id AND status = 'waiting') END`

// calendarReleasesSQL is the statement of a query; the optional conditions
// are spliced in, every value is a parameter.
func calendarReleasesSQL(q calendar.CalendarReleaseQuery) (string, []any, error) {
	cols := calendarBrief
	if !q.Brief {
		cols += calendarFull
	}
	// A position at or after From replaces it as the lower bound: the
	// planner then seeks to it on the index instead of scanning up to it.
	where := `r.site_id = ? AND r.execute_at >= ? AND r.execute_at < ?`
	actors := q.Actors || !q.Brief
	args := []any{actors, q.SiteID, instant(q.From), instant(q.To)}
	if q.AfterID != "" && !q.AfterAt.Before(q.From) {
		where = `r.site_id = ? AND (r.execute_at, r.id) > (?, ?) AND r.execute_at < ?`
		args = []any{actors, q.SiteID, instant(q.AfterAt), q.AfterID, instant(q.To)}
	}
	if q.IDs != nil {
		// A few releases by id: on the primary key (the unary + keeps
		// the planner off the site's range, which it would scan).
		ids, err := json.Marshal(q.IDs)
		if err != nil {
			return "", nil, fmt.Errorf("store: calendar ids: %w", err)
		}
		where = `r.id IN (SELECT value FROM json_each(?)) AND +r.site_id = ? AND r.execute_at >= ? AND r.execute_at < ?`
		args = []any{actors, string(ids), q.SiteID, instant(q.From), instant(q.To)}
	}
	if len(q.States) > 0 {
		states, err := json.Marshal(q.States)
		if err != nil {
			return "", nil, fmt.Errorf("store: calendar states: %w", err)
		}
		where += ` AND r.state IN (SELECT value FROM json_each(?))`
		args = append(args, string(states))
	} else {
		where += ` AND r.state NOT IN ('draft', 'canceled')`
	}
	query := `SELECT ` + cols + ` FROM releases r WHERE ` + where + ` ORDER BY r.execute_at, r.id`
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	return query, args, nil
}

// CalendarReleases lists a site's releases timed in [q.From, q.To), in
// (time, id) order, as the calendar shows them: one statement.
func (s *Store) CalendarReleases(ctx context.Context, q calendar.CalendarReleaseQuery) ([]calendar.CalendarRelease, error) {
	query, args, err := calendarReleasesSQL(q)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: calendar releases: %w", err)
	}
	defer rows.Close()
	out := make([]calendar.CalendarRelease, 0, max(q.Limit, len(q.IDs), 64))
	creators := map[string]release.Actor{} // a site has few creators: each is decoded once
	for rows.Next() {
		var r calendar.CalendarRelease
		var state, at, summary string
		var by, approvalKind, approvedBy, request sql.NullString
		var overlaps bool
		dest := []any{&r.ID, &state, &at, &summary, &by, &approvalKind, &approvedBy}
		if !q.Brief {
			dest = append(dest, &r.Title, &r.Rev, &overlaps, &request)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("store: calendar releases: %w", err)
		}
		r.State = release.State(state)
		count, rest, _ := strings.Cut(summary, " ")
		op, kind, _ := strings.Cut(rest, " ")
		r.Items, _ = strconv.Atoi(count)
		r.Op, r.NodeKind = release.Op(op), release.NodeKind(kind)
		r.ApprovalKind, r.ApprovedBy = approvalKind.String, approvedBy.String
		r.Overlaps, r.RequestID = overlaps, request.String
		if r.At, err = storedInstant(at); err != nil {
			return nil, err
		}
		if by.Valid {
			actor, ok := creators[by.String]
			if !ok {
				if err := json.Unmarshal([]byte(by.String), &actor); err != nil {
					return nil, fmt.Errorf("store: release %s creator: %w", r.ID, err)
				}
				creators[by.String] = actor
			}
			r.By = actor
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// calendarGates reads the gates of a site's pages and entries in a range of
// whole seconds, one row per gate, on nodes_gate_from and nodes_gate_until
// (the expressions must stay exactly those of the indexes). The saver of
// the working copy comes from its version row: a person when the id is a
// user's, the system otherwise (the scheduler re-promoting a draft).
const calendarGates = `SELECT n.id, n.kind, COALESCE(json_extract(n.body, '$.title'), ''), 'from',
		json_extract(n.body, '$.availability.from'), v.saved_by, u.name
	FROM nodes n JOIN node_versions v ON v.node_id = n.id AND v.rev = n.rev LEFT JOIN users u ON u.id = v.saved_by
	WHERE n.site_id = ?1 AND unixepoch(json_extract(n.body, '$.availability.from')) BETWEEN ?2 AND ?3
		AND n.deleted_at IS NULL AND n.kind IN ('page', 'contentEntry')
	UNION ALL
	SELECT n.id, n.kind, COALESCE(json_extract(n.body, '$.title'), ''), 'until',
		json_extract(n.body, '$.availability.until'), v.saved_by, u.name
	FROM nodes n JOIN node_versions v ON v.node_id = n.id AND v.rev = n.rev LEFT JOIN users u ON u.id = v.saved_by
	WHERE n.site_id = ?1 AND unixepoch(json_extract(n.body, '$.availability.until')) BETWEEN ?2 AND ?3
		AND n.deleted_at IS NULL AND n.kind IN ('page', 'contentEntry')`

// CalendarGates lists the gates of a site's pages and entries whose instant
// falls in [from, to): one statement. The index works in whole seconds, so
// the statement reads the seconds around the range and the exact bounds are
// applied to the parsed instants.
func (s *Store) CalendarGates(ctx context.Context, siteID string, from, to time.Time) ([]calendar.CalendarGate, error) {
	rows, err := s.read.QueryContext(ctx, calendarGates, siteID, from.Unix(), to.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: calendar gates: %w", err)
	}
	defer rows.Close()
	var out []calendar.CalendarGate
	for rows.Next() {
		var g calendar.CalendarGate
		var kind, at string
		var name sql.NullString
		if err := rows.Scan(&g.NodeID, &kind, &g.Title, &g.Edge, &at, &g.By.ID, &name); err != nil {
			return nil, fmt.Errorf("store: calendar gates: %w", err)
		}
		g.NodeKind = release.NodeKind(kind)
		if g.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			continue // not an instant: no gate (content.Body cannot write one)
		}
		if g.At.Before(from) || !g.At.Before(to) {
			continue
		}
		g.By.Kind, g.By.Name = "system", ""
		if name.Valid {
			g.By.Kind, g.By.Name = "person", name.String
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// storedInstant reads an instant in the storage format,
// "2006-01-02T15:04:05.000Z", without time.Parse's generality: the
// calendar reads a thousand of them a request. Anything else goes through
// mustInstant.
func storedInstant(s string) (time.Time, error) {
	if len(s) != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return mustInstant(s)
	}
	n := func(i, j int) int {
		v := 0
		for _, c := range []byte(s[i:j]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi, sec, ms := n(0, 4), n(5, 7), n(8, 10), n(11, 13), n(14, 16), n(17, 19), n(20, 23)
	if y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 || ms < 0 {
		return mustInstant(s)
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ms*int(time.Millisecond), time.UTC)
	if t.Day() != d {
		return mustInstant(s) // 31 April and the like: let the strict parser refuse it
	}
	return t, nil
}

// calendarRuns reads a range's automation runs on schedule_runs_site_at,
// and the skipped runs recorded in the range for occurrences before it on
// schedule_runs_skipped (0018).
const calendarRuns = `SELECT ` + runColumns + ` FROM schedule_runs r
	WHERE r.site_id = ?1 AND r.occurrence_at >= ?2 AND r.occurrence_at < ?3 AND r.subject_kind = 'automation'
	UNION ALL
	SELECT ` + runColumns + ` FROM schedule_runs r
	WHERE r.site_id = ?1 AND r.state = 'skipped' AND r.ended_at >= ?2 AND r.occurrence_at < ?2 AND r.subject_kind = 'automation'`

// CalendarRuns lists the automation runs behind a range's past
// occurrences: one statement.
func (s *Store) CalendarRuns(ctx context.Context, siteID string, from, to time.Time) ([]automations.Run, error) {
	rows, err := s.read.QueryContext(ctx, calendarRuns, siteID, instant(from), instant(to))
	if err != nil {
		return nil, fmt.Errorf("store: calendar runs: %w", err)
	}
	defer rows.Close()
	var out []automations.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("store: calendar runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
