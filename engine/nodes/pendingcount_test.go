package nodes_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// TestPendingCountIsPendingRefs: the content list's count of changes
// waiting to go live (one statement, PendingCount) is PendingRefs' changed
// through random creates, edits, deletes, schedules (a held node),
// unschedules, publishes and releases that run.
func TestPendingCountIsPendingRefs(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			b := newBundle(t)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(seed, 0x9e11d))
			status := func() content.Status {
				return []content.Status{content.StatusDraft, content.StatusPublished, content.StatusPublished}[rng.IntN(3)]
			}
			var nodes []string
			held := map[string]string{} // node → release
			check := func(step int, what string) {
				_, changed, err := b.Nodes.PendingRefs(ctx, b.Site.ID)
				if err != nil {
					t.Fatal(err)
				}
				n, err := b.Nodes.PendingCount(ctx, b.Editor, b.Site.ID)
				if err != nil {
					t.Fatal(err)
				}
				if n != changed {
					t.Fatalf("step %d (%s): PendingCount %d, PendingRefs %d", step, what, n, changed)
				}
			}
			for step := range 120 {
				var what string
				switch op := rng.IntN(8); {
				case op == 0 || len(nodes) < 3:
					kind := []release.NodeKind{release.KindContentEntry, release.KindPage}[rng.IntN(2)]
					n := b.CreateNode(t, b.Site.ID, kind, content.Body{Title: fmt.Sprint("Node ", step), Slug: fmt.Sprint("node-", step), Status: status(), Text: "v1"})
					nodes, what = append(nodes, n.ID), "create"
				case op == 1:
					id := nodes[rng.IntN(len(nodes))]
					d := b.NodeOn(t, b.Site.ID, id)
					if _, ok := held[id]; ok || d.Held != nil {
						continue
					}
					if err := b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, id, d.Rev); err == nil {
						what = "delete"
						nodes = removeID(nodes, id)
					}
				case op == 2:
					if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err == nil {
						what = "publish"
					}
				case op == 3:
					id := nodes[rng.IntN(len(nodes))]
					if _, ok := held[id]; ok {
						continue
					}
					d := b.NodeOn(t, b.Site.ID, id)
					r, err := b.Releases.ScheduleNode(ctx, b.Editor, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: id, ExpectedRev: d.Rev,
						Date: "2026-11-03", Time: fmt.Sprintf("%02d:00", 9+rng.IntN(10))})
					if err == nil {
						held[id], what = r.ID, "schedule"
					}
				case op == 4:
					for id, rid := range held {
						r := b.Release(t, rid)
						if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, rid, r.Rev); err != nil {
							t.Fatal(err)
						}
						delete(held, id)
						what = "unschedule"
						break
					}
				case op == 5: // the releases due run: their nodes go live and are held no more
					b.Clock.Set(b.Clock.Now().Add(4 * time.Hour))
					b.Tick(t)
					for id := range held {
						if b.NodeOn(t, b.Site.ID, id).Held == nil {
							delete(held, id)
						}
					}
					what = "tick"
				default:
					id := nodes[rng.IntN(len(nodes))]
					d := b.NodeOn(t, b.Site.ID, id)
					body := d.Body
					body.Text, body.Status = fmt.Sprint("v", step), status()
					if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, id, d.Rev, body); err == nil {
						what = "edit"
					}
				}
				check(step, what)
			}
		})
	}
}

func removeID(ids []string, id string) []string {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}
