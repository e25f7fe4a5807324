package releases

import (
	"cmp"
	"context"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// ReleaseDiff is a release with each item's live base and pinned target,
// the bodies a reviewer compares (RFC §13 GET …/releases/:id/diff). The
// approval page reads the same diffs through Approval.
func (e *Releases) ReleaseDiff(ctx context.Context, u engine.User, siteID, id string) (ReleaseRow, []ItemDiff, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return ReleaseRow{}, nil, err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return ReleaseRow{}, nil, err
	}
	items, err := e.itemDiffs(ctx, r.Items)
	if err != nil {
		return ReleaseRow{}, nil, err
	}
	return r, items, nil
}

// itemDiffs reads the pinned versions of each item: the base (nil when the
// node was not live) and the target (nil for a removal).
func (e *Releases) itemDiffs(ctx context.Context, items []release.Item) ([]ItemDiff, error) {
	out := make([]ItemDiff, 0, len(items))
	for _, it := range items {
		d := ItemDiff{Item: it}
		if it.Base != nil {
			b, err := e.store.NodeVersion(ctx, it.NodeID, it.Base.Rev)
			if err != nil {
				return nil, err
			}
			d.Base = &b
		}
		if it.Target != nil {
			b, err := e.store.NodeVersion(ctx, it.NodeID, it.Target.Rev)
			if err != nil {
				return nil, err
			}
			d.Target = &b
		}
		out = append(out, d)
	}
	return out, nil
}

// ReleaseDiffs is a release's diff as GET …/releases/:id/diff answers it
// (§13: "base → target per item; three-way after a conflict"): every item
// base → target and, for a release held as a conflict, the three-way view
// of each conflicting node (pinned base, live now, pinned target) that
// Studio's conflict page shows, from the same ConflictView.
type ReleaseDiffs struct {
	Release ReleaseRow
	Items   []ItemDiff
	// Conflict is the three-way view; nil unless the release is a conflict.
	Conflict *ConflictReview
}

// ReleaseDiffs reads a release's diff, three-way after a conflict.
func (e *Releases) ReleaseDiffs(ctx context.Context, u engine.User, siteID, id string) (ReleaseDiffs, error) {
	r, items, err := e.ReleaseDiff(ctx, u, siteID, id)
	if err != nil {
		return ReleaseDiffs{}, err
	}
	d := ReleaseDiffs{Release: r, Items: items}
	if r.State == release.StateConflict {
		v, err := e.ConflictView(ctx, u, siteID, id)
		if err != nil {
			return ReleaseDiffs{}, err
		}
		d.Release, d.Conflict = v.Release, &v
	}
	return d, nil
}

// ReviewMedia is the media file at /media/slug as a review of release id
// shows it (§15.1, the article as it will look): after the release, the
// version the release pins when it carries that file, else the one live
// now; before it (live), the one live now. ErrNotFound when there is none.
func (e *Releases) ReviewMedia(ctx context.Context, u engine.User, siteID, id, slug string, live bool) (content.Body, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return content.Body{}, err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return content.Body{}, err
	}
	for _, it := range r.Items {
		if live || it.NodeKind != release.KindAsset || it.Op != release.OpSet || it.Target == nil {
			continue
		}
		b, err := e.store.NodeVersion(ctx, it.NodeID, it.Target.Rev)
		if err != nil {
			return content.Body{}, err
		}
		if b.Slug == slug {
			return b, nil
		}
	}
	holders, err := e.store.AddressHolders(ctx, siteID, release.KindAsset, slug, "")
	if err != nil {
		return content.Body{}, err
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil || site.PublishedSnapshotID == "" {
		return content.Body{}, cmp.Or(err, engine.ErrNotFound)
	}
	for _, h := range holders {
		if !h.Live {
			continue
		}
		nodes, err := e.store.LiveNodes(ctx, site.PublishedSnapshotID, h.NodeID)
		if err != nil {
			return content.Body{}, err
		}
		if len(nodes) == 1 && nodes[0].Body.Slug == slug {
			return nodes[0].Body, nil
		}
	}
	return content.Body{}, engine.ErrNotFound
}
