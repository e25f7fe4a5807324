package jobs

import (
	"context"
	"time"

	"studio/engine/model/release"
)

// Phases of broken-links: the live nodes in pages, then the 404 paths.
const (
	phaseNodes    = ""
	phaseNotFound = "404"
)

// sweptKinds are the live nodes whose links broken-links checks.
var sweptKinds = []release.NodeKind{release.KindContentEntry, release.KindPage, release.KindMenu}

// NotFoundDays is how many days of 404 counts broken-links and the digest
// look at, and TopNotFoundPaths how many paths they report.
const (
	NotFoundDays     = 7
	TopNotFoundPaths = 20
)

// Counts of broken-links (the README's names).
const (
	CountNodesScanned = "nodes-scanned"
	CountLinksChecked = "links-checked"
	CountBrokenLinks  = "broken-links"
	CountExcluded     = "excluded"
	CountSteps        = "steps"
)

// brokenLinks checks the internal links and media references of one page
// of live entries, pages and menus against the live routes at run.Now
// (gates included), then, in a last step, the week's top 404 paths.
func (j *Jobs) brokenLinks(ctx context.Context, run Run, c *cursor) (bool, error) {
	c.Counts[CountSteps]++
	if c.Phase == phaseNotFound {
		return true, j.notFoundPaths(ctx, run, c)
	}
	site, err := j.store.Site(ctx, run.SiteID)
	if err != nil {
		return false, err
	}
	if site.PublishedSnapshotID == "" {
		c.Phase, c.After = phaseNotFound, ""
		return false, nil
	}
	ix, err := j.index(ctx, site.PublishedSnapshotID)
	if err != nil {
		return false, err
	}
	page, err := j.store.LivePage(ctx, site.PublishedSnapshotID, sweptKinds, c.After, MaxNodesPerStep)
	if err != nil {
		return false, err
	}
	var found []Finding
	for _, n := range page {
		if lands(ix.byID[n.ID], run.Now) != landsOK {
			continue // not shown now: its links are checked when it is
		}
		c.Counts[CountNodesScanned]++
		for _, l := range links(n.Body) {
			f, ok := checkLink(ix, n.LiveNode.Ref, l, run.Now)
			c.Counts[CountLinksChecked]++
			if !ok {
				continue
			}
			if Excluded(run.Config.Exclude, f.Target) {
				c.Counts[CountExcluded]++
				continue
			}
			c.Counts[f.Code]++
			c.Counts[CountBrokenLinks]++
			found = append(found, f)
		}
	}
	if len(page) < MaxNodesPerStep {
		c.Phase, c.After = phaseNotFound, ""
	} else {
		c.After = page[len(page)-1].ID
	}
	return false, j.record(ctx, run, c, found, false)
}

// checkLink judges one link of node from at now: a finding when it is
// broken.
func checkLink(ix *liveIndex, from release.Ref, l link, now time.Time) (Finding, bool) {
	var where string
	var to IndexNode
	if l.field == "refs" {
		where, to = ix.resolveRef(l.target, now)
		l.media = l.media || isAsset(to)
	} else {
		where, to = ix.resolvePath(l.target, now)
	}
	if where == landsOK || where == landsOutside {
		return Finding{}, false
	}
	f := Finding{NodeID: from.ID, NodeKind: from.Kind, Field: l.field, Target: l.target, Detail: where}
	switch {
	case where == landsEmbargoed || where == landsExpired:
		f.Code = CodeLinkToGated
		if to.From != nil && where == landsEmbargoed {
			f.Detail += " " + to.From.UTC().Format(time.RFC3339)
		}
	case from.Kind == release.KindMenu:
		f.Code = CodeBrokenMenuTarget
	case l.media:
		f.Code = CodeBrokenMediaRef
	default:
		f.Code = CodeBrokenInternalLink
	}
	return f, true
}

// notFoundPaths turns the week's top 404 paths into findings (the last
// step of broken-links: the sweep is complete after it). A path that
// resolves now is no broken link: readers asked for it before it was live
// (scheduled, or under embargo), and it is live now (issue 39).
func (j *Jobs) notFoundPaths(ctx context.Context, run Run, c *cursor) error {
	from, to := notFoundDays(run.Now)
	top, err := j.store.TopNotFound(ctx, run.SiteID, from, to, TopNotFoundPaths)
	if err != nil {
		return err
	}
	site, err := j.store.Site(ctx, run.SiteID)
	if err != nil {
		return err
	}
	var ix *liveIndex
	if site.PublishedSnapshotID != "" {
		if ix, err = j.index(ctx, site.PublishedSnapshotID); err != nil {
			return err
		}
	}
	var found []Finding
	for _, p := range top {
		if Excluded(run.Config.Exclude, p.Path) {
			c.Counts[CountExcluded]++
			continue
		}
		if ix != nil {
			if where, _ := ix.resolvePath(p.Path, run.Now); where == landsOK {
				continue // live now: it was asked for too early
			}
		}
		c.Counts[CodeNotFoundPath]++
		found = append(found, Finding{Code: CodeNotFoundPath, Field: "404", Target: p.Path,
			Hits: p.Hits}) // no detail: the hits change every day, the finding does not
	}
	return j.record(ctx, run, c, found, true)
}

// notFoundDays are the UTC days of the week before now (now's day
// included), as YYYY-MM-DD.
func notFoundDays(now time.Time) (from, to string) {
	now = now.UTC()
	return now.AddDate(0, 0, -(NotFoundDays - 1)).Format(time.DateOnly), now.Format(time.DateOnly)
}
