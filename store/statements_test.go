package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
)

// TestStatementsPerTickPath holds each scheduler path to a statement budget,
// like the reference package's TickMeter table (its numbers in comments):
// a tick is cheap enough to run every minute on a small machine, and a
// change that adds a query to a hot path shows here.
func TestStatementsPerTickPath(t *testing.T) {
	measure := func(t *testing.T, b *bundle) int64 {
		t.Helper()
		before := b.store.Statements()
		b.tick(t)
		return b.store.Statements() - before
	}
	cases := []struct {
		name   string
		budget int64
		run    func(t *testing.T) int64
	}{
		{"IdleTick", 1, func(t *testing.T) int64 { // reference: 1 (2 with the heartbeat)
			b := setup(t)
			b.schedule(t, b.editor) // due later: the tick must not touch it
			b.tick(t)               // the first tick writes the heartbeat
			b.clock.Advance(time.Minute)
			return measure(t, b)
		}},
		{"IdleTickWithHeartbeat", 2, func(t *testing.T) int64 { // reference: 2
			b := setup(t)
			b.tick(t)
			b.clock.Advance(5 * time.Minute)
			return measure(t, b)
		}},
		// Counting BEGIN and COMMIT (the reference does not): the due
		// read (the approver comes with it), the site with the live refs
		// of the items, the live-address check, the claim and the publish
		// in one guarded transaction (8) and the heartbeat.
		{"ReleasePublished", 12, func(t *testing.T) int64 { // reference: 17–18
			b := setup(t)
			r := b.schedule(t, b.editor)
			b.clock.Set(r.When.At)
			return measure(t, b)
		}},
		// The same on a site with a live snapshot of many nodes: the same
		// statements whatever its size.
		{"ReleasePublishedOnLiveSite", 12, func(t *testing.T) int64 {
			b := setup(t)
			b.publishPages(t, 50)
			r := b.schedule(t, b.editor)
			b.clock.Set(r.When.At)
			return measure(t, b)
		}},
		{"ReleaseMissed", 10, func(t *testing.T) int64 { // reference: 7; +1 here to put back the promoted draft, +2 BEGIN/COMMIT
			b := setup(t)
			r := b.schedule(t, b.editor)
			b.clock.Set(r.When.At.Add(2 * time.Hour))
			return measure(t, b)
		}},
		// A person's Publish now of a missed release (§8.6): the release
		// read, the claim (release, holds, run), the tick's run (approver,
		// site with the live refs, the guarded batch plus
		// promoting the put-back draft again and its version), and the
		// release read back, with BEGIN and COMMIT of its two transactions:
		// 20 here, where nothing was live yet.
		{"PublishNow", 20, func(t *testing.T) int64 {
			b := setup(t)
			r := b.schedule(t, b.editor)
			b.clock.Set(r.When.At.Add(2 * time.Hour))
			b.tick(t)
			rel := b.release(t, r.ID)
			before := b.store.Statements()
			got, err := b.sched.PublishNow(context.Background(), b.editor, b.site.ID, r.ID, rel.Rev)
			if err != nil || got.State != release.StatePublished {
				t.Fatalf("PublishNow: %s, %v", got.State, err)
			}
			return b.store.Statements() - before
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.run(t)
			t.Logf("%s: %d statements (budget %d)", c.name, got, c.budget)
			if got > c.budget {
				t.Errorf("%s took %d statements, budget %d", c.name, got, c.budget)
			}
		})
	}
}

// publishPages makes n published pages live, as a site that has been
// running for a while.
func (b *bundle) publishPages(t *testing.T, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		if _, err := b.nodes.CreateNode(ctx, b.editor, b.site.ID, release.KindPage, content.Body{Title: fmt.Sprintf("Page %d", i),
			Slug: fmt.Sprintf("page-%d", i), Status: content.StatusPublished, Text: "Text."}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.nodes.Publish(ctx, b.editor, b.site.ID); err != nil {
		t.Fatal(err)
	}
}
