package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"studio/engine/content"
	"studio/engine/localtime"
	"studio/engine/nodes"
)

// foldSQL is expr with Turkish letters and case folded as content.Fold
// folds a search: İ, I and ı to i, ş to s, ğ to g, ç to c, ö to o, ü to u,
// then lower(), which folds ASCII. Plain SQL, so that PostgreSQL runs the
// same query; no stored column, which the bodies that releases copy back
// in SQL (restoreDrafts, repromote) would leave stale.
func foldSQL(expr string) string {
	for _, pair := range content.FoldPairs {
		expr = "replace(" + expr + ", '" + pair[0] + "', '" + pair[1] + "')"
	}
	return "lower(" + expr + ")"
}

var nodesMatchingQuery = `SELECT ` + nodeColumns + ` FROM nodes
	WHERE site_id = ?1 AND deleted_at IS NULL
	  AND (?2 = '' OR kind = ?2)
	  AND (?3 = '' OR json_extract(body, '$.status') = ?3)
	  AND (?4 = '' OR COALESCE(NULLIF(json_extract(body, '$.lang'), ''), ?5) = ?4)
	  AND (?6 = '' OR instr(` + foldSQL(`COALESCE(json_extract(body, '$.title'), '') || ' ' || COALESCE(json_extract(body, '$.slug'), '') || ' ' || COALESCE(json_extract(body, '$.body'), '')`) + `, ?6) > 0)
	  AND (?9 = '' OR author_id = ?9)
	  AND (?10 <> 'scheduled' OR EXISTS (SELECT 1 FROM release_items ri WHERE ri.site_id = nodes.site_id AND ri.node_id = nodes.id AND ri.held = 1))
	  AND (?10 <> 'embargoed' OR julianday(json_extract(body, '$.availability.from')) > julianday(?11))
	  AND (?10 <> 'expiring' OR julianday(json_extract(body, '$.availability.until')) > julianday(?11))
	  AND (?12 = '' OR julianday(updated_at) >= julianday(?12))
	  AND (?13 = '' OR kind <> 'asset')
	ORDER BY `

// NodesMatching lists one page of the site's working copy that f matches,
// in f's order: at most limit nodes after offset, in one statement.
func (s *Store) NodesMatching(ctx context.Context, siteID, siteLang string, f nodes.NodeFilter, now time.Time, limit, offset int) ([]content.Node, error) {
	since := "" // no filter
	if !f.UpdatedSince.IsZero() {
		since = localtime.FormatInstant(f.UpdatedSince)
	}
	noAssets := "" // media files too
	if f.NoAssets {
		noAssets = "no"
	}
	order := `updated_at DESC, id`
	if f.Sort == nodes.SortTitle {
		order = foldSQL(`json_extract(body, '$.title')`) + `, id`
	}
	return nodeRows(s.read.QueryContext(ctx, nodesMatchingQuery+order+` LIMIT ?7 OFFSET ?8`, siteID, string(f.Kind),
		string(f.Status), f.Lang, siteLang, content.Fold(strings.TrimSpace(f.Search)), limit, offset, f.Author, string(f.Timing), instant(now),
		since, noAssets))
}

// MediaFiles lists up to limit of a site's media files by title: their
// names only, never the file in their body.
func (s *Store) MediaFiles(ctx context.Context, siteID string, limit int) ([]nodes.MediaFile, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, json_extract(body, '$.title'), json_extract(body, '$.slug') FROM nodes
		WHERE site_id = ? AND kind = 'asset' AND deleted_at IS NULL ORDER BY `+foldSQL(`json_extract(body, '$.title')`)+`, id LIMIT ?`,
		siteID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: media files: %w", err)
	}
	defer rows.Close()
	var out []nodes.MediaFile
	for rows.Next() {
		var m nodes.MediaFile
		if err := rows.Scan(&m.ID, &m.Title, &m.Slug); err != nil {
			return nil, fmt.Errorf("store: media files: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
