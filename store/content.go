package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// CreateSite inserts a site. A site without a language gets the schema's
// default (migration 0013).
func (s *Store) CreateSite(ctx context.Context, site engine.Site, now time.Time) error {
	if err := createSite(ctx, s.write, site, now); err != nil {
		return fmt.Errorf("store: create site: %w", err)
	}
	return nil
}

// execer is a connection or a transaction: what writes one statement.
type execer interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}

func createSite(ctx context.Context, db execer, site engine.Site, now time.Time) error {
	// The first site answers the hosts no site names (0030).
	q, args := `INSERT INTO sites (id, name, time_zone, published_snapshot_id, rev, hash, created_at, updated_at, public_url, default_host)
		VALUES (?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM sites) THEN 0 ELSE 1 END)`, []any{site.ID, site.Name, site.TimeZone, site.PublishedSnapshotID,
		site.Rev, site.Hash, instant(now), instant(now), site.PublicURL}
	if site.Lang != "" {
		q, args = `INSERT INTO sites (id, name, time_zone, published_snapshot_id, rev, hash, created_at, updated_at, public_url, default_host, lang)
		VALUES (?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM sites) THEN 0 ELSE 1 END, ?)`, append(args, site.Lang)
	}
	_, err := db.ExecContext(ctx, q, args...)
	return err
}

const siteColumns = `id, name, time_zone, COALESCE(published_snapshot_id, ''), rev, hash, lang, public_url, default_host`

func scanSite(row interface{ Scan(...any) error }) (engine.Site, error) {
	var x engine.Site
	err := row.Scan(&x.ID, &x.Name, &x.TimeZone, &x.PublishedSnapshotID, &x.Rev, &x.Hash, &x.Lang, &x.PublicURL, &x.DefaultHost)
	return x, notFound(err)
}

// Site returns the site with id.
func (s *Store) Site(ctx context.Context, id string) (engine.Site, error) {
	return scanSite(s.read.QueryRowContext(ctx, `SELECT `+siteColumns+` FROM sites WHERE id = ?`, id))
}

const sitesQuery = `SELECT ` + siteColumns + ` FROM sites ORDER BY created_at, id`

// Sites lists every site, oldest first.
func (s *Store) Sites(ctx context.Context) ([]engine.Site, error) {
	rows, err := s.read.QueryContext(ctx, sitesQuery)
	if err != nil {
		return nil, fmt.Errorf("store: sites: %w", err)
	}
	defer rows.Close()
	var out []engine.Site
	for rows.Next() {
		x, err := scanSite(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

const nodeColumns = `id, site_id, kind, body, rev, hash, updated_at, author_id,
	COALESCE((SELECT name FROM users WHERE users.id = nodes.author_id), '')`

func scanNode(row interface{ Scan(...any) error }) (content.Node, error) {
	var n content.Node
	var kind, body, updated string
	if err := row.Scan(&n.ID, &n.SiteID, &kind, &body, &n.Rev, &n.Hash, &updated, &n.Author.ID, &n.Author.Name); err != nil {
		return n, notFound(err)
	}
	if n.Author.ID != "" {
		n.Author.Kind = "person"
	}
	n.Kind = release.NodeKind(kind)
	if err := json.Unmarshal([]byte(body), &n.Body); err != nil {
		return n, fmt.Errorf("store: node %s body: %w", n.ID, err)
	}
	t, err := mustInstant(updated)
	n.UpdatedAt = t
	return n, err
}

// Nodes lists a site's working copy, most recently changed first.
func (s *Store) Nodes(ctx context.Context, siteID string) ([]content.Node, error) {
	return nodeRows(s.read.QueryContext(ctx, `SELECT `+nodeColumns+` FROM nodes WHERE site_id = ? AND deleted_at IS NULL ORDER BY updated_at DESC, id`, siteID))
}

// nodeRows reads the working copies a query of nodeColumns returns.
func nodeRows(rows *sql.Rows, err error) ([]content.Node, error) {
	if err != nil {
		return nil, fmt.Errorf("store: nodes: %w", err)
	}
	defer rows.Close()
	var out []content.Node
	for rows.Next() {
		n, err := scanNode(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// NodesByID returns the working copies of the site's nodes among ids (not
// deleted ones), in id order: one statement that reads them by key.
func (s *Store) NodesByID(ctx context.Context, siteID string, ids []string) ([]content.Node, error) {
	list, err := jsonText(ids)
	if err != nil {
		return nil, err
	}
	// CROSS JOIN keeps the order: from each id to its node by key, never
	// the site's nodes (which the planner, with no statistics, may prefer).
	return nodeRows(s.read.QueryContext(ctx, `SELECT `+nodeColumns+` FROM (SELECT value AS wanted FROM json_each(?)) w
		CROSS JOIN nodes WHERE nodes.id = w.wanted AND site_id = ? AND deleted_at IS NULL ORDER BY id`, list, siteID))
}

// Node returns one node's working copy.
func (s *Store) Node(ctx context.Context, siteID, id string) (content.Node, error) {
	return scanNode(s.read.QueryRowContext(ctx, `SELECT `+nodeColumns+` FROM nodes WHERE site_id = ? AND id = ? AND deleted_at IS NULL`, siteID, id))
}

// NodeAuthors maps each of ids that is a node of the site (deleted ones
// too) to the id of the person who created it, in one statement.
func (s *Store) NodeAuthors(ctx context.Context, siteID string, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, err := jsonText(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT id, author_id FROM nodes
		WHERE site_id = ? AND id IN (SELECT value FROM json_each(?))`, siteID, list)
	if err != nil {
		return nil, fmt.Errorf("store: node authors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, author string
		if err := rows.Scan(&id, &author); err != nil {
			return nil, fmt.Errorf("store: node authors: %w", err)
		}
		out[id] = author
	}
	return out, rows.Err()
}

// SaveNode writes n as the node's new version if the node is still at
// expectedRev (0: it must not exist) and no release holds it.
func (s *Store) SaveNode(ctx context.Context, n content.Node, expectedRev int64, by release.Actor, now time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		return saveNode(ctx, tx, n, expectedRev, by, now)
	})
}

func saveNode(ctx context.Context, tx *sql.Tx, n content.Node, expectedRev int64, by release.Actor, now time.Time) error {
	body, err := json.Marshal(n.Body)
	if err != nil {
		return fmt.Errorf("store: node body: %w", err)
	}
	var ok bool
	if expectedRev == 0 {
		// The one who creates a node is its author, for good: later
		// versions never change it (own-level scopes, §10.1).
		ok, err = one(tx.ExecContext(ctx, `INSERT INTO nodes (id, site_id, kind, body, rev, hash, updated_at, author_id)
			VALUES (?, ?, ?, ?, 1, ?, ?, ?) ON CONFLICT DO NOTHING`, n.ID, n.SiteID, string(n.Kind), string(body), n.Hash, instant(now), by.ID))
	} else {
		ok, err = one(tx.ExecContext(ctx, `UPDATE nodes SET body = ?, rev = rev + 1, hash = ?, updated_at = ?
			WHERE id = ? AND site_id = ? AND rev = ? AND deleted_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM release_items WHERE node_id = nodes.id AND held = 1)`,
			string(body), n.Hash, instant(now), n.ID, n.SiteID, expectedRev))
	}
	if err != nil {
		return fmt.Errorf("store: save node: %w", err)
	}
	if !ok {
		return engine.ErrConflict
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO node_versions (node_id, rev, hash, body, saved_by, saved_at) VALUES (?, ?, ?, ?, ?, ?)`,
		n.ID, expectedRev+1, n.Hash, string(body), by.ID, instant(now))
	if err != nil {
		return fmt.Errorf("store: node version: %w", err)
	}
	return nil
}

// DeleteNode marks a node's working copy deleted if it is still at
// expectedRev and no release holds it; ErrConflict otherwise.
func (s *Store) DeleteNode(ctx context.Context, siteID, id string, expectedRev int64, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE nodes SET deleted_at = ?, rev = rev + 1, updated_at = ?
			WHERE id = ? AND site_id = ? AND rev = ? AND deleted_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM release_items WHERE node_id = nodes.id AND held = 1)`,
			instant(a.At), instant(a.At), id, siteID, expectedRev))
		if err != nil {
			return fmt.Errorf("store: delete node: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		return audit(ctx, tx, a)
	})
}

// HeldNodes maps each node held by a non-terminal release to that release.
func (s *Store) HeldNodes(ctx context.Context, siteID, nodeID string) (map[string]releases.Held, error) {
	if nodeID != "" {
		return s.HeldNodesOf(ctx, siteID, []string{nodeID})
	}
	return s.heldNodes(s.read.QueryContext(ctx, `SELECT i.node_id, r.id, r.rev, r.state, r.execute_at, i.op = 'remove'
		FROM release_items i JOIN releases r ON r.id = i.release_id
		WHERE i.site_id = ? AND i.held = 1 ORDER BY r.execute_at DESC`, siteID))
}

// HeldNodesOf is HeldNodes for the nodes among ids only, read by key.
func (s *Store) HeldNodesOf(ctx context.Context, siteID string, ids []string) (map[string]releases.Held, error) {
	list, err := jsonText(ids)
	if err != nil {
		return nil, err
	}
	return s.heldNodes(s.read.QueryContext(ctx, `SELECT i.node_id, r.id, r.rev, r.state, r.execute_at, i.op = 'remove'
		FROM (SELECT value AS wanted FROM json_each(?)) w
		CROSS JOIN release_items i JOIN releases r ON r.id = i.release_id
		WHERE i.node_id = w.wanted AND i.site_id = ? AND i.held = 1 ORDER BY r.execute_at DESC`, list, siteID))
}

func (s *Store) heldNodes(rows *sql.Rows, err error) (map[string]releases.Held, error) {
	if err != nil {
		return nil, fmt.Errorf("store: held nodes: %w", err)
	}
	defer rows.Close()
	out := map[string]releases.Held{}
	for rows.Next() {
		var node, state string
		var h releases.Held
		var at sql.NullString
		if err := rows.Scan(&node, &h.ReleaseID, &h.Rev, &state, &at, &h.Removes); err != nil {
			return nil, err
		}
		h.State = release.State(state)
		if h.At, err = parseInstant(at); err != nil {
			return nil, err
		}
		out[node] = h // ordered latest first, so the earliest release wins
	}
	return out, rows.Err()
}

// addressHoldersQuery finds the holders of one address through the two
// indexes of migration 0009: working copies by (site, kind, slug), and
// versions by slug, kept when the site's live head (snapshot_refs) names them.
const addressHoldersQuery = `SELECT id, MAX(title), MAX(live), MAX(working) FROM (
	SELECT n.id AS id, json_extract(n.body, '$.title') AS title, 0 AS live, 1 AS working
	FROM nodes n
	WHERE n.site_id = ?1 AND n.kind = ?2 AND json_extract(n.body, '$.slug') = ?3 AND n.deleted_at IS NULL AND n.id <> ?4
	UNION ALL
	SELECT v.node_id, json_extract(v.body, '$.title'), 1, 0
	FROM node_versions v JOIN nodes n ON n.id = v.node_id
	WHERE json_extract(v.body, '$.slug') = ?3 AND n.site_id = ?1 AND n.kind = ?2 AND v.node_id <> ?4
	AND EXISTS (SELECT 1 FROM snapshot_refs x
		WHERE x.site_id = ?1 AND x.node_id = v.node_id AND x.rev = v.rev AND x.until_seq IS NULL)
) holders GROUP BY id ORDER BY MAX(live) DESC, id`

// AddressHolders lists the nodes of a site other than exceptID whose
// working copy or live version is of kind and has slug, live ones first.
func (s *Store) AddressHolders(ctx context.Context, siteID string, kind release.NodeKind, slug, exceptID string) ([]engine.AddressHolder, error) {
	rows, err := s.read.QueryContext(ctx, addressHoldersQuery, siteID, string(kind), slug, exceptID)
	if err != nil {
		return nil, fmt.Errorf("store: address holders: %w", err)
	}
	defer rows.Close()
	var out []engine.AddressHolder
	for rows.Next() {
		var h engine.AddressHolder
		var title sql.NullString
		if err := rows.Scan(&h.NodeID, &title, &h.Live, &h.Working); err != nil {
			return nil, fmt.Errorf("store: address holders: %w", err)
		}
		h.Title = title.String
		out = append(out, h)
	}
	return out, rows.Err()
}

// addressClashQuery finds, in one statement, the first set item of a
// release (?2: [{id, kind, rev}], rev naming the version whose slug it
// publishes) whose address a live node outside the release (?3: every item
// id) already has, or that another set item of the same kind also takes.
// CROSS JOIN keeps SQLite's order: from each item to the versions with its
// slug (node_versions_slug), then their node by key, never the site's nodes.
const addressClashQuery = `WITH i AS (
	SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.kind') AS kind,
		CAST(json_extract(value, '$.rev') AS INTEGER) AS rev
	FROM json_each(?2)
), t AS (
	-- Each item's version by its key, as a scalar subquery: PostgreSQL
	-- joined the versions by hashing all of them (a scan that grew with
	-- every site's history).
	SELECT id, kind, json_extract(body, '$.slug') AS slug, json_extract(body, '$.title') AS title
	FROM (SELECT i.id, i.kind, (SELECT v.body FROM node_versions v WHERE v.node_id = i.id AND v.rev = i.rev) AS body FROM i) b
	WHERE body IS NOT NULL
)
SELECT * FROM (
	SELECT t.id, t.title, t.slug, t.kind, h.node_id, json_extract(h.body, '$.title')
	FROM t CROSS JOIN node_versions h CROSS JOIN nodes n
	WHERE json_extract(h.body, '$.slug') = t.slug AND n.id = h.node_id AND n.site_id = ?1 AND n.kind = t.kind
	AND h.node_id NOT IN (SELECT value FROM json_each(?3))
	AND EXISTS (SELECT 1 FROM snapshot_refs x
		WHERE x.site_id = ?1 AND x.node_id = h.node_id AND x.rev = h.rev AND x.until_seq IS NULL)
	UNION ALL
	SELECT b.id, b.title, b.slug, b.kind, a.id, a.title
	FROM t a JOIN t b ON a.kind = b.kind AND a.slug = b.slug AND a.id < b.id
) clashes LIMIT 1`

// AddressClash finds the first set item of a release that would take over
// an address (see releases.AddressClash), in one statement.
func (s *Store) AddressClash(ctx context.Context, siteID string, sets []release.Ref, itemIDs []string) (releases.AddressClash, bool, error) {
	type set struct {
		ID   string           `json:"id"`
		Kind release.NodeKind `json:"kind"`
		Rev  int64            `json:"rev"`
	}
	list := make([]set, len(sets))
	for i, r := range sets {
		list[i] = set{r.ID, r.Kind, r.Rev}
	}
	setsJSON, err := jsonText(list)
	if err != nil {
		return releases.AddressClash{}, false, err
	}
	idsJSON, err := jsonText(itemIDs)
	if err != nil {
		return releases.AddressClash{}, false, err
	}
	var c releases.AddressClash
	var kind string
	var title, holderTitle sql.NullString
	err = s.read.QueryRowContext(ctx, addressClashQuery, siteID, setsJSON, idsJSON).
		Scan(&c.NodeID, &title, &c.Slug, &kind, &c.Holder.NodeID, &holderTitle)
	if errors.Is(err, sql.ErrNoRows) {
		return releases.AddressClash{}, false, nil
	}
	if err != nil {
		return releases.AddressClash{}, false, fmt.Errorf("store: address clash: %w", err)
	}
	c.Kind, c.Title, c.Holder.Title, c.Holder.Live = release.NodeKind(kind), title.String, holderTitle.String, true
	return c, true, nil
}

// pendingCountQuery counts what a publish of the site ?1 would change
// (nodes.PendingRefs is the rule; engine/nodes' TestPendingCountIsPendingRefs
// holds the two equal): live nodes gone from the working copy, plus working nodes no
// release holds that are published and not live, or live at another
// version.
var pendingCountQuery = `WITH live AS (` + snapshotRefs("(SELECT published_snapshot_id FROM sites WHERE id = ?1)", "") + `)
	SELECT (SELECT count(*) FROM live l WHERE NOT EXISTS
			(SELECT 1 FROM nodes n INDEXED BY nodes_versions WHERE n.site_id = ?1 AND n.id = l.id AND n.deleted_at IS NULL))
		+ (SELECT count(*) FROM nodes n INDEXED BY nodes_versions LEFT JOIN live l ON l.id = n.id
			WHERE n.site_id = ?1 AND n.deleted_at IS NULL
			  AND NOT EXISTS (SELECT 1 FROM release_items i WHERE i.site_id = ?1 AND i.node_id = n.id AND i.held = 1)
			  AND CASE WHEN l.id IS NULL THEN json_extract(n.body, '$.status') = 'published'
			      ELSE l.rev != n.rev OR l.hash != n.hash END)`

// PendingCount is engine.Store's: one statement, a few microseconds a node
// of the site, read again only after a commit (Generation), so the pages
// of the content list between two saves share one count.
func (s *Store) PendingCount(ctx context.Context, siteID string) (int, error) {
	gen, err := s.Generation(ctx)
	if err != nil {
		return 0, err
	}
	if n, ok := s.pending.get(siteID, gen); ok {
		return n, nil
	}
	var n int
	if err := s.read.QueryRowContext(ctx, pendingCountQuery, siteID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: pending count: %w", err)
	}
	s.pending.put(siteID, gen, n)
	return n, nil
}

// pendingCounts are the last PendingCount of each site with the
// generation it was read at.
type pendingCounts struct {
	mu     sync.Mutex
	counts map[string][2]int64 // site → generation, count
}

func (p *pendingCounts) get(siteID string, gen int64) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.counts[siteID]
	return int(c[1]), ok && c[0] == gen
}

func (p *pendingCounts) put(siteID string, gen int64, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.counts == nil || len(p.counts) > 1000 {
		p.counts = map[string][2]int64{}
	}
	p.counts[siteID] = [2]int64{gen, int64(n)}
}
