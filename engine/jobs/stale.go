package jobs

import (
	"context"
	"time"

	"studio/engine/content"
	"studio/engine/model/automation"
	"studio/engine/model/release"
)

// Counts of stale-content.
const (
	CountStaleEntries   = "stale-entries"
	CountEntriesScanned = "entries-scanned"
)

// staleAfter is the run's threshold in days.
func staleAfter(cfg Config) int {
	if cfg.StaleAfterDays <= 0 {
		return automation.DefaultStaleAfterDays
	}
	return cfg.StaleAfterDays
}

// staleContent lists one page of live entries shown now whose live version
// was saved more than StaleAfterDays before run.Now (a review list; it
// edits nothing).
func (j *Jobs) staleContent(ctx context.Context, run Run, c *cursor) (bool, error) {
	c.Counts[CountSteps]++
	site, err := j.store.Site(ctx, run.SiteID)
	if err != nil {
		return false, err
	}
	if site.PublishedSnapshotID == "" {
		return true, j.record(ctx, run, c, nil, true)
	}
	page, err := j.store.LivePage(ctx, site.PublishedSnapshotID, []release.NodeKind{release.KindContentEntry}, c.After, MaxNodesPerStep)
	if err != nil {
		return false, err
	}
	before := run.Now.AddDate(0, 0, -staleAfter(run.Config))
	var found []Finding
	for _, n := range page {
		if lands(indexNode(n), run.Now) != landsOK {
			continue
		}
		c.Counts[CountEntriesScanned]++
		if !n.SavedAt.Before(before) {
			continue
		}
		c.Counts[CountStaleEntries]++
		found = append(found, Finding{Code: CodeStaleEntry, NodeID: n.ID, NodeKind: n.Kind, Field: "updatedAt",
			Target: n.SavedAt.UTC().Format(time.RFC3339)})
	}
	done := len(page) < MaxNodesPerStep
	if !done {
		c.After = page[len(page)-1].ID
	}
	return done, j.record(ctx, run, c, found, done)
}

// indexNode is a live node as the gates see it.
func indexNode(n LiveNode) IndexNode {
	from, until := n.Body.Gates()
	return IndexNode{ID: n.ID, Kind: n.Kind, Slug: n.Body.Slug, Published: n.Body.Status == content.StatusPublished, From: from, Until: until}
}
