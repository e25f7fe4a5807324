package releases_test

import (
	"testing"
	"time"

	"studio/engine"
	"studio/engine/internal/enginetest"
)

// The fixture is shared by the engine's test packages (engine/internal/enginetest).
var (
	start = enginetest.Start // Monday 2 November 2026, 08:00 in Istanbul
	nine  = enginetest.Nine  // 09:00 that day: the time most tests schedule
	// tinyPNG is a whole 1×1 PNG, for a media file's bytes.
	tinyPNG = enginetest.TinyPNG
)

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

// on is u acting on the site siteID, with the role they hold on the
// bundle's own site (enginetest.On).
func on(u engine.User, siteID string) engine.User { return enginetest.On(u, siteID) }
