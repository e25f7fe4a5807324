package settings_test

import (
	"testing"

	"studio/engine"
	"studio/engine/internal/enginetest"
	"studio/store/storetest"
)

// TestMain stops the PostgreSQL server of a conformance run (storetest).
func TestMain(m *testing.M) { storetest.Main(m) }

// The fixture is shared by the engine's test packages (engine/internal/enginetest).
var (
	start = enginetest.Start // Monday 2 November 2026, 08:00 in Istanbul
	nine  = enginetest.Nine  // 09:00 that day: the time most tests schedule
)

type testBundle struct{ *enginetest.Bundle }

func newBundle(tb testing.TB) *testBundle { return &testBundle{enginetest.New(tb)} }

func wantRefusal(tb testing.TB, err error, code, field string) *engine.Error {
	tb.Helper()
	return enginetest.WantRefusal(tb, err, code, field)
}
