package nodes_test

import (
	"testing"
	"time"

	"studio/engine"
	"studio/engine/internal/enginetest"
)

// The fixture is the one every engine test package shares
// (engine/internal/enginetest); these are its short names here.
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

// nine is 09:00 on the fixture's day in Istanbul: the time most tests
// schedule.
var nine = enginetest.Nine
