package site

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/public"
	"studio/engine/release"
)

// A snapshot's model built from the one before (its items kept unless
// their node changed) is the model built from scratch: over random
// additions, edits (title, date, text), unpublishes and removals of pages
// and entries, told by the engine what changed.
func TestSnapshotFromTheOneBeforeIsBuiltFromScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	nodes := map[string]engine.LiveNode{}
	day := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	version := 0
	node := func(id string) engine.LiveNode {
		version++
		kind := release.KindContentEntry
		if strings.HasPrefix(id, "pag") {
			kind = release.KindPage
		}
		at := day.Add(time.Duration(rng.IntN(5)) * time.Hour) // ties on purpose
		status := content.StatusPublished
		if rng.IntN(5) == 0 {
			status = content.StatusDraft
		}
		return engine.LiveNode{Ref: release.Ref{ID: id, Kind: kind, Rev: int64(version), Hash: fmt.Sprint("h", version)},
			Body: content.Body{Title: fmt.Sprint("Title ", rng.IntN(4)), Slug: id, Status: status, PublishedAt: &at,
				Text: fmt.Sprint("Text ", version)}}
	}
	site := engine.Site{ID: "site_a", Name: "A", TimeZone: "Europe/Istanbul", Lang: "en"}
	snap := func(n int) *public.Snapshot {
		s := site
		s.PublishedSnapshotID, s.Rev = fmt.Sprint("snp_", n), int64(n)
		list := make([]engine.LiveNode, 0, len(nodes))
		for _, x := range nodes {
			list = append(list, x)
		}
		slices.SortFunc(list, func(a, b engine.LiveNode) int { return strings.Compare(a.ID, b.ID) })
		return public.NewSnapshot(s, list)
	}
	var base *snapshot
	for step := range 200 {
		changed := map[string]bool{}
		for range 1 + rng.IntN(4) {
			id := fmt.Sprintf("%s_%02d", []string{"ent", "pag"}[rng.IntN(2)], rng.IntN(40))
			changed[id] = true
			if _, ok := nodes[id]; ok && rng.IntN(3) == 0 {
				delete(nodes, id)
			} else {
				nodes[id] = node(id)
			}
		}
		pub := snap(step)
		want := newSnapshot("k", pub, nil)
		if base != nil {
			told := snap(step)
			told.FromID, told.Changed = base.site.PublishedSnapshotID, changed
			got := newSnapshot("k", told, base)
			if w, g := itemsOf(want), itemsOf(got); w != g {
				t.Fatalf("step %d: from the one before\n%s\nfrom scratch\n%s", step, g, w)
			}
		}
		base = want
	}
}

func itemsOf(sn *snapshot) string {
	var b strings.Builder
	for _, it := range sn.items {
		fmt.Fprintf(&b, "%s %s %v %v\n", it.id, it.entry.Title, it.entry.PublishedAt, it.entry.Body)
	}
	return b.String()
}
