package nodes

import (
	"context"
	"errors"

	"studio/engine"
	"studio/engine/policy"
	"studio/engine/releases"
)

// DeleteNode deletes a page or an entry the person last saw at expectedRev.
// Its versions stay (snapshots and releases name them); it leaves Studio now
// and the live site with the next publish. A node a release holds cannot be
// deleted (§6.2): it answers scheduled_locked, naming the release and its
// time.
func (ns *Nodes) DeleteNode(ctx context.Context, u engine.User, siteID, id string, expectedRev int64) error {
	if err := engine.Require(u, siteID, policy.ContentWrite); err != nil {
		return err
	}
	d, err := ns.node(ctx, siteID, id)
	if err != nil {
		return err
	}
	if !u.MayWriteNode(d.Author.ID) {
		return engine.Refuse(engine.CodeForbidden, "") // someone else's node, at the own level
	}
	if d.Held != nil {
		return releases.LockedBy(d.Held)
	}
	if d.Rev != expectedRev {
		return engine.Refuse(engine.CodeStale, "")
	}
	audit := engine.AuditEntry{Action: "node.delete", Actor: u.Actor(), SiteID: siteID, At: ns.now(),
		Details: map[string]any{"node": id, "rev": d.Rev, "title": d.Body.Title}}
	err = ns.store.DeleteNode(ctx, siteID, id, expectedRev, audit)
	if errors.Is(err, engine.ErrConflict) {
		return engine.Refuse(engine.CodeStale, "") // saved, deleted or pinned since the person's read
	}
	return err
}
