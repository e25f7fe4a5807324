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
	"studio/engine/release"
)

// CreateRelease saves newVersions, then inserts r and its items, in one
// transaction; every node must still be at its pinned revision.
func (s *Store) CreateRelease(ctx context.Context, r release.Release, executeAt *time.Time, pinnedRevs map[string]int64,
	newVersions []content.Node, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, n := range newVersions {
			if err := saveNode(ctx, tx, n, pinnedRevs[n.ID], r.CreatedBy, r.CreatedAt); err != nil {
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
				AND NOT EXISTS (SELECT 1 FROM release_items WHERE node_id = nodes.id AND held = 1)`, id, want).Scan(&ok)
			if err != nil {
				return fmt.Errorf("store: pin %s: %w", id, err)
			}
			if ok != 1 {
				return engine.ErrConflict
			}
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
		held := 0
		if r.State.Holds() {
			held = 1
		}
		for _, it := range r.Items {
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
				target_rev, target_hash, base_rev, base_hash, deps, restore_rev, held) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				r.ID, r.SiteID, it.NodeID, string(it.Op), string(it.NodeKind), trev, thash, brev, bhash, string(deps), restore, held)
			if err != nil {
				return fmt.Errorf("store: insert release item: %w", err)
			}
		}
		return audit(ctx, tx, a)
	})
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

const releaseColumns = `id, site_id, COALESCE(title, ''), state, hash, when_kind, execute_at, time_zone, local_time,
	approval, outcome, lease_token, lease_until, created_by, rev, created_at, updated_at`

func scanRelease(row interface{ Scan(...any) error }) (engine.ReleaseRow, error) {
	var r engine.ReleaseRow
	var state, createdBy, created, updated string
	var kind, at, tz, local, approval, outcome, token, until sql.NullString
	err := row.Scan(&r.ID, &r.SiteID, &r.Title, &state, &r.Hash, &kind, &at, &tz, &local,
		&approval, &outcome, &token, &until, &createdBy, &r.Rev, &created, &updated)
	if err != nil {
		return r, notFound(err)
	}
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
func (s *Store) Release(ctx context.Context, siteID, id string) (engine.ReleaseRow, error) {
	r, err := scanRelease(s.read.QueryRowContext(ctx, `SELECT `+releaseColumns+` FROM releases WHERE site_id = ? AND id = ?`, siteID, id))
	if err != nil {
		return r, err
	}
	rows := []engine.ReleaseRow{r}
	err = s.loadItems(ctx, rows)
	return rows[0], err
}

func (s *Store) queryReleases(ctx context.Context, where string, args ...any) ([]engine.ReleaseRow, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+releaseColumns+` FROM releases WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: releases: %w", err)
	}
	defer rows.Close()
	var out []engine.ReleaseRow
	for rows.Next() {
		r, err := scanRelease(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, s.loadItems(ctx, out)
}

// loadItems fills in the items of rs with one query.
func (s *Store) loadItems(ctx context.Context, rs []engine.ReleaseRow) error {
	if len(rs) == 0 {
		return nil
	}
	index := make(map[string]int, len(rs))
	args := make([]any, len(rs))
	for i, r := range rs {
		index[r.ID], args[i] = i, r.ID
	}
	rows, err := s.read.QueryContext(ctx, `SELECT release_id, node_id, op, node_kind, target_rev, target_hash, base_rev, base_hash, deps,
		COALESCE(restore_rev, 0) FROM release_items WHERE release_id IN (?`+strings.Repeat(",?", len(rs)-1)+`) ORDER BY release_id, node_id`, args...)
	if err != nil {
		return fmt.Errorf("store: release items: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rid, op, kind, deps string
		var it release.Item
		var trev, brev sql.NullInt64
		var thash, bhash sql.NullString
		if err := rows.Scan(&rid, &it.NodeID, &op, &kind, &trev, &thash, &brev, &bhash, &deps, &it.RestoreRev); err != nil {
			return err
		}
		it.Op, it.NodeKind = release.Op(op), release.NodeKind(kind)
		if trev.Valid {
			it.Target = &release.Version{Rev: trev.Int64, Hash: thash.String}
		}
		if brev.Valid {
			it.Base = &release.Version{Rev: brev.Int64, Hash: bhash.String}
		}
		if err := json.Unmarshal([]byte(deps), &it.Deps); err != nil {
			return fmt.Errorf("store: release item deps: %w", err)
		}
		r := &rs[index[rid]]
		r.Items = append(r.Items, it)
	}
	return rows.Err()
}

// Releases lists a site's releases timed in [from, to), and those without a
// time that are not finished, ordered by time then id.
func (s *Store) Releases(ctx context.Context, siteID string, from, to time.Time) ([]engine.ReleaseRow, error) {
	return s.queryReleases(ctx, `site_id = ? AND ((execute_at >= ? AND execute_at < ?)
		OR (execute_at IS NULL AND state IN ('draft', 'awaiting_approval'))) ORDER BY execute_at, id`,
		siteID, instant(from), instant(to))
}

// SetReleaseState moves release id from one of the states in from, at rev,
// to state to; holds follow the new state, and a draft loses its approval.
func (s *Store) SetReleaseState(ctx context.Context, id string, rev int64, from []release.State, to release.State,
	o *release.Outcome, restores []content.Node, a engine.AuditEntry) error {
	outcome, err := jsonText(optional(o))
	if err != nil {
		return err
	}
	args := []any{string(to), outcome, string(to), instant(a.At), id, rev}
	for _, f := range from {
		args = append(args, string(f))
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE releases SET state = ?, outcome = COALESCE(?, outcome),
			approval = CASE WHEN ? = 'draft' THEN NULL ELSE approval END, rev = rev + 1, updated_at = ?
			WHERE id = ? AND rev = ? AND state IN (?`+strings.Repeat(",?", len(from)-1)+`)`, args...))
		if err != nil {
			return fmt.Errorf("store: release state: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		if _, err := tx.ExecContext(ctx, `UPDATE release_items SET held = ? WHERE release_id = ?`, to.Holds(), id); err != nil {
			return fmt.Errorf("store: release holds: %w", err)
		}
		if err := restoreNodes(ctx, tx, restores, a.Actor, a.At); err != nil {
			return err
		}
		return audit(ctx, tx, a)
	})
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

// restoreNodes saves each restore as its node's next version, but only where
// the node is still at the version just before it; a node that moved on
// since keeps what it has.
func restoreNodes(ctx context.Context, tx *sql.Tx, restores []content.Node, by release.Actor, now time.Time) error {
	for _, n := range restores {
		err := saveNode(ctx, tx, n, n.Rev-1, by, now)
		if err != nil && !errors.Is(err, engine.ErrConflict) {
			return fmt.Errorf("store: restore %s: %w", n.ID, err)
		}
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
