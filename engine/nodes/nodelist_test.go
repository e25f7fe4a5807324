package nodes_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/internal/enginetest"
	"studio/engine/model/release"
	"studio/engine/nodes"
)

// TestListNodesUpdatedSince: the content list keeps what changed at or
// after an instant (an agent's "what is new since I last looked"), and
// leaves media files out when asked, on both databases.
func TestListNodesUpdatedSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	since := b.Clock.Now().Add(time.Hour)
	b.Clock.Set(since)
	fresh := b.CreateNode(t, b.Site.ID, release.KindContentEntry, content.Body{Title: "Council votes", Slug: "council-votes",
		Status: content.StatusDraft, Text: "Tonight."})
	ids := func(f nodes.NodeFilter) []string {
		list, err := b.Nodes.ListNodes(ctx, b.Editor, b.Site.ID, f, 1)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range list.Nodes {
			out = append(out, n.ID)
		}
		return out
	}
	if got := ids(nodes.NodeFilter{UpdatedSince: since}); !slices.Equal(got, []string{fresh.ID}) {
		t.Fatalf("changed since %s: %v, want only %s", since, got, fresh.ID)
	}
	if got := ids(nodes.NodeFilter{UpdatedSince: since.Add(time.Second)}); len(got) != 0 {
		t.Fatalf("changed a second later: %v", got)
	}
	if all := ids(nodes.NodeFilter{}); len(all) < 2 || !slices.Contains(all, fresh.ID) {
		t.Fatalf("no filter: %v", all)
	}
	// NoAssets: pages and entries only, though a media file changed last.
	img, err := b.Nodes.CreateAsset(ctx, b.Editor, b.Site.ID, content.Body{Title: "Chart", Slug: "chart.png", Status: content.StatusPublished, Mime: "image/png",
		Data: enginetest.TinyPNG, Alt: "A chart"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(nodes.NodeFilter{UpdatedSince: since}); !slices.Contains(got, img.ID) {
		t.Fatalf("without NoAssets the media file is listed: %v", got)
	}
	if got := ids(nodes.NodeFilter{UpdatedSince: since, NoAssets: true}); !slices.Equal(got, []string{fresh.ID}) {
		t.Fatalf("NoAssets: %v, want only %s", got, fresh.ID)
	}
}
