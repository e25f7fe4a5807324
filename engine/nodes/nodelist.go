package nodes

import (
	"context"
	"slices"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
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
	Author string // the id of the person who created it
	Timing NodeTiming
	Sort   NodeSort
	// UpdatedSince keeps the nodes whose working copy changed at or after
	// it (zero: no filter).
	UpdatedSince time.Time
	// NoAssets leaves media files out: pages and entries only (an
	// agent's content list, whose pages images would otherwise fill).
	NoAssets bool
}

// NodeTiming filters the content list by what is planned for a node.
type NodeTiming string

const (
	TimingScheduled NodeTiming = "scheduled" // held by a release that has not run
	TimingEmbargoed NodeTiming = "embargoed" // its working copy shows from a time still to come
	TimingExpiring  NodeTiming = "expiring"  // its working copy is taken down at a time still to come
)

// NodeTimings are the timings, in the order a filter offers them.
var NodeTimings = []NodeTiming{TimingScheduled, TimingEmbargoed, TimingExpiring}

// NodeList is one page of the content list.
type NodeList struct {
	Nodes  []releases.NodeDetail
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
	if !engine.ValidLanguage(f.Lang) {
		f.Lang = ""
	}
	if !slices.Contains(NodeTimings, f.Timing) {
		f.Timing = ""
	}
	if len(f.Author) > 64 { // an id, not a document
		f.Author = ""
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
func (ns *Nodes) ListNodes(ctx context.Context, u engine.User, siteID string, f NodeFilter, page int) (NodeList, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return NodeList{}, err
	}
	site, err := ns.store.Site(ctx, siteID)
	if err != nil {
		return NodeList{}, err
	}
	page, f = max(page, 1), f.known()
	nodes, err := ns.store.NodesMatching(ctx, siteID, site.Lang, f, ns.now(), NodesPerPage+1, (page-1)*NodesPerPage)
	if err != nil {
		return NodeList{}, err
	}
	list := NodeList{Filter: f, Page: page, More: len(nodes) > NodesPerPage}
	nodes = nodes[:min(len(nodes), NodesPerPage)]
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ID
	}
	live := map[string]engine.LiveNode{}
	if site.PublishedSnapshotID != "" {
		of, err := ns.store.LiveNodesOf(ctx, site.PublishedSnapshotID, ids)
		if err != nil {
			return NodeList{}, err
		}
		for _, n := range of {
			live[n.ID] = n
		}
	}
	held, err := ns.store.HeldNodesOf(ctx, siteID, ids)
	if err != nil {
		return NodeList{}, err
	}
	for _, n := range nodes {
		list.Nodes = append(list.Nodes, releases.NodeDetailOf(n, live, held))
	}
	return list, nil
}
