package nodes

import (
	"context"
	"errors"
	"sort"
	"strings"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
)

// Nodes lists a site's working copy with what is live and what is held,
// for someone who reads its content.
func (ns *Nodes) Nodes(ctx context.Context, u engine.User, siteID string) ([]releases.NodeDetail, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return nil, err
	}
	nodes, err := ns.store.Nodes(ctx, siteID)
	if err != nil {
		return nil, err
	}
	live, held, err := ns.rel.LiveAndHeld(ctx, siteID, "")
	if err != nil {
		return nil, err
	}
	out := make([]releases.NodeDetail, len(nodes))
	for i, n := range nodes {
		out[i] = releases.NodeDetailOf(n, live, held)
	}
	return out, nil
}

// Node returns one node of a site with what is live and what is held, for
// someone who reads its content.
func (ns *Nodes) Node(ctx context.Context, u engine.User, siteID, id string) (releases.NodeDetail, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return releases.NodeDetail{}, err
	}
	return ns.node(ctx, siteID, id)
}

// CreateNode saves the first version of a page or an entry.
func (ns *Nodes) CreateNode(ctx context.Context, u engine.User, siteID string, kind release.NodeKind, body content.Body) (content.Node, error) {
	if err := engine.Require(u, siteID, policy.ContentWrite); err != nil {
		return content.Node{}, err
	}
	prefix := map[release.NodeKind]string{release.KindPage: "pag", release.KindContentEntry: "ent"}[kind]
	if prefix == "" {
		return content.Node{}, engine.Refuse("bad_node_kind", "kind")
	}
	n := content.Node{ID: ids.New(prefix), SiteID: siteID, Kind: kind}
	if strings.TrimSpace(body.Slug) == "" {
		body.Slug = content.Slugify(body.Title) // the address follows the title until someone types one
	}
	if body.Lang == "" {
		lang, err := ns.siteLang(ctx, siteID)
		if err != nil {
			return content.Node{}, err
		}
		body.Lang = lang
	}
	return ns.save(ctx, u, n, 0, body)
}

// siteLang is the language a new page, article or asset of a site is
// written in when its editor names none: the site's own (Site.Lang), the
// one its public site's words (its menu, its dates) are in.
func (ns *Nodes) siteLang(ctx context.Context, siteID string) (string, error) {
	s, err := ns.store.Site(ctx, siteID)
	if err != nil {
		return "", err
	}
	return s.Lang, nil
}

// SaveNode saves a new version of a node the person last saw at expectedRev.
// A node held by a release is locked (RFC §6.2). A body without a language
// keeps the node's.
func (ns *Nodes) SaveNode(ctx context.Context, u engine.User, siteID, id string, expectedRev int64, body content.Body) (content.Node, error) {
	return ns.update(ctx, u, siteID, id, expectedRev, func(was content.Body) content.Body {
		if body.Lang == "" {
			body.Lang = was.Lang // a body that names no language keeps the one it had
		}
		return body
	})
}

// EditNode is SaveNode for the editor's fields: the parts of the body the
// editor does not show are kept.
func (ns *Nodes) EditNode(ctx context.Context, u engine.User, siteID, id string, expectedRev int64, in content.Edit) (content.Node, error) {
	return ns.update(ctx, u, siteID, id, expectedRev, func(b content.Body) content.Body { return b.With(in) })
}

func (ns *Nodes) update(ctx context.Context, u engine.User, siteID, id string, expectedRev int64, edit func(content.Body) content.Body) (content.Node, error) {
	if err := engine.Require(u, siteID, policy.ContentWrite); err != nil {
		return content.Node{}, err
	}
	d, err := ns.node(ctx, siteID, id)
	if err != nil {
		return content.Node{}, err
	}
	if !u.MayWriteNode(d.Author.ID) {
		return content.Node{}, engine.Refuse(engine.CodeForbidden, "") // someone else's node, at the own level
	}
	if d.Held != nil {
		return content.Node{}, releases.LockedBy(d.Held)
	}
	if d.Rev != expectedRev {
		return content.Node{}, engine.Refuse(engine.CodeStale, "")
	}
	return ns.save(ctx, u, d.Node, expectedRev, edit(d.Body))
}

func (ns *Nodes) save(ctx context.Context, u engine.User, n content.Node, expectedRev int64, body content.Body) (content.Node, error) {
	body = content.Normalize(body)
	validate := content.Validate
	if n.Kind == release.KindAsset {
		validate = content.ValidateAsset // a file: its slug is its file name
	}
	if err := validate(body); err != nil {
		var fe *content.FieldError
		if errors.As(err, &fe) {
			return content.Node{}, &engine.Error{Code: fe.Key[len("error."):], Field: fe.Field}
		}
		return content.Node{}, err
	}
	if n.Kind == release.KindAsset {
		data, err := cleanImage(n.Body.Data, body)
		if err != nil {
			return content.Node{}, err
		}
		body.Data = data
	}
	if err := ns.rel.CheckAddress(ctx, n, body); err != nil {
		return content.Node{}, err
	}
	if n.Kind != release.KindAsset {
		refs, err := ns.imageRefs(ctx, n.SiteID, body)
		if err != nil {
			return content.Node{}, err
		}
		body.Refs = refs
	}
	n.Body, n.Hash, n.Rev, n.UpdatedAt = body, content.Hash(body), expectedRev+1, ns.now()
	if expectedRev == 0 {
		n.Author = u.Actor() // who creates a node is its author, for good
	}
	if err := ns.store.SaveNode(ctx, n, expectedRev, u.Actor(), n.UpdatedAt); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return content.Node{}, engine.Refuse(engine.CodeStale, "")
		}
		return content.Node{}, err
	}
	return n, nil
}

// PendingRefs is what an ordinary publish would make live: the working copy
// except held nodes, which keep their live version (RFC §6.2), and drafts
// that were never live. Deleted nodes leave the live site.
func (ns *Nodes) PendingRefs(ctx context.Context, siteID string) (next []release.Ref, changed int, err error) {
	working, err := ns.store.Nodes(ctx, siteID)
	if err != nil {
		return nil, 0, err
	}
	live, held, err := ns.rel.LiveAndHeld(ctx, siteID, "")
	if err != nil {
		return nil, 0, err
	}
	changed = len(live) // every live node not in the working copy was deleted
	for _, wn := range working {
		n := releases.NodeDetailOf(wn, live, held)
		if n.Live != nil {
			changed--
		}
		ref := n.Ref()
		switch {
		case n.Held != nil && n.Live == nil:
			continue
		case n.Held != nil:
			ref = *n.Live
		case n.Live == nil && n.Body.Status != content.StatusPublished:
			// A draft that was never live would show nowhere; leaving it out
			// also keeps a release pinned on "not live" from conflicting
			// with a publish it had nothing to do with (§6.4).
			continue
		}
		if n.Live == nil || *n.Live != ref {
			changed++
		}
		next = append(next, ref)
	}
	sort.Slice(next, func(i, j int) bool { return next[i].ID < next[j].ID })
	return next, changed, nil
}

// PendingCount is how many changes a publish of the site would make: the
// changed of PendingRefs, counted by the store without reading the site
// (what the content list shows on every page).
func (ns *Nodes) PendingCount(ctx context.Context, u engine.User, siteID string) (int, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return 0, err
	}
	return ns.store.PendingCount(ctx, siteID)
}

// Publish makes the working copy live, except held nodes: a new snapshot and
// a compare-and-swap flip of the site's pointer.
func (ns *Nodes) Publish(ctx context.Context, u engine.User, siteID string) (engine.Snapshot, error) {
	if err := engine.ActsOn(u, siteID); err != nil {
		return engine.Snapshot{}, err
	}
	if !engine.MayPublishSite(u) {
		return engine.Snapshot{}, engine.Refuse(engine.CodeForbidden, "")
	}
	site, err := ns.store.Site(ctx, siteID)
	if err != nil {
		return engine.Snapshot{}, err
	}
	if err := ns.dateFirstPublished(ctx, u, siteID); err != nil {
		return engine.Snapshot{}, err
	}
	refs, changed, err := ns.PendingRefs(ctx, siteID)
	if err != nil {
		return engine.Snapshot{}, err
	}
	if changed == 0 {
		return engine.Snapshot{}, engine.Refuse(release.CodeNothingToPublish, "")
	}
	now := ns.now()
	snap := engine.Snapshot{ID: ids.New("snp"), SiteID: siteID, ParentID: site.PublishedSnapshotID,
		Reason: "publish", Actor: u.Actor(), Refs: refs, CreatedAt: now}
	next := site
	next.PublishedSnapshotID, next.Rev = snap.ID, site.Rev+1
	audit := engine.AuditEntry{Action: "site.publish", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"snapshot": snap.ID, "changed": changed}}
	if err := ns.store.PublishSnapshot(ctx, site, engine.SiteHash(next), snap, audit); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return engine.Snapshot{}, engine.Refuse(engine.CodeStale, "")
		}
		return engine.Snapshot{}, err
	}
	return snap, nil
}

// LiveNodes returns the site's live snapshot with bodies, for the public site.
func (ns *Nodes) LiveNodes(ctx context.Context, site engine.Site) ([]engine.LiveNode, error) {
	if site.PublishedSnapshotID == "" {
		return nil, nil
	}
	return ns.store.LiveNodes(ctx, site.PublishedSnapshotID, "")
}

// LiveChangesSince is what site's live snapshot changed since the older
// snapshot from (Store.LiveChanges): the public site builds its next
// model from the one before with it, reading only what changed.
func (ns *Nodes) LiveChangesSince(ctx context.Context, site engine.Site, from string) (set []engine.LiveNode, gone []string, ok bool, err error) {
	if site.PublishedSnapshotID == "" || from == "" {
		return nil, nil, false, nil
	}
	return ns.store.LiveChanges(ctx, site.ID, from, site.PublishedSnapshotID)
}

// dateFirstPublished gives each page and entry that an ordinary publish
// takes live for the first time with an embargo and no date its embargo's
// from as its date (§7.5), as a new version of its working copy saved
// before the snapshot is composed. It is its own write: should the publish
// then stop, the working copy only has the date it will get anyway.
// Nodes without an embargo keep an ordinary publish's old behaviour (no
// date is made up for them).
func (ns *Nodes) dateFirstPublished(ctx context.Context, u engine.User, siteID string) error {
	working, err := ns.store.Nodes(ctx, siteID)
	if err != nil {
		return err
	}
	var due []content.Node
	for _, n := range working {
		from, _ := n.Body.Gates()
		if from != nil && n.Body.PublishedAt == nil && n.Body.Status == content.StatusPublished &&
			(n.Kind == release.KindContentEntry || n.Kind == release.KindPage) {
			due = append(due, n)
		}
	}
	if len(due) == 0 {
		return nil // the usual case reads nothing more
	}
	live, held, err := ns.rel.LiveAndHeld(ctx, siteID, "")
	if err != nil {
		return err
	}
	now := ns.now()
	for _, n := range due {
		if _, ok := live[n.ID]; ok {
			continue // published before: its date is not moved (§7.5)
		}
		if _, ok := held[n.ID]; ok {
			continue // a held node keeps its live version; its release dates it
		}
		next := n
		next.Body.PublishedAt = content.FirstPublishedAt(n.Body, now)
		next.Rev, next.Hash, next.UpdatedAt = n.Rev+1, content.Hash(next.Body), now
		if err := ns.store.SaveNode(ctx, next, n.Rev, u.Actor(), now); err != nil {
			if errors.Is(err, engine.ErrConflict) {
				return engine.Refuse(engine.CodeStale, "")
			}
			return err
		}
	}
	return nil
}
