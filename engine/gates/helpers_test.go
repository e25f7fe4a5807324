package gates_test

import (
	"testing"
	"time"

	"studio/engine/internal/enginetest"
)

// The fixture is shared by the engine's test packages (engine/internal/enginetest).
var start = enginetest.Start // Monday 2 November 2026, 08:00 in Istanbul

// testBundle is the shared fixture, with this package's own helpers as
// methods.
type testBundle struct{ *enginetest.Bundle }

func newBundle(tb testing.TB) *testBundle { return &testBundle{enginetest.New(tb)} }

func sameInstant(tb testing.TB, what string, got, want time.Time) {
	tb.Helper()
	enginetest.SameInstant(tb, what, got, want)
}
