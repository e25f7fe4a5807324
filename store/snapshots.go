package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/model/release"
)

// Snapshots share structure (migration 0022): a snapshot row holds what it
// changed in its parent, and snapshot_refs one row per node version per
// stretch of the site's line of snapshots in which it was live. So a
// publish writes its items, the live head is one indexed range, and any
// older snapshot (Undo's target) is still read exactly.

// snapshotRefs selects (id, kind, rev, hash) of the snapshot whose id is
// the parameter snap: from its refs JSON when it predates migration 0022,
// else from the rows alive at its seq. With ids (a parameter holding a JSON
// array of node ids) only those nodes are read, each by key.
func snapshotRefs(snap, ids string) string {
	legacy := `SELECT json_extract(j.value, '$.id') AS id, json_extract(j.value, '$.kind') AS kind,
		CAST(json_extract(j.value, '$.rev') AS INTEGER) AS rev, json_extract(j.value, '$.hash') AS hash
	FROM snapshots s, json_each(s.refs) j WHERE s.id = ` + snap + ` AND s.refs IS NOT NULL`
	if ids != "" {
		return legacy + ` AND json_extract(j.value, '$.id') IN (SELECT value FROM json_each(` + ids + `))
	UNION ALL
	SELECT x.node_id, x.kind, x.rev, x.hash FROM snapshots s CROSS JOIN json_each(` + ids + `) w
	CROSS JOIN snapshot_refs x
	WHERE x.site_id = s.site_id AND x.node_id = w.value
		AND x.from_seq <= s.seq AND (x.until_seq IS NULL OR x.until_seq > s.seq)
		AND s.id = ` + snap + ` AND s.refs IS NULL`
	}
	// Two ranges: the rows still live (the head index: with no statistics
	// the planner would walk the site's whole history by primary key), and
	// those that ended after the snapshot.
	return legacy + `
	UNION ALL
	SELECT x.node_id, x.kind, x.rev, x.hash FROM snapshots s
	JOIN snapshot_refs x INDEXED BY snapshot_refs_head ON x.site_id = s.site_id AND x.until_seq IS NULL AND x.from_seq <= s.seq
	WHERE s.id = ` + snap + ` AND s.refs IS NULL
	UNION ALL
	SELECT x.node_id, x.kind, x.rev, x.hash FROM snapshots s
	JOIN snapshot_refs x ON x.site_id = s.site_id AND x.until_seq > s.seq AND x.from_seq <= s.seq
	WHERE s.id = ` + snap + ` AND s.refs IS NULL`
}

var (
	snapshotRefsQuery   = `SELECT id, kind, rev, hash FROM (` + snapshotRefs("?1", "") + `) refs ORDER BY id`
	snapshotRefsOfQuery = `SELECT id, kind, rev, hash FROM (` + snapshotRefs("?1", "?2") + `) refs ORDER BY id`
	liveNodesQuery      = liveNodesOf(snapshotRefs("?1", ""))
	liveNodesOfQuery    = liveNodesOf(snapshotRefs("?1", "?2"))
	headRefsQuery       = `SELECT node_id, kind, rev, hash FROM snapshot_refs INDEXED BY snapshot_refs_head WHERE site_id = ? AND until_seq IS NULL ORDER BY node_id`
)

func liveNodesOf(refs string) string {
	return `WITH r AS (` + refs + `)
	SELECT v.node_id, r.kind, v.rev, v.hash, v.body FROM r
	JOIN node_versions v ON v.node_id = r.id AND v.rev = r.rev ORDER BY v.node_id`
}

func scanRefs(rows *sql.Rows, err error) ([]release.Ref, error) {
	if err != nil {
		return nil, fmt.Errorf("store: snapshot refs: %w", err)
	}
	defer rows.Close()
	out := []release.Ref{}
	for rows.Next() {
		var r release.Ref
		var kind string
		if err := rows.Scan(&r.ID, &kind, &r.Rev, &r.Hash); err != nil {
			return nil, fmt.Errorf("store: snapshot refs: %w", err)
		}
		r.Kind = release.NodeKind(kind)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Snapshot returns one snapshot with all its refs.
func (s *Store) Snapshot(ctx context.Context, id string) (engine.Snapshot, error) {
	var x engine.Snapshot
	var parent, label, meta sql.NullString
	var actor, created string
	err := s.read.QueryRowContext(ctx, `SELECT id, site_id, parent_id, reason, label, actor, metadata, created_at
		FROM snapshots WHERE id = ?`, id).Scan(&x.ID, &x.SiteID, &parent, &x.Reason, &label, &actor, &meta, &created)
	if err != nil {
		return x, notFound(err)
	}
	x.ParentID, x.Label = parent.String, label.String
	if err := json.Unmarshal([]byte(actor), &x.Actor); err != nil {
		return x, fmt.Errorf("store: snapshot actor: %w", err)
	}
	if err := fromJSON(meta, &x.Metadata); err != nil {
		return x, err
	}
	if x.CreatedAt, err = mustInstant(created); err != nil {
		return x, err
	}
	x.Refs, err = scanRefs(s.read.QueryContext(ctx, snapshotRefsQuery, id))
	return x, err
}

// SnapshotRefs returns the refs of the snapshot's nodes among ids, sorted
// by id: one statement that reads those nodes by key, whatever the size
// of the site (what a release's run needs: its items and their
// dependencies, release.TestDiffProperties).
func (s *Store) SnapshotRefs(ctx context.Context, snapshotID string, ids []string) ([]release.Ref, error) {
	list, err := jsonText(ids)
	if err != nil {
		return nil, err
	}
	return scanRefs(s.read.QueryContext(ctx, snapshotRefsOfQuery, snapshotID, list))
}

// liveRefsQuery is LiveRefs' statement: the site's row, with the refs of
// its live snapshot among ?2 joined (NULL when there are none).
var liveRefsQuery = `SELECT s.*, r.* FROM (SELECT ` + siteColumns + ` FROM sites WHERE id = ?1) s
	LEFT JOIN (SELECT id AS ref_id, kind AS ref_kind, rev AS ref_rev, hash AS ref_hash
		FROM (` + snapshotRefs("(SELECT published_snapshot_id FROM sites WHERE id = ?1)", "?2") + `) refs) r ON 1 = 1
	ORDER BY r.ref_id`

// LiveRefs returns the site and the refs of its live snapshot's nodes
// among ids, sorted by id, in one statement (what a release's run reads:
// its items and their dependencies, on the site as it is).
func (s *Store) LiveRefs(ctx context.Context, siteID string, ids []string) (engine.Site, []release.Ref, error) {
	list, err := jsonText(ids)
	if err != nil {
		return engine.Site{}, nil, err
	}
	rows, err := s.read.QueryContext(ctx, liveRefsQuery, siteID, list)
	if err != nil {
		return engine.Site{}, nil, fmt.Errorf("store: live refs: %w", err)
	}
	defer rows.Close()
	var site engine.Site
	refs := []release.Ref{}
	found := false
	for rows.Next() {
		var id, kind, hash sql.NullString
		var rev sql.NullInt64
		if site, err = scanSite(withExtra{rows, []any{&id, &kind, &rev, &hash}}); err != nil {
			return engine.Site{}, nil, fmt.Errorf("store: live refs: %w", err)
		}
		found = true
		if id.Valid {
			refs = append(refs, release.Ref{ID: id.String, Kind: release.NodeKind(kind.String), Rev: rev.Int64, Hash: hash.String})
		}
	}
	if err := rows.Err(); err != nil {
		return engine.Site{}, nil, fmt.Errorf("store: live refs: %w", err)
	}
	if !found {
		return engine.Site{}, nil, engine.ErrNotFound
	}
	return site, refs, nil
}

// liveChangesQuery is LiveChanges' delta between the seqs ?2 < ?3 of site
// ?1: the rows alive at ?3 that began after ?2, with their bodies, and
// (body NULL) the nodes whose row alive at ?2 had ended by ?3.
const liveChangesQuery = `SELECT x.node_id, x.kind, x.rev, x.hash, v.body FROM snapshot_refs x INDEXED BY snapshot_refs_began
	JOIN node_versions v ON v.node_id = x.node_id AND v.rev = x.rev
	WHERE x.site_id = ?1 AND x.from_seq > ?2 AND x.from_seq <= ?3 AND (x.until_seq IS NULL OR x.until_seq > ?3)
	UNION ALL
	SELECT x.node_id, NULL, NULL, NULL, NULL FROM snapshot_refs x INDEXED BY snapshot_refs_ended
	WHERE x.site_id = ?1 AND x.until_seq > ?2 AND x.until_seq <= ?3 AND x.from_seq <= ?2`

// LiveChanges returns what snapshot to changed since snapshot from, an
// older one of the same site: the nodes it sets (with their bodies) and
// the ids whose version live in from it no longer has (a set node is among
// them too: drop, then set). It reads only the rows that changed in
// between. False when it cannot say (a snapshot older than migration 0022,
// from not before to, another site): it is read whole.
func (s *Store) LiveChanges(ctx context.Context, siteID, from, to string) ([]engine.LiveNode, []string, bool, error) {
	var a, b int64
	err := s.read.QueryRowContext(ctx, `SELECT f.seq, t.seq FROM snapshots f, snapshots t
		WHERE f.id = ? AND t.id = ? AND f.site_id = ?3 AND t.site_id = ?3 AND f.refs IS NULL AND t.refs IS NULL`,
		from, to, siteID).Scan(&a, &b)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && a >= b) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("store: live changes: %w", err)
	}
	rows, err := s.read.QueryContext(ctx, liveChangesQuery, siteID, a, b)
	if err != nil {
		return nil, nil, false, fmt.Errorf("store: live changes: %w", err)
	}
	defer rows.Close()
	var set []engine.LiveNode
	var gone []string
	for rows.Next() {
		var n engine.LiveNode
		var kind, hash, body sql.NullString
		var rev sql.NullInt64
		if err := rows.Scan(&n.ID, &kind, &rev, &hash, &body); err != nil {
			return nil, nil, false, fmt.Errorf("store: live changes: %w", err)
		}
		if !body.Valid {
			gone = append(gone, n.ID)
			continue
		}
		n.Kind, n.Rev, n.Hash = release.NodeKind(kind.String), rev.Int64, hash.String
		if err := json.Unmarshal([]byte(body.String), &n.Body); err != nil {
			return nil, nil, false, fmt.Errorf("store: live node %s: %w", n.ID, err)
		}
		set = append(set, n)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, false, fmt.Errorf("store: live changes: %w", err)
	}
	return set, gone, true, nil
}

// LiveNodes returns a snapshot's nodes (one node with nodeID) with the
// bodies of their versions, in id order.
func (s *Store) LiveNodes(ctx context.Context, snapshotID, nodeID string) ([]engine.LiveNode, error) {
	if nodeID != "" {
		return s.LiveNodesOf(ctx, snapshotID, []string{nodeID})
	}
	return s.liveNodes(ctx, liveNodesQuery, snapshotID)
}

// LiveNodesOf is LiveNodes for the nodes among ids only, read by key.
func (s *Store) LiveNodesOf(ctx context.Context, snapshotID string, ids []string) ([]engine.LiveNode, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := jsonText(ids)
	if err != nil {
		return nil, err
	}
	return s.liveNodes(ctx, liveNodesOfQuery, snapshotID, list)
}

func (s *Store) liveNodes(ctx context.Context, q string, args ...any) ([]engine.LiveNode, error) {
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: live nodes: %w", err)
	}
	defer rows.Close()
	var out []engine.LiveNode
	for rows.Next() {
		var n engine.LiveNode
		var kind, body string
		if err := rows.Scan(&n.ID, &kind, &n.Rev, &n.Hash, &body); err != nil {
			return nil, err
		}
		n.Kind = release.NodeKind(kind)
		if err := json.Unmarshal([]byte(body), &n.Body); err != nil {
			return nil, fmt.Errorf("store: live node %s: %w", n.ID, err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// changesOf is what snap changes in the site's live head: its Changes when
// the engine computed them (a release's run), else the diff of its full
// Refs against the head (a publish of the working copy, an Undo), read in
// tx before snap is inserted.
func changesOf(ctx context.Context, tx *sql.Tx, snap engine.Snapshot) (release.Changes, error) {
	if snap.Changes != nil {
		return *snap.Changes, nil
	}
	head, err := scanRefs(tx.QueryContext(ctx, headRefsQuery, snap.SiteID))
	if err != nil {
		return release.Changes{}, err
	}
	return release.Diff(head, snap.Refs), nil
}

// insertSnapshot inserts snap with its changes, if the site is at
// guardHash; the trigger of migration 0022 writes its rows in the same
// statement.
func insertSnapshot(ctx context.Context, tx *sql.Tx, snap engine.Snapshot, changes release.Changes, guardHash string) (bool, error) {
	actor, err := jsonText(snap.Actor)
	if err != nil {
		return false, err
	}
	delta, err := jsonText(changes)
	if err != nil {
		return false, err
	}
	meta, err := jsonText(snap.Metadata)
	if err != nil {
		return false, err
	}
	return one(tx.ExecContext(ctx, `INSERT INTO snapshots (id, site_id, seq, parent_id, reason, label, actor, changes, metadata, created_at)
		SELECT ?, ?, COALESCE((SELECT MAX(seq) FROM snapshots WHERE site_id = ?), 0) + 1, NULLIF(?, ''), ?, NULLIF(?, ''), ?, ?, ?, ?
		WHERE EXISTS (SELECT 1 FROM sites WHERE id = ? AND hash = ?)`,
		snap.ID, snap.SiteID, snap.SiteID, snap.ParentID, snap.Reason, snap.Label, actor, delta, meta, instant(snap.CreatedAt),
		snap.SiteID, guardHash))
}

// flipSite points the site at snapshotID if it is still at site's rev and hash.
func flipSite(ctx context.Context, tx *sql.Tx, site engine.Site, snapshotID, newHash string, now time.Time, extraGuard string, args ...any) (bool, error) {
	q := `UPDATE sites SET published_snapshot_id = ?, rev = rev + 1, hash = ?, updated_at = ?
		WHERE id = ? AND rev = ? AND hash = ?` + extraGuard
	return one(tx.ExecContext(ctx, q, append([]any{snapshotID, newHash, instant(now), site.ID, site.Rev, site.Hash}, args...)...))
}

// PublishSnapshot flips the site pointer to snap and inserts it, in one
// transaction guarded on the site's rev and hash.
func (s *Store) PublishSnapshot(ctx context.Context, site engine.Site, newHash string, snap engine.Snapshot, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := flipSite(ctx, tx, site, snap.ID, newHash, snap.CreatedAt, "")
		if err != nil {
			return fmt.Errorf("store: publish: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		changes, err := changesOf(ctx, tx, snap)
		if err != nil {
			return fmt.Errorf("store: publish: %w", err)
		}
		if snap.Reason == "publish" {
			if err := keepsHolds(ctx, tx, snap.SiteID, changes); err != nil {
				return err
			}
		}
		if _, err := insertSnapshot(ctx, tx, snap, changes, newHash); err != nil {
			return fmt.Errorf("store: publish snapshot: %w", err)
		}
		return audit(ctx, tx, a)
	})
}

// keepsHolds checks, inside an ordinary publish's transaction, what the
// engine read in several statements: every node a release holds keeps its
// live version (§6.2, S5), and every ref that changes is still the node's
// working copy. A release that pinned a node since would otherwise see that
// node's new version go live under it, and one canceled since would see the
// version it had promoted go live after its draft was put back. It reads
// the changed nodes only, by key.
func keepsHolds(ctx context.Context, tx *sql.Tx, siteID string, changes release.Changes) error {
	set := make(map[string]release.Ref, len(changes.Set))
	ids := make([]string, 0, len(changes.Set)+len(changes.Removed))
	for _, r := range changes.Set {
		set[r.ID] = r
		ids = append(ids, r.ID)
	}
	ids = append(ids, changes.Removed...)
	list, err := jsonText(ids)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT w.value, COALESCE(n.rev, 0), COALESCE(n.hash, ''), n.id IS NOT NULL AND n.deleted_at IS NULL,
		EXISTS (SELECT 1 FROM release_items i WHERE i.node_id = w.value AND i.held = 1)
		FROM json_each(?) w LEFT JOIN nodes n ON n.id = w.value AND n.site_id = ?`, list, siteID)
	if err != nil {
		return fmt.Errorf("store: publish holds: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, hash string
		var rev int64
		var exists, held bool
		if err := rows.Scan(&id, &rev, &hash, &exists, &held); err != nil {
			return fmt.Errorf("store: publish holds: %w", err)
		}
		if held {
			return engine.ErrConflict // a hold the engine did not see
		}
		if r, ok := set[id]; ok && (!exists || rev != r.Rev || hash != r.Hash) {
			return engine.ErrConflict // edited, deleted or put back since the engine's read
		}
	}
	return rows.Err()
}
