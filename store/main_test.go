package store_test

import (
	"testing"

	"studio/store/storetest"
)

// TestMain stops the PostgreSQL server the conformance run started.
func TestMain(m *testing.M) { storetest.Main(m) }
