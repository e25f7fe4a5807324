package main

import (
	"os"
	"testing"

	"studio/engine/identity"
	"studio/store/storetest"
)

// TestMain removes the binary the process tests built and stops the
// Chromium the browser tests shared and the PostgreSQL server the tests on
// both engines started.
func TestMain(m *testing.M) {
	// The binary the process tests start hashes at the real cost; these
	// tests' own apps and commands need not (identity.CheapHashesForTests).
	identity.CheapHashesForTests()
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	if chromium.stop != nil {
		chromium.stop()
	}
	storetest.Stop()
	os.Exit(code)
}
