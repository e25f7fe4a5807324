package site

import (
	"context"
	"fmt"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/public"
)

// What one publish of one article costs the public site's model on a
// 50,000-article newsroom (issue 14): the next snapshot and its first view
// derived from the ones before, next to the same built whole.

// oneChange is the node use cases' side of public.SnapshotAfter here: the one
// node each publish changed.
type oneChange struct {
	public.Nodes
	set []engine.LiveNode
}

func (c *oneChange) LiveChangesSince(context.Context, engine.Site, string) ([]engine.LiveNode, []string, bool, error) {
	return c.set, nil, true, nil
}

// archive is n published articles, each referring to three older ones.
func archive(n int) []engine.LiveNode {
	day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	nodes := make([]engine.LiveNode, n)
	for i := range nodes {
		at := day.Add(time.Duration(i) * 37 * time.Minute)
		b := content.Body{Title: fmt.Sprint("Archive story ", i), Slug: fmt.Sprint("archive-story-", i),
			Status: content.StatusPublished, PublishedAt: &at, Text: "One paragraph.\n\nAnother one."}
		for k := 1; k <= 3 && i-k*7 >= 0; k++ {
			b.Refs = append(b.Refs, fmt.Sprintf("ent_%06d", i-k*7))
		}
		nodes[i] = engine.LiveNode{Ref: release.Ref{ID: fmt.Sprintf("ent_%06d", i), Kind: release.KindContentEntry,
			Rev: 1, Hash: fmt.Sprint("h", i)}, Body: b}
	}
	return nodes
}

func benchmarkPublishes(b *testing.B, derived bool) {
	site := engine.Site{ID: "site_a", Name: "A", TimeZone: "Europe/Istanbul", Lang: "en", PublishedSnapshotID: "snp_0"}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	nodes := archive(50000)
	sn := newSnapshot("k", public.NewSnapshot(site, nodes), nil)
	sn.viewAt(now)
	eng := &oneChange{}
	pv := public.New(nil, eng, nil)
	b.ResetTimer()
	for i := range b.N {
		k := i % len(nodes)
		nodes[k].Rev++
		nodes[k].Body.Title += "!"
		s := sn.site
		s.PublishedSnapshotID, s.Rev = fmt.Sprint("snp_", i+1), int64(i+1)
		var next *snapshot
		if derived {
			eng.set = []engine.LiveNode{nodes[k]}
			pub, err := pv.SnapshotAfter(context.Background(), s, sn.pub)
			if err != nil {
				b.Fatal(err)
			}
			next = newSnapshot("k", pub, sn)
		} else {
			next = newSnapshot("k", public.NewSnapshot(s, append([]engine.LiveNode(nil), nodes...)), nil)
		}
		next.viewAt(now)
		sn = next
	}
}

// BenchmarkPublishDerived50000: the way the public site builds it.
func BenchmarkPublishDerived50000(b *testing.B) { benchmarkPublishes(b, true) }

// BenchmarkPublishWhole50000: the baseline, the snapshot's nodes read.
func BenchmarkPublishWhole50000(b *testing.B) { benchmarkPublishes(b, false) }
