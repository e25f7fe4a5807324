package release

import (
	"math/rand"
	"reflect"
	"regexp"
	"slices"
	"testing"
)

// The contract vector (DESIGN.md "Contracts to keep exactly", RFC §10.4).
func TestHashVector(t *testing.T) {
	const want = "rl1:717808cb4c10a95bf4868ffcbe5bd24cb1102be270a5cc33ec97198f36b1df9d"
	if got := Hash("site_demo", vectorItems()); got != want {
		t.Fatalf("Hash = %s, want %s", got, want)
	}
	if !regexp.MustCompile(`^rl1:[0-9a-f]{64}$`).MatchString(want) {
		t.Fatal("vector does not match the schema pattern")
	}
}

// Input order never matters; the caller's slice is left as it was.
func TestHashOrderIndependent(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for range 200 {
		_, items := randomCase(r, 30, 1+r.Intn(40))
		want := Hash("site_x", items)
		shuffled := slices.Clone(items)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		before := slices.Clone(shuffled)
		if got := Hash("site_x", shuffled); got != want {
			t.Fatalf("shuffled items hash to %s, want %s", got, want)
		}
		if !reflect.DeepEqual(shuffled, before) {
			t.Fatal("Hash modified its input")
		}
	}
}

// Every field is bound: changing any one changes the hash.
func TestHashCoversEveryField(t *testing.T) {
	base := Hash("site_demo", vectorItems())
	cases := map[string]func(site *string, it []Item){
		"site":             func(s *string, _ []Item) { *s = "site_other" },
		"op":               func(_ *string, it []Item) { it[1].Op = OpRemove },
		"node id":          func(_ *string, it []Item) { it[0].NodeID = "ent_a2" },
		"node kind":        func(_ *string, it []Item) { it[1].NodeKind = KindContentEntry },
		"target rev":       func(_ *string, it []Item) { it[0].Target.Rev = 8 },
		"target hash":      func(_ *string, it []Item) { it[0].Target.Hash = "sha256-aab" },
		"target dropped":   func(_ *string, it []Item) { it[0].Target = nil },
		"base rev":         func(_ *string, it []Item) { it[0].Base.Rev = 5 },
		"base hash":        func(_ *string, it []Item) { it[2].Base.Hash = "sha256-dde" },
		"base added":       func(_ *string, it []Item) { it[1].Base = v(2, "sha256-ccb") },
		"target ⇄ base":    func(_ *string, it []Item) { it[0].Target, it[0].Base = it[0].Base, it[0].Target },
		"item replaced":    func(_ *string, it []Item) { it[2] = it[1] },
		"hash is not rev":  func(_ *string, it []Item) { it[0].Target = v(7, "sha256-aaa ") },
		"rev zero vs none": func(_ *string, it []Item) { it[1].Base = v(0, "") },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			site, items := "site_demo", vectorItems()
			mutate(&site, items)
			if Hash(site, items) == base {
				t.Fatal("hash unchanged")
			}
		})
	}
}

// Deps are internal and not part of the binding.
func TestHashIgnoresDeps(t *testing.T) {
	items := vectorItems()
	want := Hash("site_demo", items)
	items[0].Deps = []string{"ast_1"}
	if Hash("site_demo", items) != want {
		t.Fatal("deps changed the hash")
	}
}
