package jobs

import (
	"context"
	"time"
)

// DraftUntouchedDays is when cleanup reminds about a draft no one saved.
const DraftUntouchedDays = 90

// Counts of cleanup (deleting old runs and releases is the runner's
// retention job, not this one).
const (
	CountStaleDrafts  = "stale-drafts"
	CountUnusedAssets = "unused-assets"
)

const phaseAssets = "assets"

// cleanup reminds about drafts untouched for DraftUntouchedDays, then
// proposes the assets no live or working node uses for removal, a page of
// each per step. It deletes nothing.
func (j *Jobs) cleanup(ctx context.Context, run Run, c *cursor) (bool, error) {
	c.Counts[CountSteps]++
	if c.Phase == phaseAssets {
		site, err := j.store.Site(ctx, run.SiteID)
		if err != nil {
			return false, err
		}
		assets, err := j.store.UnusedAssets(ctx, run.SiteID, site.PublishedSnapshotID, c.After, MaxNodesPerStep)
		if err != nil {
			return false, err
		}
		var found []Finding
		for _, a := range assets {
			c.Counts[CountUnusedAssets]++
			found = append(found, Finding{Code: CodeUnusedAsset, NodeID: a.ID, NodeKind: a.Kind, Field: "refs",
				Target: "/media/" + a.Body.Slug})
		}
		done := len(assets) < MaxNodesPerStep
		if !done {
			c.After = assets[len(assets)-1].ID
		}
		return done, j.record(ctx, run, c, found, done)
	}
	before := run.Now.AddDate(0, 0, -DraftUntouchedDays)
	drafts, err := j.store.DraftsPage(ctx, run.SiteID, before, c.After, MaxNodesPerStep)
	if err != nil {
		return false, err
	}
	var found []Finding
	for _, d := range drafts {
		c.Counts[CountStaleDrafts]++
		found = append(found, Finding{Code: CodeStaleDraft, NodeID: d.ID, NodeKind: d.Kind, Field: "updatedAt",
			Target: d.UpdatedAt.UTC().Format(time.RFC3339)})
	}
	if len(drafts) < MaxNodesPerStep {
		c.Phase, c.After = phaseAssets, ""
	} else {
		c.After = drafts[len(drafts)-1].ID
	}
	return false, j.record(ctx, run, c, found, false)
}
