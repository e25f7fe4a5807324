package identity_test

import (
	"testing"

	"studio/engine/internal/enginetest"
)

// testBundle is the shared fixture (engine/internal/enginetest), with this
// package's own helpers as methods.
type testBundle struct{ *enginetest.Bundle }

func newBundle(tb testing.TB) *testBundle { return &testBundle{enginetest.New(tb)} }
