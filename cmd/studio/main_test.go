package main

import (
	"testing"

	"studio/store/storetest"
)

// TestMain stops the PostgreSQL server the tests on both engines started.
func TestMain(m *testing.M) { storetest.Main(m) }
