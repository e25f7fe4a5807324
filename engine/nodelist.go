package engine

import (
	"context"

	"studio/engine/content"
	"studio/engine/release"
)

// NodesPerPage is how many nodes a page of the content list shows.
const NodesPerPage = 50

// NodeSort orders the content list.
type NodeSort string

const (
	SortEdited NodeSort = ""      // last edited first (the default)
	SortTitle  NodeSort = "title" // by title, Turkish letters folded
)

// NodeFilter is the content list's question (issue 15). Every field is
// optional; a value Studio does not know is no filter at all, as the URL
// that carries it may be old or typed by hand.
type NodeFilter struct {
	Search string // in the title, the slug or the text; case and Turkish letters folded (content.Fold)
	Kind   release.NodeKind
	Status content.Status
	Lang   string // a node without its own is in the site's language
	Sort   NodeSort
}

// NodeList is one page of the content list.
type NodeList struct {
	Nodes  []NodeDetail
	Filter NodeFilter // as applied: the values Studio does not know dropped
	Page   int        // from 1
	More   bool       // a next page exists
}

// known is f with the values Studio does not know dropped.
func (f NodeFilter) known() NodeFilter {
	switch f.Kind {
	case release.KindContentEntry, release.KindPage, release.KindAsset:
	default:
		f.Kind = ""
	}
	if f.Status != content.StatusDraft && f.Status != content.StatusPublished {
		f.Status = ""
	}
	if !ValidLanguage(f.Lang) {
		f.Lang = ""
	}
	if f.Sort != SortTitle {
		f.Sort = SortEdited
	}
	if r := []rune(f.Search); len(r) > 200 { // a search, not a document
		f.Search = string(r[:200])
	}
	return f
}

// ListNodes is one page (from 1) of the site's working copy that f
// matches, each node with what is live and what is held: the page's nodes
// are read, never the whole site.
func (e *Engine) ListNodes(ctx context.Context, siteID string, f NodeFilter, page int) (NodeList, error) {
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return NodeList{}, err
	}
	page, f = max(page, 1), f.known()
	nodes, err := e.store.NodesMatching(ctx, siteID, site.Lang, f, NodesPerPage+1, (page-1)*NodesPerPage)
	if err != nil {
		return NodeList{}, err
	}
	list := NodeList{Filter: f, Page: page, More: len(nodes) > NodesPerPage}
	nodes = nodes[:min(len(nodes), NodesPerPage)]
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ID
	}
	live := map[string]LiveNode{}
	if site.PublishedSnapshotID != "" {
		of, err := e.store.LiveNodesOf(ctx, site.PublishedSnapshotID, ids)
		if err != nil {
			return NodeList{}, err
		}
		for _, n := range of {
			live[n.ID] = n
		}
	}
	held, err := e.store.HeldNodesOf(ctx, siteID, ids)
	if err != nil {
		return NodeList{}, err
	}
	for _, n := range nodes {
		list.Nodes = append(list.Nodes, detail(n, live, held))
	}
	return list, nil
}
