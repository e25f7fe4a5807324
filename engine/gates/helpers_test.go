package gates_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/internal/enginetest"
	"studio/engine/settings"
)

// The fixture is shared by the engine's test packages (engine/internal/enginetest).
var start = enginetest.Start // Monday 2 November 2026, 08:00 in Istanbul

// testBundle is the shared fixture, with this package's own helpers as
// methods.
type testBundle struct{ *enginetest.Bundle }

func newBundle(tb testing.TB) *testBundle { return &testBundle{enginetest.New(tb)} }

func wantRefusal(tb testing.TB, err error, code, field string) *engine.Error {
	tb.Helper()
	return enginetest.WantRefusal(tb, err, code, field)
}

func sameInstant(tb testing.TB, what string, got, want time.Time) {
	tb.Helper()
	enginetest.SameInstant(tb, what, got, want)
}

// refuseChange fails unless change is refused with code and field and
// writes nothing (as the root's tests check it).
func (b *testBundle) refuseChange(t *testing.T, code, field string, change func() error) *engine.Error {
	t.Helper()
	before := b.Dump(t)
	e := wantRefusal(t, change(), code, field)
	if after := b.Dump(t); after != before {
		t.Fatalf("a refused change (%s) changed the database:\nbefore:\n%s\nafter:\n%s", code, before, after)
	}
	return e
}

// pause turns the site's kill switch on as u.
func (b *testBundle) pause(tb testing.TB, u engine.User, reason string) {
	tb.Helper()
	ctx := context.Background()
	s, err := b.Eng.ScheduleSettings(ctx, b.Site.ID)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, u, b.Site.ID, true, reason, s.Rev); err != nil {
		tb.Fatalf("pause: %v", err)
	}
}
