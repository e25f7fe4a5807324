package scheduler_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/engine/scheduler"
)

// hookedStore is the bundle's store for an engine standing in for another
// ticker process: right after its first successful claim, afterClaim runs
// (the process freezes there) and, if it returns an error, the claim call
// fails with it (the process dies there, its claim left in the database).
type hookedStore struct {
	scheduler.Store
	afterClaim func() error
	fired      bool
}

// ApplyRelease refuses the one-transaction publish, as a failed write
// would, so this ticker takes the claimed way: its moment between claim
// and effect is what the hook is about.
func (s *hookedStore) ApplyRelease(ctx context.Context, a scheduler.Apply) (bool, error) {
	if a.Claim != nil {
		return false, errClaimFirst
	}
	return s.Store.ApplyRelease(ctx, a)
}

var errClaimFirst = errors.New("test: the one-transaction publish is refused")

func (s *hookedStore) ClaimRelease(ctx context.Context, c scheduler.Claim) (bool, error) {
	ok, err := s.Store.ClaimRelease(ctx, c)
	if ok && err == nil && !s.fired {
		s.fired = true
		if err := s.afterClaim(); err != nil {
			return false, err
		}
	}
	return ok, err
}

var errDied = errors.New("the ticker process died")

// leaseBundle is a bundle with two more articles and a scheduler (another
// ticker process) whose first claim dies or freezes as afterClaim says.
func leaseBundle(t *testing.T, afterClaim func() error) (*testBundle, *scheduler.Scheduler, [3]content.Node) {
	t.Helper()
	b := newBundle(t)
	nodes := [3]content.Node{b.Article,
		b.CreateNode(t, b.Site.ID, release.KindContentEntry, content.Body{Title: "Second", Slug: "second", Status: content.StatusDraft}),
		b.CreateNode(t, b.Site.ID, release.KindContentEntry, content.Body{Title: "Third", Slug: "third", Status: content.StatusDraft})}
	dead := scheduler.New(releases.New(engine.New(b.Store, b.Clock, nil), b.Store), &hookedStore{Store: b.Store, afterClaim: afterClaim}, nil)
	return b, dead, nodes
}

// published fails unless each release is published exactly once (one
// snapshot, one publish audit row, one succeeded run), each on top of the
// one before it: the site's time order (D15).
func publishedInOrder(t *testing.T, b *testBundle, ids ...string) []releases.ReleaseRow {
	t.Helper()
	var out []releases.ReleaseRow
	for i, id := range ids {
		r := b.Release(t, id)
		snaps := b.Count(t, `SELECT count(*) FROM snapshots WHERE json_extract(metadata, '$."studio.release"') = ?`, id)
		audits := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.publish' AND release_id = ?`, id)
		runs := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id = ? AND state = 'succeeded'`, id)
		if r.State != release.StatePublished || snaps != 1 || audits != 1 || runs != 1 {
			t.Fatalf("release %d (%s) is %s with %d snapshots, %d publish audits, %d succeeded runs; want published once",
				i+1, id, r.State, snaps, audits, runs)
		}
		if i > 0 && r.Outcome.BaseSnapshotID != out[i-1].Outcome.SnapshotID {
			t.Fatalf("release %d was published on %s, not on release %d's snapshot %s: out of time order",
				i+1, r.Outcome.BaseSnapshotID, i, out[i-1].Outcome.SnapshotID)
		}
		out = append(out, r)
	}
	return out
}

// TestDeadTickerHoldsItsSiteOneLeaseAtMost is issue 10 item 2: a ticker
// that dies between claiming a release and finishing it held every other
// release of the site for its ten-minute lease. Now the lease is a minute;
// when it ends the next tick takes the dead run over and publishes it, then
// the site's next releases, in time order, each within a minute of its time.
func TestDeadTickerHoldsItsSiteOneLeaseAtMost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, dead, n := leaseBundle(t, func() error { return errDied })
	r1 := b.Schedule(t, b.Editor, n[0], "2026-11-02", "09:00")
	r2 := b.Schedule(t, b.Editor, n[1], "2026-11-02", "09:00") // the same minute: after r1 in the site's order only if its id is
	r3 := b.Schedule(t, b.Editor, n[2], "2026-11-02", "09:01")
	first, second := r1.ID, r2.ID
	if second < first {
		first, second = second, first
	}

	b.Clock.Set(nine)
	if _, err := dead.RunDue(ctx, "node"); !errors.Is(err, errDied) {
		t.Fatalf("the dying tick: %v", err)
	}
	if got := b.Release(t, first); got.State != release.StateRunning || got.LeaseUntil == nil || got.LeaseUntil.After(nine.Add(90*time.Second)) {
		t.Fatalf("the dead run's release: %s, lease until %v; want running under a lease of at most 90 s", got.State, got.LeaseUntil)
	}

	// While the lease lasts, the site waits: one release at a time (D15).
	b.Clock.Set(nine.Add(30 * time.Second))
	if rep := b.Tick(t); rep.Published != 0 {
		t.Fatalf("a release was published beside a live run: %+v", rep)
	}
	// Once it has ended, the dead run is taken over and the others follow.
	b.Clock.Set(nine.Add(leaseEnd(t, b, first)))
	for range 3 {
		b.Tick(t)
	}
	b.Clock.Set(nine.Add(time.Minute + time.Second))
	b.Tick(t)
	rows := publishedInOrder(t, b, first, second, r3.ID)
	for _, r := range rows[1:] {
		if late := *r.Outcome.LatenessSeconds; late >= 60 {
			t.Errorf("%s was published %d s late, want within a minute of its time", r.ID, late)
		}
	}
}

// leaseEnd is how long after 09:00 the lease of release id ends, plus a
// millisecond.
func leaseEnd(t *testing.T, b *testBundle, id string) time.Duration {
	t.Helper()
	r := b.Release(t, id)
	if r.LeaseUntil == nil {
		t.Fatalf("%s has no lease", id)
	}
	return r.LeaseUntil.Sub(nine) + time.Millisecond
}

// TestFrozenTickerStopsBeforeItsEffect freezes a ticker between its claim
// and its effect (as SIGSTOP does) for three minutes, during which another
// ticker takes the run over and publishes the site's releases. When the
// frozen one goes on, its lease is gone: it publishes nothing, twice or
// out of order, and reports no error.
func TestFrozenTickerStopsBeforeItsEffect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var b *testBundle
	var r [2]release.Release
	var tookOver error
	b, frozen, n := leaseBundle(t, func() error {
		b.Clock.Advance(3 * time.Minute)
		_, tookOver = b.Sched.RunDue(ctx, "node") // the other process, while this one is frozen
		return nil
	})
	r[0] = b.Schedule(t, b.Editor, n[0], "2026-11-02", "09:00")
	r[1] = b.Schedule(t, b.Editor, n[1], "2026-11-02", "09:01")

	b.Clock.Set(nine)
	if _, err := frozen.RunDue(ctx, "node"); err != nil {
		t.Fatalf("the frozen tick, once it went on: %v", err)
	}
	if tookOver != nil {
		t.Fatalf("the other ticker's tick: %v", tookOver)
	}
	publishedInOrder(t, b, r[0].ID, r[1].ID)
	if got := b.Count(t, `SELECT attempt FROM schedule_runs WHERE subject_id = ?`, r[0].ID); got != 2 {
		t.Errorf("the first release's run has %d attempts, want 2 (the frozen claim and the takeover)", got)
	}
	// Nothing more happens later either.
	b.Clock.Advance(time.Minute)
	b.Tick(t)
	publishedInOrder(t, b, r[0].ID, r[1].ID)
}

// TestTickerFrozenBeforeItsOneTransactionWritesNothing is the moment the
// one-transaction publish has instead: a ticker frozen between its run's
// reads and its write, while another ticker publishes the release and the
// next. When it goes on, its write's claim guard fails and the claimed way
// it then takes finds the release taken: nothing twice, no error.
func TestTickerFrozenBeforeItsOneTransactionWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, _, n := leaseBundle(t, nil)
	var tookOver error
	frozen := scheduler.New(releases.New(engine.New(b.Store, b.Clock, nil), b.Store), &frozenWrite{Store: b.Store, before: func() {
		b.Clock.Advance(2 * time.Minute)
		_, tookOver = b.Sched.RunDue(ctx, "node")
	}}, nil)
	r1 := b.Schedule(t, b.Editor, n[0], "2026-11-02", "09:00")
	r2 := b.Schedule(t, b.Editor, n[1], "2026-11-02", "09:01")
	b.Clock.Set(nine)
	rep, err := frozen.RunDue(ctx, "node")
	if err != nil || tookOver != nil || rep.Ran != 0 {
		t.Fatalf("the frozen tick: %+v, %v; the other: %v", rep, err, tookOver)
	}
	publishedInOrder(t, b, r1.ID, r2.ID)
	if got := b.Count(t, `SELECT attempt FROM schedule_runs WHERE subject_id = ?`, r1.ID); got != 1 {
		t.Errorf("the first release's run has %d attempts, want 1", got)
	}
}

// frozenWrite runs before once, right before the first one-transaction
// publish: the ticker freezes between its reads and its write.
type frozenWrite struct {
	scheduler.Store
	before func()
}

func (s *frozenWrite) ApplyRelease(ctx context.Context, a scheduler.Apply) (bool, error) {
	if f := s.before; f != nil && a.Claim != nil {
		s.before = nil
		f()
	}
	return s.Store.ApplyRelease(ctx, a)
}

// TestStatusNamesReleasesNobodyTook is the health report of item 2: a
// release past its time by more than a minute that nobody claimed, and a
// running one past the end of its lease, for /health, the Scheduler card
// and the notifications alike.
func TestStatusNamesReleasesNobodyTook(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, dead, n := leaseBundle(t, func() error { return errDied })
	r1 := b.Schedule(t, b.Editor, n[0], "2026-11-02", "09:00")
	r2 := b.Schedule(t, b.Editor, n[1], "2026-11-02", "09:01")
	b.Clock.Set(nine)
	if _, err := dead.RunDue(ctx, "node"); !errors.Is(err, errDied) {
		t.Fatalf("the dying tick: %v", err)
	}
	st, err := b.Sched.Status(ctx, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Healthy() || len(st.PastLease) != 0 || len(st.DueNotClaimed) != 0 {
		t.Fatalf("right after the claim: %+v, want healthy", st)
	}

	// Nobody ticks. At 09:02:30 the first is 90 s past its lease, the
	// second 90 s past its time.
	b.Clock.Set(nine.Add(150 * time.Second))
	for _, site := range []string{b.Site.ID, ""} {
		st, err = b.Sched.Status(ctx, site)
		if err != nil {
			t.Fatal(err)
		}
		if st.Healthy() || len(st.PastLease) != 1 || st.PastLease[0].ID != r1.ID ||
			len(st.DueNotClaimed) != 1 || st.DueNotClaimed[0].ID != r2.ID || st.DueNotClaimed[0].Title == "" {
			t.Fatalf("site %q: past lease %+v, due not claimed %+v; want %s and %s", site, st.PastLease, st.DueNotClaimed, r1.ID, r2.ID)
		}
	}
	other, err := b.CreateSite(ctx, "Other", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if st, err = b.Sched.Status(ctx, other.ID); err != nil || len(st.PastLease)+len(st.DueNotClaimed) != 0 {
		t.Fatalf("another site: %+v %v, want nothing stuck", st, err)
	}
	// On a route no site is in, a person learns of their own sites' only.
	if st, err = b.Sched.StatusOf(ctx, b.Editor); err != nil || len(st.PastLease) != 1 || len(st.DueNotClaimed) != 1 {
		t.Fatalf("the site's editor: %+v %v, want both", st, err)
	}
	stranger := engine.User{ID: ids.New("user"), Email: "other@example.com", Name: "Olcay", Role: policy.Owner, SiteID: other.ID, Lang: "en"}
	if err := b.Store.CreateUser(ctx, stranger, "x", nine); err != nil {
		t.Fatal(err)
	}
	if st, err = b.Sched.StatusOf(ctx, stranger); err != nil || len(st.PastLease)+len(st.DueNotClaimed) != 0 {
		t.Fatalf("an Owner of another site only: %+v %v, want nothing of this site's named", st, err)
	}

	// A tick takes both; the report is clear again.
	b.Tick(t)
	b.Tick(t)
	if st, err = b.Sched.Status(ctx, b.Site.ID); err != nil || len(st.PastLease)+len(st.DueNotClaimed) != 0 {
		t.Fatalf("after the tick: %+v %v", st, err)
	}
}
