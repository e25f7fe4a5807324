package release

import (
	"slices"
	"strings"
)

// Conflicts returns, in node-id order, every item whose node's version in the
// live snapshot is not its pinned base (§6.3 step 3, §6.4). Rev and hash are
// compared; a node absent from live with no base is not a conflict. Expected
// is the item's base, Found the live version (nil when not live). It returns
// nil when there is none.
func Conflicts(live []Ref, items []Item) []Conflict {
	byID := make(map[string]Version, len(live))
	for _, r := range live {
		byID[r.ID] = Version{Rev: r.Rev, Hash: r.Hash}
	}
	var out []Conflict
	for _, it := range sortedByNode(items) {
		var found *Version
		if v, ok := byID[it.NodeID]; ok {
			found = &v
		}
		if !sameVersion(found, it.Base) {
			out = append(out, Conflict{NodeID: it.NodeID, Expected: copyVersion(it.Base), Found: found})
		}
	}
	return out
}

// Compose is the release's snapshot content (§6.3 step 4):
// nodes(S) = nodes(L) − {item ids} + {set targets}, sorted by id (byte order).
// Live refs not named by an item are kept as they are. A set item without a
// target (which ValidateItems refuses) only removes its node. Inputs are not
// modified.
func Compose(live []Ref, items []Item) []Ref {
	named := make(map[string]bool, len(items))
	var added []Ref
	for _, it := range items {
		named[it.NodeID] = true
		if it.Op == OpSet && it.Target != nil {
			added = append(added, Ref{ID: it.NodeID, Kind: it.NodeKind, Rev: it.Target.Rev, Hash: it.Target.Hash})
		}
	}
	out := make([]Ref, 0, len(live)+len(added))
	for _, r := range live {
		if !named[r.ID] {
			out = append(out, r)
		}
	}
	// Snapshots keep their refs sorted, so usually only the few targets need
	// sorting; they are then merged in from the back, in place.
	if !slices.IsSortedFunc(out, byID) {
		slices.SortFunc(out, byID)
	}
	slices.SortFunc(added, byID)
	i, j := len(out)-1, len(added)-1
	out = out[:len(out)+len(added)]
	for k := len(out) - 1; j >= 0; k-- {
		if i >= 0 && byID(out[i], added[j]) > 0 {
			out[k], i = out[i], i-1
		} else {
			out[k], j = added[j], j-1
		}
	}
	return out
}

func byID(a, b Ref) int { return strings.Compare(a.ID, b.ID) }

// MissingDependency reports the first id a set item's target references that
// is not in the composed snapshot (§6.3 step 5 → failed: dependency_missing).
// Items are checked in node-id order, each item's deps in the order given, so
// the answer is stable.
func MissingDependency(composed []Ref, items []Item) (string, bool) {
	have := make(map[string]bool, len(composed))
	for _, r := range composed {
		have[r.ID] = true
	}
	for _, it := range sortedByNode(items) {
		if it.Op != OpSet {
			continue // a removal has no target, so nothing it references
		}
		for _, d := range it.Deps {
			if !have[d] {
				return d, true
			}
		}
	}
	return "", false
}

// sortedByNode returns a copy of items in node-id byte order (stable, so the
// caller's order decides among duplicates).
func sortedByNode(items []Item) []Item {
	s := slices.Clone(items)
	slices.SortStableFunc(s, func(a, b Item) int { return strings.Compare(a.NodeID, b.NodeID) })
	return s
}

func sameVersion(a, b *Version) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func copyVersion(v *Version) *Version {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

// Changes is what a snapshot changes in its parent: the refs it sets (new
// nodes and new versions) and the ids of the nodes it removes, each sorted
// by id. A snapshot is its parent plus its changes, so a store can keep the
// changes alone (see store's snapshot_refs).
type Changes struct {
	Set     []Ref    `json:"set"`
	Removed []string `json:"removed"`
}

// Diff is the change that turns before into after (both sorted by id, as
// snapshots hold them): Compose(before, items) differs from before by
// exactly Diff(before, Compose(before, items)) (S1).
func Diff(before, after []Ref) Changes {
	c := Changes{Set: []Ref{}, Removed: []string{}}
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || (i < len(before) && before[i].ID < after[j].ID):
			c.Removed = append(c.Removed, before[i].ID)
			i++
		case i == len(before) || after[j].ID < before[i].ID:
			c.Set = append(c.Set, after[j])
			j++
		default:
			if before[i] != after[j] {
				c.Set = append(c.Set, after[j])
			}
			i, j = i+1, j+1
		}
	}
	return c
}

// Touched lists, sorted and once each, the nodes of items and the ids
// their targets reference: all a release's checks need to read of the site
// (TestDiffProperties).
func Touched(items []Item) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.NodeID)
		out = append(out, it.Deps...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
