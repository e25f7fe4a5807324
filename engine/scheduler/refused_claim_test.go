package scheduler_test

import (
	"context"
	"testing"

	"studio/engine"
	"studio/engine/internal/enginetest"
	"studio/engine/releases"
	"studio/engine/scheduler"
)

// racedStore runs between once, after the ticker's reads and before its
// write (another ticker publishing in that moment), and counts the claims
// asked of it.
type racedStore struct {
	scheduler.Store
	between func()
	claims  int
}

func (s *racedStore) ApplyRelease(ctx context.Context, a scheduler.Apply) (bool, error) {
	if f := s.between; f != nil {
		s.between = nil
		f()
	}
	return s.Store.ApplyRelease(ctx, a)
}

func (s *racedStore) ClaimRelease(ctx context.Context, c scheduler.Claim) (bool, error) {
	s.claims++
	return s.Store.ClaimRelease(ctx, c)
}

// TestARefusedClaimIsNotAskedTwice: two tickers plan the same due release;
// the one whose write comes second is refused by the one-transaction
// publish's claim guard (ErrNotClaimable), writes nothing, and does not
// ask ClaimRelease, whose guard is the same, to refuse it again.
func TestARefusedClaimIsNotAskedTwice(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	b.Clock.Set(enginetest.Nine)
	raced := &racedStore{Store: b.Store}
	var first scheduler.TickReport
	raced.between = func() { first = b.Tick(t) }
	second, err := scheduler.New(releases.New(engine.New(b.Store, b.Clock, nil), b.Store), raced, nil).RunDue(ctx, "manual")
	if err != nil || first.Published != 1 || second.Published != 0 || second.Ran != 0 {
		t.Fatalf("first ticker %+v, second %+v (%v); want one publish, by the first", first.RunTally, second.RunTally, err)
	}
	if raced.claims != 0 {
		t.Errorf("the second ticker asked ClaimRelease %d times after its claim was refused", raced.claims)
	}
	runs := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id = ?`, r.ID)
	snaps := b.Count(t, `SELECT count(*) FROM snapshots WHERE json_extract(metadata, '$."studio.release"') = ?`, r.ID)
	if runs != 1 || snaps != 1 {
		t.Errorf("the release has %d runs and %d snapshots, want one each", runs, snaps)
	}
}
