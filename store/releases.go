package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// CreateRelease saves newVersions, then inserts r and its items, in one
// transaction; every node must still be at its pinned revision.
func (s *Store) CreateRelease(ctx context.Context, n releases.NewRelease) error {
	r, executeAt, pinnedRevs, newVersions, a := n.Release, n.ExecuteAt, n.PinnedRevs, n.NewVersions, n.Audit
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := checkOpenCaps(ctx, tx, r.SiteID, n.Caps); err != nil {
			return err
		}
		if err := pinNodes(ctx, tx, pinnedRevs, newVersions, n.Overlap, r.CreatedBy, r.CreatedAt); err != nil {
			return err
		}
		var at, tz, local, kind any
		if r.When != nil {
			kind, tz, local = r.When.Kind, nullIfEmpty(r.When.TimeZone), nullIfEmpty(r.When.LocalTime)
		}
		if executeAt != nil {
			at = instant(*executeAt)
		}
		approval, err := jsonText(optional(r.Approval))
		if err != nil {
			return err
		}
		createdBy, err := jsonText(r.CreatedBy)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO releases (id, site_id, title, state, hash, when_kind, execute_at, time_zone,
			local_time, approval, created_by, rev, created_at, updated_at) VALUES (?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.SiteID, r.Title, string(r.State), r.Hash, kind, at, tz, local, approval, createdBy, r.Rev,
			instant(r.CreatedAt), instant(r.UpdatedAt))
		if err != nil {
			return fmt.Errorf("store: insert release: %w", err)
		}
		if err := insertItems(ctx, tx, r.ID, r.SiteID, r.Items, r.State.Holds()); err != nil {
			return err
		}
		if q := n.Request; q != nil {
			if err := insertRequest(ctx, tx, q); err != nil {
				return err
			}
		}
		return audit(ctx, tx, a)
	})
}

// pinNodes saves newVersions in order, each on top of the one before it
// (n.Rev - 1: a node's first new version sits on its pinned rev), then
// checks that every pinned node is at its rev (or its last new version's);
// ErrConflict otherwise. With overlap a node another release holds may be
// pinned as it is (D15); without it a held node is refused. saveNode
// refuses a new version of a held node either way.
func pinNodes(ctx context.Context, tx *sql.Tx, pinnedRevs map[string]int64, newVersions []content.Node, overlap bool, by release.Actor, now time.Time) error {
	for _, n := range newVersions {
		if err := saveNode(ctx, tx, n, n.Rev-1, by, now); err != nil {
			return err
		}
	}
	for id, rev := range pinnedRevs {
		if rev == 0 {
			continue
		}
		want := rev
		for _, n := range newVersions {
			if n.ID == id {
				want = n.Rev
			}
		}
		var ok int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM nodes WHERE id = ? AND rev = ?
			AND (? = 1 OR NOT EXISTS (SELECT 1 FROM release_items WHERE node_id = nodes.id AND held = 1))`, id, want, overlap).Scan(&ok)
		if err != nil {
			return fmt.Errorf("store: pin %s: %w", id, err)
		}
		if ok != 1 {
			return engine.ErrConflict
		}
	}
	return nil
}

// insertItems writes a release's items.
func insertItems(ctx context.Context, tx *sql.Tx, releaseID, siteID string, items []release.Item, held bool) error {
	for _, it := range items {
		deps, _ := json.Marshal(append([]string{}, it.Deps...))
		var trev, thash, brev, bhash any
		if it.Target != nil {
			trev, thash = it.Target.Rev, it.Target.Hash
		}
		if it.Base != nil {
			brev, bhash = it.Base.Rev, it.Base.Hash
		}
		var restore any
		if it.RestoreRev > 0 {
			restore = it.RestoreRev
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO release_items (release_id, site_id, node_id, op, node_kind,
			target_rev, target_hash, base_rev, base_hash, deps, restore_rev, added_because, held)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?)`,
			releaseID, siteID, it.NodeID, string(it.Op), string(it.NodeKind), trev, thash, brev, bhash, string(deps), restore,
			it.AddedBecause, held)
		if err != nil {
			return fmt.Errorf("store: insert release item: %w", err)
		}
	}
	return nil
}

// replaceItems gives a release new items (releases.ItemsUpdate): its own holds
// are let go first, so its nodes can take new versions and be pinned again.
func replaceItems(ctx context.Context, tx *sql.Tx, c releases.Change) error {
	u := c.Items
	var siteID string
	if err := tx.QueryRowContext(ctx, `SELECT site_id FROM releases WHERE id = ? AND rev = ?`, c.ID, c.Rev).Scan(&siteID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return engine.ErrConflict
		}
		return fmt.Errorf("store: replace items: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM release_items WHERE release_id = ?`, c.ID); err != nil {
		return fmt.Errorf("store: replace items: %w", err)
	}
	if err := pinNodes(ctx, tx, u.PinnedRevs, u.NewVersions, u.Overlap, c.Audit.Actor, c.Audit.At); err != nil {
		return err
	}
	if err := insertItems(ctx, tx, c.ID, siteID, u.Items, c.To.Holds()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE releases SET hash = ? WHERE id = ?`, u.Hash, c.ID); err != nil {
		return fmt.Errorf("store: release hash: %w", err)
	}
	return nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// optional turns a nil pointer into an untyped nil, so it is stored as NULL.
func optional[T any](p *T) any {
	if p == nil {
		return nil
	}
	return p
}

// releaseColumns reads a release with its items in one statement: the items
// come as a JSON array from a correlated subquery.
const releaseColumns = `id, site_id, COALESCE(title, ''), state, hash, when_kind, execute_at, time_zone, local_time,
	approval, outcome, lease_token, lease_until, created_by, rev, created_at, updated_at,
	(SELECT json_group_array(json_object('node', node_id, 'op', op, 'kind', node_kind, 'trev', target_rev,
		'thash', target_hash, 'brev', base_rev, 'bhash', base_hash, 'deps', json(deps), 'restore', restore_rev,
		'because', added_because,
		'gone', CASE WHEN EXISTS (SELECT 1 FROM nodes n WHERE n.id = node_id AND n.deleted_at IS NULL) THEN 0 ELSE 1 END))
	 FROM (SELECT * FROM release_items WHERE release_id = releases.id ORDER BY node_id) items)`

// itemRow is one item as releaseColumns encodes it.
type itemRow struct {
	Node    string   `json:"node"`
	Op      string   `json:"op"`
	Kind    string   `json:"kind"`
	TRev    *int64   `json:"trev"`
	THash   *string  `json:"thash"`
	BRev    *int64   `json:"brev"`
	BHash   *string  `json:"bhash"`
	Deps    []string `json:"deps"`
	Restore *int64   `json:"restore"`
	Gone    int      `json:"gone"` // 1: the node was deleted
	// Because names the item whose target needs this one (§6.1 step 2).
	Because *string `json:"because"`
}

func (x itemRow) item() release.Item {
	it := release.Item{Op: release.Op(x.Op), NodeID: x.Node, NodeKind: release.NodeKind(x.Kind), Deps: x.Deps}
	if x.TRev != nil && x.THash != nil {
		it.Target = &release.Version{Rev: *x.TRev, Hash: *x.THash}
	}
	if x.BRev != nil && x.BHash != nil {
		it.Base = &release.Version{Rev: *x.BRev, Hash: *x.BHash}
	}
	if x.Restore != nil {
		it.RestoreRev = *x.Restore
	}
	if x.Because != nil {
		it.AddedBecause = *x.Because
	}
	return it
}

func scanRelease(row interface{ Scan(...any) error }) (releases.ReleaseRow, error) {
	var r releases.ReleaseRow
	var state, createdBy, created, updated, items string
	var kind, at, tz, local, approval, outcome, token, until sql.NullString
	err := row.Scan(&r.ID, &r.SiteID, &r.Title, &state, &r.Hash, &kind, &at, &tz, &local,
		&approval, &outcome, &token, &until, &createdBy, &r.Rev, &created, &updated, &items)
	if err != nil {
		return r, notFound(err)
	}
	var rows []itemRow
	if err := json.Unmarshal([]byte(items), &rows); err != nil {
		return r, fmt.Errorf("store: release %s items: %w", r.ID, err)
	}
	for _, x := range rows {
		r.Items = append(r.Items, x.item())
		if x.Gone == 1 {
			r.GoneNodes = append(r.GoneNodes, x.Node)
		}
	}
	r.ClosureAdded = release.Closure(r.Items)
	r.SchemaVersion, r.State, r.LeaseToken = 1, release.State(state), token.String
	if r.ExecuteAt, err = parseInstant(at); err != nil {
		return r, err
	}
	if r.LeaseUntil, err = parseInstant(until); err != nil {
		return r, err
	}
	if kind.Valid {
		r.When = &release.When{Kind: kind.String, TimeZone: tz.String, LocalTime: local.String}
		if r.ExecuteAt != nil {
			r.When.At = *r.ExecuteAt
		}
	}
	if approval.Valid {
		r.Approval = &release.Approval{}
		if err := fromJSON(approval, r.Approval); err != nil {
			return r, err
		}
	}
	if outcome.Valid {
		r.Outcome = &release.Outcome{}
		if err := fromJSON(outcome, r.Outcome); err != nil {
			return r, err
		}
	}
	if err := json.Unmarshal([]byte(createdBy), &r.CreatedBy); err != nil {
		return r, fmt.Errorf("store: release %s creator: %w", r.ID, err)
	}
	if r.CreatedAt, err = mustInstant(created); err != nil {
		return r, err
	}
	r.UpdatedAt, err = mustInstant(updated)
	return r, err
}

// Release returns one release of a site with its items.
func (s *Store) Release(ctx context.Context, siteID, id string) (releases.ReleaseRow, error) {
	return scanRelease(s.read.QueryRowContext(ctx, `SELECT `+releaseColumns+` FROM releases WHERE site_id = ? AND id = ?`, siteID, id))
}

func (s *Store) queryReleases(ctx context.Context, where string, args ...any) ([]releases.ReleaseRow, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+releaseColumns+` FROM releases WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: releases: %w", err)
	}
	defer rows.Close()
	var out []releases.ReleaseRow
	for rows.Next() {
		r, err := scanRelease(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Releases lists a site's releases timed in [from, to), and those without a
// time that are not finished, ordered by time then id.
func (s *Store) Releases(ctx context.Context, siteID string, from, to time.Time) ([]releases.ReleaseRow, error) {
	return s.queryReleases(ctx, `site_id = ? AND ((execute_at >= ? AND execute_at < ?)
		OR (execute_at IS NULL AND state IN ('draft', 'awaiting_approval'))) ORDER BY execute_at NULLS FIRST, id`,
		siteID, instant(from), instant(to))
}

// ReleasesPage is one page of Releases' list, by keyset: the releases
// after q.After in (execute_at, id) order, those without a time first (as
// SQLite orders NULLs), at most q.Limit, in one statement.
func (s *Store) ReleasesPage(ctx context.Context, q releases.ReleasePageQuery) ([]releases.ReleaseRow, error) {
	where := `site_id = ? AND ((execute_at >= ? AND execute_at < ?)
		OR (execute_at IS NULL AND state IN ('draft', 'awaiting_approval')))`
	args := []any{q.SiteID, instant(q.From), instant(q.To)}
	if q.State != "" {
		where += ` AND state = ?`
		args = append(args, string(q.State))
	}
	switch a := q.After; {
	case a == nil:
	case a.At == nil:
		where += ` AND (execute_at IS NOT NULL OR id > ?)`
		args = append(args, a.ID)
	default:
		where += ` AND execute_at IS NOT NULL AND (execute_at > ? OR (execute_at = ? AND id > ?))`
		args = append(args, instant(*a.At), instant(*a.At), a.ID)
	}
	return s.queryReleases(ctx, where+` ORDER BY execute_at NULLS FIRST, id LIMIT ?`, append(args, q.Limit)...)
}

// ReleasesByID reads the given releases of a site in one statement.
func (s *Store) ReleasesByID(ctx context.Context, siteID string, ids []string) ([]releases.ReleaseRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	// The unary + keeps the planner on the primary key, off the site's range.
	return s.queryReleases(ctx, `id IN (SELECT value FROM json_each(?)) AND +site_id = ? ORDER BY execute_at, id`,
		string(list), siteID)
}

// DraftReleases lists a site's drafts, the most recently changed first.
func (s *Store) DraftReleases(ctx context.Context, siteID string, limit int) ([]releases.ReleaseRow, error) {
	return s.queryReleases(ctx, `site_id = ? AND state = 'draft' ORDER BY updated_at DESC, id LIMIT ?`, siteID, limit)
}

// ChangeRelease moves a release that is still at c.Rev and in one of c.From
// to c.To, in one transaction: holds follow the new state, a draft loses its
// approval, promoted drafts are put back when the release lets go of them
// without publishing, and c.Run, if any, is recorded.
func (s *Store) ChangeRelease(ctx context.Context, c releases.Change) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return changeRelease(ctx, tx, c) })
}

func changeRelease(ctx context.Context, tx *sql.Tx, c releases.Change) error {
	outcome, err := jsonText(optional(c.Outcome))
	if err != nil {
		return err
	}
	approval, err := jsonText(optional(c.Approval))
	if err != nil {
		return err
	}
	if c.Items != nil {
		if err := replaceItems(ctx, tx, c); err != nil {
			return err
		}
	}
	if c.Title != nil {
		if _, err := tx.ExecContext(ctx, `UPDATE releases SET title = NULLIF(?, '') WHERE id = ? AND rev = ?`, *c.Title, c.ID, c.Rev); err != nil {
			return fmt.Errorf("store: rename release: %w", err)
		}
	}
	// What becomes of the approval and the outcome is the engine's rule
	// (release.EffectOf, releases.Change.Settled); the store writes what it is
	// told, and refuses an item change that neither clears the approval nor
	// carries a new one, so no path can publish new items on an old
	// approval (S6).
	if c.Items != nil && c.Approval == nil && !c.ClearApproval {
		return errors.New("store: an item change must clear the approval or carry a new one (S6)")
	}
	if c.Approval != nil && c.ClearApproval {
		return errors.New("store: a change both clears and sets the approval")
	}
	if c.Outcome != nil && c.ClearOutcome {
		return errors.New("store: a change both clears and sets the outcome")
	}
	args := []any{string(c.To), c.Outcome != nil || c.ClearOutcome, outcome, c.Approval != nil || c.ClearApproval, approval,
		instant(c.Audit.At), c.ID, c.Rev}
	for _, f := range c.From {
		args = append(args, string(f))
	}
	if c.ExecuteAt != nil || c.WhenKind != "" {
		// A new time is entered in the site's zone as it is now (a draft
		// scheduled for the first time, a move, a re-pin with a new time), or
		// in the zone the caller named, so the release takes that zone with
		// it: the never-early recompute (§9.1) reads the wall time in the
		// zone it was entered in. An "on-approval" release waiting for its
		// approval has no time at all.
		var at any
		if c.ExecuteAt != nil {
			at = instant(*c.ExecuteAt)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE releases SET execute_at = ?, local_time = NULLIF(?, ''),
			time_zone = COALESCE(NULLIF(?, ''), (SELECT s.time_zone FROM sites s WHERE s.id = releases.site_id)),
			when_kind = COALESCE(NULLIF(?, ''), when_kind, 'at') WHERE id = ? AND rev = ?`,
			at, c.LocalTime, c.TimeZone, c.WhenKind, c.ID, c.Rev); err != nil {
			return fmt.Errorf("store: move release: %w", err)
		}
	}
	// Each of outcome and approval is written (a new value, or NULL when
	// cleared) or kept.
	ok, err := one(tx.ExecContext(ctx, `UPDATE releases SET state = ?,
		outcome = CASE WHEN ? = 1 THEN ? ELSE outcome END,
		approval = CASE WHEN ? = 1 THEN ? ELSE approval END,
		lease_token = NULL, lease_until = NULL, rev = rev + 1, updated_at = ?
		WHERE id = ? AND rev = ? AND state IN (?`+strings.Repeat(",?", len(c.From)-1)+`)`, args...))
	if err != nil {
		return fmt.Errorf("store: change release: %w", err)
	}
	if !ok {
		return engine.ErrConflict
	}
	if _, err := tx.ExecContext(ctx, `UPDATE release_items SET held = ? WHERE release_id = ?`, c.To.Holds(), c.ID); err != nil {
		return fmt.Errorf("store: release holds: %w", err)
	}
	if !c.To.Holds() {
		if err := restoreDrafts(ctx, tx, c.ID, c.Audit.Actor, c.Audit.At); err != nil {
			return err
		}
	}
	if c.Repromote {
		if err := repromote(ctx, tx, c.ID, c.Audit.Actor, c.Audit.At); err != nil {
			return err
		}
	}
	if c.CloseRequest != release.RequestKept {
		if _, err := tx.ExecContext(ctx, `UPDATE approvals SET status = ?, decided_at = ?
			WHERE release_id = ? AND status = 'waiting'`, string(c.CloseRequest), instant(c.Audit.At), c.ID); err != nil {
			return fmt.Errorf("store: close request: %w", err)
		}
	}
	if c.Request != nil {
		if err := insertRequest(ctx, tx, c.Request); err != nil {
			return err
		}
	}
	if r := c.Run; r != nil {
		now := instant(c.Audit.At)
		_, err := tx.ExecContext(ctx, `INSERT INTO schedule_runs (id, site_id, subject_kind, subject_id, occurrence_at, state,
			trigger, attempt, ended_at, lateness_s, rev, created_at, updated_at)
			VALUES (?, ?, 'release', ?, ?, ?, ?, 1, ?, ?, 1, ?, ?)
			ON CONFLICT (id) DO UPDATE SET state = excluded.state, ended_at = excluded.ended_at, lateness_s = excluded.lateness_s,
			  lease_token = NULL, rev = schedule_runs.rev + 1, updated_at = excluded.updated_at`,
			r.ID, r.SiteID, r.SubjectID, instant(r.OccurrenceAt), r.State, r.Trigger, now, r.Lateness, now, now)
		if err != nil {
			return fmt.Errorf("store: record run: %w", err)
		}
	}
	return audit(ctx, tx, c.Audit)
}

// Reschedule moves a scheduled or waiting release to at.
func (s *Store) Reschedule(ctx context.Context, id string, rev int64, at time.Time, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE releases SET execute_at = ?, rev = rev + 1, updated_at = ?
			WHERE id = ? AND rev = ? AND state IN ('scheduled', 'awaiting_approval')`, instant(at), instant(a.At), id, rev))
		if err != nil {
			return fmt.Errorf("store: reschedule: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		return audit(ctx, tx, a)
	})
}

// restoreDrafts undoes what scheduling did to drafts when a release lets go
// of its nodes without publishing them: each promoted node (restore_rev) that
// is still at its pinned version gets the draft version back, copied as its
// next version. A node edited since keeps the person's newer version.
// Otherwise the next ordinary publish would put the promoted copy live.
func restoreDrafts(ctx context.Context, tx *sql.Tx, releaseID string, by release.Actor, now time.Time) error {
	rows, err := tx.QueryContext(ctx, `UPDATE nodes SET rev = rev + 1, updated_at = ?,
		  body = (SELECT v.body FROM node_versions v WHERE v.node_id = nodes.id AND v.rev = i.restore_rev),
		  hash = (SELECT v.hash FROM node_versions v WHERE v.node_id = nodes.id AND v.rev = i.restore_rev)
		FROM release_items i
		WHERE i.release_id = ? AND i.node_id = nodes.id AND i.restore_rev IS NOT NULL
		  AND nodes.rev = i.target_rev AND nodes.hash = i.target_hash
		  AND NOT EXISTS (SELECT 1 FROM release_items h WHERE h.node_id = nodes.id AND h.held = 1)
		RETURNING nodes.id`, instant(now), releaseID)
	if err != nil {
		return fmt.Errorf("store: restore drafts: %w", err)
	}
	restored := 0
	for rows.Next() {
		restored++
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("store: restore drafts: %w", err)
	}
	if restored == 0 {
		return nil // the usual case costs one statement
	}
	// Each restored node is at a rev no version has yet: record it.
	_, err = tx.ExecContext(ctx, `INSERT INTO node_versions (node_id, rev, hash, body, saved_by, saved_at)
		SELECT n.id, n.rev, n.hash, n.body, ?, ? FROM nodes n JOIN release_items i ON i.node_id = n.id
		WHERE i.release_id = ? AND i.restore_rev IS NOT NULL
		  AND NOT EXISTS (SELECT 1 FROM node_versions v WHERE v.node_id = n.id AND v.rev = n.rev)`,
		by.ID, instant(now), releaseID)
	if err != nil {
		return fmt.Errorf("store: restore draft versions: %w", err)
	}
	return nil
}

// NodeVersion returns the body of one saved version of a node.
func (s *Store) NodeVersion(ctx context.Context, id string, rev int64) (content.Body, error) {
	var body string
	var b content.Body
	err := s.read.QueryRowContext(ctx, `SELECT body FROM node_versions WHERE node_id = ? AND rev = ?`, id, rev).Scan(&body)
	if err != nil {
		return b, notFound(err)
	}
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		return b, fmt.Errorf("store: version %s/%d: %w", id, rev, err)
	}
	return b, nil
}
