package releases

import (
	"context"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
)

// CodeSlugTaken refuses an address another node of the site already has
// (its live version or its working copy): saved, approved or run, a node
// never takes over another's address. CodeSlugReserved refuses a page
// address the process routes itself (content.ReservedPageSlugs).
const (
	CodeSlugTaken    = "slug_taken"
	CodeSlugReserved = "slug_reserved"
)

// slugTaken is the refusal naming the address and the node that has it.
func slugTaken(field string, kind release.NodeKind, slug string, holder engine.AddressHolder) *engine.Error {
	return &engine.Error{Code: CodeSlugTaken, Field: field,
		Args: map[string]any{"Path": content.Path(kind, slug), "Holder": holderTitle(holder)}}
}

func holderTitle(h engine.AddressHolder) string {
	if h.Title != "" {
		return h.Title
	}
	return h.NodeID
}

// checkAddress refuses a save of node n with body b when b's address is
// reserved or another node of the site already has it, in its working copy
// or its live version. A node whose working copy keeps its slug is not
// checked again: an address it already had (from before this rule) stays
// editable, and a release that would make it take over a live address is
// still refused when approved and when it runs.
func (e *Releases) CheckAddress(ctx context.Context, n content.Node, b content.Body) error {
	if content.Namespace(n.Kind) == "" {
		return nil
	}
	if content.Reserved(n.Kind, b.Slug) {
		return &engine.Error{Code: CodeSlugReserved, Field: "slug", Args: map[string]any{"Path": content.Path(n.Kind, b.Slug)}}
	}
	if n.Rev > 0 && n.Body.Slug == b.Slug {
		return nil
	}
	holders, err := e.store.AddressHolders(ctx, n.SiteID, n.Kind, b.Slug, n.ID)
	if err != nil {
		return err
	}
	if len(holders) > 0 {
		return slugTaken("slug", n.Kind, b.Slug, holders[0])
	}
	return nil
}

// AddressClash is a set item of a release whose address (Kind, Slug) a
// live node outside the release, or another set item, already has.
type AddressClash struct {
	NodeID, Title, Slug string
	Kind                release.NodeKind
	Holder              engine.AddressHolder
}

// releaseAddresses refuses a release that would make a node take over an
// address another node has on the live site (§6.3, checked when it is
// scheduled or approved and again when it runs): a set item's target slug
// may not be live on a node the release leaves as it is, nor be the slug of
// another set item of the same kind. A live holder the release removes, or
// sets to a version of its own, frees its address. One statement, however
// many items.
//
// slugRev names, by node id, the saved version whose slug an unsaved
// target has (a schedule promoting a draft saves the published version in
// its own transaction; the promotion does not change the slug).
func (e *Releases) releaseAddresses(ctx context.Context, siteID string, items []release.Item, slugRev map[string]int64) error {
	var sets []release.Ref
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.NodeID)
		if it.Op != release.OpSet || it.Target == nil || content.Namespace(it.NodeKind) == "" {
			continue
		}
		rev := it.Target.Rev
		if r, ok := slugRev[it.NodeID]; ok {
			rev = r
		}
		sets = append(sets, release.Ref{ID: it.NodeID, Kind: it.NodeKind, Rev: rev})
	}
	if len(sets) == 0 {
		return nil
	}
	c, found, err := e.store.AddressClash(ctx, siteID, sets, ids)
	if err != nil || !found {
		return err
	}
	refusal := slugTaken("", c.Kind, c.Slug, c.Holder)
	refusal.Args["Title"], refusal.Args["Node"] = c.Title, c.NodeID
	return refusal
}

// ReleaseAddresses is releaseAddresses for a release's run (engine/scheduler),
// which checks the addresses again when it publishes.
func (e *Releases) ReleaseAddresses(ctx context.Context, siteID string, items []release.Item) error {
	return e.releaseAddresses(ctx, siteID, items, nil)
}
