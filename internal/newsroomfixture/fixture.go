// Package newsroomfixture fills a Studio site with a newsroom's archive
// (issue 14): tens of thousands of published articles, each linking to a
// few older ones, live in one snapshot. It is generated, never committed:
// benchmarks build it in their temp folder.
package newsroomfixture

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/nodes"
)

// Seed writes n published articles of site, written by author, straight
// into the working copy and its versions in one transaction (the engine's
// one node per call would take minutes at 50,000), then makes them live
// with engine/nodes' own Publish of the site, as a newsroom that has run
// for years would be. The same seed gives the same site.
func Seed(ctx context.Context, db *sql.DB, nds *nodes.Nodes, site engine.Site, author engine.User, now time.Time, n int) error {
	r := rand.New(rand.NewSource(int64(n)))
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	node, err := tx.PrepareContext(ctx, `INSERT INTO nodes (id, site_id, kind, body, rev, hash, updated_at, author_id)
		VALUES (?, ?, 'contentEntry', ?, 1, ?, ?, ?)`)
	if err != nil {
		return err
	}
	version, err := tx.PrepareContext(ctx, `INSERT INTO node_versions (node_id, rev, hash, body, saved_by, saved_at) VALUES (?, 1, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	made := make([]string, 0, n)
	for i := range n {
		at := now.Add(-time.Duration(n-i) * 37 * time.Minute).UTC()
		b := content.Body{Title: fmt.Sprintf("Archive story %d", i), Slug: fmt.Sprintf("archive-story-%d", i),
			Status: content.StatusPublished, Lang: content.Languages[i%2], PublishedAt: &at,
			Summary: "What happened, and why it matters to the city.", Text: paragraphs(r)}
		for k := 0; k < 3 && len(made) > 0; k++ {
			b.Refs = append(b.Refs, made[r.Intn(len(made))])
		}
		id := ids.New("ent")
		data, err := json.Marshal(b)
		if err != nil {
			return err
		}
		hash, stamp := content.Hash(b), localtime.FormatInstant(at)
		if _, err := node.ExecContext(ctx, id, site.ID, string(data), hash, stamp, author.ID); err != nil {
			return fmt.Errorf("newsroomfixture: node: %w", err)
		}
		if _, err := version.ExecContext(ctx, id, hash, string(data), author.ID, stamp); err != nil {
			return fmt.Errorf("newsroomfixture: version: %w", err)
		}
		made = append(made, id)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = nds.Publish(ctx, author, site.ID)
	return err
}

var words = strings.Fields(`the council voted late on tuesday to close the old market square for
	six months while engineers repair the roof residents said they had not been asked and traders
	worry about the winter ahead officials promised a temporary site near the station`)

// paragraphs is an article's text of about a kilobyte.
func paragraphs(r *rand.Rand) string {
	var b strings.Builder
	for p := range 4 {
		if p > 0 {
			b.WriteString("\n\n")
		}
		for w := range 40 {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.Intn(len(words))])
		}
	}
	return b.String()
}
