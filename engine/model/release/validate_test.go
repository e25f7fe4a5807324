package release

import (
	"fmt"
	"slices"
	"testing"
)

func TestValidateItems(t *testing.T) {
	set := func(id string, kind NodeKind, target, base *Version) Item {
		return Item{Op: OpSet, NodeID: id, NodeKind: kind, Target: target, Base: base}
	}
	rm := func(id string, kind NodeKind, base *Version) Item {
		return Item{Op: OpRemove, NodeID: id, NodeKind: kind, Base: base}
	}
	many := func(n int) []Item {
		out := make([]Item, n)
		for i := range out {
			out[i] = set(fmt.Sprintf("ent_%03d", i), KindContentEntry, v(1, "h"), nil)
		}
		return out
	}
	tests := []struct {
		name  string
		items []Item
		code  string
		node  string
	}{
		{"the contract example", vectorItems(), "", ""},
		{"every release kind", []Item{
			set("a", KindPage, v(1, "h"), nil), set("b", KindContentEntry, v(1, "h"), nil),
			set("c", KindTaxonomy, v(1, "h"), nil), set("d", KindTerm, v(1, "h"), nil),
			set("e", KindRedirect, v(1, "h"), nil), set("f", KindMenu, v(1, "h"), nil),
			set("g", KindAsset, v(1, "h"), nil),
		}, "", ""},
		{"100 items", many(100), "", ""},
		{"no items", nil, CodeNoItems, ""},
		{"empty items", []Item{}, CodeNoItems, ""},
		{"101 items", many(101), CodeTooManyItems, ""},
		{"duplicate node", []Item{set("ent_a", KindContentEntry, v(2, "h2"), nil), rm("ent_a", KindContentEntry, v(1, "h1"))}, CodeDuplicateNode, "ent_a"},
		{"site node", []Item{set("site_x", "site", v(2, "h"), nil)}, CodeBadNodeKind, "site_x"},
		{"unknown kind", []Item{set("x", "widget", v(2, "h"), nil)}, CodeBadNodeKind, "x"},
		{"empty kind", []Item{set("x", "", v(2, "h"), nil)}, CodeBadNodeKind, "x"},
		{"set without target", []Item{set("ent_a", KindContentEntry, nil, v(1, "h"))}, CodeMissingTarget, "ent_a"},
		{"target equals base", []Item{set("ent_a", KindContentEntry, v(3, "h3"), v(3, "h3"))}, CodeNothingToPublish, "ent_a"},
		{"same rev, new hash", []Item{set("ent_a", KindContentEntry, v(3, "h4"), v(3, "h3"))}, "", ""},
		{"remove with target", []Item{{Op: OpRemove, NodeID: "pag_a", NodeKind: KindPage, Target: v(2, "h"), Base: v(1, "h")}}, CodeBadRemoval, "pag_a"},
		{"remove without base", []Item{rm("pag_a", KindPage, nil)}, CodeBadRemoval, "pag_a"},
		{"remove a page", []Item{rm("pag_a", KindPage, v(1, "h"))}, "", ""},
		{"remove an entry", []Item{rm("ent_a", KindContentEntry, v(1, "h"))}, "", ""},
		{"remove a redirect", []Item{rm("red_a", KindRedirect, v(1, "h"))}, "", ""},
		{"remove a term", []Item{rm("trm_a", KindTerm, v(1, "h"))}, CodeBadRemoval, "trm_a"},
		{"remove a taxonomy", []Item{rm("tax_a", KindTaxonomy, v(1, "h"))}, CodeBadRemoval, "tax_a"},
		{"remove a menu", []Item{rm("mnu_a", KindMenu, v(1, "h"))}, CodeBadRemoval, "mnu_a"},
		{"remove an asset", []Item{rm("ast_a", KindAsset, v(1, "h"))}, CodeBadRemoval, "ast_a"},
		{"unknown op", []Item{{Op: "publish", NodeID: "ent_a", NodeKind: KindContentEntry, Target: v(1, "h")}}, CodeBadOp, "ent_a"},
		{"first error in node-id order", []Item{rm("zzz", KindMenu, v(1, "h")), set("aaa", KindPage, nil, nil)}, CodeMissingTarget, "aaa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.items)
			err := ValidateItems(tt.items)
			if got := code(err); got != tt.code {
				t.Fatalf("code %q (%v), want %q", got, err, tt.code)
			}
			if e, ok := err.(*Error); ok && e.NodeID != tt.node {
				t.Fatalf("node %q, want %q", e.NodeID, tt.node)
			}
			if !slices.EqualFunc(before, tt.items, func(a, b Item) bool { return a.NodeID == b.NodeID }) {
				t.Fatal("ValidateItems reordered its input")
			}
		})
	}
}
