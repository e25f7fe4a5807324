package scheduler_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/internal/enginetest"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/internal/newsroomfixture"
	"studio/store/storetest"
)

// TestPublishCostBySiteSize publishes one-item releases on a small site and
// on a newsroom's archive, side by side in one run, and compares what each
// costs (issue 14: the cost of the items, not of the site). Always: every
// release goes live changing exactly its item, and the bytes a publish
// writes (the WAL it adds) do not grow with the site. With STUDIO_PERF=1
// (make bench) the archive has 50,000 articles and the time of each tick
// is printed next to the small site's, median of several rounds; without,
// 2,000, and no time is asserted (the machines are shared).
func TestPublishCostBySiteSize(t *testing.T) {
	big, rounds := 2000, 3
	if os.Getenv("STUDIO_PERF") == "1" {
		big, rounds = 50000, 9
	}
	// On PostgreSQL the bytes written are the server's WAL: a server of
	// its own, which no other test process writes to (make test's share
	// one).
	b := &testBundle{}
	if storetest.OnPostgres() {
		b.Bundle = enginetest.NewAt(t, storetest.PostgresAlone(t))
	} else {
		b = newBundle(t)
	}
	ctx := context.Background()
	small, err := b.CreateSite(ctx, "Small", "Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	large, err := b.CreateSite(ctx, "Newsroom", "Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	for _, s := range []struct {
		id string
		n  int
	}{{small.ID, 10}, {large.ID, big}} {
		site, err := b.Eng.Site(ctx, s.id)
		if err != nil {
			t.Fatal(err)
		}
		if err := newsroomfixture.Seed(ctx, b.Store.DB(), b.Nodes, site, enginetest.On(b.Editor, site.ID), b.Clock.Now(), s.n); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("fixture: 10 and %d live articles in %s", big, time.Since(began).Round(time.Millisecond))

	// The bytes a tick writes: SQLite's write-ahead log, emptied before
	// it; PostgreSQL's, as its position moves.
	walAt := func() int64 {
		if !storetest.OnPostgres() {
			b.Exec(t, `PRAGMA wal_checkpoint(TRUNCATE)`)
			return 0
		}
		var lsn int64
		if err := b.Store.DB().QueryRowContext(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint`).Scan(&lsn); err != nil {
			t.Fatal(err)
		}
		return lsn
	}
	walSince := func(from int64) int64 {
		if storetest.OnPostgres() {
			return walAt() - from
		}
		fi, err := os.Stat(b.Path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	type cost struct {
		schedule, d time.Duration
		bytes       int64
	}
	publish := func(siteID string, i int) cost {
		t.Helper()
		t0 := time.Now()
		n := b.CreateNode(t, siteID, release.KindContentEntry, content.Body{Title: fmt.Sprintf("Breaking %d", i),
			Slug: fmt.Sprintf("breaking-%d", i), Status: content.StatusDraft, Text: "News."})
		loc, _ := localtime.LoadZone("Europe/Istanbul")
		w := localtime.WallOf(b.Clock.Now().Add(2*time.Minute).Truncate(time.Minute), loc)
		r := b.Schedule(t, b.Editor, n, w.Date(), w.Clock())
		scheduled := time.Since(t0)
		before := len(b.liveOf(t, siteID))
		b.Clock.Set(r.When.At)
		from := walAt()
		t0 = time.Now()
		if rep := b.Tick(t); rep.Ran != 1 {
			t.Fatalf("tick ran %d releases", rep.Ran)
		}
		d := time.Since(t0)
		written := walSince(from)
		if got, err := b.Store.Release(ctx, siteID, r.ID); err != nil || got.State != release.StatePublished {
			t.Fatalf("release %s: %s, %v", r.ID, got.State, err)
		}
		live := b.liveOf(t, siteID)
		if _, ok := live[n.ID]; !ok || len(live) != before+1 {
			t.Fatalf("live has %d nodes (was %d), the item live: %v", len(live), before, ok)
		}
		if i == 0 {
			var changes, copied int
			// A ref in JSON is its three strings and about 30 bytes of keys.
			err := b.Store.DB().QueryRowContext(ctx, `SELECT length(s.changes), (SELECT sum(length(node_id) + length(kind) + length(hash) + 30)
				FROM snapshot_refs x WHERE x.site_id = s.site_id AND x.until_seq IS NULL) FROM snapshots s
				WHERE s.id = (SELECT published_snapshot_id FROM sites WHERE id = ?)`, siteID).Scan(&changes, &copied)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d live nodes: the snapshot holds %d bytes of changes; a full copy of its refs would be about %d", len(live), changes, copied)
		}
		return cost{scheduled, d, written}
	}
	var costs [2][]cost
	for i := range rounds {
		costs[0] = append(costs[0], publish(small.ID, i))
		costs[1] = append(costs[1], publish(large.ID, i))
	}
	median := func(cs []cost) cost {
		var m cost
		m.schedule = medianOf(cs, func(c cost) time.Duration { return c.schedule })
		m.d = medianOf(cs, func(c cost) time.Duration { return c.d })
		m.bytes = medianOf(cs, func(c cost) int64 { return c.bytes })
		return m
	}
	s, l := median(costs[0]), median(costs[1])
	t.Logf("create + schedule a one-item release: 10 nodes %s; %d nodes %s; ratio %.2f×",
		s.schedule, big, l.schedule, float64(l.schedule)/float64(s.schedule))
	t.Logf("publish a one-item release: 10 nodes %s, %d bytes written; %d nodes %s, %d bytes written; ratio %.2f× time, %.2f× bytes",
		s.d, s.bytes, big, l.d, l.bytes, float64(l.d)/float64(s.d), float64(l.bytes)/float64(s.bytes))
	// Pages, not timings: a deeper B-tree may add a page or two, a copy
	// of the live snapshot (kilobytes per hundred nodes) would not fit.
	if float64(l.bytes) > 1.5*float64(s.bytes) {
		t.Errorf("a publish on the %d-node site writes %d bytes, on the 10-node one %d: it grows with the site", big, l.bytes, s.bytes)
	}
}

func (b *testBundle) liveOf(t *testing.T, siteID string) map[string]bool {
	t.Helper()
	site, err := b.Eng.Site(context.Background(), siteID)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := b.Store.Snapshot(context.Background(), site.PublishedSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, r := range refs.Refs {
		out[r.ID] = true
	}
	return out
}

func medianOf[T any, V int64 | time.Duration](xs []T, f func(T) V) V {
	vs := make([]V, len(xs))
	for i, x := range xs {
		vs[i] = f(x)
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}
