package engine

import (
	"context"
	"errors"

	"studio/engine/policy"
)

// DeleteNode deletes a page or an entry the person last saw at expectedRev.
// Its versions stay (snapshots and releases name them); it leaves Studio now
// and the live site with the next publish. A node a release holds cannot be
// deleted (§6.2): it answers scheduled_locked, naming the release and its
// time.
func (e *Engine) DeleteNode(ctx context.Context, u User, siteID, id string, expectedRev int64) error {
	if err := require(u, siteID, policy.ContentWrite); err != nil {
		return err
	}
	d, err := e.node(ctx, siteID, id)
	if err != nil {
		return err
	}
	if !u.mayWriteNode(d.Author.ID) {
		return refuse(CodeForbidden, "") // someone else's node, at the own level
	}
	if d.Held != nil {
		return LockedBy(d.Held)
	}
	if d.Rev != expectedRev {
		return refuse(CodeStale, "")
	}
	audit := AuditEntry{Action: "node.delete", Actor: u.Actor(), SiteID: siteID, At: e.Now(),
		Details: map[string]any{"node": id, "rev": d.Rev, "title": d.Body.Title}}
	err = e.store.DeleteNode(ctx, siteID, id, expectedRev, audit)
	if errors.Is(err, ErrConflict) {
		return refuse(CodeStale, "") // saved, deleted or pinned since the person's read
	}
	return err
}
