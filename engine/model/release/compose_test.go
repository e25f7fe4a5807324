package release

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestConflicts(t *testing.T) {
	live := []Ref{
		{ID: "ent_a", Kind: KindContentEntry, Rev: 6, Hash: "h6"},
		{ID: "pag_b", Kind: KindPage, Rev: 2, Hash: "h2"},
	}
	tests := []struct {
		name  string
		items []Item
		want  []Conflict
	}{
		{"base matches", []Item{{Op: OpSet, NodeID: "ent_a", Target: v(7, "h7"), Base: v(6, "h6")}}, nil},
		{"both absent", []Item{{Op: OpSet, NodeID: "pag_new", Target: v(1, "h1")}}, nil},
		{"rev moved", []Item{{Op: OpSet, NodeID: "ent_a", Target: v(7, "h7"), Base: v(5, "h6")}},
			[]Conflict{{NodeID: "ent_a", Expected: v(5, "h6"), Found: v(6, "h6")}}},
		{"hash differs", []Item{{Op: OpRemove, NodeID: "pag_b", Base: v(2, "hX")}},
			[]Conflict{{NodeID: "pag_b", Expected: v(2, "hX"), Found: v(2, "h2")}}},
		{"published since pinning", []Item{{Op: OpSet, NodeID: "pag_b", Target: v(3, "h3")}},
			[]Conflict{{NodeID: "pag_b", Found: v(2, "h2")}}},
		{"unpublished since pinning", []Item{{Op: OpRemove, NodeID: "red_gone", Base: v(4, "h4")}},
			[]Conflict{{NodeID: "red_gone", Expected: v(4, "h4")}}},
		{"several, in node-id order", []Item{
			{Op: OpSet, NodeID: "pag_b", Target: v(3, "h3")},
			{Op: OpSet, NodeID: "ent_a", Target: v(7, "h7"), Base: v(6, "h6")},
			{Op: OpSet, NodeID: "asset_z", Target: v(1, "h1"), Base: v(1, "h0")},
		}, []Conflict{
			{NodeID: "asset_z", Expected: v(1, "h0")},
			{NodeID: "pag_b", Found: v(2, "h2")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Conflicts(live, tt.items); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %s, want %s", show(got), show(tt.want))
			}
		})
	}
}

// Expected is a copy: editing the outcome cannot reach back into the items.
func TestConflictsDoesNotAlias(t *testing.T) {
	items := []Item{{Op: OpRemove, NodeID: "pag_b", Base: v(2, "h2")}}
	c := Conflicts(nil, items)
	c[0].Expected.Rev = 99
	if items[0].Base.Rev != 2 {
		t.Fatal("Conflict.Expected aliases Item.Base")
	}
}

func TestCompose(t *testing.T) {
	live := []Ref{
		{ID: "pag_b", Kind: KindPage, Rev: 2, Hash: "p2"},
		{ID: "ent_a", Kind: KindContentEntry, Rev: 6, Hash: "e6"},
		{ID: "red_c", Kind: KindRedirect, Rev: 1, Hash: "r1"},
	}
	items := []Item{
		{Op: OpRemove, NodeID: "red_c", NodeKind: KindRedirect, Base: v(1, "r1")},
		{Op: OpSet, NodeID: "ent_a", NodeKind: KindContentEntry, Target: v(7, "e7"), Base: v(6, "e6")},
		{Op: OpSet, NodeID: "ast_n", NodeKind: KindAsset, Target: v(1, "a1")},
	}
	liveBefore, itemsBefore := slices.Clone(live), slices.Clone(items)
	want := []Ref{
		{ID: "ast_n", Kind: KindAsset, Rev: 1, Hash: "a1"},
		{ID: "ent_a", Kind: KindContentEntry, Rev: 7, Hash: "e7"},
		{ID: "pag_b", Kind: KindPage, Rev: 2, Hash: "p2"},
	}
	if got := Compose(live, items); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if !reflect.DeepEqual(live, liveBefore) || !reflect.DeepEqual(items, itemsBefore) {
		t.Fatal("Compose modified its inputs")
	}
	if got := Compose(nil, nil); len(got) != 0 {
		t.Fatalf("empty compose: %+v", got)
	}
}

// Property: for random live snapshots (sorted or not) and releases, the composition is sorted,
// has unique ids, holds every set target, no removed node, and every live ref
// no item names, unchanged.
func TestComposeProperties(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for round := range 300 {
		live, items := randomCase(r, r.Intn(60), 1+r.Intn(30))
		if round%2 == 0 { // snapshots are usually sorted: exercise both paths
			slices.SortFunc(live, byID)
		}
		liveBefore := slices.Clone(live)
		got := Compose(live, items)
		if !reflect.DeepEqual(live, liveBefore) {
			t.Fatalf("round %d: live modified", round)
		}
		if !slices.IsSortedFunc(got, func(a, b Ref) int { return strings.Compare(a.ID, b.ID) }) {
			t.Fatalf("round %d: not sorted", round)
		}
		byID := map[string]Ref{}
		for _, ref := range got {
			if _, dup := byID[ref.ID]; dup {
				t.Fatalf("round %d: duplicate %s", round, ref.ID)
			}
			byID[ref.ID] = ref
		}
		named := map[string]bool{}
		for _, it := range items {
			named[it.NodeID] = true
			ref, ok := byID[it.NodeID]
			switch it.Op {
			case OpSet:
				if want := (Ref{ID: it.NodeID, Kind: it.NodeKind, Rev: it.Target.Rev, Hash: it.Target.Hash}); ref != want {
					t.Fatalf("round %d: set %s composed as %+v, want %+v", round, it.NodeID, ref, want)
				}
			case OpRemove:
				if ok {
					t.Fatalf("round %d: removed %s still present", round, it.NodeID)
				}
			}
		}
		kept := 0
		for _, l := range live {
			if named[l.ID] {
				continue
			}
			kept++
			if byID[l.ID] != l {
				t.Fatalf("round %d: untouched %s changed to %+v", round, l.ID, byID[l.ID])
			}
		}
		sets := 0
		for _, it := range items {
			if it.Op == OpSet {
				sets++
			}
		}
		if len(got) != kept+sets {
			t.Fatalf("round %d: %d refs, want %d kept + %d set", round, len(got), kept, sets)
		}
	}
}

func TestMissingDependency(t *testing.T) {
	composed := []Ref{{ID: "ast_1"}, {ID: "ent_a"}, {ID: "trm_x"}}
	tests := []struct {
		name  string
		items []Item
		want  string
	}{
		{"none", []Item{{Op: OpSet, NodeID: "ent_a", Deps: []string{"ast_1", "trm_x"}}}, ""},
		{"no deps", []Item{{Op: OpSet, NodeID: "ent_a"}}, ""},
		{"first in dep order", []Item{{Op: OpSet, NodeID: "ent_a", Deps: []string{"ast_1", "trm_z", "ast_0"}}}, "trm_z"},
		{"first in node order", []Item{
			{Op: OpSet, NodeID: "pag_b", Deps: []string{"ast_b"}},
			{Op: OpSet, NodeID: "ent_a", Deps: []string{"ast_a"}},
		}, "ast_a"},
		{"removals have no deps", []Item{{Op: OpRemove, NodeID: "pag_gone", Deps: []string{"ast_9"}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := MissingDependency(composed, tt.items)
			if got != tt.want || ok != (tt.want != "") {
				t.Fatalf("got (%q, %v), want %q", got, ok, tt.want)
			}
		})
	}
}

// A dependency removed by the same release is missing from the composition.
func TestMissingDependencyAfterCompose(t *testing.T) {
	live := []Ref{{ID: "ast_1", Kind: KindAsset, Rev: 1, Hash: "a"}, {ID: "pag_p", Kind: KindPage, Rev: 1, Hash: "p"}}
	items := []Item{
		{Op: OpRemove, NodeID: "pag_p", NodeKind: KindPage, Base: v(1, "p")},
		{Op: OpSet, NodeID: "mnu_m", NodeKind: KindMenu, Target: v(2, "m"), Deps: []string{"ast_1", "pag_p"}},
	}
	if got, ok := MissingDependency(Compose(live, items), items); !ok || got != "pag_p" {
		t.Fatalf("got (%q, %v), want pag_p", got, ok)
	}
}

func show(cs []Conflict) string {
	var b strings.Builder
	f := func(v *Version) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf("%d:%s", v.Rev, v.Hash)
	}
	for _, c := range cs {
		b.WriteString("{" + c.NodeID + " exp " + f(c.Expected) + " found " + f(c.Found) + "}")
	}
	return "[" + b.String() + "]"
}

// Property: Diff and applyChanges are inverses, a release's diff names only its
// items (S1), and composing on the refs of the items and their dependencies
// alone gives the same conflicts, missing dependency and diff as composing
// on the whole live snapshot: what lets the scheduler read only those refs.
func TestDiffProperties(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	for round := range 300 {
		live, items := randomCase(r, r.Intn(60), 1+r.Intn(30))
		slices.SortFunc(live, byID)
		for i := range items { // some items depend on live nodes, some on nothing live
			if items[i].Op == OpSet && len(live) > 0 && r.Intn(2) == 0 {
				items[i].Deps = []string{live[r.Intn(len(live))].ID, fmt.Sprintf("ent_gone%d", r.Intn(4))}[:1+r.Intn(2)]
			}
		}
		composed := Compose(live, items)
		d := Diff(live, composed)
		if got := applyChanges(d, live); !reflect.DeepEqual(got, composed) {
			t.Fatalf("round %d: Apply(Diff) = %v, want %v", round, got, composed)
		}
		named := map[string]bool{}
		for _, it := range items {
			named[it.NodeID] = true
		}
		for _, ref := range d.Set {
			if !named[ref.ID] {
				t.Fatalf("round %d: diff sets %s, which no item names", round, ref.ID)
			}
		}
		for _, id := range d.Removed {
			if !named[id] {
				t.Fatalf("round %d: diff removes %s, which no item names", round, id)
			}
		}
		wanted := map[string]bool{}
		for _, it := range items {
			wanted[it.NodeID] = true
			for _, dep := range it.Deps {
				wanted[dep] = true
			}
		}
		var subset []Ref
		for _, ref := range live {
			if wanted[ref.ID] {
				subset = append(subset, ref)
			}
		}
		sub := Compose(subset, items)
		if got := Diff(subset, sub); !reflect.DeepEqual(got, d) {
			t.Fatalf("round %d: diff on the subset %v, on the whole %v", round, got, d)
		}
		if !reflect.DeepEqual(Conflicts(subset, items), Conflicts(live, items)) {
			t.Fatalf("round %d: conflicts differ on the subset", round)
		}
		id1, m1 := MissingDependency(sub, items)
		id2, m2 := MissingDependency(composed, items)
		if id1 != id2 || m1 != m2 {
			t.Fatalf("round %d: missing dependency %q %v on the subset, %q %v on the whole", round, id1, m1, id2, m2)
		}
	}
}

// applyChanges is before with c applied, sorted by id: what a store that
// keeps changes reads back, the inverse of Diff.
func applyChanges(c Changes, before []Ref) []Ref {
	gone := make(map[string]bool, len(c.Removed)+len(c.Set))
	for _, id := range c.Removed {
		gone[id] = true
	}
	for _, r := range c.Set {
		gone[r.ID] = true
	}
	out := make([]Ref, 0, len(before)+len(c.Set))
	for _, r := range before {
		if !gone[r.ID] {
			out = append(out, r)
		}
	}
	out = append(out, c.Set...)
	slices.SortFunc(out, byID)
	return out
}
