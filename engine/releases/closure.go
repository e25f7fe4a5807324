package releases

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
)

// graph is what pinning reads (§6.1): the site's working copy (deleted
// nodes are not in it), its live refs, and which release holds which node.
type graph struct {
	site  engine.Site
	nodes map[string]content.Node
	live  map[string]release.Ref
	held  map[string]Held
}

// authors maps the graph's nodes to their authors' ids.
func (g *graph) authors() map[string]string {
	out := make(map[string]string, len(g.nodes))
	for id, n := range g.nodes {
		out[id] = n.Author.ID
	}
	return out
}

// readGraph reads a site's working copy, live refs and holds.
func (e *Releases) readGraph(ctx context.Context, siteID string) (*graph, error) {
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return nil, err
	}
	nodes, err := e.store.Nodes(ctx, siteID)
	if err != nil {
		return nil, err
	}
	live, held, err := e.LiveAndHeld(ctx, siteID, "")
	if err != nil {
		return nil, err
	}
	g := &graph{site: site, nodes: make(map[string]content.Node, len(nodes)), live: make(map[string]release.Ref, len(live)), held: held}
	for _, n := range nodes {
		g.nodes[n.ID] = n
	}
	for id, l := range live {
		g.live[id] = l.Ref
	}
	return g, nil
}

// readGraphOf reads what pinning the nodes seeds names needs, not the
// whole site: their working copies and live refs, then, a level at a
// time, those of what they reference, following only the nodes that are
// not live (the dependency closure stops at a live node, closeOver); and
// the site's holds, as few as its open releases. Seeds should name the
// items' dependencies too when they are not the working copies' refs.
func (e *Releases) readGraphOf(ctx context.Context, siteID string, seeds []string) (*graph, error) {
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return nil, err
	}
	held, err := e.store.HeldNodes(ctx, siteID, "")
	if err != nil {
		return nil, err
	}
	g := &graph{site: site, nodes: map[string]content.Node{}, live: map[string]release.Ref{}, held: held}
	seed := make(map[string]bool, len(seeds))
	read := map[string]bool{}
	var frontier []string
	want := func(id string) {
		if !read[id] {
			read[id] = true
			frontier = append(frontier, id)
		}
	}
	for _, id := range seeds {
		seed[id] = true
		want(id)
	}
	for len(frontier) > 0 {
		ids := frontier
		frontier = nil
		nodes, err := e.store.NodesByID(ctx, siteID, ids)
		if err != nil {
			return nil, err
		}
		if site.PublishedSnapshotID != "" {
			refs, err := e.store.SnapshotRefs(ctx, site.PublishedSnapshotID, ids)
			if err != nil {
				return nil, err
			}
			for _, r := range refs {
				g.live[r.ID] = r
			}
		}
		for _, n := range nodes {
			g.nodes[n.ID] = n
			if _, live := g.live[n.ID]; live && !seed[n.ID] {
				continue
			}
			for _, d := range n.Body.Refs {
				want(d)
			}
		}
	}
	return g, nil
}

// title is how a refusal names a node: its working copy's title, or its id
// when it has none (deleted, or never existed).
func (g *graph) title(id string) string {
	if n, ok := g.nodes[id]; ok && n.Body.Title != "" {
		return n.Body.Title
	}
	return id
}

// liveVersion is the node's live version, nil when it is not live.
func (g *graph) liveVersion(id string) *release.Version {
	l, ok := g.live[id]
	if !ok {
		return nil
	}
	return &release.Version{Rev: l.Rev, Hash: l.Hash}
}

// liveRefs are the live refs sorted by id, as a snapshot holds them.
func (g *graph) liveRefs() []release.Ref {
	out := make([]release.Ref, 0, len(g.live))
	for _, r := range g.live {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// lockedFor refuses to save a new version of a node another release holds
// (§6.2: a held node is locked): the store would refuse it too, but this
// names the release and its time. Pinning a held node as it is, is an
// overlap and allowed (D15).
func (g *graph) lockedFor(id, releaseID string) error {
	if h, ok := g.held[id]; ok && h.ReleaseID != releaseID {
		err := LockedBy(&h)
		err.Args["Title"], err.Args["Node"] = g.title(id), id
		return err
	}
	return nil
}

// named is a refusal about one node, naming it by id and title.
func (g *graph) named(code, id string) *engine.Error {
	return &engine.Error{Code: code, Args: map[string]any{"Node": id, "Title": g.title(id)}}
}

// pinSet pins node n's working copy as it is (§6.1 step 1): the target is
// its current version, the base its live version (absent when it is not
// live), and its deps the ids its body references.
func (g *graph) pinSet(n content.Node) release.Item {
	return release.Item{Op: release.OpSet, NodeID: n.ID, NodeKind: n.Kind,
		Target: &release.Version{Rev: n.Rev, Hash: n.Hash}, Base: g.liveVersion(n.ID), Deps: slices.Clone(n.Body.Refs)}
}

// pinNamed pins the nodes a person or an agent names: setIDs to publish
// their working copies, removeIDs to take live pages and entries down at the
// release's time (§6.1 steps 1 and 3). have lists the release's items
// already there. Every refusal names the node.
func (g *graph) pinNamed(releaseID string, setIDs, removeIDs []string, have map[string]bool) ([]release.Item, error) {
	seen := make(map[string]bool, len(have)+len(setIDs)+len(removeIDs))
	for id := range have {
		seen[id] = true
	}
	var out []release.Item
	pin := func(id string, op release.Op) error {
		if seen[id] {
			return g.named(release.CodeDuplicateNode, id)
		}
		seen[id] = true
		n, ok := g.nodes[id]
		if !ok {
			return g.named(engine.CodeNotFound, id)
		}
		if n.Kind != release.KindPage && n.Kind != release.KindContentEntry {
			return g.named(release.CodeBadNodeKind, id)
		}
		// A node another release holds may be pinned too: an overlap,
		// allowed and flagged on both (D15, §6.2; Engine.Overlaps).
		switch op {
		case release.OpRemove:
			base := g.liveVersion(id)
			if base == nil {
				return g.named(CodeNotLive, id)
			}
			out = append(out, release.Item{Op: release.OpRemove, NodeID: id, NodeKind: n.Kind, Base: base})
		default:
			it := g.pinSet(n)
			if it.Base != nil && *it.Base == *it.Target {
				return g.named(release.CodeNothingToPublish, id)
			}
			out = append(out, it)
		}
		return nil
	}
	for _, id := range setIDs {
		if err := pin(strings.TrimSpace(id), release.OpSet); err != nil {
			return nil, err
		}
	}
	for _, id := range removeIDs {
		if err := pin(strings.TrimSpace(id), release.OpRemove); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// closeOver adds the dependency closure to items (§6.1 step 2): for every
// set item, each id its target references that is not live and not already
// an item is pinned as an item too, recursively, with AddedBecause naming
// the item that needs it. Set items are visited in node-id order, breadth
// first, so the same release always gets the same reasons; a node already
// in the release is never added twice, so cycles (A uses B uses A) end.
//
// Decisions: a referenced node that is live is satisfied by its live
// version, even when its working copy has moved on (the release publishes
// what its items name, not other people's unpublished edits); a
// referenced node that does not exist in the site's working copy (never
// created, deleted, or another site's) is refused as dependency_missing,
// and so is one this release removes — the run-time check of §6.3 step 5
// stays as well. A draft or in-review referenced node is added as it is;
// scheduling promotes it like every pinned draft.
func (g *graph) closeOver(releaseID string, items []release.Item) ([]release.Item, error) {
	index := make(map[string]int, len(items))
	var queue []int
	for i, it := range items {
		index[it.NodeID] = i
		if it.Op == release.OpSet {
			queue = append(queue, i)
		}
	}
	sort.Slice(queue, func(a, b int) bool { return items[queue[a]].NodeID < items[queue[b]].NodeID })
	for q := 0; q < len(queue); q++ {
		x := items[queue[q]]
		for _, d := range x.Deps {
			if d == x.NodeID {
				continue
			}
			if j, ok := index[d]; ok {
				if items[j].Op == release.OpRemove {
					return nil, g.missing(x.NodeID, d)
				}
				continue
			}
			n, ok := g.nodes[d]
			if !ok {
				return nil, g.missing(x.NodeID, d)
			}
			if _, live := g.live[d]; live {
				continue
			}
			it := g.pinSet(n)
			it.AddedBecause = x.NodeID
			index[d] = len(items)
			items = append(items, it)
			queue = append(queue, index[d])
		}
	}
	return items, nil
}

// missing is the refusal for a dependency that would not be on the site:
// Title is the item that uses it, Dep and Node name the dependency.
func (g *graph) missing(user, dep string) *engine.Error {
	return &engine.Error{Code: engine.CodeDependencyMissing, Args: map[string]any{"Title": g.title(user), "Node": dep, "Dep": g.title(dep)}}
}

// MaxTitle is the longest release title, in characters (§4.2).
const MaxTitle = 200

// cleanTitle trims a release title and checks it: one line, at most
// MaxTitle characters, no control characters or bidi overrides (§4.2).
// An empty title is returned as it is; callers decide whether it may be.
func cleanTitle(s string) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxTitle {
		return "", engine.Refuse(CodeBadTitle, "title")
	}
	for _, r := range s {
		if unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) {
			return "", engine.Refuse(CodeBadTitle, "title")
		}
	}
	return s, nil
}

// validate applies release.ValidateItems, naming the offending node.
func (g *graph) validate(items []release.Item) error {
	err := release.ValidateItems(items)
	if err == nil {
		return nil
	}
	var re *release.Error
	if errors.As(err, &re) && re.NodeID != "" {
		return g.named(re.Code, re.NodeID)
	}
	return engine.Refuse(engine.CodeOf(err), "")
}
