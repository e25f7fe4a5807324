package releases

import (
	"context"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
)

// NodeDetail is a node's working copy with its live version and its hold.
type NodeDetail struct {
	content.Node
	Live       *release.Ref
	LiveStatus content.Status // the live version's status: only published shows
	Held       *Held
}

// node is Node for a use case that has checked its caller already.
func (e *Releases) node(ctx context.Context, siteID, id string) (NodeDetail, error) {
	d, _, err := e.NodeWithLive(ctx, siteID, id)
	return d, err
}

// NodeWithLive is node with the live version's body, nil when the node is
// not live: what engine/gates compares the working copy's gates with. It
// checks no caller: for the engine's use cases that checked theirs (and
// the public site's signed preview links, whose signature is the check).
func (e *Releases) NodeWithLive(ctx context.Context, siteID, id string) (NodeDetail, *content.Body, error) {
	n, err := e.store.Node(ctx, siteID, id)
	if err != nil {
		return NodeDetail{}, nil, err
	}
	live, held, err := e.LiveAndHeld(ctx, siteID, id)
	if err != nil {
		return NodeDetail{}, nil, err
	}
	d := NodeDetailOf(n, live, held)
	if l, ok := live[id]; ok {
		b := l.Body
		return d, &b, nil
	}
	return d, nil, nil
}

// ShownStatus is the status a list shows for the node: a node that is not
// live and that a release holds to publish is a draft until the release
// runs, although scheduling promoted its working copy to published (§7.5).
func (d NodeDetail) ShownStatus() content.Status {
	if d.Live == nil && d.Held != nil && !d.Held.Removes && d.Body.Status == content.StatusPublished {
		return content.StatusDraft
	}
	return d.Body.Status
}

func NodeDetailOf(n content.Node, live map[string]engine.LiveNode, held map[string]Held) NodeDetail {
	d := NodeDetail{Node: n}
	if l, ok := live[n.ID]; ok {
		d.Live, d.LiveStatus = &l.Ref, l.Body.Status
	}
	if h, ok := held[n.ID]; ok {
		d.Held = &h
	}
	return d
}

// liveAndHeld reads the live versions and holds of a site's nodes, or of
// one node when nodeID is set.
func (e *Releases) LiveAndHeld(ctx context.Context, siteID, nodeID string) (map[string]engine.LiveNode, map[string]Held, error) {
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return nil, nil, err
	}
	var live []engine.LiveNode
	if site.PublishedSnapshotID != "" {
		if live, err = e.store.LiveNodes(ctx, site.PublishedSnapshotID, nodeID); err != nil {
			return nil, nil, err
		}
	}
	held, err := e.store.HeldNodes(ctx, siteID, nodeID)
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[string]engine.LiveNode, len(live))
	for _, n := range live {
		byID[n.ID] = n
	}
	return byID, held, nil
}

func (e *Releases) liveRefs(ctx context.Context, site engine.Site) ([]release.Ref, error) {
	if site.PublishedSnapshotID == "" {
		return nil, nil
	}
	snap, err := e.store.Snapshot(ctx, site.PublishedSnapshotID)
	if err != nil {
		return nil, err
	}
	return snap.Refs, nil
}

// LockedBy is the refusal to change a held node (§6.2): it names the
// release and, when it has one, its time.
func LockedBy(h *Held) *engine.Error {
	args := map[string]any{"Release": h.ReleaseID}
	if h.At != nil {
		args["When"] = *h.At
	}
	return &engine.Error{Code: engine.CodeScheduledLocked, Args: args}
}
