package public

import (
	"context"
	"maps"
	"slices"
	"time"

	"studio/engine"
	"studio/engine/model/gate"
	"studio/engine/model/release"
)

// A publish on a big site changes a few nodes of tens of thousands, so the
// next snapshot and its views are derived from the ones before: what is
// copied is slices of pointers and cloned maps, and what is judged again is
// only what changed. Each derivation answers exactly what the whole build
// would (after_test.go).

// SnapshotAfter is Snapshot for site, built from prev, an older snapshot
// of the same site prepared before (nil: none): only the nodes that
// changed since are read, so a publish on a big site costs what it
// changed, not the site. Without prev, or when the store cannot say what
// changed, the whole snapshot is read.
func (pv *Public) SnapshotAfter(ctx context.Context, site engine.Site, prev *Snapshot) (*Snapshot, error) {
	if prev == nil || prev.Site.ID != site.ID {
		return pv.Snapshot(ctx, site)
	}
	if prev.Site.PublishedSnapshotID == site.PublishedSnapshotID { // the site changed, not what is live
		p := *prev
		p.Site, p.FromID, p.Changed = site, prev.Site.PublishedSnapshotID, map[string]bool{}
		return &p, nil
	}
	set, gone, ok, err := pv.nodes.LiveChangesSince(ctx, site, prev.Site.PublishedSnapshotID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return pv.Snapshot(ctx, site)
	}
	return prev.after(site, set, gone), nil
}

// after is the snapshot of site that differs from prev by set (the live
// versions of the nodes that changed, published or not) and gone (the ids
// of those no longer live). It keeps set.
func (prev *Snapshot) after(site engine.Site, set []engine.LiveNode, gone []string) *Snapshot {
	p := &Snapshot{Site: site, FromID: prev.Site.PublishedSnapshotID, Changed: make(map[string]bool, len(set)+len(gone))}
	published := make(map[string]*engine.LiveNode, len(set))
	for _, id := range gone {
		p.Changed[id] = true
	}
	for i := range set {
		n := &set[i]
		p.Changed[n.ID] = true
		if gateOf(n).Published {
			published[n.ID] = n
		}
	}
	changed := slices.Sorted(maps.Keys(p.Changed))
	// The unchanged nodes between two changed ids are copied a run at a
	// time.
	p.Nodes = make([]*engine.LiveNode, 0, len(prev.Nodes)+len(published))
	p.gates = make([]gate.Node, 0, cap(p.Nodes))
	next := 0 // the first node of prev not copied or skipped yet
	for _, id := range changed {
		i, found := prev.find(id)
		p.Nodes, p.gates = append(p.Nodes, prev.Nodes[next:i]...), append(p.gates, prev.gates[next:i]...)
		if next = i; found {
			next++
		}
		if n, ok := published[id]; ok {
			p.Nodes, p.gates = append(p.Nodes, n), append(p.gates, gateOf(n))
		}
	}
	p.Nodes, p.gates = append(p.Nodes, prev.Nodes[next:]...), append(p.gates, prev.gates[next:]...)
	p.referrers = prev.referrersAfter(p, changed)
	p.index = gate.NewIndex(p.gates)
	return p
}

// referrersAfter is p's referrers, from prev's: the changed nodes' gates
// leave the assets they referred to and join those they refer to now. The
// slices of prev are never written: p's are copies where they differ.
func (prev *Snapshot) referrersAfter(p *Snapshot, changed []string) map[string][]gate.Node {
	refs := maps.Clone(prev.referrers)
	isAsset := func(s *Snapshot, id string) bool {
		n, ok := s.Node(id)
		return ok && n.Kind == release.KindAsset
	}
	var born map[string]bool // assets published now and not before: every referrer of theirs is looked for
	for _, id := range changed {
		if old, ok := prev.Node(id); ok && refers(old) {
			for _, ref := range old.Body.Refs {
				if list, ok := refs[ref]; ok {
					list = slices.DeleteFunc(slices.Clone(list), func(g gate.Node) bool { return g.ID == id })
					if len(list) == 0 {
						delete(refs, ref)
					} else {
						refs[ref] = list
					}
				}
			}
		}
		switch was, is := isAsset(prev, id), isAsset(p, id); {
		case was && !is:
			delete(refs, id)
		case is && !was:
			if born == nil {
				born = map[string]bool{}
			}
			born[id] = true
		}
	}
	for _, id := range changed {
		i, ok := p.find(id)
		if !ok || !refers(p.Nodes[i]) {
			continue
		}
		for _, ref := range p.Nodes[i].Body.Refs {
			if !born[ref] && isAsset(p, ref) {
				refs[ref] = append(slices.Clip(refs[ref]), p.gates[i])
			}
		}
	}
	if len(born) > 0 { // rare: an asset that was not live, and whoever refers to it
		for i, n := range p.Nodes {
			if !refers(n) {
				continue
			}
			for _, ref := range n.Body.Refs {
				if born[ref] {
					refs[ref] = append(refs[ref], p.gates[i])
				}
			}
		}
	}
	return refs
}

// AtAfter is At(now) derived from before, a view of the snapshot p was
// built from (FromID), when no gate of that snapshot lies between before's
// instant and now: then an unchanged node stands as it stood, and only the
// nodes that changed and the assets they refer or referred to are judged
// again. The view lists those whose answer may differ in Redone. False
// when it cannot be derived; At answers then.
func (p *Snapshot) AtAfter(now time.Time, before View) (View, bool) {
	prev := before.of
	if prev == nil || p.Changed == nil || prev.Site.ID != p.Site.ID || prev.Site.PublishedSnapshotID != p.FromID ||
		prev.index.Interval(before.at) != prev.index.Interval(now) {
		return View{}, false
	}
	v := p.viewShell(now)
	v.Visible, v.Redone = maps.Clone(before.Visible), []string{}
	judged := make(map[string]bool, len(p.Changed))
	judge := func(id string) {
		if judged[id] {
			return
		}
		judged[id] = true
		visible := false
		if i, ok := p.find(id); ok {
			visible = p.visibleAt(i, now)
		}
		if p.Changed[id] || visible != before.Visible[id] {
			v.Redone = append(v.Redone, id)
		}
		if visible {
			v.Visible[id] = true
		} else {
			delete(v.Visible, id)
		}
	}
	changed := slices.Sorted(maps.Keys(p.Changed))
	for _, id := range changed {
		judge(id)
	}
	for _, id := range changed {
		for _, s := range []*Snapshot{prev, p} {
			if n, ok := s.Node(id); ok && refers(n) {
				for _, ref := range n.Body.Refs {
					judge(ref)
				}
			}
		}
	}
	return v, true
}
