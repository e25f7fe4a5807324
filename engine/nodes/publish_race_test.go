package nodes_test

import (
	"context"
	"testing"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/store"
)

// cancelBetweenReads cancels a release between nodes.Publish's read of the
// working copy and its read of the holds: the moment the two reads disagree.
type cancelBetweenReads struct {
	*store.Store
	cancel func()
}

func (c *cancelBetweenReads) HeldNodes(ctx context.Context, siteID, nodeID string) (map[string]releases.Held, error) {
	if f := c.cancel; f != nil {
		c.cancel = nil
		f()
	}
	return c.Store.HeldNodes(ctx, siteID, nodeID)
}

// A publish whose reads straddle a cancel saw the scheduled draft's
// promoted version without its hold; that version must not go live (it was
// put back to a draft). The publish's transaction re-checks every changed
// ref against the working copy and refuses; nothing changes.
func TestPublishStraddlingACancelPublishesNothingStale(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00") // promotes the draft
	racer := &cancelBetweenReads{Store: b.Store}
	eng := releases.New(engine.New(racer, b.Clock, nil), racer)
	racer.cancel = func() {
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, b.Release(t, r.ID).Rev); err != nil {
			t.Fatal(err)
		}
	}
	_, err := nodes.New(eng, racer).Publish(ctx, b.Editor, b.Site.ID)
	if e, ok := engine.AsError(err); !ok || e.Code != engine.CodeStale {
		t.Fatalf("publish = %v, want a stale refusal", err)
	}
	if racer.cancel != nil {
		t.Fatal("the cancel did not run between the reads")
	}
	if _, live := b.Live(t)[b.Article.ID]; live {
		t.Fatal("the canceled release's promoted version went live")
	}
	if got := b.Release(t, r.ID); got.State != release.StateCanceled {
		t.Fatalf("release %s", got.State)
	}
	// Read again, the publish has nothing to put live: the article is a
	// draft again.
	_, err = b.Nodes.Publish(ctx, b.Editor, b.Site.ID)
	wantRefusal(t, err, release.CodeNothingToPublish, "")
}
