package site

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/public"
)

// A snapshot's model built from the one before (its items kept unless
// their node changed) is the model built from scratch, and so is its first
// view when derived from the one before's: over random additions, edits
// (title, date, slug, gates, references), unpublishes and removals of
// pages, entries and assets, some sharing a slug, told by the engine what
// changed, at random instants.
func TestSnapshotFromTheOneBeforeIsBuiltFromScratch(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { testFromTheOneBefore(t, rand.New(rand.NewPCG(seed, 5))) })
	}
}

func testFromTheOneBefore(t *testing.T, rng *rand.Rand) {
	nodes := map[string]engine.LiveNode{}
	day := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	kinds := map[string]release.NodeKind{"ent": release.KindContentEntry, "pag": release.KindPage, "ast": release.KindAsset}
	randomID := func() string { return fmt.Sprintf("%s_%02d", []string{"ent", "pag", "ast"}[rng.IntN(3)], rng.IntN(40)) }
	version := 0
	node := func(id string) engine.LiveNode {
		version++
		at := day.Add(time.Duration(rng.IntN(5)) * time.Hour) // ties on purpose
		status := content.StatusPublished
		if rng.IntN(5) == 0 {
			status = content.StatusDraft
		}
		slug := id
		if rng.IntN(90) == 0 {
			slug = "shared" // two live nodes with one slug, now and then
		}
		b := content.Body{Title: fmt.Sprint("Title ", rng.IntN(4)), Slug: slug, Status: status, PublishedAt: &at,
			Text: fmt.Sprint("Text ", version)}
		if rng.IntN(4) == 0 {
			gateAt := day.Add(time.Duration(rng.IntN(6)) * time.Hour)
			if rng.IntN(2) == 0 {
				b.Availability = &content.Availability{From: &gateAt}
			} else {
				b.Availability = &content.Availability{Until: &gateAt}
			}
		}
		for range rng.IntN(3) {
			b.Refs = append(b.Refs, randomID())
		}
		return engine.LiveNode{Ref: release.Ref{ID: id, Kind: kinds[id[:3]], Rev: int64(version), Hash: fmt.Sprint("h", version)},
			Body: b}
	}
	site := engine.Site{ID: "site_a", Name: "A", TimeZone: "Europe/Istanbul", Lang: "en"}
	snap := func(n int) *public.Snapshot {
		s := site
		s.PublishedSnapshotID, s.Rev = fmt.Sprint("snp_", n), int64(n)
		list := slices.Collect(maps.Values(nodes))
		slices.SortFunc(list, func(a, b engine.LiveNode) int { return strings.Compare(a.ID, b.ID) })
		return public.NewSnapshot(s, list)
	}
	// Mostly a few minutes after the instant before, within its gate
	// interval; now and then anywhere.
	last := day
	instant := func() time.Time {
		if rng.IntN(4) == 0 {
			last = day.Add(time.Duration(rng.IntN(7*60)) * time.Minute)
		} else {
			last = last.Add(time.Duration(rng.IntN(5)) * time.Minute)
		}
		return last
	}
	var base *snapshot
	derived := 0
	for step := range 400 {
		changed := map[string]bool{}
		for range 1 + rng.IntN(4) {
			id := randomID()
			changed[id] = true
			if _, ok := nodes[id]; ok && rng.IntN(3) == 0 {
				delete(nodes, id)
			} else {
				nodes[id] = node(id)
			}
		}
		want := newSnapshot("k", snap(step), nil)
		next := want
		if base != nil {
			told := snap(step)
			told.FromID, told.Changed = base.site.PublishedSnapshotID, changed
			got := newSnapshot("k", told, base)
			if w, g := itemsOf(want), itemsOf(got); w != g {
				t.Fatalf("step %d: from the one before\n%s\nfrom scratch\n%s", step, g, w)
			}
			now := instant()
			if d := got.derive(now); d != nil {
				derived++
				if w, g := viewOf(want.build(want.pub.At(now))), viewOf(d); w != g {
					t.Fatalf("step %d at %s: derived\n%s\nbuilt whole\n%s", step, now, g, w)
				}
			}
			if w, g := viewOf(want.viewAt(now)), viewOf(got.viewAt(now)); w != g {
				t.Fatalf("step %d at %s: the first view\n%s\nbuilt whole\n%s", step, now, g, w)
			}
			if got.base != nil || got.fresh != nil {
				t.Fatalf("step %d: the snapshot keeps the one before after its first view", step)
			}
			next = got
		}
		next.viewAt(instant()) // the view the next step derives from, maybe in another interval
		base = next
	}
	t.Logf("%d of 400 first views derived", derived)
	if derived < 200 {
		t.Errorf("only %d of 400 first views were derived", derived)
	}
}

func itemsOf(sn *snapshot) string {
	var b strings.Builder
	for _, it := range sn.items {
		fmt.Fprintf(&b, "%s %s %v %v\n", it.id, it.entry.Title, it.entry.PublishedAt, it.entry.Body)
	}
	for _, a := range sn.assets {
		fmt.Fprintf(&b, "%s %s %s\n", a.id, a.slug, a.etag)
	}
	return b.String()
}

// viewOf prints every list and lookup of a view.
func viewOf(v *view) string {
	var b strings.Builder
	ids := func(items []*item) (out []string) {
		for _, it := range items {
			out = append(out, it.id)
		}
		return out
	}
	fmt.Fprintln(&b, "entries", ids(v.entries), "pages", ids(v.pages), "interval", v.interval, "shadowed", v.shadowed)
	for _, p := range v.frame.Pages {
		fmt.Fprintln(&b, "menu", p.Path, p.Title)
	}
	for _, path := range slices.Sorted(maps.Keys(v.byPath)) {
		fmt.Fprintln(&b, "path", path, v.byPath[path].id)
	}
	for _, id := range slices.Sorted(maps.Keys(v.byID)) {
		fmt.Fprintln(&b, "id", id, v.byID[id].entry.Path)
	}
	for _, slug := range slices.Sorted(maps.Keys(v.media)) {
		fmt.Fprintln(&b, "media", slug, v.media[slug].id)
	}
	for _, id := range slices.Sorted(maps.Keys(v.mediaIDs)) {
		fmt.Fprintln(&b, "asset", id, v.mediaIDs[id].slug)
	}
	return b.String()
}
