package releases_test

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
)

// TestClosureReadsOnlyItsPart: on random sites (pages referencing each
// other, some never existing, some deleted, some live, some edited since),
// pinning any nodes reads only their part of the graph and gives exactly
// what it gives on the whole graph: the same items, reasons, bases and
// targets, or the same refusal naming the same nodes.
func TestClosureReadsOnlyItsPart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for seed := range int64(3) {
		r := rand.New(rand.NewSource(seed))
		b := newBundle(t)
		var ids []string
		for i := range 30 {
			status := content.StatusDraft
			if r.Intn(2) == 0 {
				status = content.StatusPublished
			}
			var refs []string
			for range r.Intn(4) {
				if len(ids) > 0 && r.Intn(5) > 0 {
					refs = append(refs, ids[r.Intn(len(ids))])
				} else {
					refs = append(refs, fmt.Sprintf("pag_never%d", r.Intn(3)))
				}
			}
			ids = append(ids, b.drPage(t, fmt.Sprintf("Page %d", i), status, refs...).ID)
		}
		for range 8 { // cycles: older pages come to reference newer ones
			b.drSetRefs(t, ids[r.Intn(10)], ids[10+r.Intn(20)], ids[r.Intn(30)])
		}
		b.drPublish(t)
		for range 6 {
			b.drEditText(t, ids[r.Intn(len(ids))], "edited since")
		}
		for range 3 {
			id := ids[r.Intn(len(ids))]
			if err := b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, id, b.Node(t, id).Rev); err != nil {
				t.Fatal(err)
			}
		}
		added, refused := 0, 0
		for round := range 60 {
			var set, remove []string
			for range 1 + r.Intn(3) {
				set = append(set, ids[r.Intn(len(ids))])
			}
			if r.Intn(3) == 0 {
				remove = append(remove, ids[r.Intn(len(ids))])
			}
			whole, part, wholeErr, partErr := b.Releases.ClosureBothWays(ctx, b.Site.ID, set, remove)
			if !reflect.DeepEqual(wholeErr, partErr) {
				t.Fatalf("seed %d round %d, set %v remove %v: refusal %v on the whole graph, %v on its part", seed, round, set, remove, wholeErr, partErr)
			}
			if !reflect.DeepEqual(whole, part) {
				t.Fatalf("seed %d round %d, set %v remove %v:\nwhole %+v\npart  %+v", seed, round, set, remove, whole, part)
			}
			if wholeErr != nil {
				refused++
			} else if len(release.Closure(whole)) > 0 {
				added++
			}
		}
		if added == 0 || refused == 0 {
			t.Fatalf("seed %d: %d pinnings with a closure, %d refused: the sites do not exercise both", seed, added, refused)
		}
	}
}
