package release

import (
	"fmt"
	"math/rand"
)

func v(rev int64, hash string) *Version { return &Version{Rev: rev, Hash: hash} }

// vectorItems are the DESIGN.md rl1: example's items.
func vectorItems() []Item {
	return []Item{
		{Op: OpSet, NodeID: "ent_a1", NodeKind: KindContentEntry, Target: v(7, "sha256-aaa"), Base: v(6, "sha256-bbb")},
		{Op: OpSet, NodeID: "pag_b2", NodeKind: KindPage, Target: v(3, "sha256-ccc")},
		{Op: OpRemove, NodeID: "red_c3", NodeKind: KindRedirect, Base: v(2, "sha256-ddd")},
	}
}

// randomCase builds a live snapshot of nLive unique refs and nItems items on
// unique nodes: some replace live nodes, some remove them, some add new ones.
func randomCase(r *rand.Rand, nLive, nItems int) ([]Ref, []Item) {
	live := make([]Ref, nLive)
	for i := range live {
		live[i] = Ref{ID: fmt.Sprintf("ent_%08x_%04d", r.Uint32(), i), Kind: KindContentEntry, Rev: int64(r.Intn(50) + 1), Hash: fmt.Sprintf("sha256-%x", r.Uint64())}
	}
	r.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	items := make([]Item, 0, nItems)
	for i := range nItems {
		if i < nLive && r.Intn(3) > 0 { // an item on a live node
			l := live[i]
			base := v(l.Rev, l.Hash)
			if r.Intn(3) == 0 {
				items = append(items, Item{Op: OpRemove, NodeID: l.ID, NodeKind: l.Kind, Base: base})
			} else {
				items = append(items, Item{Op: OpSet, NodeID: l.ID, NodeKind: l.Kind, Target: v(l.Rev+1, fmt.Sprintf("sha256-%x", r.Uint64())), Base: base})
			}
			continue
		}
		items = append(items, Item{Op: OpSet, NodeID: fmt.Sprintf("pag_new%04d", i), NodeKind: KindPage, Target: v(1, fmt.Sprintf("sha256-%x", r.Uint64()))})
	}
	r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	return live, items
}
