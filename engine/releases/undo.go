package releases

import (
	"context"
	"errors"
	"time"

	"studio/engine"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// CodeNotPublished refuses to undo a release that is not live.
const CodeNotPublished = "not_published"

// UndoPlan says what undoing a published release does (§6.6): the site goes
// back to the release's base, which also reverts every release published
// after it, and may turn scheduled releases into conflicts (§6.2).
type UndoPlan struct {
	Release   ReleaseRow
	Site      engine.Site
	Base      engine.Snapshot
	Reverts   []ReleaseRow // published after it: the rollback undoes them too
	Conflicts []ReleaseRow // waiting ones whose pinned base the rollback changes
}

// PlanUndo works out what Undo would do, without doing it.
func (e *Releases) PlanUndo(ctx context.Context, u engine.User, siteID, id string) (UndoPlan, error) {
	if err := engine.Require(u, siteID, policy.SitePublish); err != nil {
		return UndoPlan{}, err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return UndoPlan{}, err
	}
	if r.State != release.StatePublished || r.Outcome == nil {
		return UndoPlan{}, engine.Refuse(CodeNotPublished, "")
	}
	if f, err := e.releaseRule(ctx, u, r); err != nil {
		return UndoPlan{}, err
	} else if !AbilitiesOf(u, f).Undo {
		return UndoPlan{}, engine.Refuse(engine.CodeForbidden, "")
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return UndoPlan{}, err
	}
	var base engine.Snapshot // a release that went live on an empty site goes back to no nodes
	if id := r.Outcome.BaseSnapshotID; id != "" {
		if base, err = e.store.Snapshot(ctx, id); err != nil {
			return UndoPlan{}, err
		}
	}
	plan := UndoPlan{Release: r, Site: site, Base: base}
	now := e.Now()
	rows, err := e.store.Releases(ctx, siteID, r.Outcome.At.Add(-time.Hour), now.Add(release.MaxHorizon))
	if err != nil {
		return UndoPlan{}, err
	}
	live, err := e.liveRefs(ctx, site)
	if err != nil {
		return UndoPlan{}, err
	}
	for _, o := range rows {
		switch {
		case o.ID == r.ID:
		case o.State == release.StatePublished && o.Outcome != nil && o.Outcome.At.After(r.Outcome.At):
			plan.Reverts = append(plan.Reverts, o)
		case o.State.Holds() && len(release.Conflicts(live, o.Items)) == 0 && len(release.Conflicts(base.Refs, o.Items)) > 0:
			plan.Conflicts = append(plan.Conflicts, o)
		}
	}
	return plan, nil
}

// Undo is the ordinary rollback to the release's base (§6.6): a new
// snapshot with the base's nodes (history stays linear), the site pointer
// flipped with a compare-and-swap on the rev the person saw, audited.
func (e *Releases) Undo(ctx context.Context, u engine.User, siteID, id string, siteRev int64) (engine.Snapshot, error) {
	plan, err := e.PlanUndo(ctx, u, siteID, id)
	if err != nil {
		return engine.Snapshot{}, err
	}
	site := plan.Site
	if site.Rev != siteRev {
		return engine.Snapshot{}, engine.Refuse(engine.CodeStale, "")
	}
	now := e.Now()
	snap := engine.Snapshot{ID: ids.New("snp"), SiteID: siteID, ParentID: site.PublishedSnapshotID, Reason: "rollback",
		Label: plan.Release.Title, Actor: u.Actor(), Refs: plan.Base.Refs, CreatedAt: now,
		Metadata: map[string]string{"studio.rollbackTo": plan.Release.Outcome.BaseSnapshotID, "studio.undoes": plan.Release.ID}}
	next := site
	next.PublishedSnapshotID, next.Rev = snap.ID, site.Rev+1
	reverted := make([]string, 0, len(plan.Reverts))
	for _, o := range plan.Reverts {
		reverted = append(reverted, o.ID)
	}
	audit := engine.AuditEntry{Action: "release.undo", Actor: u.Actor(), SiteID: siteID, ReleaseID: plan.Release.ID, At: now,
		Details: map[string]any{"snapshot": snap.ID, "rollbackTo": plan.Release.Outcome.BaseSnapshotID, "alsoReverts": reverted}}
	if err := e.store.PublishSnapshot(ctx, site, engine.SiteHash(next), snap, audit); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return engine.Snapshot{}, engine.Refuse(engine.CodeStale, "")
		}
		return engine.Snapshot{}, err
	}
	return snap, nil
}
