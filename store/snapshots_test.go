package store_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/store"
	"studio/store/storetest"
)

// snapshotModel is the naive store the shared one must agree with: every
// snapshot a full copy of its refs.
type snapshotModel struct {
	st    *store.Store
	site  engine.Site
	refs  map[string][]release.Ref // snapshot id → its refs
	order []string                 // snapshot ids, oldest first
	now   time.Time
	r     *rand.Rand
}

func newSnapshotModel(t *testing.T, path string, seed int64) *snapshotModel {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m := &snapshotModel{st: st, site: engine.Site{ID: "site_a", Name: "A", TimeZone: "UTC", Hash: "h0"},
		refs: map[string][]release.Ref{}, now: time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), r: rand.New(rand.NewSource(seed))}
	if err := st.CreateSite(ctx, m.site, m.now); err != nil {
		t.Fatal(err)
	}
	return m
}

// next is the live refs with a few random changes: new versions, removals
// and new nodes, out of a pool of 40 nodes.
func (m *snapshotModel) next() []release.Ref {
	byID := map[string]release.Ref{}
	if n := len(m.order); n > 0 {
		for _, r := range m.refs[m.order[n-1]] {
			byID[r.ID] = r
		}
	}
	for range 1 + m.r.Intn(4) {
		id := fmt.Sprintf("ent_%02d", m.r.Intn(40))
		if _, live := byID[id]; live && m.r.Intn(3) == 0 {
			delete(byID, id)
			continue
		}
		byID[id] = release.Ref{ID: id, Kind: release.KindContentEntry, Rev: byID[id].Rev + 1, Hash: fmt.Sprintf("sha256-%x", m.r.Uint64())}
	}
	out := make([]release.Ref, 0, len(byID))
	for _, r := range byID {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b release.Ref) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// publish makes refs live as a new snapshot, given either in full (a
// publish of the working copy, an Undo) or as its changes (a release's run).
func (m *snapshotModel) publish(t *testing.T, reason string, refs []release.Ref, asChanges bool) {
	t.Helper()
	m.now = m.now.Add(time.Minute)
	snap := engine.Snapshot{ID: fmt.Sprintf("snp_%04d", len(m.order)), SiteID: m.site.ID, ParentID: m.site.PublishedSnapshotID,
		Reason: reason, Actor: engine.Scheduler, CreatedAt: m.now}
	if asChanges {
		var parent []release.Ref
		if len(m.order) > 0 {
			parent = m.refs[m.order[len(m.order)-1]]
		}
		c := release.Diff(parent, refs)
		snap.Changes = &c
	} else {
		snap.Refs = refs
	}
	newHash := fmt.Sprintf("h%d", len(m.order)+1)
	err := m.st.PublishSnapshot(context.Background(), m.site, newHash, snap,
		engine.AuditEntry{Action: "site.publish", Actor: engine.Scheduler, SiteID: m.site.ID, At: m.now})
	if err != nil {
		t.Fatalf("publish %s: %v", snap.ID, err)
	}
	m.site.PublishedSnapshotID, m.site.Rev, m.site.Hash = snap.ID, m.site.Rev+1, newHash
	m.refs[snap.ID] = slices.Clone(refs)
	m.order = append(m.order, snap.ID)
}

// step publishes one random change, or rolls back to a random earlier
// snapshot as Undo does (a new snapshot with the old one's refs).
func (m *snapshotModel) step(t *testing.T) {
	t.Helper()
	switch k := m.r.Intn(10); {
	case k < 2 && len(m.order) > 1:
		m.publish(t, "rollback", m.refs[m.order[m.r.Intn(len(m.order)-1)]], false)
	case k < 5:
		m.publish(t, "manual", m.next(), false)
	default:
		m.publish(t, "scheduled", m.next(), true)
	}
}

// check compares the store with the model: the snapshot with id in full, a
// random subset of its nodes by key, and the site's live nodes.
func (m *snapshotModel) check(t *testing.T, id string) {
	t.Helper()
	ctx := context.Background()
	want := m.refs[id]
	got, err := m.st.Snapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Refs, nonNil(want)) {
		t.Fatalf("snapshot %s: store has %v, model %v", id, got.Refs, want)
	}
	var ids []string
	var subset []release.Ref
	for i := range 40 {
		nodeID := fmt.Sprintf("ent_%02d", i)
		if m.r.Intn(4) == 0 {
			ids = append(ids, nodeID)
			if j := slices.IndexFunc(want, func(r release.Ref) bool { return r.ID == nodeID }); j >= 0 {
				subset = append(subset, want[j])
			}
		}
	}
	sub, err := m.st.SnapshotRefs(ctx, id, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sub, nonNil(subset)) {
		t.Fatalf("snapshot %s, nodes %v: store has %v, model %v", id, ids, sub, subset)
	}
}

func nonNil(refs []release.Ref) []release.Ref {
	if refs == nil {
		return []release.Ref{}
	}
	return refs
}

func (m *snapshotModel) checkAll(t *testing.T) {
	t.Helper()
	for _, id := range m.order {
		m.check(t, id)
	}
}

// TestSnapshotStoreProperty: over random sequences of publishes (in full
// and as changes) and rollbacks, every snapshot of the shared store reads
// exactly as a full copy would: the live one and every older one, in full
// and by key.
func TestSnapshotStoreProperty(t *testing.T) {
	for seed := range int64(4) {
		m := newSnapshotModel(t, storetest.Database(t), seed)
		for range 120 {
			m.step(t)
			m.check(t, m.order[len(m.order)-1])
			m.check(t, m.order[m.r.Intn(len(m.order))])
		}
		m.checkAll(t)
	}
}

// TestSnapshotStoreMigration: a database whose snapshots are full copies
// (as before migration 0022) reads the same after it, old snapshots and
// live one, and goes on publishing and rolling back as changes, back to a
// snapshot made before the migration too.
func TestSnapshotStoreMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "studio.db")
	m := newSnapshotModel(t, path, 7)
	for range 30 {
		m.step(t)
	}
	// The database as it was before 0022: refs JSON in every snapshot,
	// no seq, no snapshot_refs.
	legacy := []string{`DROP TRIGGER snapshot_changes`, `DROP TABLE snapshot_refs`, `DROP INDEX snapshots_seq`,
		`ALTER TABLE snapshots DROP COLUMN changes`, `ALTER TABLE snapshots DROP COLUMN seq`,
		`DELETE FROM schema_migrations WHERE version = 22`}
	for _, q := range legacy[:3] {
		if _, err := m.st.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	for id, refs := range m.refs {
		data := "["
		for i, r := range refs {
			if i > 0 {
				data += ","
			}
			data += fmt.Sprintf(`{"id":%q,"kind":%q,"rev":%d,"hash":%q}`, r.ID, r.Kind, r.Rev, r.Hash)
		}
		if _, err := m.st.DB().ExecContext(ctx, `UPDATE snapshots SET refs = ? WHERE id = ?`, data+"]", id); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range legacy[3:] {
		if _, err := m.st.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	m.st.Close()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m.st = st
	var inRows int
	if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM snapshot_refs WHERE until_seq IS NULL`).Scan(&inRows); err != nil {
		t.Fatal(err)
	}
	if want := len(m.refs[m.site.PublishedSnapshotID]); inRows != want {
		t.Fatalf("the live snapshot moved %d refs into rows, want %d", inRows, want)
	}
	m.checkAll(t)
	m.publish(t, "rollback", m.refs[m.order[3]], false) // to a snapshot kept as JSON
	for range 30 {
		m.step(t)
	}
	m.checkAll(t)
}

// TestGenerationMovesOnEveryCommit: the public site's cue to read the
// sites again moves on a commit of this store at once, on another
// process's (a second Store on the file) within OtherProcessesEvery, and
// stays while nothing is written.
func TestGenerationMovesOnEveryCommit(t *testing.T) {
	ctx := context.Background()
	path := storetest.Database(t)
	if storetest.OnPostgres() {
		// PostgreSQL's counter is the server's: a commit to another
		// database (make test's processes share a server) moves it too,
		// which costs a needless read of the sites and nothing else.
		path = storetest.PostgresAlone(t)
	}
	a, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	other, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	gen := func() int64 {
		t.Helper()
		g, err := a.Generation(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	now := time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)
	g0 := gen()
	if _, err := a.Sites(ctx); err != nil {
		t.Fatal(err)
	}
	if g := gen(); g != g0 {
		t.Fatalf("a read moved the generation from %d to %d", g0, g)
	}
	if err := a.CreateSite(ctx, engine.Site{ID: "site_a", Name: "A", TimeZone: "UTC", Hash: "h"}, now); err != nil {
		t.Fatal(err)
	}
	g1 := gen()
	if g1 == g0 {
		t.Fatal("this store's commit did not move the generation")
	}
	if err := other.CreateSite(ctx, engine.Site{ID: "site_b", Name: "B", TimeZone: "UTC", Hash: "h"}, now); err != nil {
		t.Fatal(err)
	}
	time.Sleep(store.OtherProcessesEvery)
	g2 := gen()
	if g2 == g1 {
		t.Fatal("another process's commit did not move the generation")
	}
	time.Sleep(store.OtherProcessesEvery)
	if g := gen(); g != g2 {
		t.Fatalf("nothing committed, yet the generation moved from %d to %d", g2, g)
	}
}
