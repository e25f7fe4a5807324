package public

import (
	"context"
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
)

// told is the node use cases' side of SnapshotAfter in these tests: what changed
// since the snapshot before, as the store would say it.
type told struct {
	Nodes
	set  []engine.LiveNode
	gone []string
}

func (t *told) LiveChangesSince(context.Context, engine.Site, string) ([]engine.LiveNode, []string, bool, error) {
	return t.set, t.gone, true, nil
}

// A snapshot derived from the one before, and its views derived from that
// one's, are what the whole build answers: over random sites of pages,
// entries and assets that refer to each other, with embargoes, expiries
// and drafts, changed a few nodes at a time (new, edited, unpublished,
// gone), each derived from a derived one, at random instants.
func TestDerivedSnapshotAndViewsEqualTheWholeBuild(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			testDerivations(t, rand.New(rand.NewPCG(seed, 14)))
		})
	}
}

func testDerivations(t *testing.T, rng *rand.Rand) {
	base := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	hour := func() *time.Time { at := base.Add(time.Duration(rng.IntN(12)) * time.Hour); return &at }
	kinds := map[string]release.NodeKind{"pag": release.KindPage, "ent": release.KindContentEntry, "ast": release.KindAsset}
	randomID := func() string { return fmt.Sprintf("%s_%02d", []string{"pag", "ent", "ast"}[rng.IntN(3)], rng.IntN(15)) }
	live := map[string]engine.LiveNode{}
	version := 0
	node := func(id string) engine.LiveNode {
		version++
		b := content.Body{Title: id, Slug: id, Status: content.StatusPublished}
		if rng.IntN(5) == 0 {
			b.Status = content.StatusDraft
		}
		if rng.IntN(3) == 0 {
			b.Availability = &content.Availability{}
			if rng.IntN(2) == 0 {
				b.Availability.From = hour()
			} else {
				b.Availability.Until = hour()
			}
		}
		for range rng.IntN(4) {
			b.Refs = append(b.Refs, randomID())
		}
		return engine.LiveNode{Ref: release.Ref{ID: id, Kind: kinds[id[:3]], Rev: int64(version)}, Body: b}
	}
	whole := func(n int) *Snapshot {
		site := engine.Site{ID: "site_a", PublishedSnapshotID: fmt.Sprint("snp_", n), Rev: int64(n)}
		list := slices.Collect(maps.Values(live))
		slices.SortFunc(list, func(a, b engine.LiveNode) int { return strings.Compare(a.ID, b.ID) })
		return NewSnapshot(site, list)
	}
	eng := &told{}
	pv := New(nil, eng, nil)
	prev := whole(0)
	sincePrev := map[string]bool{} // the ids changed since prev's snapshot
	derivedViews, wholeViews := 0, 0
	for step := 1; step <= 300; step++ {
		for range 1 + rng.IntN(4) {
			id := randomID()
			sincePrev[id] = true
			if _, ok := live[id]; ok && rng.IntN(4) == 0 {
				delete(live, id)
			} else {
				live[id] = node(id)
			}
		}
		eng.set, eng.gone = nil, nil
		for id := range sincePrev {
			if n, ok := live[id]; ok {
				eng.set = append(eng.set, n)
			} else {
				eng.gone = append(eng.gone, id)
			}
		}
		want := whole(step)
		got, err := pv.SnapshotAfter(context.Background(), want.Site, prev)
		if err != nil {
			t.Fatal(err)
		}
		if w, g := describe(want), describe(got); w != g {
			t.Fatalf("step %d: derived\n%s\nwhole\n%s", step, g, w)
		}
		for range 3 {
			at := base.Add(time.Duration(rng.IntN(13*60)) * time.Minute)
			now := at.Add(time.Duration(rng.IntN(20)) * time.Minute) // mostly within one gate interval
			if rng.IntN(3) == 0 {
				now = base.Add(time.Duration(rng.IntN(13*60)) * time.Minute)
			}
			before := prev.At(at)
			v, ok := got.AtAfter(now, before)
			if !ok {
				if prev.Interval(at) == prev.Interval(now) {
					t.Fatalf("step %d: not derived within one interval", step)
				}
				wholeViews++
				continue
			}
			derivedViews++
			w := got.At(now)
			if !maps.Equal(w.Visible, v.Visible) || w.Interval != v.Interval || w.NextGate != v.NextGate || w.HasNext != v.HasNext {
				t.Fatalf("step %d at %s from %s: derived %v, whole %v", step, now, at, v, w)
			}
			for id := range got.Changed {
				if !slices.Contains(v.Redone, id) {
					t.Fatalf("step %d: changed %s is not redone %v", step, id, v.Redone)
				}
			}
			for id := range live {
				if before.Visible[id] != w.Visible[id] && !slices.Contains(v.Redone, id) {
					t.Fatalf("step %d: %s is visible %v, was %v, and not redone %v", step, id, w.Visible[id], before.Visible[id], v.Redone)
				}
			}
		}
		if rng.IntN(4) > 0 { // otherwise the next step derives from further back
			prev = got
			clear(sincePrev)
		}
	}
	if derivedViews < 300 || wholeViews < 50 {
		t.Errorf("%d views derived, %d not: both ways want exercising", derivedViews, wholeViews)
	}
}

// describe prints what a snapshot holds, its referrers in a fixed order.
func describe(p *Snapshot) string {
	var b strings.Builder
	for i, n := range p.Nodes {
		fmt.Fprintf(&b, "%s r%d %v\n", n.ID, n.Rev, p.gates[i])
	}
	for _, asset := range slices.Sorted(maps.Keys(p.referrers)) {
		ids := []string{}
		for _, g := range p.referrers[asset] {
			ids = append(ids, g.ID+fmt.Sprint(g))
		}
		slices.Sort(ids)
		fmt.Fprintf(&b, "%s ← %v\n", asset, ids)
	}
	fmt.Fprintln(&b, p.index.Instants())
	return b.String()
}
