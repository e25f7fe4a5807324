package releases

import (
	"context"
	"errors"
	"slices"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// ReleaseView is one release as get_release answers it (RFC §12
// ReleaseView = Release + items[].title and path, closureAdded, overlaps,
// lockedNodes, request?): what a script or a page needs to act on it,
// read in one use case so every surface says the same.
type ReleaseView struct {
	Release ReleaseRow
	// Items are the release's items in its order, each with the title and
	// the public address of the version it pins (the target; a removal's
	// base).
	Items []ViewItem
	// ClosureAdded lists the items the dependency closure added and the
	// item that needed each (§6.1 step 2), in node-id order.
	ClosureAdded []release.ClosureAdded
	// LockedNodes are the nodes this release holds and locks now (§6.2):
	// its items while it is scheduled, waiting or running; none otherwise.
	LockedNodes []string
	// Request is the approval request waiting on the release, if any.
	Request *ApprovalRequest
	// Overlaps are the other open releases that share a node with this
	// one, in run order (D15: both are flagged; they run in time order).
	Overlaps []Overlap
	// Abilities are what the person asking may do to it now.
	Abilities ReleaseAbilities
}

// ViewItem is a release item with the title and the public path of the
// version it pins; Path is "" for a kind with no address of its own.
type ViewItem struct {
	release.Item
	Title string
	Path  string
}

// ReleaseView reads one release of a site with what §12's get_release adds
// to it.
func (e *Releases) ReleaseView(ctx context.Context, u engine.User, siteID, id string) (ReleaseView, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return ReleaseView{}, err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return ReleaseView{}, err
	}
	v := ReleaseView{Release: r, Items: make([]ViewItem, 0, len(r.Items)),
		ClosureAdded: release.Closure(r.Items), LockedNodes: []string{}}
	for _, it := range r.Items {
		vi := ViewItem{Item: it, Title: it.NodeID}
		pinned := it.Target
		if pinned == nil {
			pinned = it.Base
		}
		if pinned != nil {
			b, err := e.store.NodeVersion(ctx, it.NodeID, pinned.Rev)
			switch {
			case err == nil:
				vi.Title, vi.Path = b.Title, content.Path(it.NodeKind, b.Slug)
			case !errors.Is(err, engine.ErrNotFound): // a deleted node keeps its id as its name
				return ReleaseView{}, err
			}
		}
		v.Items = append(v.Items, vi)
	}
	held, err := e.store.HeldNodes(ctx, siteID, "")
	if err != nil {
		return ReleaseView{}, err
	}
	for _, it := range r.Items {
		if h, ok := held[it.NodeID]; ok && h.ReleaseID == r.ID {
			v.LockedNodes = append(v.LockedNodes, it.NodeID)
		}
	}
	slices.Sort(v.LockedNodes)
	if v.Overlaps, err = e.store.ReleaseOverlaps(ctx, siteID, r.ID); err != nil {
		return ReleaseView{}, err
	}
	a, err := e.AnswerOf(ctx, u, r) // the waiting request and the abilities, the request read once for both
	if err != nil {
		return ReleaseView{}, err
	}
	v.Request, v.Abilities = a.Request, a.Abilities
	return v, nil
}
