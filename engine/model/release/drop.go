package release

import "sort"

// DropItem takes nodeID out of a release's items together with every
// closure-added item nothing left needs (§6.1 step 2). The items a person
// named stay; from them the closure is walked again over the release's own
// items (following references to nodes that are not live), so the reasons
// (AddedBecause) name an item that is still there. When an item that stays
// still needs nodeID, nothing is dropped and neededBy names that item.
func DropItem(items []Item, nodeID string, live map[string]Ref) (kept []Item, neededBy string) {
	byID := make(map[string]Item, len(items))
	var queue []string
	for _, it := range items {
		byID[it.NodeID] = it
		if it.AddedBecause == "" && it.NodeID != nodeID {
			queue = append(queue, it.NodeID)
		}
	}
	sort.Strings(queue)
	reached := make(map[string]string, len(items)) // id → the item that needs it ("" for a named one)
	for _, id := range queue {
		reached[id] = ""
	}
	for q := 0; q < len(queue); q++ {
		x := byID[queue[q]]
		if x.Op != OpSet {
			continue
		}
		for _, d := range x.Deps {
			if d == x.NodeID {
				continue
			}
			if _, in := byID[d]; !in {
				continue
			}
			if _, isLive := live[d]; isLive {
				continue
			}
			if d == nodeID {
				return nil, x.NodeID
			}
			if _, done := reached[d]; done {
				continue
			}
			reached[d] = x.NodeID
			queue = append(queue, d)
		}
	}
	for _, it := range items {
		because, ok := reached[it.NodeID]
		if !ok {
			continue
		}
		if it.AddedBecause != "" {
			it.AddedBecause = because
		}
		kept = append(kept, it)
	}
	return kept, ""
}
