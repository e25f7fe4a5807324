package public_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/internal/enginetest"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/public"
)

// SnapshotAfter builds a site's next public snapshot from one prepared
// before, reading only what changed since. Over a random sequence of new,
// edited, unpublished and deleted nodes published by hand and by scheduled
// releases, built from the step before or from several steps back, it
// equals the snapshot read whole, every step.
func TestSnapshotAfterEqualsTheWholeRead(t *testing.T) {
	b := enginetest.New(t)
	ctx := context.Background()
	whole := public.New(b.Releases, b.Nodes, b.Store)
	counted := &countedNodes{Nodes: b.Nodes}
	pub := public.New(b.Releases, counted, b.Store)
	rng := rand.New(rand.NewPCG(14, 23))
	loc, err := localtime.LoadZone(b.Site.TimeZone)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string           // the nodes not deleted
	number := map[string]int{} // each node's number, in its title and slug
	var prev *public.Snapshot
	fromPrev := 0
	for step := range 80 {
		body := func(i int, status content.Status) content.Body {
			return content.Body{Title: fmt.Sprintf("Story %d", i), Slug: fmt.Sprintf("story-%d", i), Status: status,
				Text: fmt.Sprintf("Version of step %d.", step)}
		}
		status := content.StatusPublished
		if rng.IntN(4) == 0 {
			status = content.StatusDraft
		}
		switch op := rng.IntN(5); {
		case op <= 1 || len(ids) == 0: // a new node
			id := b.CreateNode(t, b.Site.ID, release.KindContentEntry, body(len(number), status)).ID
			number[id] = len(number)
			ids = append(ids, id)
		case op == 2: // an edit, maybe unpublishing it
			i := rng.IntN(len(ids))
			n := b.Node(t, ids[i])
			if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, n.ID, n.Rev, body(number[n.ID], status)); err != nil {
				t.Fatal(err)
			}
		case op == 3: // a deletion
			i := rng.IntN(len(ids))
			n := b.Node(t, ids[i])
			if err := b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, n.ID, n.Rev); err != nil {
				t.Fatal(err)
			}
			ids = append(ids[:i], ids[i+1:]...)
		default: // a scheduled release of one node, run by the tick
			i := rng.IntN(len(ids))
			n := b.Node(t, ids[i])
			edited, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, n.ID, n.Rev, body(number[n.ID], content.StatusDraft))
			if err != nil {
				t.Fatal(err)
			}
			at := b.Clock.Now().Add(2 * time.Minute).Truncate(time.Minute).In(loc)
			b.Schedule(t, b.Editor, edited, at.Format("2006-01-02"), at.Format("15:04"))
			b.Clock.Set(at)
			if rep := b.Tick(t); rep.Published != 1 {
				t.Fatalf("step %d: the release's tick %+v", step, rep)
			}
		}
		if rng.IntN(3) > 0 { // otherwise the change is in the working copy only until the next publish
			if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil && !isNothingToPublish(err) {
				t.Fatal(err)
			}
		}
		site, err := b.Eng.Site(ctx, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, err := whole.Snapshot(ctx, site)
		if err != nil {
			t.Fatal(err)
		}
		counted.wholeReads = 0
		got, err := pub.SnapshotAfter(ctx, site, prev)
		if err != nil {
			t.Fatal(err)
		}
		if w, g := nodesOf(want), nodesOf(got); w != g {
			t.Fatalf("step %d: built from the snapshot before:\n%s\nread whole:\n%s", step, g, w)
		}
		if prev != nil && prev.Site.PublishedSnapshotID != "" { // from nothing, the whole read is the change
			fromPrev++
			if counted.wholeReads != 0 {
				t.Fatalf("step %d: built from an earlier snapshot, it read the whole site", step)
			}
		}
		if rng.IntN(3) > 0 { // otherwise the next step builds from further back
			prev = got
		}
	}
	if fromPrev < 40 {
		t.Errorf("only %d of 80 steps built from an earlier snapshot", fromPrev)
	}
}

func nodesOf(p *public.Snapshot) string {
	var b strings.Builder
	for _, n := range p.Nodes {
		fmt.Fprintln(&b, *n)
	}
	return b.String()
}

// countedNodes counts the reads of a whole live snapshot.
type countedNodes struct {
	*nodes.Nodes
	wholeReads int
}

func (c *countedNodes) LiveNodes(ctx context.Context, site engine.Site) ([]engine.LiveNode, error) {
	c.wholeReads++
	return c.Nodes.LiveNodes(ctx, site)
}

func isNothingToPublish(err error) bool {
	e, ok := engine.AsError(err)
	return ok && e.Code == release.CodeNothingToPublish
}
